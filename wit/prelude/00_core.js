//! The prelude's frame: its invariants, the block every other file sits in
//! (opened here, closed by the last file), `defineMissing`, the engine's
//! hooks taken and hidden, `host()` (the one way to a host capability) and
//! uncaught-error reports. (ES2023-2024's built-ins the prelude once made
//! for V8 10.2, both engines now have: V8 14 and QuickJS-ng.)
//!
//! Defines: self, reportError, origin
//! Host calls: none
//! Rust: host/src/web/mod.rs
//! WPT: none
//! Test plugin: tests/plugins/engine-probe.js
// The web-API prelude: evaluated as a classic script before a renderer's
// bundle, by every engine (QuickJS inside the Wasm plugin, and V8 on the
// native path), so that one bundle sees the same globals on both.
//
// Invariants:
// - It only defines what the engine lacks (`defineMissing`): where an engine
//   has a native `TextEncoder`, say, the native one stays.
// - Timers wait in real time: the engine drives `__ssr.runNextTimer()` when
//   no microtask is left, and timers fire in due-time order; when none is
//   due (or only requests are in flight) it says how long to wait, the
//   engine waits with the host's `fetch-wait` and hands the reply to
//   `__ssr.arrived`. `Date.now()` is the engine's, real.
// - Timers, intervals and messages still pending when a render settles are
//   dropped (`__ssr.reset()`), so nothing scheduled by one request runs during
//   the next.
// - The engine provides `__ssr_log(level, message)` before this runs
//   (levels: 0 debug, 1 info, 2 warn, 3 error), and `__ssr_host(name, args,
//   bytes?)`, the contract's `host.call`, which returns `[true, value,
//   Uint8Array]` or `[false, message]`; the prelude hides both. Host
//   capabilities (named in the contract crate's `calls`) are reached only
//   through `host()` below, and only once the bundle's top level has run:
//   what it drew at build time would be frozen into every instance. The
//   exceptions are the pure ones, whose answer depends on their arguments
//   alone: `crypto.subtle`'s arithmetic (`subtleCall`), URL parsing
//   (`urlCall`), whole text decodes (`textCall`) and `Intl` (`intlCall`).
// - `__ssr.call(raw)` shapes the engine's raw request (below) into the
//   renderer's `request` (a `Request` for a fetch handler), and returns a
//   promise of a normalized response `{status, headers: [[name, value]],
//   body (a string or a Uint8Array), ttl, vary}` (ttl: -1 host
//   default, -2 no-store, else seconds; vary: the headers declared and the
//   headers read, '*' for all), or rejects; `__ssr.describe(reason)`
//   turns a rejection into `{kind, message, stack}`. These three shapes are
//   the serde forms of the contract crate's `Request`, `Response` and
//   `RenderError` (`wit/src/lib.rs`): change them there too.
'use strict';
// A block, not a function: QuickJS keeps each function's source text with
// it, and a function around all of this would keep the whole file again in
// every plugin's snapshot.
{
  const g = globalThis;

  // A string as a USVString: each lone surrogate becomes U+FFFD, as WebIDL
  // converts them (and as the host's UTF-8 needs them).
  function usv(v) {
    const s = typeof v === 'string' ? v : `${v}`;
    return s.isWellFormed() ? s : s.toWellFormed();
  }

  function defineMissing(name, value) {
    // A class is named as its global (`Response.name` is "Response", not
    // the prelude's "ResponseImpl"), as on workerd and in browsers.
    if (typeof value === 'function' && /^[A-Z]/.test(name) && value.name !== name) {
      Object.defineProperty(value, 'name', { value: name, configurable: true });
    }
    if (typeof g[name] === 'undefined') {
      Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
    }
  }

  // The engine's own, taken before any app code can patch them (the
  // streams below use them).
  const apply = Reflect.apply;
  // `upon(p, onFulfilled, onRejected)`: `call` bound to the engine's
  // `then`.
  const upon = Function.prototype.call.bind(Promise.prototype.then);

  // Workers' global scope names itself `self`, as a worker's does.
  defineMissing('self', g);

  const hostLog = g.__ssr_log;
  const hostCall = g.__ssr_host;
  // V8's promise hooks (the V8 engine only; see "async context").
  const promiseHooks = g.__ssr_promise_hooks;
  delete g.__ssr_log;
  delete g.__ssr_host;
  delete g.__ssr_promise_hooks;
  // Calls the host capability `name` with `args` (JSON-able) and optional
  // bytes: `{ value, data }`, or a TypeError saying why the host refused.
  // `render` is set once the bundle's top level has run (the driver below).
  function host(name, args, bytes) {
    if (render === null) {
      throw new TypeError(`${name}: the host's capabilities are not available while the bundle's top level runs (at build time, its results would be the same in every instance); call it from render()`);
    }
    const [ok, text, data] = hostCall(name, JSON.stringify(args), bytes);
    if (!ok) throw new TypeError(text);
    return { value: text === '' ? undefined : JSON.parse(text), data };
  }

  // A callback that throws (a timer, a microtask, an event listener) is
  // reported to the tenant's log, as a browser, Node and workerd report
  // it, and the render goes on (checked by WPT's html/webappapis/timers/):
  // after the global `error` listeners, which may cancel it (below).
  function reportUncaught(e, where) {
    if (errorTaken(e)) return;
    let text;
    try {
      if (e instanceof Error) {
        const head = `${e.name}: ${e.message}`;
        // V8's stack starts with the head; QuickJS's is the frames alone.
        text = typeof e.stack !== 'string' ? head : e.stack.startsWith(head) ? e.stack : `${head}\n${e.stack}`;
      } else {
        text = String(e);
      }
    } catch (_) {
      text = Object.prototype.toString.call(e);
    }
    hostLog(3, `Uncaught ${text} (in ${where})`);
  }
  // HTML's reportError: `e` as an uncaught error, to the global `error`
  // listeners, then the log. And the global scope's `origin`: a worker's
  // is opaque, "null", as on `workerd`.
  defineMissing('reportError', { reportError(...args) { reportUncaught(args[0], 'reportError'); } }.reportError);
  defineMissing('origin', 'null');

