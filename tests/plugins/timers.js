// Timers as the HTML standard and Workers run them (issue 34): a callback
// that throws is reported and the render goes on, and delays are clamped
// by the standard's timer initialization steps (tests/all/web_platform.rs).
// `self` is the global scope, as in a worker.
export function render() {
  return new Promise((resolve) => {
    const order = [];
    setTimeout(() => { throw new Error('timer boom'); }, 0);
    queueMicrotask(() => { throw new TypeError('microtask boom'); });
    // A zero-delay timer set by a timer nested more than 5 deep waits 4 ms,
    // so the 10 ms timer fires between the 8th and the 9th.
    let level = 0;
    const nest = () => {
      level += 1;
      order.push(`nest${level}`);
      if (level < 9) setTimeout(nest, 0);
    };
    setTimeout(nest, 0);
    setTimeout(() => order.push('10ms'), 10);
    // A delay is a WebIDL long: negative is 0, and 2^32 + 1 wraps to 1.
    setTimeout(() => order.push('wrapped'), 2 ** 32 + 1);
    setTimeout(() => order.push('negative'), -5);
    setTimeout(() => resolve(`self: ${self === globalThis}; after the throws: ${order.join(' ')}`), 50);
  });
}
