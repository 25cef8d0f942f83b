//! Timers in real time (the engine drives `runNextTimer` and waits with
//! the host), `queueMicrotask`, `scheduler.wait`.
//!
//! Defines: setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate, queueMicrotask, scheduler
//! Host calls: none
//! Rust: guest-sdk/src/runtime.rs, host/src/engine/v8/mod.rs
//! WPT: html/webappapis/timers, html/webappapis/microtask-queuing
//! Test plugin: tests/plugins/timers.js
  // ---------------------------------------------------------------- timers
  // Timers wait in real time, as on `workerd`: when no microtask is left,
  // the engine drives `runNextTimer`, which runs the earliest timer that
  // is due, or says how long to wait for the next one; the engine waits
  // with the host's `fetch-wait` (which costs no CPU time and ends at the
  // render's wall-clock deadline) and hands its reply to `arrived`.
  // Delays are as `workerd` takes them: a number below 0 (or not a
  // number) is 0, and nothing larger is wrapped or clamped (2^31 ms waits
  // until the deadline); nested timers are not slowed to 4 ms. Timers due
  // at the same time fire in the order they were set. While the bundle's
  // top level runs (at build time) nothing can wait: timers fire in due
  // order at once.
  const realNow = Date.now;
  let nextId = 1;
  let order = 0;
  // The timers set, by id, and a binary heap of them by (due, order), so
  // that 100,000 timers cost a logarithm each: a cleared timer leaves the
  // map at once and the heap when it reaches the top.
  const timers = new Map();
  const heap = [];
  const before = (a, b) => a.due < b.due || (a.due === b.due && a.order < b.order);
  function push(t) {
    let i = heap.push(t) - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!before(heap[i], heap[up])) break;
      [heap[i], heap[up]] = [heap[up], heap[i]];
      i = up;
    }
  }
  function pop() {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l], heap[m])) m = l;
        if (r < heap.length && before(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
    return top;
  }
  // The earliest timer still set, or undefined.
  function earliest() {
    while (heap.length > 0 && timers.get(heap[0].id) !== heap[0]) pop();
    return heap[0];
  }
  function clearTimers() {
    timers.clear();
    heap.length = 0;
  }

  function delayOf(ms) {
    const n = Number(ms);
    return n > 0 ? Math.min(Math.trunc(n), Number.MAX_SAFE_INTEGER) : 0;
  }

  // At most this many timers set at once, per instance: more is a bug
  // or an attack, and each costs memory until the render ends.
  const MAX_TIMERS = 10000;

  function addTimer(fn, ms, args, repeat) {
    if (typeof fn !== 'function') {
      throw new TypeError('The "callback" argument must be of type function');
    }
    if (timers.size >= MAX_TIMERS) {
      throw new RangeError(`setTimeout: ${MAX_TIMERS} timers are already set in this request; clear some before setting more`);
    }
    const delay = delayOf(ms);
    const id = nextId++;
    const t = { id, fn: asyncContext.bind(fn), args, delay, repeat, due: realNow() + delay, order: order++ };
    timers.set(id, t);
    push(t);
    return id;
  }

  // The requests of `fetch` (below) in flight, and the sockets of
  // `connect()` open, by the host's id: while any is, the engine waits.
  const inflight = new Map();
  const sockets = new Map();

  // Runs the next timer if it is due: true if one ran, false if nothing
  // is left that could run. Otherwise the number of milliseconds the
  // engine should wait (-1: no bound, while requests are in flight or sockets open and no
  // timer is set): until the next timer falls due, or a request ends.
  function runNextTimer() {
    const next = earliest();
    if (next === undefined) return inflight.size > 0 || sockets.size > 0 ? -1 : false;
    const now = realNow();
    if (next.due > now && render !== null) return next.due - now;
    pop();
    if (next.repeat) {
      // From its due time, not from now: the order of timers is their due
      // order however late the engine runs them.
      next.due += Math.max(1, next.delay);
      next.order = order++;
      push(next);
    } else {
      timers.delete(next.id);
    }
    try {
      next.fn.apply(g, next.args);
    } catch (e) {
      reportUncaught(e, 'a timer');
    }
    return true;
  }

  defineMissing('setTimeout', (fn, ms, ...args) => addTimer(fn, ms, args, false));
  defineMissing('setInterval', (fn, ms, ...args) => addTimer(fn, ms, args, true));
  defineMissing('setImmediate', (fn, ...args) => addTimer(fn, 0, args, false));
  defineMissing('clearTimeout', (id) => { timers.delete(id); });
  defineMissing('clearInterval', (id) => { timers.delete(id); });
  defineMissing('clearImmediate', (id) => { timers.delete(id); });
  // Workers' `scheduler.wait(ms, { signal })`: a promise that settles
  // after `ms`, or rejects with the signal's reason when it aborts.
  class Scheduler {
    wait(ms, options) {
      const signal = options == null ? undefined : options.signal;
      return new Promise((resolve, reject) => {
        if (signal !== undefined && signal.aborted) {
          reject(signal.reason);
          return;
        }
        const id = addTimer(resolve, ms, [], false);
        if (signal !== undefined) {
          signal.addEventListener('abort', () => {
            timers.delete(id);
            reject(signal.reason);
          }, { once: true });
        }
      });
    }
  }
  defineMissing('scheduler', new Scheduler());
  // Always ours: QuickJS's own drops an exception its callback throws.
  Object.defineProperty(g, 'queueMicrotask', { writable: true, configurable: true, enumerable: false, value: (fn) => {
    if (typeof fn !== 'function') throw new TypeError('queueMicrotask needs a function');
    Promise.resolve().then(() => {
      try {
        fn();
      } catch (e) {
        reportUncaught(e, 'a microtask');
      }
    });
  } });

