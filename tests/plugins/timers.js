// Timers as `workerd` runs them (issues 34 and 56): a callback that throws
// is reported and the render goes on; delays are not wrapped or clamped
// (below 0 is 0, 2^31 waits); timers wait in real time, and the clocks
// move across the wait (tests/all/web_platform.rs). `self` is the global
// scope, as in a worker; `?part=events`: it is an EventTarget whose `error`
// listeners see an uncaught error first and may cancel its report;
// `?part=wait`: what a 300 ms wait measures.
export function render(request) {
  if (request.query?.part === 'events') return events();
  if (request.query?.part === 'wait') return waits();
  return new Promise((resolve) => {
    const order = [];
    setTimeout(() => { throw new Error('timer boom'); }, 0);
    queueMicrotask(() => { throw new TypeError('microtask boom'); });
    // A zero-delay timer set by a timer is due at once, however deep.
    let level = 0;
    const nest = () => {
      level += 1;
      order.push(`nest${level}`);
      if (level < 9) setTimeout(nest, 0);
    };
    setTimeout(nest, 0);
    setTimeout(() => order.push('500ms'), 500);
    setTimeout(() => order.push('2^31 ms'), 2 ** 31);
    setTimeout(() => order.push('2^32 + 1 ms'), 2 ** 32 + 1);
    setTimeout(() => order.push('negative'), -5);
    // Due after the 500 ms timer, whatever the machine's speed: set after it.
    setTimeout(() => resolve(`self: ${self === globalThis}; after the throws: ${order.join(' ')}`), 500);
  });
}

async function waits() {
  const out = [];
  const measure = async (what, wait) => {
    const d = Date.now();
    const p = performance.now();
    await wait();
    out.push(`${what}: Date ${Date.now() - d >= 300}, performance ${performance.now() - p >= 300}`);
  };
  await measure('setTimeout', () => new Promise((r) => setTimeout(r, 300)));
  await measure('scheduler.wait', () => scheduler.wait(300));
  let ticks = 0;
  await measure('setInterval', () => {
    // ES2024's Promise.withResolvers, on both engines (the prelude adds it
    // where V8 10.2 lacks it).
    const { promise, resolve } = Promise.withResolvers();
    const id = setInterval(() => { if (++ticks === 3) { clearInterval(id); resolve(); } }, 100);
    return promise;
  });
  const aborted = new AbortController();
  setTimeout(() => aborted.abort(new Error('stopped')), 10);
  out.push(await scheduler.wait(10000, { signal: aborted.signal }).then(() => 'waited', (e) => e.message));
  out.push(`performance.timeOrigin ${performance.timeOrigin}`);
  out.push(`${navigator.userAgent} ${navigator.hardwareConcurrency} ${navigator.language} ${Object.prototype.toString.call(navigator)}`);
  return out.join('\n');
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
