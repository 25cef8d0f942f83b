//! Timers in virtual time (the engine drives `runNextTimer`),
//! `queueMicrotask`.
//!
//! Defines: setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate, queueMicrotask
//! Host calls: none
//! Rust: guest-sdk/src/runtime.rs, host/src/engine/v8/mod.rs
//! WPT: html/webappapis/timers, html/webappapis/microtask-queuing
//! Test plugin: tests/plugins/timers.js
  // ---------------------------------------------------------------- timers
  // Delays follow the HTML standard's timer initialization steps: a
  // WebIDL `long` (wrapped to 32 bits), below 0 is 0, and at least 4 ms once
  // timers nest more than 5 deep.
  let clock = 0;
  let nextId = 1;
  let order = 0;
  let nesting = 0;
  const timers = new Map();

  // `level`: the nesting level of the timer that is running (0: none).
  function clampDelay(ms, level) {
    const n = Number(ms);
    const delay = Number.isFinite(n) ? Math.max(0, Math.trunc(n) | 0) : 0;
    return level > 5 && delay < 4 ? 4 : delay;
  }

  function addTimer(fn, ms, args, repeat) {
    if (typeof fn !== 'function') {
      throw new TypeError('The "callback" argument must be of type function');
    }
    const delay = clampDelay(ms, nesting);
    const id = nextId++;
    timers.set(id, { fn: asyncContext.bind(fn), args, ms, delay, repeat, level: nesting + 1, due: clock + delay, order: order++ });
    return id;
  }

  // The requests of `fetch` (below) in flight, by the host's id.
  const inflight = new Map();

  // Runs the next timer: true if one ran, false if nothing is left. While
  // requests are in flight and no timer is due, it returns how long the
  // engine should wait for one of them instead, in milliseconds (-1: no
  // bound): until the next timer falls due. The engine waits with the
  // host's `fetch-wait` and hands its reply to `arrived`, so the clock
  // follows real time while something is in flight, as a timeout around a
  // fetch expects.
  function runNextTimer() {
    let id = 0;
    let next = null;
    for (const [tid, t] of timers) {
      if (next === null || t.due < next.due || (t.due === next.due && t.order < next.order)) {
        id = tid;
        next = t;
      }
    }
    if (inflight.size > 0 && (next === null || next.due > clock)) {
      return next === null ? -1 : next.due - clock;
    }
    if (next === null) return false;
    const { due, level } = next;
    if (next.repeat) {
      next.delay = clampDelay(next.ms, level);
      next.level = level + 1;
      next.due += Math.max(1, next.delay);
      next.order = order++;
    } else {
      timers.delete(id);
    }
    if (due > clock) clock = due;
    nesting = level;
    try {
      next.fn.apply(g, next.args);
    } catch (e) {
      reportUncaught(e, 'a timer');
    } finally {
      nesting = 0;
    }
    return true;
  }

  defineMissing('setTimeout', (fn, ms, ...args) => addTimer(fn, ms, args, false));
  defineMissing('setInterval', (fn, ms, ...args) => addTimer(fn, ms, args, true));
  defineMissing('setImmediate', (fn, ...args) => addTimer(fn, 0, args, false));
  defineMissing('clearTimeout', (id) => { timers.delete(id); });
  defineMissing('clearInterval', (id) => { timers.delete(id); });
  defineMissing('clearImmediate', (id) => { timers.delete(id); });
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

