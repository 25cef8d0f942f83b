// Timers as the HTML standard and Workers run them (issue 34): a callback
// that throws is reported and the render goes on, and delays are clamped
// by the standard's timer initialization steps (tests/all/web_platform.rs).
// `self` is the global scope, as in a worker; `?part=events`: it is an
// EventTarget whose `error` listeners see an uncaught error first and may
// cancel its report.
export function render(request) {
  if (request.query?.part === 'events') return events();
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

function events() {
  return new Promise((resolve) => {
    const seen = [];
    const listener = (e) => {
      seen.push(`${e.constructor.name} ${e.type} ${e.error.message} cancelable=${e.cancelable}`);
      if (e.error.message === 'taken') e.preventDefault();
    };
    self.addEventListener('error', listener);
    setTimeout(() => { throw new Error('taken'); }, 0);
    queueMicrotask(() => { throw new Error('left'); });
    setTimeout(() => {
      self.removeEventListener('error', listener);
      setTimeout(() => { throw new Error('unheard'); }, 0);
      setTimeout(() => resolve(seen.join('; ')), 5);
    }, 5);
  });
}
