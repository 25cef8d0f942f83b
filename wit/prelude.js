// The web-API prelude: evaluated as a classic script before a renderer's
// bundle, by every engine (QuickJS inside the Wasm plugin, and V8 on the
// native path), so that one bundle sees the same globals on both.
//
// Invariants:
// - It only defines what the engine lacks (`defineMissing`): where an engine
//   has a native `TextEncoder`, say, the native one stays.
// - Time is virtual for timers: `setTimeout(f, 50)` does not sleep; the engine
//   drives `__ssr.runNextTimer()` when no microtask is left, and timers fire in
//   due-time order, as they would in Node. `Date.now()` stays real. While a
//   `fetch` is in flight, `runNextTimer` asks the engine to wait for it
//   (a number of milliseconds) and the engine hands the host's reply to
//   `__ssr.arrived`; the clock then follows the time waited.
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

  function defineMissing(name, value) {
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
  // ES2024's `ArrayBuffer.prototype.transfer` and `detached`, which QuickJS
  // has and V8 10.2 has not: built on the V8 engine's native detach. The
  // Streams standard's byte streams and `structuredClone`'s `transfer`
  // detach buffers with them.
  const detach = g.__ssr_detach;
  delete g.__ssr_detach;
  if (typeof detach === 'function' && typeof ArrayBuffer.prototype.transfer !== 'function') {
    const define = (name, desc) => Object.defineProperty(ArrayBuffer.prototype, name, { configurable: true, ...desc });
    const transfer = (name) => ({
      [name](newLength) {
        if (!(this instanceof ArrayBuffer)) throw new TypeError(`ArrayBuffer.prototype.${name} called on an incompatible receiver`);
        const n = newLength === undefined ? this.byteLength : Math.trunc(Number(newLength)) || 0;
        if (n < 0 || n > Number.MAX_SAFE_INTEGER) throw new RangeError(`ArrayBuffer.prototype.${name}: invalid length ${newLength}`);
        if (detach(this, true)) throw new TypeError(`ArrayBuffer.prototype.${name}: the buffer is detached`);
        const out = new ArrayBuffer(n);
        new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(n, this.byteLength)));
        detach(this);
        return out;
      },
    })[name];
    define('transfer', { value: transfer('transfer'), writable: true });
    define('transferToFixedLength', { value: transfer('transferToFixedLength'), writable: true });
    define('detached', {
      get: function detached() {
        if (!(this instanceof ArrayBuffer)) throw new TypeError('ArrayBuffer.prototype.detached called on an incompatible receiver');
        return detach(this, true);
      },
    });
  }

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

  // --------------------------------------------------------- async context
  // What `node:async_hooks`' AsyncLocalStorage reads (host/src/build/node/
  // async_hooks.js): the frame current now, a Map from each storage to its
  // value, or undefined. A callback scheduled now (a promise reaction, a
  // timer, a microtask) runs in the frame current when it was scheduled.
  // Nothing here costs a thing until the first storage is made. Then:
  // - on V8, its promise hooks keep each promise's frame from its creation
  //   and restore it while its reactions run, `await`'s included;
  // - QuickJS has no hook where a reaction runs, so `then` is wrapped, and
  //   the Wasm plugin of a bundle that imports `node:async_hooks` is built
  //   with async functions lowered to generators driven by `then`
  //   (build/bundle.rs). Lowering cost SvelteKit's page a quarter of its
  //   speed on V8, where the hooks cost nothing measurable
  //   (benches/RESULTS-peers.md).
  // Each render starts in the empty frame (`__ssr.call`, `reset`).
  // A promise's frame is a property under a symbol of the prelude's, as
  // Node keeps its async context on the promise: a WeakMap made every
  // scavenge walk its table (young promises, an old table) and rehash it,
  // 3% of SvelteKit's render on V8 in `perf`.
  const FRAME = Symbol('ssr.asyncFrame');
  const outerFrames = [];
  const asyncContext = {
    frame: undefined,
    enabled: false,
    // `fn` bound to the frame current now (as it is, while disabled).
    bind(fn) {
      if (!asyncContext.enabled || typeof fn !== 'function') return fn;
      return asyncContext.bindTo(asyncContext.frame, fn);
    },
    bindTo(frame, fn) {
      return function (...args) {
        return asyncContext.runIn(frame, fn, this, args);
      };
    },
    runIn(frame, fn, thisArg, args) {
      const outer = asyncContext.frame;
      asyncContext.frame = frame;
      try {
        return fn.apply(thisArg, args);
      } finally {
        asyncContext.frame = outer;
      }
    },
    enable() {
      if (asyncContext.enabled) return;
      asyncContext.enabled = true;
      if (typeof promiseHooks === 'function') {
        promiseHooks(
          (promise) => {
            if (asyncContext.frame !== undefined) promise[FRAME] = asyncContext.frame;
          },
          (promise) => {
            outerFrames.push(asyncContext.frame);
            asyncContext.frame = promise[FRAME];
          },
          () => {
            asyncContext.frame = outerFrames.pop();
          },
        );
        return;
      }
      const then = Promise.prototype.then;
      Object.defineProperty(Promise.prototype, 'then', {
        writable: true,
        configurable: true,
        enumerable: false,
        value: { then(onFulfilled, onRejected) {
          return then.call(this, asyncContext.bind(onFulfilled), asyncContext.bind(onRejected));
        } }.then,
      });
    },
  };

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

  // --------------------------------------------------------- MessageChannel
  class MessagePort {
    constructor() {
      this.onmessage = null;
      this._peer = null;
      this._listeners = [];
      this._closed = false;
    }
    // `transfer` (a list, or `{ transfer }`) moves its buffers into the
    // message, detaching them here, even when no one is on the other end.
    postMessage(data, options = undefined) {
      const list = options === undefined || options === null ? [] : Symbol.iterator in Object(options) ? options : options.transfer;
      const message = structuredCloneImpl(data, list === undefined ? [] : Array.from(list));
      const peer = this._peer;
      if (this._closed || peer === null) return;
      addTimer(() => peer._dispatch({ data: message, target: peer, type: 'message' }), 0, [], false);
    }
    addEventListener(type, fn) {
      if (type === 'message' && typeof fn === 'function') this._listeners.push(fn);
    }
    removeEventListener(type, fn) {
      if (type === 'message') this._listeners = this._listeners.filter((l) => l !== fn);
    }
    start() {}
    close() { this._closed = true; }
    _dispatch(event) {
      if (this._closed) return;
      if (typeof this.onmessage === 'function') this.onmessage(event);
      for (const l of this._listeners) l(event);
    }
  }
  class MessageChannel {
    constructor() {
      this.port1 = new MessagePort();
      this.port2 = new MessagePort();
      this.port1._peer = this.port2;
      this.port2._peer = this.port1;
    }
  }
  defineMissing('MessagePort', MessagePort);
  defineMissing('MessageChannel', MessageChannel);

  // ------------------------------------------- DOMException, Event, abort
  // As the DOM standard and WebIDL define them (WPT `dom/events/`,
  // `dom/abort/`, `webidl/ecmascript-binding/es-exceptions/` check them):
  // what `AbortController` rests on, and what frameworks' request handling
  // reads (`request.signal`).
  const legacyCodes = {
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
  };
  // The state of an object of one of these classes, by the class's map:
  // a method called on anything else throws, as WebIDL's brand checks do.
  function branded(states, object, message = 'Illegal invocation') {
    const state = states.get(object);
    if (state === undefined) throw new TypeError(message);
    return state;
  }
  const exceptionState = new WeakMap();
  class DOMExceptionImpl extends Error {
    constructor(message = '', options = 'Error') {
      super();
      const name = options !== null && typeof options === 'object' ? (options.name === undefined ? 'Error' : String(options.name)) : String(options);
      exceptionState.set(this, { message: String(message), name });
      delete this.message;
      if (options !== null && typeof options === 'object' && 'cause' in options) {
        Object.defineProperty(this, 'cause', { value: options.cause, writable: true, configurable: true, enumerable: false });
      }
    }
    get name() { return domState(this).name; }
    get message() { return domState(this).message; }
    get code() { return legacyCodes[domState(this).name] || 0; }
    get [Symbol.toStringTag]() { return 'DOMException'; }
  }
  const domState = (e) => branded(exceptionState, e);
  const legacyConstants = ['INDEX_SIZE_ERR', 'DOMSTRING_SIZE_ERR', 'HIERARCHY_REQUEST_ERR',
    'WRONG_DOCUMENT_ERR', 'INVALID_CHARACTER_ERR', 'NO_DATA_ALLOWED_ERR', 'NO_MODIFICATION_ALLOWED_ERR',
    'NOT_FOUND_ERR', 'NOT_SUPPORTED_ERR', 'INUSE_ATTRIBUTE_ERR', 'INVALID_STATE_ERR', 'SYNTAX_ERR',
    'INVALID_MODIFICATION_ERR', 'NAMESPACE_ERR', 'INVALID_ACCESS_ERR', 'VALIDATION_ERR',
    'TYPE_MISMATCH_ERR', 'SECURITY_ERR', 'NETWORK_ERR', 'ABORT_ERR', 'URL_MISMATCH_ERR',
    'QUOTA_EXCEEDED_ERR', 'TIMEOUT_ERR', 'INVALID_NODE_TYPE_ERR', 'DATA_CLONE_ERR'];
  legacyConstants.forEach((constant, i) => {
    for (const target of [DOMExceptionImpl, DOMExceptionImpl.prototype]) {
      Object.defineProperty(target, constant, { value: i + 1, enumerable: true });
    }
  });
  Object.defineProperty(DOMExceptionImpl, 'name', { value: 'DOMException' });
  defineMissing('DOMException', DOMExceptionImpl);
  const DOMEx = g.DOMException;

  const eventState = new WeakMap();
  class EventImpl {
    constructor(type, init) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'Event': 1 argument required, but only 0 present.");
      const i = init === undefined || init === null ? {} : init;
      eventState.set(this, {
        type: String(type), bubbles: !!i.bubbles, cancelable: !!i.cancelable, composed: !!i.composed,
        target: null, currentTarget: null, phase: 0, canceled: false, stop: false, stopNow: false,
        dispatching: false, passive: false, trusted: false, timeStamp: typeof g.performance !== 'undefined' ? g.performance.now() : 0,
      });
    }
    get type() { return ev(this).type; }
    get target() { return ev(this).target; }
    get srcElement() { return ev(this).target; }
    get currentTarget() { return ev(this).currentTarget; }
    get eventPhase() { return ev(this).phase; }
    get bubbles() { return ev(this).bubbles; }
    get cancelable() { return ev(this).cancelable; }
    get composed() { return ev(this).composed; }
    get defaultPrevented() { return ev(this).canceled; }
    get returnValue() { return !ev(this).canceled; }
    set returnValue(v) { if (!v) this.preventDefault(); }
    get cancelBubble() { return ev(this).stop; }
    set cancelBubble(v) { if (v) ev(this).stop = true; }
    get isTrusted() { return ev(this).trusted; }
    get timeStamp() { return ev(this).timeStamp; }
    composedPath() { const s = ev(this); return s.dispatching && s.currentTarget ? [s.currentTarget] : []; }
    preventDefault() { const s = ev(this); if (s.cancelable && !s.passive) s.canceled = true; }
    stopPropagation() { ev(this).stop = true; }
    stopImmediatePropagation() { const s = ev(this); s.stop = true; s.stopNow = true; }
  }
  const ev = (e) => branded(eventState, e);
  ['NONE', 'CAPTURING_PHASE', 'AT_TARGET', 'BUBBLING_PHASE'].forEach((name, value) => {
    Object.defineProperty(EventImpl, name, { value, enumerable: true });
    Object.defineProperty(EventImpl.prototype, name, { value, enumerable: true });
  });
  Object.defineProperty(EventImpl, 'name', { value: 'Event' });
  defineMissing('Event', EventImpl);

  const listenerState = new WeakMap();
  class EventTargetImpl {
    constructor() { listenerState.set(this, new Map()); }
    addEventListener(type, callback, options) {
      const all = targetListeners(this);
      if (callback === null || callback === undefined) return;
      const o = typeof options === 'boolean' ? { capture: options } : (options || {});
      const capture = !!o.capture;
      if (o.signal !== undefined && o.signal.aborted) return;
      const list = all.get(String(type)) || [];
      if (list.some((l) => l.callback === callback && l.capture === capture)) return;
      const listener = { callback, capture, once: !!o.once, passive: !!o.passive, removed: false };
      list.push(listener);
      all.set(String(type), list);
      if (o.signal !== undefined) {
        o.signal.addEventListener('abort', () => this.removeEventListener(type, callback, { capture }));
      }
    }
    removeEventListener(type, callback, options) {
      const all = targetListeners(this);
      const capture = typeof options === 'boolean' ? options : !!(options && options.capture);
      const list = all.get(String(type));
      if (!list) return;
      const i = list.findIndex((l) => l.callback === callback && l.capture === capture);
      if (i >= 0) {
        list[i].removed = true;
        list.splice(i, 1);
      }
    }
    dispatchEvent(event) {
      if (!(event instanceof EventImpl)) throw new TypeError("Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.");
      const s = ev(event);
      if (s.dispatching) throw new DOMEx('The event is already being dispatched.', 'InvalidStateError');
      s.dispatching = true;
      s.target = this;
      s.currentTarget = this;
      s.phase = 2;
      const list = (targetListeners(this).get(s.type) || []).slice();
      for (const l of list) {
        if (l.removed) continue;
        if (l.once) this.removeEventListener(s.type, l.callback, { capture: l.capture });
        s.passive = l.passive;
        try {
          if (typeof l.callback === 'function') l.callback.call(this, event);
          else if (l.callback && typeof l.callback.handleEvent === 'function') l.callback.handleEvent(event);
        } catch (e) {
          reportUncaught(e, 'an event listener');
        }
        s.passive = false;
        if (s.stopNow) break;
      }
      s.dispatching = false;
      s.currentTarget = null;
      s.phase = 0;
      s.stop = false;
      s.stopNow = false;
      return !s.canceled;
    }
  }
  const targetListeners = (t) => branded(listenerState, t);
  Object.defineProperty(EventTargetImpl, 'name', { value: 'EventTarget' });
  defineMissing('EventTarget', EventTargetImpl);

  // HTML's ErrorEvent, and the global scope's own listeners, as a worker's
  // global is an EventTarget: an uncaught error in a callback is first an
  // `error` event there, and logged unless a listener cancels it.
  class ErrorEventImpl extends EventImpl {
    constructor(type, init) {
      super(type, init);
      const i = init === undefined || init === null ? {} : init;
      this._error = {
        message: i.message === undefined ? '' : String(i.message), filename: i.filename === undefined ? '' : String(i.filename),
        lineno: i.lineno >>> 0, colno: i.colno >>> 0, error: i.error,
      };
    }
    get message() { return this._error.message; }
    get filename() { return this._error.filename; }
    get lineno() { return this._error.lineno; }
    get colno() { return this._error.colno; }
    get error() { return this._error.error; }
  }
  Object.defineProperty(ErrorEventImpl, 'name', { value: 'ErrorEvent' });
  defineMissing('ErrorEvent', ErrorEventImpl);
  const globalEvents = new EventTargetImpl();
  for (const name of ['addEventListener', 'removeEventListener', 'dispatchEvent']) {
    defineMissing(name, { [name](...args) { return globalEvents[name](...args); } }[name]);
  }
  let reportingError = false;
  // Whether a global `error` listener took `e` (cancelled its event).
  function errorTaken(e) {
    if (reportingError || !targetListeners(globalEvents).has('error')) return false;
    reportingError = true;
    try {
      const event = new ErrorEventImpl('error', { cancelable: true, error: e, message: e instanceof Error ? `Uncaught ${e.name}: ${e.message}` : `Uncaught ${e}` });
      return !globalEvents.dispatchEvent(event);
    } finally {
      reportingError = false;
    }
  }

  // AbortSignal: made by AbortController and its static methods only.
  const signalState = new WeakMap();
  const makingSignal = {};
  class AbortSignalImpl extends EventTargetImpl {
    constructor(key) {
      if (key !== makingSignal) throw new TypeError('Illegal constructor');
      super();
      // `followers`: the DOM standard's dependent signals; `sources`: what a
      // dependent signal (made by `any`) follows.
      signalState.set(this, { aborted: false, reason: undefined, onabort: null, followers: [], sources: null });
    }
    get aborted() { return sig(this).aborted; }
    get reason() { return sig(this).reason; }
    get onabort() { return sig(this).onabort; }
    set onabort(fn) {
      const s = sig(this);
      if (s.onabort) this.removeEventListener('abort', s.onabortListener);
      s.onabort = typeof fn === 'function' || (fn !== null && typeof fn === 'object') ? fn : null;
      if (s.onabort) {
        s.onabortListener = (e) => (typeof s.onabort === 'function' ? s.onabort.call(this, e) : undefined);
        this.addEventListener('abort', s.onabortListener);
      }
    }
    throwIfAborted() {
      const s = sig(this);
      if (s.aborted) throw s.reason;
    }
    static abort(reason) {
      const signal = newSignal();
      signalAbort(signal, reason);
      return signal;
    }
    static timeout(ms) {
      const delay = Number(ms);
      if (!Number.isFinite(delay) || delay < 0 || delay > Number.MAX_SAFE_INTEGER) {
        throw new TypeError(`The value of "delay" is out of range: ${ms}`);
      }
      const signal = newSignal();
      addTimer(() => signalAbort(signal, new DOMEx('The operation was aborted due to timeout', 'TimeoutError')), delay, [], false);
      return signal;
    }
    static any(signals) {
      const list = Array.from(signals);
      for (const s of list) if (!(s instanceof AbortSignalImpl)) throw new TypeError('The "signals" argument must be an array of AbortSignal');
      const result = newSignal();
      const done = list.find((s) => s.aborted);
      if (done) {
        sig(result).aborted = true;
        sig(result).reason = done.reason;
        return result;
      }
      // A dependent signal is followed through its sources, so that every
      // signal of one abort is marked before any of their events fires.
      const sources = [];
      for (const s of list) {
        for (const source of sig(s).sources || [s]) if (!sources.includes(source)) sources.push(source);
      }
      sig(result).sources = sources;
      for (const source of sources) sig(source).followers.push(result);
      return result;
    }
  }
  const sig = (s) => branded(signalState, s);
  function newSignal() { return new AbortSignalImpl(makingSignal); }
  // The DOM standard's "signal abort": the signal and its dependents are
  // all marked aborted first, then each fires its event in turn.
  function signalAbort(signal, reason) {
    const s = sig(signal);
    if (s.aborted) return;
    s.aborted = true;
    s.reason = reason === undefined ? new DOMEx('This operation was aborted', 'AbortError') : reason;
    const dependents = s.followers.filter((f) => !sig(f).aborted);
    s.followers = [];
    for (const f of dependents) Object.assign(sig(f), { aborted: true, reason: s.reason });
    fireAbort(signal);
    for (const f of dependents) fireAbort(f);
  }
  function fireAbort(signal) {
    const event = new EventImpl('abort');
    ev(event).trusted = true;
    signal.dispatchEvent(event);
  }
  Object.defineProperty(AbortSignalImpl, 'name', { value: 'AbortSignal' });
  defineMissing('AbortSignal', AbortSignalImpl);

  const controllerSignal = new WeakMap();
  class AbortControllerImpl {
    constructor() { controllerSignal.set(this, newSignal()); }
    get signal() { return ctrl(this); }
    abort(reason) { signalAbort(ctrl(this), reason); }
  }
  const ctrl = (c) => branded(controllerSignal, c);
  Object.defineProperty(AbortControllerImpl, 'name', { value: 'AbortController' });
  defineMissing('AbortController', AbortControllerImpl);

  // ------------------------------------------------------------ WebAssembly
  // As on Workers, without code: memories, globals and tables, and every
  // way to compile bytes refused as workerd refuses it (code generation is
  // the embedder's to allow, and ssr runs no WebAssembly a site brings:
  // docs/security.md). Neither engine has its own (QuickJS has none; V8
  // runs with --no-expose-wasm). A memory is an ArrayBuffer (or, shared, a
  // SharedArrayBuffer), counted against the tenant's memory like any other.
  if (typeof g.WebAssembly === 'undefined') {
    const PAGE = 65536;
    const MAX_PAGES = 65536;
    const errorClass = (name) => {
      const E = class extends Error {};
      Object.defineProperty(E, 'name', { value: name });
      Object.defineProperty(E.prototype, 'name', { value: name, writable: true, configurable: true });
      return E;
    };
    const CompileError = errorClass('CompileError');
    const LinkError = errorClass('LinkError');
    const RuntimeError = errorClass('RuntimeError');
    const noCode = (what) => {
      throw new CompileError(`WebAssembly.${what}(): Wasm code generation disallowed by embedder (ssr runs no WebAssembly a site brings)`);
    };
    const descriptorOf = (d, what) => {
      if (d === null || (typeof d !== 'object' && typeof d !== 'function')) {
        throw new TypeError(`WebAssembly.${what}(): Argument 0 must be a ${what.toLowerCase()} descriptor`);
      }
      return d;
    };
    // The JS API's [EnforceRange] unsigned long, at most `max`.
    const unsignedLong = (v, name, what, max) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 0xffffffff) throw new TypeError(`WebAssembly.${what}(): Property '${name}': value ${v} is not a valid unsigned integer`);
      const t = Math.trunc(n);
      if (t > max) throw new RangeError(`WebAssembly.${what}(): Property '${name}': value ${t} is above the upper bound ${max}`);
      return t;
    };
    const limits = (d, what, max) => {
      const given = d.initial !== undefined ? d.initial : d.minimum;
      if (given === undefined) throw new TypeError(`WebAssembly.${what}(): Property 'initial' is required`);
      const initial = unsignedLong(given, 'initial', what, max);
      const maximum = d.maximum === undefined ? undefined : unsignedLong(d.maximum, 'maximum', what, max);
      if (maximum !== undefined && maximum < initial) throw new RangeError(`WebAssembly.${what}(): Property 'maximum': value ${maximum} is below the lower bound ${initial}`);
      return { initial, maximum };
    };
    const receiver = (brand, o, what) => branded(brand, o, `Receiver is not a WebAssembly.${what}`);

    const memories = new WeakMap();
    class Memory {
      constructor(descriptor) {
        if (new.target === undefined) throw new TypeError("WebAssembly.Memory must be invoked with 'new'");
        const d = descriptorOf(descriptor, 'Memory');
        const { initial, maximum } = limits(d, 'Memory', MAX_PAGES);
        const shared = !!d.shared;
        if (shared && maximum === undefined) throw new TypeError('WebAssembly.Memory(): If shared is true, maximum property should be defined.');
        const buffer = shared ? new SharedArrayBuffer(initial * PAGE) : new ArrayBuffer(initial * PAGE);
        memories.set(this, { buffer, shared, maximum: maximum === undefined ? MAX_PAGES : maximum });
      }
      get buffer() { return receiver(memories, this, 'Memory').buffer; }
      // A memory's old buffer is detached (its bytes move to the new one);
      // a shared one's old buffer keeps its length, and its bytes as they
      // were (with no threads, nothing else holds it while it grows).
      grow(delta) {
        const m = receiver(memories, this, 'Memory');
        const old = m.buffer.byteLength / PAGE;
        const n = unsignedLong(delta, 'delta', 'Memory.grow', MAX_PAGES);
        if (old + n > m.maximum) throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
        if (m.shared) {
          const next = new SharedArrayBuffer((old + n) * PAGE);
          new Uint8Array(next).set(new Uint8Array(m.buffer));
          m.buffer = next;
        } else {
          m.buffer = m.buffer.transfer((old + n) * PAGE);
        }
        return old;
      }
    }

    // A value of a WebAssembly type, as the JS API's ToWebAssemblyValue
    // makes it.
    const VALUE_TYPES = ['i32', 'i64', 'f32', 'f64', 'externref', 'anyref', 'funcref'];
    const coerce = (type, v) => {
      switch (type) {
        case 'i32': return Number(v) | 0;
        case 'i64': return BigInt.asIntN(64, BigInt(v));
        case 'f32': return Math.fround(Number(v));
        case 'f64': return Number(v);
        case 'funcref':
          if (v !== null) throw new TypeError('WebAssembly: a funcref is null or a function exported by WebAssembly, and there is none here');
          return v;
        default: return v;
      }
    };
    const zero = (type) => (type === 'i64' ? 0n : type === 'externref' ? undefined : type.endsWith('ref') ? null : 0);
    const valueType = (t, what) => {
      const type = `${t}`;
      if (!VALUE_TYPES.includes(type)) throw new TypeError(`WebAssembly.${what}(): Descriptor property 'value' must be a WebAssembly type`);
      return type;
    };

    const globals = new WeakMap();
    class Global {
      constructor(descriptor, v) {
        if (new.target === undefined) throw new TypeError("WebAssembly.Global must be invoked with 'new'");
        const d = descriptorOf(descriptor, 'Global');
        const mutable = !!d.mutable;
        const type = valueType(d.value, 'Global');
        globals.set(this, { type, mutable, value: v === undefined ? zero(type) : coerce(type, v) });
      }
      get value() { return receiver(globals, this, 'Global').value; }
      set value(v) {
        const s = receiver(globals, this, 'Global');
        if (!s.mutable) throw new TypeError("WebAssembly.Global.value: Can't set the value of an immutable global.");
        s.value = coerce(s.type, v);
      }
      valueOf() { return receiver(globals, this, 'Global').value; }
    }
    Object.defineProperty(Global.prototype, Symbol.toStringTag, { value: 'WebAssembly.Global', configurable: true });

    const tables = new WeakMap();
    class Table {
      constructor(descriptor, v) {
        if (new.target === undefined) throw new TypeError("WebAssembly.Table must be invoked with 'new'");
        const d = descriptorOf(descriptor, 'Table');
        const type = `${d.element}`;
        if (!['externref', 'anyref', 'funcref'].includes(type)) throw new TypeError("WebAssembly.Table(): Descriptor property 'element' must be a WebAssembly reference type");
        const { initial, maximum } = limits(d, 'Table', 10000000);
        const fill = v === undefined ? zero(type) : coerce(type, v);
        tables.set(this, { type, maximum: maximum === undefined ? 0xffffffff : maximum, items: new Array(initial).fill(fill) });
      }
      get length() { return receiver(tables, this, 'Table').items.length; }
      get(index) {
        const t = receiver(tables, this, 'Table');
        const i = unsignedLong(index, 'index', 'Table.get', 0xffffffff);
        if (i >= t.items.length) throw new RangeError(`WebAssembly.Table.get(): invalid address ${i} in ${t.type} table of size ${t.items.length}`);
        return t.items[i];
      }
      set(index, v) {
        const t = receiver(tables, this, 'Table');
        const i = unsignedLong(index, 'index', 'Table.set', 0xffffffff);
        if (i >= t.items.length) throw new RangeError(`WebAssembly.Table.set(): invalid address ${i} in ${t.type} table of size ${t.items.length}`);
        t.items[i] = arguments.length < 2 ? zero(t.type) : coerce(t.type, v);
      }
      grow(delta, v) {
        const t = receiver(tables, this, 'Table');
        const n = unsignedLong(delta, 'delta', 'Table.grow', 0xffffffff);
        const old = t.items.length;
        if (old + n > t.maximum) throw new RangeError('WebAssembly.Table.grow(): failed to grow table');
        const fill = v === undefined ? zero(t.type) : coerce(t.type, v);
        for (let k = 0; k < n; k++) t.items.push(fill);
        return old;
      }
    }

    class Module {
      constructor() {
        if (new.target === undefined) throw new TypeError("WebAssembly.Module must be invoked with 'new'");
        noCode('Module');
      }
    }
    class Instance {
      constructor() {
        if (new.target === undefined) throw new TypeError("WebAssembly.Instance must be invoked with 'new'");
        noCode('Instance');
      }
    }
    const refusing = (what) => ({ [what]() { return Promise.reject(new CompileError(`WebAssembly.${what}(): Wasm code generation disallowed by embedder (ssr runs no WebAssembly a site brings)`)); } })[what];
    const namespace = {
      Memory, Global, Table, Module, Instance, CompileError, LinkError, RuntimeError,
      validate() { noCode('validate'); },
      compile: refusing('compile'),
      instantiate: refusing('instantiate'),
      compileStreaming: refusing('compileStreaming'),
      instantiateStreaming: refusing('instantiateStreaming'),
    };
    for (const [name, C] of Object.entries({ Memory, Table, Module, Instance })) {
      Object.defineProperty(C, 'name', { value: name });
      Object.defineProperty(C.prototype, Symbol.toStringTag, { value: `WebAssembly.${name}`, configurable: true });
    }
    Object.defineProperty(Global, 'name', { value: 'Global' });
    const wasm = {};
    for (const [name, value] of Object.entries(namespace)) {
      Object.defineProperty(wasm, name, { value, writable: true, configurable: true, enumerable: false });
    }
    Object.defineProperty(wasm, Symbol.toStringTag, { value: 'WebAssembly', configurable: true });
    defineMissing('WebAssembly', wasm);
  }

  // ------------------------------------------------------------ performance
  if (typeof g.performance === 'undefined' || typeof g.performance.now !== 'function') {
    const origin = Date.now();
    defineMissing('performance', { timeOrigin: origin, now: () => Date.now() - origin });
  }

  // ---------------------------------------------------------------- console
  function inspect(v, depth, seen) {
    if (typeof v === 'string') return depth === 0 ? v : JSON.stringify(v);
    if (typeof v === 'function') return `[Function: ${v.name || '(anonymous)'}]`;
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol') return v.toString();
    if (v === null || typeof v !== 'object') return String(v);
    if (v instanceof Error) return v.stack ? `${v.name}: ${v.message}\n${v.stack}` : `${v.name}: ${v.message}`;
    if (seen.includes(v)) return '[Circular]';
    if (depth > 2) return Array.isArray(v) ? '[Array]' : '[Object]';
    const inner = seen.concat([v]);
    if (Array.isArray(v)) return `[ ${v.map((x) => inspect(x, depth + 1, inner)).join(', ')} ]`;
    if (v instanceof Date) return v.toISOString();
    const keys = Object.keys(v);
    if (keys.length === 0) return '{}';
    return `{ ${keys.map((k) => `${k}: ${inspect(v[k], depth + 1, inner)}`).join(', ')} }`;
  }

  function format(args) {
    let out = '';
    let rest = args;
    if (typeof args[0] === 'string' && args[0].includes('%')) {
      let i = 1;
      out = args[0].replace(/%[sdifoOjc%]/g, (m) => {
        if (m === '%%') return '%';
        if (i >= args.length) return m;
        const a = args[i++];
        switch (m) {
          case '%s': return typeof a === 'string' ? a : inspect(a, 1, []);
          case '%d': case '%i': return String(parseInt(a, 10));
          case '%f': return String(parseFloat(a));
          case '%j': return JSON.stringify(a);
          case '%c': return '';
          default: return inspect(a, 1, []);
        }
      });
      rest = args.slice(i);
      return rest.length ? `${out} ${rest.map((a) => inspect(a, 0, [])).join(' ')}` : out;
    }
    return rest.map((a) => inspect(a, 0, [])).join(' ');
  }

  const consoleImpl = {};
  for (const [name, level] of [['debug', 0], ['trace', 0], ['log', 1], ['info', 1], ['warn', 2], ['error', 3]]) {
    consoleImpl[name] = (...args) => hostLog(level, format(args));
  }
  consoleImpl.assert = (cond, ...args) => { if (!cond) hostLog(3, `Assertion failed${args.length ? ': ' + format(args) : ''}`); };
  consoleImpl.dir = (v) => hostLog(1, inspect(v, 1, []));
  consoleImpl.table = consoleImpl.log;
  for (const name of ['group', 'groupEnd', 'groupCollapsed', 'time', 'timeEnd', 'timeLog', 'count', 'countReset']) {
    consoleImpl[name] = () => {};
  }
  // Always ours: console output must reach the host's log, tagged with the
  // tenant, never the process's stdout.
  Object.defineProperty(g, 'console', { value: consoleImpl, writable: true, configurable: true, enumerable: false });

  // ----------------------------------------------------------------- crypto
  // Web Crypto's random half, from the host's generator (`calls::RANDOM`).
  const integerArrays = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
    'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array'];
  function getRandomValues(array) {
    const type = ArrayBuffer.isView(array) && Object.prototype.toString.call(array).slice(8, -1);
    if (!integerArrays.includes(type)) {
      throw new DOMEx('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    }
    if (array.byteLength > 65536) {
      throw new DOMEx(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, 'QuotaExceededError');
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(host('random', array.byteLength).data);
    return array;
  }
  function randomUUID() {
    const b = host('random', 16).data;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  defineMissing('crypto', { getRandomValues, randomUUID });

  // ------------------------------------------------------- TextEncoder/Decoder
  // TextEncoder: UTF-8 by QuickJS's native encoder where the engine has
  // one, here elsewhere; `encodeInto` here on both (QuickJS's refuses it).
  const NativeEncoder = typeof g.TextEncoder === 'function' ? new g.TextEncoder() : null;
  // UTF-8 of `s`, a USVString (`usv`: no lone surrogates), into `out` as
  // far as `room` allows: how many UTF-16 units it read, and bytes it wrote.
  function utf8Into(s, out, room) {
    let read = 0;
    let written = 0;
    while (read < s.length) {
      const c = s.codePointAt(read);
      const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      if (written + size > room) break;
      if (size === 1) out[written] = c;
      else if (size === 2) { out[written] = 0xc0 | (c >> 6); out[written + 1] = 0x80 | (c & 63); }
      else if (size === 3) { out[written] = 0xe0 | (c >> 12); out[written + 1] = 0x80 | ((c >> 6) & 63); out[written + 2] = 0x80 | (c & 63); }
      else { out[written] = 0xf0 | (c >> 18); out[written + 1] = 0x80 | ((c >> 12) & 63); out[written + 2] = 0x80 | ((c >> 6) & 63); out[written + 3] = 0x80 | (c & 63); }
      written += size;
      read += c > 0xffff ? 2 : 1;
    }
    return { read, written };
  }
  class TextEncoderImpl {
    get encoding() { return 'utf-8'; }
    encode(input = '') {
      const s = usv(input);
      if (NativeEncoder !== null) return NativeEncoder.encode(s);
      const out = new Uint8Array(s.length * 3);
      return out.slice(0, utf8Into(s, out, out.length).written);
    }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) throw new TypeError("Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.");
      return utf8Into(usv(source), destination, destination.length);
    }
  }
  Object.defineProperty(TextEncoderImpl, 'name', { value: 'TextEncoder' });
  Object.defineProperty(TextEncoderImpl.prototype, Symbol.toStringTag, { value: 'TextEncoder', configurable: true });
  Object.defineProperty(g, 'TextEncoder', { value: TextEncoderImpl, writable: true, configurable: true, enumerable: false });

  // TextDecoder (checked by WPT's encoding/): UTF-8 is decoded here (a
  // whole decode by QuickJS's native decoder where the engine has one);
  // every other encoding of the Encoding Standard by the host
  // (`calls::TEXT_DECODE`: encoding_rs, host/src/engine/text.rs).
  const NativeDecoder = typeof g.TextDecoder === 'function' ? g.TextDecoder : null;
  let nativeUtf8 = null;
  const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
  // Labels the host named, by label (only those that name an encoding).
  const labelNames = new Map();
  function encodingOf(label) {
    const l = label.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase();
    if (UTF8_LABELS.includes(l)) return 'utf-8';
    if (labelNames.has(l)) return labelNames.get(l);
    const name = textCall({ op: 'label', label: l }).value;
    if (name !== null) labelNames.set(l, name);
    return name;
  }
  // A call to a capability whose refusals read `"<Error name>: ..."`
  // (`calls::TEXT_DECODE`, `calls::COMPRESS`, `calls::INTL`): that error
  // is thrown.
  function namedCall(name, args, bytes) {
    const [ok, text, data] = hostCall(name, JSON.stringify(args), bytes);
    if (ok) return { value: JSON.parse(text), data };
    throw namedError(text);
  }
  function namedError(text) {
    const m = /^(TypeError|RangeError): ([\s\S]*)$/.exec(text);
    return m ? new (m[1] === 'RangeError' ? RangeError : TypeError)(m[2]) : new TypeError(text);
  }
  const textCall = (args, bytes) => namedCall('text-decode', args, bytes);
  // The bytes of a BufferSource, as WebIDL reads one: none when its buffer
  // was detached (transferred away).
  function bufferSourceBytes(input) {
    if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer)) {
      return input.detached === true ? new Uint8Array(0) : new Uint8Array(input);
    }
    if (ArrayBuffer.isView(input)) {
      return input.buffer.detached === true ? new Uint8Array(0) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    }
    throw new TypeError("Failed to execute 'decode' on 'TextDecoder': The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
  }
  class TextDecoderImpl {
    #encoding;
    #fatal;
    #ignoreBOM;
    // UTF-8 streaming: the bytes of a sequence cut at the last call's end,
    // and whether a stream is under way (a BOM is looked for at its start).
    #pending = null;
    #midStream = false;
    // Other encodings: the host's open stream.
    #stream = null;
    constructor(label = 'utf-8', options = undefined) {
      if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw new TypeError("Failed to construct 'TextDecoder': The provided value is not of type 'TextDecoderOptions'");
      }
      const name = encodingOf(`${label}`);
      if (name === null || name === 'replacement') throw new RangeError(`Failed to construct 'TextDecoder': The encoding label provided ('${label}') is invalid.`);
      this.#encoding = name;
      this.#fatal = !!(options && options.fatal);
      this.#ignoreBOM = !!(options && options.ignoreBOM);
    }
    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    // With `{ stream: true }` a sequence cut at the end of `input` waits for
    // the next call, and a BOM is looked for at the stream's start only.
    decode(input = undefined, options = undefined) {
      const bytes = input === undefined ? new Uint8Array(0) : bufferSourceBytes(input);
      const stream = !!(options && options.stream);
      if (this.#encoding !== 'utf-8') {
        const id = this.#stream;
        // A call that throws ends the stream (the host dropped it).
        this.#stream = null;
        const { value } = textCall({ op: 'decode', encoding: this.#encoding, fatal: this.#fatal, ignoreBOM: this.#ignoreBOM, stream, id }, bytes);
        this.#stream = value.id;
        return value.text;
      }
      let b = bytes;
      if (this.#pending) {
        const joined = new Uint8Array(this.#pending.length + b.length);
        joined.set(this.#pending);
        joined.set(b, this.#pending.length);
        b = joined;
        this.#pending = null;
      }
      if (stream) {
        const cut = incompleteTail(b);
        if (cut < b.length) {
          this.#pending = b.slice(cut);
          b = b.subarray(0, cut);
        }
      }
      // A BOM cut between calls is still the stream's start.
      const atStart = !this.#midStream;
      this.#midStream = stream && (this.#midStream || b.length > 0);
      let i = 0;
      if (atStart && !this.#ignoreBOM && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) i = 3;
      if (NativeDecoder !== null && !this.#fatal) {
        nativeUtf8 = nativeUtf8 || new NativeDecoder('utf-8', { ignoreBOM: true });
        const view = i === 0 ? b : b.subarray(i);
        // The native decoder takes no view of a SharedArrayBuffer.
        return nativeUtf8.decode(view.buffer instanceof ArrayBuffer ? view : view.slice());
      }
      return decodeUtf8(b, i, this.#fatal);
    }
  }
  Object.defineProperty(TextDecoderImpl, 'name', { value: 'TextDecoder' });
  Object.defineProperty(TextDecoderImpl.prototype, Symbol.toStringTag, { value: 'TextDecoder', configurable: true });
  // What the Encoding Standard's UTF-8 decoder allows after lead byte `x`:
  // `[need, lo, hi]`, the continuation bytes it needs and the bounds of the
  // first (which make every overlong form, surrogate and value past
  // U+10FFFF an error at once), or null for a byte that cannot lead.
  function utf8Lead(x) {
    if (x >= 0xc2 && x < 0xe0) return [1, 0x80, 0xbf];
    if (x >= 0xe0 && x < 0xf0) return [2, x === 0xe0 ? 0xa0 : 0x80, x === 0xed ? 0x9f : 0xbf];
    if (x >= 0xf0 && x < 0xf5) return [3, x === 0xf0 ? 0x90 : 0x80, x === 0xf4 ? 0x8f : 0xbf];
    return null;
  }
  function decodeUtf8(b, from, fatal) {
    let s = '';
    let i = from;
    const bad = () => {
      if (fatal) throw new TypeError('The encoded data was not valid utf-8');
      return 0xfffd;
    };
    while (i < b.length) {
      const x = b[i];
      if (x < 0x80) {
        s += String.fromCharCode(x);
        i++;
        continue;
      }
      const lead = utf8Lead(x);
      if (lead === null) {
        s += String.fromCharCode(bad());
        i++;
        continue;
      }
      const [need, lo, hi] = lead;
      // A sequence broken off becomes one U+FFFD for the bytes read so far.
      let c = x & (0x3f >> need);
      let j = 1;
      for (; j <= need; j++) {
        const y = b[i + j];
        if (y === undefined || y < (j === 1 ? lo : 0x80) || y > (j === 1 ? hi : 0xbf)) break;
        c = (c << 6) | (y & 63);
      }
      if (j <= need) {
        s += String.fromCharCode(bad());
        i += j;
        continue;
      }
      i += need + 1;
      s += String.fromCodePoint(c);
    }
    return s;
  }
  // Where an unfinished UTF-8 sequence starts at the end of `b` (its length
  // if none): a lead byte whose sequence needs more bytes than follow it,
  // followed only by bytes its sequence can go on with.
  function incompleteTail(b) {
    for (let k = 1; k <= 3 && k <= b.length; k++) {
      const x = b[b.length - k];
      if (x < 0x80) return b.length;
      if (x >= 0xc0) {
        const lead = utf8Lead(x);
        if (lead === null || lead[0] < k) return b.length;
        const y = b[b.length - k + 1];
        if (k >= 2 && (y < lead[1] || y > lead[2])) return b.length;
        return b.length - k;
      }
    }
    return b.length;
  }
  // Always ours: QuickJS's own knows UTF-8 only, and no streams.
  Object.defineProperty(g, 'TextDecoder', { value: TextDecoderImpl, writable: true, configurable: true, enumerable: false });

  // ---------------------------------------------------------- atob / btoa
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  defineMissing('btoa', (input) => {
    const s = String(input);
    let out = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i);
      const b = s.charCodeAt(i + 1);
      const c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) {
        throw new DOMEx('btoa() only takes characters in the Latin-1 range', 'InvalidCharacterError');
      }
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      out += i + 1 < s.length ? B64[(n >> 6) & 63] : '=';
      out += i + 2 < s.length ? B64[n & 63] : '=';
    }
    return out;
  });
  defineMissing('atob', (input) => {
    let s = String(input).replace(/[\t\n\f\r ]/g, '');
    if (s.length % 4 === 0) s = s.replace(/==?$/, '');
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) {
      throw new DOMEx('atob() was given a string that is not valid base64', 'InvalidCharacterError');
    }
    let out = '';
    let bits = 0;
    let acc = 0;
    for (const ch of s) {
      acc = (acc << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += String.fromCharCode((acc >> bits) & 255);
      }
    }
    return out;
  });

  // ---------------------------------------------------------- crypto.subtle
  // Web Crypto's SubtleCrypto: this side checks what the spec asks of the
  // caller (algorithm names, parameters, usages, extractable, JWK members)
  // and makes the CryptoKey objects; the host does the arithmetic
  // (`calls::CRYPTO`, `host/src/engine/crypto.rs`), keeping no state: a key
  // travels with each call as its material (raw bytes for a secret key,
  // PKCS #8 or SPKI DER for a private or public one). Only `generateKey`
  // is refused at the top level, which runs at build time: its key would be
  // the same in every instance.
  // Besides Web Crypto's own algorithms: the Secure Curves draft's Ed448
  // and X448, and the Modern Algorithms draft's SHA-3, cSHAKE, KMAC,
  // AES-OCB and ChaCha20-Poly1305 (with its "raw-secret" and "raw-public"
  // key formats), as Node 24 has them.
  const HASHES = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
  const DIGESTS = [...HASHES, 'SHA3-256', 'SHA3-384', 'SHA3-512', 'cSHAKE128', 'cSHAKE256'];
  const AES = ['AES-CTR', 'AES-CBC', 'AES-GCM', 'AES-KW', 'AES-OCB'];
  const CIPHERS = ['RSA-OAEP', 'AES-CTR', 'AES-CBC', 'AES-GCM', 'AES-OCB', 'ChaCha20-Poly1305'];
  const SIGNERS = ['HMAC', 'ECDSA', 'Ed25519', 'Ed448', 'RSASSA-PKCS1-v1_5', 'RSA-PSS', 'KMAC128', 'KMAC256'];
  const DERIVERS = ['ECDH', 'X25519', 'X448', 'HKDF', 'PBKDF2'];
  // ML-KEM's key encapsulation.
  const KEMS = ['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024'];
  // The agreements, whose bits are a shared secret.
  const AGREERS = ['ECDH', 'X25519', 'X448'];
  // The secret keys of the drafts, imported and exported as "raw-secret"
  // (not "raw") or "jwk".
  const DRAFT_SECRETS = ['AES-OCB', 'ChaCha20-Poly1305', 'KMAC128', 'KMAC256'];
  const ALGORITHMS = [...SIGNERS, ...CIPHERS, 'AES-KW', ...DERIVERS, ...KEMS];
  // The algorithms each operation knows (the spec's "supported
  // algorithms"); another is a NotSupportedError.
  const OPERATIONS = {
    encrypt: CIPHERS, decrypt: CIPHERS, sign: SIGNERS, verify: SIGNERS,
    deriveBits: DERIVERS, deriveKey: DERIVERS,
    wrapKey: [...CIPHERS, 'AES-KW'], unwrapKey: [...CIPHERS, 'AES-KW'],
    generateKey: ALGORITHMS.filter((n) => n !== 'HKDF' && n !== 'PBKDF2'),
    encapsulateKey: KEMS, encapsulateBits: KEMS, decapsulateKey: KEMS, decapsulateBits: KEMS,
  };
  const CURVES = ['P-256', 'P-384', 'P-521'];
  const AES_BITS = [128, 192, 256];
  // The usages each kind of key may have.
  const CIPHER_USAGES = ['encrypt', 'decrypt', 'wrapKey', 'unwrapKey'];
  const USAGES = {
    HMAC: { secret: ['sign', 'verify'] },
    'AES-GCM': { secret: CIPHER_USAGES },
    'AES-CBC': { secret: CIPHER_USAGES },
    'AES-CTR': { secret: CIPHER_USAGES },
    'AES-KW': { secret: ['wrapKey', 'unwrapKey'] },
    'AES-OCB': { secret: CIPHER_USAGES },
    'ChaCha20-Poly1305': { secret: CIPHER_USAGES },
    KMAC128: { secret: ['sign', 'verify'] },
    KMAC256: { secret: ['sign', 'verify'] },
    PBKDF2: { secret: ['deriveBits', 'deriveKey'] },
    HKDF: { secret: ['deriveBits', 'deriveKey'] },
    ECDSA: { private: ['sign'], public: ['verify'] },
    Ed25519: { private: ['sign'], public: ['verify'] },
    Ed448: { private: ['sign'], public: ['verify'] },
    'RSASSA-PKCS1-v1_5': { private: ['sign'], public: ['verify'] },
    'RSA-PSS': { private: ['sign'], public: ['verify'] },
    'RSA-OAEP': { private: ['decrypt', 'unwrapKey'], public: ['encrypt', 'wrapKey'] },
    ECDH: { private: ['deriveKey', 'deriveBits'], public: [] },
    X25519: { private: ['deriveKey', 'deriveBits'], public: [] },
    X448: { private: ['deriveKey', 'deriveBits'], public: [] },
  };
  for (const name of KEMS) USAGES[name] = { private: ['decapsulateKey', 'decapsulateBits'], public: ['encapsulateKey', 'encapsulateBits'] };
  // A JWK's `kty` per algorithm of a key pair.
  const KTY = { ECDSA: 'EC', ECDH: 'EC', Ed25519: 'OKP', Ed448: 'OKP', X25519: 'OKP', X448: 'OKP', 'RSASSA-PKCS1-v1_5': 'RSA', 'RSA-PSS': 'RSA', 'RSA-OAEP': 'RSA' };
  // A JWK's `alg` per algorithm (the EC algorithms and X25519 name none).
  const JWK_ALG = {
    HMAC: (a) => `HS${a.hash.name.slice(4)}`,
    'AES-GCM': (a) => `A${a.length}GCM`,
    'AES-CBC': (a) => `A${a.length}CBC`,
    'AES-CTR': (a) => `A${a.length}CTR`,
    'AES-KW': (a) => `A${a.length}KW`,
    'AES-OCB': (a) => `A${a.length}OCB`,
    'ChaCha20-Poly1305': () => 'C20P',
    KMAC128: () => 'K128',
    KMAC256: () => 'K256',
    Ed25519: () => 'Ed25519',
    Ed448: () => 'Ed448',
    'RSASSA-PKCS1-v1_5': (a) => `RS${a.hash.name.slice(4)}`,
    'RSA-PSS': (a) => `PS${a.hash.name.slice(4)}`,
    'RSA-OAEP': (a) => (a.hash.name === 'SHA-1' ? 'RSA-OAEP' : `RSA-OAEP-${a.hash.name.slice(4)}`),
  };
  // The key formats of the spec and of the drafts; another is a TypeError.
  const KEY_FORMATS = ['raw', 'spki', 'pkcs8', 'jwk', 'raw-secret', 'raw-public', 'raw-private', 'raw-seed'];
  function cryptoError(name, message) { return new DOMEx(message, name); }
  function canonical(list, name, what) {
    const wanted = String(name).toUpperCase();
    const found = list.find((n) => n.toUpperCase() === wanted);
    if (found === undefined) throw cryptoError('NotSupportedError', `${what} "${name}" is not supported (${list.join(', ')})`);
    return found;
  }
  function normalizeAlgorithm(algorithm, op, list = OPERATIONS[op] || ALGORITHMS) {
    const a = typeof algorithm === 'string' ? { name: algorithm } : algorithm;
    if (a === null || typeof a !== 'object' || a.name === undefined) {
      throw new TypeError(`${op}: the algorithm must be a name or an object with a name`);
    }
    const out = Object.assign({}, a, { name: canonical(list, a.name, `${op}: the algorithm`) });
    if (a.hash !== undefined) out.hash = { name: canonical(HASHES, typeof a.hash === 'string' ? a.hash : a.hash && a.hash.name, 'the hash') };
    return out;
  }
  function needs(a, member, op) {
    if (a[member] === undefined) throw new TypeError(`${op}: ${a.name} needs "${member}"`);
    return a[member];
  }
  function bufferSource(value, what) {
    if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
    throw new TypeError(`${what} must be an ArrayBuffer or a view of one`);
  }
  function b64url(bytes) {
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return g.btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function unb64url(text, member) {
    if (typeof text !== 'string' || /[^A-Za-z0-9_-]/.test(text)) throw cryptoError('DataError', `the JWK's "${member}" is not base64url`);
    const s = g.atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  }

  // Calls the host's crypto; a refusal rejects with its DOMException.
  function subtleCall(args, parts) {
    const bytes = concat(parts);
    const [ok, text, data] = hostCall('crypto', JSON.stringify(Object.assign(args, { parts: parts.map((p) => p.length) })), bytes);
    if (!ok) {
      const m = /^(\w+Error): ([\s\S]*)$/.exec(text);
      throw m ? cryptoError(m[1], m[2]) : new TypeError(text);
    }
    return { value: text === '' ? undefined : JSON.parse(text), data };
  }

  const keyState = new WeakMap();
  let makingKey = false;
  class CryptoKeyImpl {
    constructor() {
      if (!makingKey) throw new TypeError('Illegal constructor');
    }
    get type() { return branded(keyState, this).type; }
    get extractable() { return branded(keyState, this).extractable; }
    get algorithm() { return branded(keyState, this).algorithm; }
    // The same array each time, as the spec's [[usages_cached]]; what the
    // key may do is its own copy, which changing this one does not change.
    get usages() { return branded(keyState, this).shownUsages; }
    get [Symbol.toStringTag]() { return 'CryptoKey'; }
  }
  Object.defineProperty(CryptoKeyImpl, 'name', { value: 'CryptoKey' });
  function newKey(type, extractable, algorithm, usages, material) {
    makingKey = true;
    let key;
    try { key = new CryptoKeyImpl(); } finally { makingKey = false; }
    const shown = Object.assign({}, algorithm);
    if (shown.publicExponent) shown.publicExponent = new Uint8Array(shown.publicExponent);
    const list = usages.filter((u, i) => usages.indexOf(u) === i);
    keyState.set(key, { type, extractable, algorithm: shown, usages: list, shownUsages: list.slice(), material });
    return key;
  }
  // The usages asked for, checked against what a `type` key of `name` may
  // have; a secret or private key needs at least one, which the spec checks
  // last (`nonEmpty`), after the key's parameters and data.
  function checkUsages(name, type, usages, op, later = false) {
    const allowed = USAGES[name][type] || [];
    const list = Array.from(usages);
    for (const u of list) {
      if (!allowed.includes(u)) throw cryptoError('SyntaxError', `${op}: a ${type} ${name} key cannot be used to ${u}`);
    }
    return later ? list : nonEmpty(list, type, op);
  }
  function nonEmpty(list, type, op) {
    if (list.length === 0 && type !== 'public') throw cryptoError('SyntaxError', `${op}: a ${type} key needs at least one usage`);
    return list;
  }
  function usable(key, usage, name, op) {
    const k = branded(keyState, key);
    if (k.algorithm.name !== name || !k.usages.includes(usage)) {
      throw cryptoError('InvalidAccessError', `${op}: this key (${k.algorithm.name}, usages ${k.usages.join(', ') || 'none'}) cannot be used to ${usage} with ${name}`);
    }
    return k;
  }
  // The algorithm fields the host needs of a key's algorithm.
  function hostAlg(algorithm) {
    return { alg: algorithm.name, hash: algorithm.hash ? algorithm.hash.name : '', curve: algorithm.namedCurve || '' };
  }
  const HMAC_BLOCK = { 'SHA-1': 512, 'SHA-256': 512, 'SHA-384': 1024, 'SHA-512': 1024 };
  // The bits of a new secret key of `a`: HMAC's `length`, else its hash's
  // block size; AES's `length`.
  function keyBits(a, op) {
    if (a.name === 'ChaCha20-Poly1305') return 256;
    if (a.name === 'KMAC128' || a.name === 'KMAC256') return a.length === undefined ? Number(a.name.slice(4)) : Number(a.length);
    if (a.name !== 'HMAC') return Number(needs(a, 'length', op));
    return a.length === undefined ? HMAC_BLOCK[needs(a, 'hash', op).name] : Number(a.length);
  }
  // What a private or public key's `algorithm` shows: `a` as asked, with
  // what the host read of the key (an RSA key's size and exponent).
  function pairAlgorithm(a, value) {
    const shown = { name: a.name };
    if (a.namedCurve) shown.namedCurve = a.namedCurve;
    if (value.modulusLength) Object.assign(shown, { modulusLength: value.modulusLength, publicExponent: value.publicExponent });
    if (a.hash) shown.hash = a.hash;
    return shown;
  }
  function secretAlgorithm(a, bits, op) {
    if (a.name === 'HMAC') {
      const length = a.length === undefined ? bits : Number(a.length);
      if (length === 0 || length > bits || length <= bits - 8) throw cryptoError('DataError', `${op}: the HMAC key is ${bits} bits, not ${length}`);
      return { name: 'HMAC', hash: needs(a, 'hash', op), length };
    }
    if (AES.includes(a.name)) {
      if (!AES_BITS.includes(bits)) throw cryptoError('DataError', `${op}: an AES key is 128, 192 or 256 bits, not ${bits}`);
      return { name: a.name, length: bits };
    }
    if (a.name === 'ChaCha20-Poly1305' && bits !== 256) throw cryptoError('DataError', `${op}: a ChaCha20-Poly1305 key is 256 bits, not ${bits}`);
    if (a.name === 'KMAC128' || a.name === 'KMAC256') {
      if (a.length !== undefined && Number(a.length) !== bits) throw cryptoError('DataError', `${op}: the ${a.name} key is ${bits} bits, not ${a.length}`);
      return { name: a.name, length: bits };
    }
    return { name: a.name };
  }
  // An EC algorithm's curve, by its canonical name.
  function namedCurve(a, op) {
    if (a.name === 'ECDSA' || a.name === 'ECDH') a.namedCurve = canonical(CURVES, needs(a, 'namedCurve', op), `${op}: the curve`);
  }
  // The usages, each either a private key's or a public key's, as a pair
  // (`[private, public]`); a private key needs one.
  function pairUsages(name, usages, op) {
    const list = Array.from(usages);
    const { private: mine, public: theirs } = USAGES[name];
    for (const u of list) {
      if (!mine.includes(u) && !theirs.includes(u)) throw cryptoError('SyntaxError', `${op}: a ${name} key cannot be used to ${u}`);
    }
    return [list.filter((u) => mine.includes(u)), list.filter((u) => theirs.includes(u))];
  }

  async function importKey(format, keyData, algorithm, extractable, usages) {
    const a = normalizeAlgorithm(algorithm, 'importKey');
    return importNormalized(format, keyData, a, extractable, usages);
  }
  function importNormalized(format, keyData, a, extractable, usages) {
    const op = 'importKey';
    const kinds = USAGES[a.name];
    if (kinds.secret) {
      let bytes;
      if (format === 'raw-secret' || (format === 'raw' && !DRAFT_SECRETS.includes(a.name))) bytes = bufferSource(keyData, 'keyData');
      else if (format === 'jwk' && a.name !== 'PBKDF2' && a.name !== 'HKDF') {
        checkJwk(keyData, 'oct', a, extractable, usages);
        bytes = unb64url(keyData.k, 'k');
      } else throw cryptoError('NotSupportedError', `${op}: a ${a.name} key is imported as ${secretFormats(a.name)}, not "${format}"`);
      const list = checkUsages(a.name, 'secret', usages, op, true);
      if ((a.name === 'PBKDF2' || a.name === 'HKDF') && extractable) throw cryptoError('SyntaxError', `${op}: ${a.name} keys are not extractable`);
      if (a.name === 'HMAC') needs(a, 'hash', op);
      const shown = secretAlgorithm(a, bytes.length * 8, op);
      if (format === 'jwk' && keyData.alg !== undefined && keyData.alg !== JWK_ALG[a.name](shown)) {
        throw cryptoError('DataError', `${op}: the JWK's alg "${keyData.alg}" is not ${JWK_ALG[a.name](shown)}`);
      }
      return newKey('secret', Boolean(extractable), shown, nonEmpty(list, 'secret', op), bytes);
    }
    namedCurve(a, op);
    if (a.name.startsWith('RSA')) needs(a, 'hash', op);
    const args = Object.assign({ op: 'import', format: String(format) }, hostAlg(a));
    let parts = [];
    if (format === 'jwk' && KTY[a.name]) {
      checkJwk(keyData, KTY[a.name], a, extractable, usages);
      args.jwk = keyData;
    } else if (pairFormats(a.name).includes(format)) {
      if (format === 'raw-public') args.format = 'raw';
      parts = [bufferSource(keyData, 'keyData')];
    } else if (KEY_FORMATS.includes(format)) {
      throw cryptoError('NotSupportedError', `${op}: a ${a.name} key is not imported as "${format}"`);
    } else throw new TypeError(`${op}: unknown key format "${format}"`);
    // A private key's usages are checked before its data is read.
    const list = Array.from(usages);
    if (format === 'pkcs8' || format === 'raw-seed' || (format === 'jwk' && keyData.d !== undefined)) checkUsages(a.name, 'private', list, op, true);
    else if (format !== 'jwk') checkUsages(a.name, 'public', list, op);
    const { value, data } = subtleCall(args, parts);
    const shown = pairAlgorithm(a, value);
    const jwkAlg = JWK_ALG[a.name] && JWK_ALG[a.name](shown);
    if (format === 'jwk' && keyData.alg !== undefined && jwkAlg && keyData.alg !== jwkAlg && !(a.name.startsWith('Ed') && keyData.alg === 'EdDSA')) {
      throw cryptoError('DataError', `${op}: the JWK's alg "${keyData.alg}" is not ${jwkAlg}`);
    }
    return newKey(value.kind, Boolean(extractable), shown, checkUsages(a.name, value.kind, list, op), data);
  }
  // The formats a private or public key of `name` is imported and
  // exported in ("jwk" is checked apart).
  function pairFormats(name) {
    if (KEMS.includes(name)) return ['raw-public', 'spki', 'pkcs8', 'raw-seed'];
    return name.startsWith('RSA') ? ['spki', 'pkcs8'] : ['raw', 'raw-public', 'spki', 'pkcs8'];
  }
  function secretFormats(name) {
    if (name === 'PBKDF2' || name === 'HKDF') return '"raw" or "raw-secret"';
    return DRAFT_SECRETS.includes(name) ? '"raw-secret" or "jwk"' : '"raw", "raw-secret" or "jwk"';
  }
  function checkJwk(jwk, kty, a, extractable, usages) {
    if (jwk === null || typeof jwk !== 'object') throw new TypeError('importKey: a "jwk" key is a JsonWebKey object');
    if (jwk.kty !== kty) throw cryptoError('DataError', `importKey: a ${a.name} JWK has kty "${kty}", not "${jwk.kty}"`);
    if (jwk.ext === false && extractable) throw cryptoError('DataError', 'importKey: the JWK says ext: false, so the key cannot be extractable');
    const use = SIGNERS.includes(a.name) ? 'sig' : 'enc';
    if (jwk.use !== undefined && Array.from(usages).length > 0 && jwk.use !== use) throw cryptoError('DataError', `importKey: a ${a.name} JWK's use is "${use}", not "${jwk.use}"`);
    if (jwk.key_ops !== undefined && Array.from(usages).some((u) => !jwk.key_ops.includes(u))) {
      throw cryptoError('DataError', `importKey: the JWK's key_ops (${jwk.key_ops}) do not allow ${Array.from(usages)}`);
    }
  }

  async function exportKey(format, key) {
    return exportBytes(format, key);
  }
  // The key as `format` gives it: an ArrayBuffer, or a JWK object.
  function exportBytes(format, key) {
    const k = branded(keyState, key);
    if (!KEY_FORMATS.includes(format)) throw new TypeError(`exportKey: unknown key format "${format}"`);
    if (!k.extractable) throw cryptoError('InvalidAccessError', 'exportKey: the key is not extractable');
    let jwk;
    const name = k.algorithm.name;
    if (k.type === 'secret') {
      if (format === 'raw-secret' || (format === 'raw' && !DRAFT_SECRETS.includes(name))) return k.material.slice().buffer;
      if (format !== 'jwk' || name === 'PBKDF2' || name === 'HKDF') {
        throw cryptoError('NotSupportedError', `exportKey: a ${name} key is exported as ${secretFormats(name)}, not "${format}"`);
      }
      jwk = { kty: 'oct', k: b64url(k.material) };
    } else {
      if (!(pairFormats(name).includes(format) || (format === 'jwk' && KTY[name]))) throw cryptoError('NotSupportedError', `exportKey: a ${name} key is not exported as "${format}"`);
      const hostFormat = format === 'raw-public' ? 'raw' : String(format);
      const { value, data } = subtleCall(Object.assign({ op: 'export', format: hostFormat, kind: k.type }, hostAlg(k.algorithm)), [k.material]);
      if (format !== 'jwk') return data.slice().buffer;
      // An OKP key's members in the order Node gives them.
      jwk = value.kty !== 'OKP' ? value : Object.assign({ crv: value.crv }, value.d === undefined ? {} : { d: value.d }, { x: value.x, kty: 'OKP' });
    }
    const alg = JWK_ALG[k.algorithm.name] && JWK_ALG[k.algorithm.name](k.algorithm);
    return Object.assign({ key_ops: k.usages.slice(), ext: true }, jwk, alg ? { alg } : {});
  }

  async function generateKey(algorithm, extractable, usages) {
    const op = 'generateKey';
    if (render === null) throw new TypeError(`${op}: a key made at the top level, which runs at build time, would be the same in every instance; make it in the handler`);
    const a = normalizeAlgorithm(algorithm, op);
    const kinds = USAGES[a.name];
    if (kinds.secret) {
      const list = checkUsages(a.name, 'secret', usages, op, true);
      const bits = keyBits(a, op);
      if (AES.includes(a.name) && !AES_BITS.includes(bits)) throw cryptoError('OperationError', `${op}: an AES key is 128, 192 or 256 bits, not ${bits}`);
      if (bits === 0) throw cryptoError('OperationError', `${op}: a ${a.name} key of 0 bits`);
      nonEmpty(list, 'secret', op);
      const { data } = subtleCall(Object.assign({ op: 'generate', length: bits }, hostAlg(a)), []);
      return newKey('secret', Boolean(extractable), secretAlgorithm(a, bits, op), list, data);
    }
    const [privateUsages, publicUsages] = pairUsages(a.name, usages, op);
    namedCurve(a, op);
    const args = Object.assign({ op: 'generate' }, hostAlg(a));
    if (a.name.startsWith('RSA')) {
      needs(a, 'hash', op);
      args.modulusLength = Number(needs(a, 'modulusLength', op));
      args.publicExponent = Array.from(bufferSource(needs(a, 'publicExponent', op), 'publicExponent'));
    }
    const { value, data } = subtleCall(args, []);
    nonEmpty(privateUsages, 'private', op);
    const shown = pairAlgorithm(a, value);
    const [n] = value.parts;
    return {
      privateKey: newKey('private', Boolean(extractable), shown, privateUsages, data.slice(0, n)),
      publicKey: newKey('public', true, shown, publicUsages, data.slice(n)),
    };
  }

  // The host's parameters of a signature: RSA-PSS's salt length, and the
  // hash of ECDSA (given per call) or of the key.
  function signArgs(a, k, op) {
    const args = hostAlg(k.algorithm);
    if (a.name === 'ECDSA') args.hash = normalizeAlgorithm({ name: 'ECDSA', hash: needs(a, 'hash', op) }, op).hash.name;
    if (a.name === 'RSA-PSS') args.saltLength = Number(needs(a, 'saltLength', op));
    if (a.name.startsWith('KMAC')) args.length = Number(needs(a, 'length', op));
    return args;
  }
  // The bytes a signature takes besides its data: Ed448's context, or
  // KMAC's customization.
  function signExtra(a) {
    const extra = a.name === 'Ed448' ? a.context : a.name.startsWith('KMAC') ? a.customization : undefined;
    return extra === undefined ? new Uint8Array(0) : bufferSource(extra, a.name === 'Ed448' ? 'context' : 'customization');
  }
  async function sign(algorithm, key, data) {
    const a = normalizeAlgorithm(algorithm, 'sign');
    const k = usable(key, 'sign', a.name, 'sign');
    return subtleCall(Object.assign({ op: 'sign' }, signArgs(a, k, 'sign')), [k.material, bufferSource(data, 'data'), signExtra(a)]).data.buffer;
  }
  async function verify(algorithm, key, signature, data) {
    const a = normalizeAlgorithm(algorithm, 'verify');
    const k = usable(key, 'verify', a.name, 'verify');
    return subtleCall(Object.assign({ op: 'verify' }, signArgs(a, k, 'verify')),
      [k.material, bufferSource(signature, 'signature'), bufferSource(data, 'data'), signExtra(a)]).value;
  }
  // Encrypts or decrypts `data` with `a` (normalized) and `key`, which must
  // allow `usage`: the AES modes and RSA-OAEP for encrypt and decrypt, and
  // AES-KW too for wrapKey and unwrapKey.
  function cipherCall(encrypt, a, key, data, usage) {
    const op = encrypt ? 'encrypt' : 'decrypt';
    const k = usable(key, usage, a.name, usage);
    const args = Object.assign({ op }, hostAlg(k.algorithm));
    let iv = new Uint8Array(0);
    let aad = new Uint8Array(0);
    if (['AES-GCM', 'AES-CBC', 'AES-OCB', 'ChaCha20-Poly1305'].includes(a.name)) iv = bufferSource(needs(a, 'iv', usage), 'iv');
    if (a.name === 'AES-GCM' || a.name === 'AES-OCB' || a.name === 'ChaCha20-Poly1305') {
      if (a.tagLength !== undefined) args.tagLength = Number(a.tagLength);
      if (a.additionalData !== undefined) aad = bufferSource(a.additionalData, 'additionalData');
    }
    if (a.name === 'AES-CTR') {
      iv = bufferSource(needs(a, 'counter', usage), 'counter');
      args.length = Number(needs(a, 'length', usage));
    }
    if (a.name === 'RSA-OAEP' && a.label !== undefined) aad = bufferSource(a.label, 'label');
    return subtleCall(args, [k.material, iv, aad, bufferSource(data, 'data')]).data;
  }
  async function encrypt(algorithm, key, data) { return cipherCall(true, normalizeAlgorithm(algorithm, 'encrypt'), key, data, 'encrypt').buffer; }
  async function decrypt(algorithm, key, data) { return cipherCall(false, normalizeAlgorithm(algorithm, 'decrypt'), key, data, 'decrypt').buffer; }

  async function wrapKey(format, key, wrappingKey, wrapAlgorithm) {
    const a = normalizeAlgorithm(wrapAlgorithm, 'wrapKey');
    usable(wrappingKey, 'wrapKey', a.name, 'wrapKey');
    const exported = exportBytes(format, key);
    const bytes = format === 'jwk' ? encoder().encode(JSON.stringify(exported)) : new Uint8Array(exported);
    return cipherCall(true, a, wrappingKey, bytes, 'wrapKey').buffer;
  }
  async function unwrapKey(format, wrappedKey, unwrappingKey, unwrapAlgorithm, unwrappedKeyAlgorithm, extractable, usages) {
    const a = normalizeAlgorithm(unwrapAlgorithm, 'unwrapKey');
    const keyAlgorithm = normalizeAlgorithm(unwrappedKeyAlgorithm, 'importKey');
    const bytes = cipherCall(false, a, unwrappingKey, wrappedKey, 'unwrapKey');
    let keyData = bytes;
    if (format === 'jwk') {
      try {
        keyData = JSON.parse(decoder().decode(bytes));
      } catch {
        throw cryptoError('DataError', 'unwrapKey: the unwrapped "jwk" key is not JSON');
      }
    }
    return importNormalized(format, keyData, keyAlgorithm, extractable, usages);
  }

  // The bits ECDH, X25519 or X448 agree on, of the private `k` and
  // `a.public`.
  function agreedBits(a, k, length, op) {
    const peer = a.public;
    const p = peer === undefined ? undefined : keyState.get(peer);
    if (p === undefined) throw new TypeError(`${op}: ${a.name} needs "public", a CryptoKey`);
    if (p.type !== 'public') throw cryptoError('InvalidAccessError', `${op}: "public" is a ${p.type} key, not a public one`);
    if (p.algorithm.name !== a.name || (p.algorithm.namedCurve || '') !== (k.algorithm.namedCurve || '')) {
      throw cryptoError('InvalidAccessError', `${op}: "public" is a ${p.algorithm.name} ${p.algorithm.namedCurve || ''} key, not one of this key's`);
    }
    const args = Object.assign({ op: 'agree' }, hostAlg(k.algorithm));
    if (length !== null && length !== undefined) args.bits = Number(length);
    return subtleCall(args, [k.material, p.material]).data;
  }
  function bitsOf(algorithm, key, length, op, usage) {
    const a = normalizeAlgorithm(algorithm, op);
    const k = usable(key, usage, a.name, op);
    if (AGREERS.includes(a.name)) return agreedBits(a, k, length, op);
    if (length === null || length === undefined) throw cryptoError('OperationError', `${op}: ${a.name} needs a length`);
    const args = { op: 'derive', alg: a.name, hash: needs(a, 'hash', op).name, length: Number(length) };
    if (a.name === 'PBKDF2') args.iterations = Number(needs(a, 'iterations', op));
    const info = a.name === 'HKDF' ? bufferSource(needs(a, 'info', op), 'info') : new Uint8Array(0);
    return subtleCall(args, [k.material, bufferSource(needs(a, 'salt', op), 'salt'), info]).data;
  }
  async function deriveBits(algorithm, key, length = null) {
    return bitsOf(algorithm, key, length, 'deriveBits', 'deriveBits').buffer;
  }
  async function deriveKey(algorithm, key, derivedKeyType, extractable, usages) {
    const d = normalizeAlgorithm(derivedKeyType, 'deriveKey', ALGORITHMS);
    if (!USAGES[d.name].secret || d.name === 'PBKDF2' || d.name === 'HKDF') throw cryptoError('NotSupportedError', `deriveKey: a ${d.name} key cannot be derived`);
    const bits = keyBits(d, 'deriveKey');
    if (d.name !== 'HMAC' && !AES_BITS.includes(bits)) throw cryptoError('OperationError', `deriveKey: an AES key is 128, 192 or 256 bits, not ${bits}`);
    const bytes = bitsOf(algorithm, key, bits, 'deriveKey', 'deriveKey');
    const list = checkUsages(d.name, 'secret', usages, 'deriveKey');
    return newKey('secret', Boolean(extractable), secretAlgorithm(d, bits, 'deriveKey'), list, bytes);
  }
  async function digest(algorithm, data) {
    if (algorithm === null || (typeof algorithm === 'object' && algorithm.name === undefined)) throw new TypeError('digest: the algorithm must be a name or an object with a name');
    const name = canonical(DIGESTS, typeof algorithm === 'string' ? algorithm : algorithm && algorithm.name, 'the hash');
    if (!name.startsWith('cSHAKE')) return subtleCall({ op: 'digest', hash: name }, [bufferSource(data, 'data')]).data.buffer;
    // cSHAKE: `length` bits of output, a function name and a customization.
    const a = typeof algorithm === 'string' ? { name } : algorithm;
    const part = (member) => (a[member] === undefined ? new Uint8Array(0) : bufferSource(a[member], member));
    const args = { op: 'digest', hash: name, length: Number(needs(a, 'length', 'digest')) };
    return subtleCall(args, [bufferSource(data, 'data'), part('functionName'), part('customization')]).data.buffer;
  }
  // ML-KEM: a new shared secret for a public key, and its ciphertext; and
  // the secret a private key finds in a ciphertext. A key of the secret is
  // imported as "raw-secret" by `sharedKeyAlgorithm`.
  function encapsulated(algorithm, key, op) {
    const a = normalizeAlgorithm(algorithm, op);
    const k = usable(key, op, a.name, op);
    const { data } = subtleCall(Object.assign({ op: 'encapsulate' }, hostAlg(k.algorithm)), [k.material]);
    return { sharedKey: data.slice(0, 32), ciphertext: data.slice(32).buffer };
  }
  function decapsulated(algorithm, key, ciphertext, op) {
    const a = normalizeAlgorithm(algorithm, op);
    const k = usable(key, op, a.name, op);
    return subtleCall(Object.assign({ op: 'decapsulate' }, hostAlg(k.algorithm)), [k.material, bufferSource(ciphertext, 'ciphertext')]).data;
  }
  function sharedKeyOf(bytes, sharedKeyAlgorithm, extractable, usages, op) {
    const a = normalizeAlgorithm(sharedKeyAlgorithm, op, ALGORITHMS);
    if (!USAGES[a.name].secret) throw cryptoError('NotSupportedError', `${op}: a ${a.name} key is not a secret key`);
    return importNormalized('raw-secret', bytes, a, extractable, usages);
  }
  async function encapsulateBits(algorithm, encapsulationKey) {
    const { sharedKey, ciphertext } = encapsulated(algorithm, encapsulationKey, 'encapsulateBits');
    return { sharedKey: sharedKey.buffer, ciphertext };
  }
  async function encapsulateKey(algorithm, encapsulationKey, sharedKeyAlgorithm, extractable, usages) {
    const { sharedKey, ciphertext } = encapsulated(algorithm, encapsulationKey, 'encapsulateKey');
    return { sharedKey: sharedKeyOf(sharedKey, sharedKeyAlgorithm, extractable, usages, 'encapsulateKey'), ciphertext };
  }
  async function decapsulateBits(algorithm, decapsulationKey, ciphertext) {
    return decapsulated(algorithm, decapsulationKey, ciphertext, 'decapsulateBits').buffer;
  }
  async function decapsulateKey(algorithm, decapsulationKey, ciphertext, sharedKeyAlgorithm, extractable, usages) {
    const bytes = decapsulated(algorithm, decapsulationKey, ciphertext, 'decapsulateKey');
    return sharedKeyOf(bytes, sharedKeyAlgorithm, extractable, usages, 'decapsulateKey');
  }
  // The public key of a private one, with `usages`.
  async function getPublicKey(key, usages) {
    const k = branded(keyState, key);
    if (k.type !== 'private') throw cryptoError(k.type === 'secret' ? 'NotSupportedError' : 'InvalidAccessError', `getPublicKey: the key is a ${k.type} key, not a private one`);
    const list = checkUsages(k.algorithm.name, 'public', usages, 'getPublicKey');
    const { data } = subtleCall(Object.assign({ op: 'public' }, hostAlg(k.algorithm)), [k.material]);
    return newKey('public', true, k.algorithm, list, data);
  }
  // SubtleCrypto.supports (the Modern Algorithms draft): whether `op` takes
  // `algorithm`, normalized, with the members its parameters need and a
  // key size the algorithm has; `length` is deriveBits' length.
  const RSA_MADE = ['modulusLength', 'publicExponent', 'hash'];
  const AES_MADE = ['length'];
  const NEEDED = {
    generateKey: { HMAC: ['hash'], 'RSASSA-PKCS1-v1_5': RSA_MADE, 'RSA-PSS': RSA_MADE, 'RSA-OAEP': RSA_MADE, ECDSA: ['namedCurve'], ECDH: ['namedCurve'], 'AES-CTR': AES_MADE, 'AES-CBC': AES_MADE, 'AES-GCM': AES_MADE, 'AES-KW': AES_MADE, 'AES-OCB': AES_MADE },
    importKey: { HMAC: ['hash'], 'RSASSA-PKCS1-v1_5': ['hash'], 'RSA-PSS': ['hash'], 'RSA-OAEP': ['hash'], ECDSA: ['namedCurve'], ECDH: ['namedCurve'] },
    sign: { ECDSA: ['hash'], 'RSA-PSS': ['saltLength'], KMAC128: ['length'], KMAC256: ['length'] },
    encrypt: { 'AES-GCM': ['iv'], 'AES-CBC': ['iv'], 'AES-CTR': ['counter', 'length'], 'AES-OCB': ['iv'], 'ChaCha20-Poly1305': ['iv'] },
    deriveBits: { ECDH: ['public'], X25519: ['public'], X448: ['public'], HKDF: ['hash', 'salt', 'info'], PBKDF2: ['hash', 'salt', 'iterations'] },
    digest: { cSHAKE128: ['length'], cSHAKE256: ['length'] },
  };
  Object.assign(NEEDED, { verify: NEEDED.sign, decrypt: NEEDED.encrypt, deriveKey: NEEDED.deriveBits });
  const SUPPORTS_LISTS = Object.assign({ importKey: ALGORITHMS, exportKey: ALGORITHMS, getPublicKey: ALGORITHMS, digest: DIGESTS }, OPERATIONS);
  function supports(op, algorithm, length) {
    if (!Object.prototype.hasOwnProperty.call(SUPPORTS_LISTS, op)) return false;
    let a;
    try {
      a = normalizeAlgorithm(algorithm, op, SUPPORTS_LISTS[op]);
    } catch {
      return false;
    }
    if (((NEEDED[op] || {})[a.name] || []).some((m) => a[m] === undefined)) return false;
    if (op === 'generateKey' && AES.includes(a.name) && !AES_BITS.includes(Number(a.length))) return false;
    if (op === 'generateKey' && (a.name === 'ECDSA' || a.name === 'ECDH') && !CURVES.includes(a.namedCurve)) return false;
    if (op === 'deriveBits' && (a.name === 'HKDF' || a.name === 'PBKDF2')) return length != null && Number(length) % 8 === 0;
    return true;
  }
  // Workers' extension: compares in time that depends on the length only.
  function timingSafeEqual(a, b) {
    const x = bufferSource(a, 'a');
    const y = bufferSource(b, 'b');
    if (x.length !== y.length) throw new TypeError('timingSafeEqual: the two buffers must have the same length');
    let diff = 0;
    for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
    return diff === 0;
  }
  let makingSubtle = false;
  class SubtleCryptoImpl {
    constructor() { if (!makingSubtle) throw new TypeError('Illegal constructor'); }
    get [Symbol.toStringTag]() { return 'SubtleCrypto'; }
  }
  Object.defineProperty(SubtleCryptoImpl, 'name', { value: 'SubtleCrypto' });
  Object.defineProperty(SubtleCryptoImpl, 'supports', { value: supports, writable: true, configurable: true, enumerable: true });
  for (const [name, fn] of Object.entries({ digest, importKey, exportKey, generateKey, sign, verify, encrypt, decrypt, deriveBits, deriveKey, wrapKey, unwrapKey, encapsulateKey, encapsulateBits, decapsulateKey, decapsulateBits, getPublicKey, timingSafeEqual })) {
    Object.defineProperty(SubtleCryptoImpl.prototype, name, { value: fn, writable: true, configurable: true, enumerable: true });
  }
  makingSubtle = true;
  const subtle = new SubtleCryptoImpl();
  makingSubtle = false;
  if (g.crypto && g.crypto.subtle === undefined) {
    Object.defineProperty(g.crypto, 'subtle', { value: subtle, configurable: true, enumerable: true });
  }
  defineMissing('CryptoKey', CryptoKeyImpl);
  defineMissing('SubtleCrypto', SubtleCryptoImpl);

  // -------------------------------------------------------- structuredClone
  // The HTML standard's StructuredSerialize and StructuredDeserialize in
  // one pass (checked by WPT's html/webappapis/structured-clone/). It walks
  // with a stack of its own, not by recursion, so a chain of a million
  // objects clones as a short one does; properties are read in the
  // standard's order (depth first, own enumerable string keys, getters run
  // once). What cannot be serialized throws a `DataCloneError`.
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const UNCLONEABLE = [WeakMap, WeakSet, Promise].concat(typeof WeakRef === 'function' ? [WeakRef] : []);
  function cloneError(what) {
    return new DOMExceptionImpl(`${what} could not be cloned.`, 'DataCloneError');
  }
  function cloneBuffer(buffer) {
    if (buffer.byteLength === 0 && buffer.detached === true) throw cloneError('A detached ArrayBuffer');
    return buffer.slice(0);
  }
  function structuredCloneImpl(value, transfer = []) {
    const memory = new Map();
    // The objects whose members are still to copy: a stack of frames, each
    // a source, its copy, the member keys (or Map/Set entries) and how far.
    const froms = [];
    const tos = [];
    const keys = [];
    const nexts = [];
    // The copy of one value, shallow: an object's members are filled in
    // from the stack.
    function shallow(v) {
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) {
        if (typeof v === 'symbol') throw cloneError(String(v));
        return v;
      }
      const known = memory.get(v);
      if (known !== undefined) return known;
      if (typeof v === 'function') throw cloneError(`function ${v.name || '(anonymous)'}`);
      let out;
      let members = null;
      const proto = Object.getPrototypeOf(v);
      if (proto === Object.prototype || proto === null) {
        out = {};
        members = Object.keys(v);
      } else if (Array.isArray(v)) {
        out = new Array(v.length);
        members = Object.keys(v);
      } else {
        [out, members] = special(v);
      }
      memory.set(v, out);
      if (members !== null && members.length > 0) {
        froms.push(v);
        tos.push(out);
        keys.push(members);
        nexts.push(0);
      }
      return out;
    }
    // Everything but plain objects and arrays: [copy, members or null].
    function special(v) {
      const tag = Object.prototype.toString.call(v);
      if (v instanceof Boolean || tag === '[object Boolean]') return [Object(Boolean.prototype.valueOf.call(v)), null];
      if (v instanceof Number || tag === '[object Number]') return [Object(Number.prototype.valueOf.call(v)), null];
      if (v instanceof BigInt || tag === '[object BigInt]') return [Object(BigInt.prototype.valueOf.call(v)), null];
      if (v instanceof String || tag === '[object String]') return [Object(String.prototype.valueOf.call(v)), null];
      if (v instanceof Date) return [new Date(v.getTime()), null];
      if (v instanceof RegExp) return [new RegExp(v.source, v.flags), null];
      if (v instanceof ArrayBuffer) return [cloneBuffer(v), null];
      if (ArrayBuffer.isView(v)) {
        let buffer = memory.get(v.buffer);
        if (buffer === undefined) {
          buffer = cloneBuffer(v.buffer);
          memory.set(v.buffer, buffer);
        }
        return [v instanceof DataView ? new DataView(buffer, v.byteOffset, v.byteLength) : new g[tag.slice(8, -1)](buffer, v.byteOffset, v.length), null];
      }
      if (v instanceof Map) return [new Map(), Array.from(v)];
      if (v instanceof Set) return [new Set(), Array.from(v)];
      if (v instanceof DOMExceptionImpl) return [new DOMExceptionImpl(v.message, v.name), null];
      if (v instanceof Error) {
        const name = v.name;
        const C = Object.prototype.hasOwnProperty.call(ERRORS, name) ? ERRORS[name] : Error;
        const message = Object.getOwnPropertyDescriptor(v, 'message');
        const out = message !== undefined && 'value' in message ? new C(String(message.value)) : new C();
        if (!Object.prototype.hasOwnProperty.call(v, 'cause')) return [out, null];
        Object.defineProperty(out, 'cause', { value: undefined, writable: true, configurable: true });
        return [out, ['cause']];
      }
      if (v instanceof FileImpl) return [new FileImpl([v], v.name, { type: v.type, lastModified: v.lastModified }), null];
      if (v instanceof BlobImpl) return [new BlobImpl([v], { type: v.type }), null];
      if (UNCLONEABLE.some((C) => v instanceof C) || isPlatform(v)) throw cloneError(tag.slice(8, -1));
      return [{}, Object.keys(v)];
    }
    const moved = new Set();
    for (const t of transfer) {
      if (!(t instanceof ArrayBuffer)) throw cloneError(`${Object.prototype.toString.call(t).slice(8, -1)} in the transfer list`);
      if (moved.has(t)) throw cloneError('An ArrayBuffer listed twice in the transfer list');
      moved.add(t);
    }
    const root = shallow(value);
    let top;
    while ((top = froms.length - 1) >= 0) {
      const members = keys[top];
      const at = nexts[top];
      if (at >= members.length) {
        froms.pop();
        tos.pop();
        keys.pop();
        nexts.pop();
        continue;
      }
      nexts[top] = at + 1;
      const m = members[at];
      const to = tos[top];
      if (to instanceof Map) to.set(shallow(m[0]), shallow(m[1]));
      else if (to instanceof Set) to.add(shallow(m));
      else if (Object.prototype.hasOwnProperty.call(froms[top], m)) to[m] = shallow(froms[top][m]);
    }
    // A transferred buffer was copied like the others; the original is
    // then detached, where the engine can (ES2024's `transfer`).
    for (const t of moved) {
      if (typeof t.transfer === 'function') t.transfer();
    }
    return root;
  }
  // The prelude's classes that are not serializable (the standard's
  // platform objects), whose state a copy of their properties would lose.
  let platform = null;
  function isPlatform(v) {
    platform = platform || [RequestImpl, ResponseImpl, HeadersImpl, ReadableStreamImpl, WritableStreamImpl, EventTargetImpl, MessagePort, URLImpl, URLSearchParamsImpl];
    return platform.some((C) => v instanceof C);
  }
  defineMissing('structuredClone', function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
    const transfer = options === undefined || options === null ? [] : options.transfer;
    return structuredCloneImpl(value, transfer === undefined ? [] : Array.from(transfer));
  });

  // ------------------------------------------------------- URL, URLSearchParams
  // WHATWG URL and URLSearchParams (checked by WPT's url/). The state lives
  // here; every parse, setter and form-encoding step is the host's
  // (`calls::URL`: the `url` crate, host/src/engine/url.rs), which
  // implements the standard. Strings cross as USVStrings: a lone surrogate
  // becomes U+FFFD, as WebIDL converts them.
  // QuickJS has `isWellFormed` natively; a regular expression over a
  // page's text cost more than the encoding (V8 10.2 lacks it).
  const wellFormed = typeof ''.isWellFormed === 'function';
  function usv(v) {
    const s = typeof v === 'string' ? v : `${v}`;
    if (wellFormed) return s.isWellFormed() ? s : s.toWellFormed();
    return /[\ud800-\udfff]/.test(s) ? s.replace(/[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]/g, (m) => (m.length === 2 ? m : '\ufffd')) : s;
  }
  // The host's answer, or null for a URL that does not parse. Pure, so the
  // top level may call it.
  function urlCall(args) {
    const [ok, text] = hostCall('url', JSON.stringify(args));
    if (ok) return JSON.parse(text);
    if (text.startsWith('Invalid')) return null;
    throw new TypeError(text);
  }
  const clip = (s) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}...` : s);
  // A URL's attributes, in the order the host gives them.
  const [HREF, ORIGIN, PROTOCOL, USERNAME, PASSWORD, HOST, HOSTNAME, PORT, PATHNAME, SEARCH, HASH] = Array.from({ length: 11 }, (_, i) => i);
  const internal = Symbol('internal');
  function parseQuery(s) { return s === '' ? [] : urlCall({ op: 'params', query: s }); }
  function parseURL(url, base) {
    return urlCall({ op: 'parse', input: usv(url), base: base === undefined ? null : usv(base) });
  }
  function needArgs(args, n, what) {
    if (args.length < n) throw new TypeError(`Failed to execute '${what}': ${n} argument${n > 1 ? 's' : ''} required, but only ${args.length} present.`);
  }

  let attachParams; // (url, search) => a URLSearchParams updating url
  let reparseParams; // (params, search) => void
  let searchUpdated; // (url, query) => void
  class URLSearchParamsImpl {
    #list = [];
    #url = null;
    constructor(init = '') {
      if (init === internal) return;
      if ((typeof init === 'object' && init !== null) || typeof init === 'function') {
        const iterator = init[Symbol.iterator];
        if (iterator !== undefined && iterator !== null) {
          if (typeof iterator !== 'function') throw new TypeError("Failed to construct 'URLSearchParams': The object's @@iterator property is not callable.");
          for (const pair of init) {
            if ((typeof pair !== 'object' || pair === null) && typeof pair !== 'function') {
              throw new TypeError("Failed to construct 'URLSearchParams': The provided value cannot be converted to a sequence.");
            }
            const p = Array.from(pair);
            if (p.length !== 2) throw new TypeError("Failed to construct 'URLSearchParams': Sequence initializer must only contain pair elements");
            this.#list.push([usv(p[0]), usv(p[1])]);
          }
        } else {
          for (const k of Reflect.ownKeys(init)) {
            const d = Reflect.getOwnPropertyDescriptor(init, k);
            if (d === undefined || !d.enumerable) continue;
            const name = usv(k);
            const value = usv(init[k]);
            const at = this.#list.findIndex(([n]) => n === name);
            if (at < 0) this.#list.push([name, value]);
            else this.#list[at][1] = value;
          }
        }
      } else {
        const s = usv(init);
        this.#list = parseQuery(s.startsWith('?') ? s.slice(1) : s);
      }
    }
    static {
      attachParams = (url, search) => {
        const p = new URLSearchParamsImpl(internal);
        p.#url = url;
        p.#list = parseQuery(search.slice(1));
        return p;
      };
      reparseParams = (p, search) => { p.#list = parseQuery(search.slice(1)); };
    }
    #update() { if (this.#url !== null) searchUpdated(this.#url, this.toString()); }
    get size() { return this.#list.length; }
    append(name, value) { needArgs(arguments, 2, 'append'); this.#list.push([usv(name), usv(value)]); this.#update(); }
    delete(name, value) {
      needArgs(arguments, 1, 'delete');
      const n = usv(name);
      const v = value === undefined ? undefined : usv(value);
      this.#list = this.#list.filter(([k, x]) => !(k === n && (v === undefined || x === v)));
      this.#update();
    }
    get(name) { needArgs(arguments, 1, 'get'); const n = usv(name); const p = this.#list.find(([k]) => k === n); return p ? p[1] : null; }
    getAll(name) { needArgs(arguments, 1, 'getAll'); const n = usv(name); return this.#list.filter(([k]) => k === n).map(([, v]) => v); }
    has(name, value) {
      needArgs(arguments, 1, 'has');
      const n = usv(name);
      const v = value === undefined ? undefined : usv(value);
      return this.#list.some(([k, x]) => k === n && (v === undefined || x === v));
    }
    set(name, value) {
      needArgs(arguments, 2, 'set');
      const n = usv(name);
      const v = usv(value);
      const i = this.#list.findIndex(([k]) => k === n);
      if (i < 0) this.#list.push([n, v]);
      else this.#list = this.#list.filter(([k], j) => j <= i || k !== n).map((p, j) => (j === i ? [n, v] : p));
      this.#update();
    }
    sort() {
      // Array.prototype.sort is stable; `<` compares code units, as asked.
      this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.#update();
    }
    forEach(fn, thisArg) {
      if (typeof fn !== 'function') throw new TypeError("Failed to execute 'forEach' on 'URLSearchParams': The callback provided as parameter 1 is not a function.");
      for (let i = 0; i < this.#list.length; i++) fn.call(thisArg, this.#list[i][1], this.#list[i][0], this);
    }
    *keys() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0]; }
    *values() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1]; }
    *entries() { for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]; }
    toString() { return this.#list.length === 0 ? '' : urlCall({ op: 'form', list: this.#list }); }
  }
  Object.defineProperty(URLSearchParamsImpl.prototype, Symbol.iterator, { value: URLSearchParamsImpl.prototype.entries, writable: true, configurable: true });
  Object.defineProperty(URLSearchParamsImpl.prototype, Symbol.toStringTag, { value: 'URLSearchParams', configurable: true });

  class URLImpl {
    #c;
    #params = null;
    constructor(url, base) {
      if (url === internal) { this.#c = base; return; }
      needArgs(arguments, 1, 'URL');
      const c = parseURL(url, base);
      if (c === null) throw new TypeError(`Invalid URL: ${clip(usv(url))}${base === undefined ? '' : ` against ${clip(usv(base))}`}`);
      this.#c = c;
    }
    static {
      searchUpdated = (url, query) => { url.#c = urlCall({ op: 'set', href: url.#c[HREF], field: 'search', value: query }); };
    }
    static parse(url, base) {
      needArgs(arguments, 1, 'parse');
      const c = parseURL(url, base);
      return c === null ? null : new URLImpl(internal, c);
    }
    static canParse(url, base) { needArgs(arguments, 1, 'canParse'); return parseURL(url, base) !== null; }
    #set(field, value) {
      const c = urlCall({ op: 'set', href: this.#c[HREF], field, value: usv(value) });
      if (c === null) throw new TypeError(`Invalid URL: ${clip(usv(value))}`);
      this.#c = c;
      if (this.#params !== null && (field === 'href' || field === 'search')) reparseParams(this.#params, c[SEARCH]);
    }
    get href() { return this.#c[HREF]; }
    set href(v) { this.#set('href', v); }
    get origin() { return this.#c[ORIGIN]; }
    get protocol() { return this.#c[PROTOCOL]; }
    set protocol(v) { this.#set('protocol', v); }
    get username() { return this.#c[USERNAME]; }
    set username(v) { this.#set('username', v); }
    get password() { return this.#c[PASSWORD]; }
    set password(v) { this.#set('password', v); }
    get host() { return this.#c[HOST]; }
    set host(v) { this.#set('host', v); }
    get hostname() { return this.#c[HOSTNAME]; }
    set hostname(v) { this.#set('hostname', v); }
    get port() { return this.#c[PORT]; }
    set port(v) { this.#set('port', v); }
    get pathname() { return this.#c[PATHNAME]; }
    set pathname(v) { this.#set('pathname', v); }
    get search() { return this.#c[SEARCH]; }
    set search(v) { this.#set('search', v); }
    get searchParams() {
      if (this.#params === null) this.#params = attachParams(this, this.#c[SEARCH]);
      return this.#params;
    }
    get hash() { return this.#c[HASH]; }
    set hash(v) { this.#set('hash', v); }
    toString() { return this.#c[HREF]; }
    toJSON() { return this.#c[HREF]; }
  }
  Object.defineProperty(URLImpl.prototype, Symbol.toStringTag, { value: 'URL', configurable: true });
  for (const name of ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'searchParams', 'hash']) {
    Object.defineProperty(URLImpl.prototype, name, Object.assign(Object.getOwnPropertyDescriptor(URLImpl.prototype, name), { enumerable: true }));
  }
  defineMissing('URLSearchParams', URLSearchParamsImpl);
  defineMissing('URL', URLImpl);

  // ---------------------------------------------------------------- streams
  // The Streams standard's classes, by its algorithms step by step (WPT
  // `streams/`): ReadableStream with default and byte controllers, default
  // and BYOB readers, `tee`, `from` and async iteration; WritableStream;
  // TransformStream; pipeTo and pipeThrough. Functions named `rs*`,
  // `rsdc*`, `rbc*`, `ws*` and `ts*` are the standard's abstract operations
  // of the same names (ReadableStream*, ReadableStreamDefaultController*,
  // ReadableByteStreamController*, WritableStream*, TransformStream*).
  // Node's (undici's) messages are the reference.
  // A promise with its resolve and reject, and whether it has settled; a
  // `quiet` one's rejection nobody has to observe (a reader's `closed`, a
  // writer's `ready`).
  function deferred(quiet = false) {
    const d = { settled: false };
    d.promise = new Promise((resolve, reject) => {
      d.resolve = (v) => { d.settled = true; resolve(v); };
      d.reject = (e) => { d.settled = true; reject(e); };
    });
    if (quiet) quietly(d.promise);
    return d;
  }
  function quietly(p) { upon(p, undefined, () => {}); return p; }
  // The engine's own `then` and `Reflect.apply`, taken before any app code
  // runs: the standard's algorithms react to promises and call a source's
  // or sink's methods without going through anything an app can patch
  // (`Promise.prototype.then`, a method's own `call` or `apply`).
  // A QueuingStrategy argument as WebIDL converts it, before the
  // constructor's body runs: `highWaterMark` as a number (checked later, by
  // `highWaterMarkOf`) and `size` a function, called as a plain function.
  function queuingStrategy(strategy, what) {
    const s = strategy === undefined || strategy === null ? {} : strategy;
    if (typeof s !== 'object' && typeof s !== 'function') throw new TypeError(`${what}: a queuing strategy must be an object`);
    const hwm = s.highWaterMark === undefined ? undefined : Number(s.highWaterMark);
    const size = s.size;
    if (size !== undefined && typeof size !== 'function') throw new TypeError(`${what}: a queuing strategy's size must be a function`);
    return { hwm, size: size === undefined ? undefined : (chunk) => apply(size, undefined, [chunk]) };
  }
  // The standard's ExtractHighWaterMark.
  function highWaterMarkOf({ hwm }, fallback) {
    if (hwm === undefined) return fallback;
    if (Number.isNaN(hwm) || hwm < 0) throw new RangeError('Invalid highWaterMark');
    return hwm;
  }
  // An underlying source, sink or transformer: an object or undefined.
  function underlying(o, what) {
    if (o === undefined) return {};
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) throw new TypeError(`${what} must be an object`);
    return o;
  }
  const resolvedPromise = Promise.resolve(undefined);
  // Runs `f` in a microtask of the engine's own (no global an app can
  // replace is called).
  function microtask(f) { upon(resolvedPromise, f); }

  // Read requests (the standard's): what a read does when a chunk, the end
  // or an error comes. `readRequest` makes one settling a promise with an
  // iterator result, as `read()` does; the prelude's own readers (pipeTo,
  // a body read whole) pass theirs, which no `Object.prototype.then` can
  // intercept.
  function readRequest(d) {
    return {
      chunk: (value) => d.resolve({ value, done: false }),
      close: (value) => d.resolve({ value, done: true }),
      error: (e) => d.reject(e),
    };
  }
  // Calls an underlying source's or transformer's method as a promise (a
  // throw is a rejection), or resolves when there is none.
  function callMethod(f, self, ...args) {
    if (f === undefined) return Promise.resolve(undefined);
    try {
      return Promise.resolve(apply(f, self, args));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  function methodOf(dict, name, what) {
    const f = dict[name];
    if (f !== undefined && typeof f !== 'function') throw new TypeError(`${what}: ${name} must be a function`);
    return f;
  }

  // ReadableStreamDefaultController: a queue of chunks with sizes; `rsdc*`
  // are the standard's ReadableStreamDefaultController* operations.
  class ReadableStreamDefaultController {
    constructor() { throw new TypeError('Illegal constructor'); }
    get desiredSize() {
      if (!(this instanceof ReadableStreamDefaultController)) throw new TypeError('Illegal invocation');
      return controllerDesiredSize(this);
    }
    close() {
      if (!(this instanceof ReadableStreamDefaultController)) throw new TypeError('Illegal invocation');
      if (!rsdcCanCloseOrEnqueue(this)) throw new TypeError('Invalid state: Controller is already closed');
      rsdcClose(this);
    }
    enqueue(chunk) {
      if (!(this instanceof ReadableStreamDefaultController)) throw new TypeError('Illegal invocation');
      if (!rsdcCanCloseOrEnqueue(this)) throw new TypeError('Invalid state: Controller is already closed');
      rsdcEnqueue(this, chunk);
    }
    error(e) {
      if (!(this instanceof ReadableStreamDefaultController)) throw new TypeError('Illegal invocation');
      controllerError(this, e);
    }
    get [Symbol.toStringTag]() { return 'ReadableStreamDefaultController'; }
  }
  function rsdcPullSteps(c, request) {
    const stream = c._stream;
    if (c._queue.length > 0) {
      const [chunk, size] = c._queue.shift();
      c._queueSize = Math.max(0, c._queueSize - size);
      if (c._closeRequested && c._queue.length === 0) {
        clearAlgorithms(c);
        rsClose(stream);
      } else {
        callPullIfNeeded(c);
      }
      request.chunk(chunk);
      return;
    }
    stream._reader._requests.push(request);
    callPullIfNeeded(c);
  }
  function setUpDefaultController(stream, start, pull, cancel, hwm, size) {
    const c = Object.create(ReadableStreamDefaultController.prototype);
    Object.assign(c, {
      _stream: stream, _queue: [], _queueSize: 0, _hwm: hwm, _size: size,
      _started: false, _closeRequested: false, _pulling: false, _pullAgain: false,
      _pull: pull, _cancel: cancel,
    });
    stream._controller = c;
    startController(c, start);
    return c;
  }
  function rsdcCanCloseOrEnqueue(c) { return !c._closeRequested && c._stream._state === 'readable'; }
  // Both controllers' ClearAlgorithms (a byte controller has no size).
  function clearAlgorithms(c) {
    c._pull = () => Promise.resolve(undefined);
    c._cancel = () => Promise.resolve(undefined);
    c._size = () => 1;
  }
  function rsdcClose(c) {
    if (!rsdcCanCloseOrEnqueue(c)) return;
    c._closeRequested = true;
    if (c._queue.length === 0) {
      clearAlgorithms(c);
      rsClose(c._stream);
    }
  }
  function rsdcEnqueue(c, chunk) {
    if (!rsdcCanCloseOrEnqueue(c)) return;
    const stream = c._stream;
    const reader = stream._reader;
    if (reader !== null && reader._requests.length > 0) {
      reader._requests.shift().chunk(chunk);
    } else {
      let size;
      try {
        size = Number(c._size(chunk));
        if (!(size >= 0) || size === Infinity) throw new RangeError('Invalid chunk size: a size must be a finite, non-negative number');
      } catch (e) {
        controllerError(c, e);
        throw e;
      }
      c._queue.push([chunk, size]);
      c._queueSize += size;
    }
    callPullIfNeeded(c);
  }
  // Both controllers': whether to pull, pulling one at a time, and an
  // error while pulling or starting.
  function shouldCallPull(c) {
    const stream = c._stream;
    if (stream._state !== 'readable' || c._closeRequested || !c._started) return false;
    if (stream._reader !== null && stream._reader._requests.length > 0) return true;
    return controllerDesiredSize(c) > 0;
  }
  function callPullIfNeeded(c) {
    if (!shouldCallPull(c)) return;
    if (c._pulling) {
      c._pullAgain = true;
      return;
    }
    c._pulling = true;
    upon(c._pull(c), () => {
      c._pulling = false;
      if (c._pullAgain) {
        c._pullAgain = false;
        callPullIfNeeded(c);
      }
    }, (e) => controllerError(c, e));
  }
  // Both controllers' Error and [[CancelSteps]]: a byte controller also
  // drops its pending reads into buffers.
  function controllerError(c, e) {
    if (c._stream._state !== 'readable') return;
    if (isByteController(c)) rbcClearPendingPullIntos(c);
    c._queue = [];
    c._queueSize = 0;
    clearAlgorithms(c);
    rsError(c._stream, e);
  }
  function cancelSteps(c, reason) {
    if (isByteController(c)) rbcClearPendingPullIntos(c);
    c._queue = [];
    c._queueSize = 0;
    const result = c._cancel(reason);
    clearAlgorithms(c);
    return result;
  }
  function startController(c, start) {
    upon(Promise.resolve(start(c)), () => {
      c._started = true;
      callPullIfNeeded(c);
    }, (e) => controllerError(c, e));
  }
  function controllerDesiredSize(c) {
    const s = c._stream._state;
    if (s === 'errored') return null;
    if (s === 'closed') return 0;
    return c._hwm - c._queueSize;
  }

  // ReadableByteStreamController: a source of bytes that may fill the
  // reader's own buffer (a BYOB reader's view, or one of
  // `autoAllocateChunkSize` bytes for a default reader). Buffers handed
  // over are transferred (detached from the giver), as the standard says.
  // `rbc*` are its ReadableByteStreamController* operations; a pull-into
  // descriptor is one pending read into a buffer.
  const isDetached = (buffer) => buffer.byteLength === 0 && buffer.detached === true;
  function transferBuffer(buffer) {
    if (isDetached(buffer)) throw new TypeError('the ArrayBuffer is detached');
    return typeof buffer.transfer === 'function' ? buffer.transfer() : buffer;
  }
  function viewOf(v, what) {
    if (!ArrayBuffer.isView(v)) throw new TypeError(`${what}: expected an ArrayBufferView (a typed array or a DataView)`);
    return v;
  }
  // WebIDL's [EnforceRange] unsigned long long.
  function enforceRange(v, what) {
    const n = Number(v);
    if (!Number.isFinite(n)) throw new TypeError(`${what}: ${v} is not a finite number`);
    const t = Math.trunc(n);
    if (t < 0 || t > Number.MAX_SAFE_INTEGER) throw new TypeError(`${what}: ${v} is out of range`);
    return t;
  }

  class ReadableStreamBYOBRequest {
    constructor() { throw new TypeError('Illegal constructor'); }
    get view() {
      if (!(this instanceof ReadableStreamBYOBRequest)) throw new TypeError('Illegal invocation');
      return this._view;
    }
    respond(bytesWritten) {
      if (!(this instanceof ReadableStreamBYOBRequest)) throw new TypeError('Illegal invocation');
      const n = enforceRange(bytesWritten, 'ReadableStreamBYOBRequest.respond');
      if (this._controller === undefined) throw new TypeError('Invalid state: This BYOB request has been invalidated');
      if (isDetached(this._view.buffer)) throw new TypeError('Invalid state: the view\'s buffer is detached');
      rbcRespond(this._controller, n);
    }
    respondWithNewView(view) {
      if (!(this instanceof ReadableStreamBYOBRequest)) throw new TypeError('Illegal invocation');
      viewOf(view, 'ReadableStreamBYOBRequest.respondWithNewView');
      if (this._controller === undefined) throw new TypeError('Invalid state: This BYOB request has been invalidated');
      if (isDetached(view.buffer)) throw new TypeError('Invalid state: the view\'s buffer is detached');
      rbcRespondWithNewView(this._controller, view);
    }
    get [Symbol.toStringTag]() { return 'ReadableStreamBYOBRequest'; }
  }

  class ReadableByteStreamController {
    constructor() { throw new TypeError('Illegal constructor'); }
    get byobRequest() {
      if (!(this instanceof ReadableByteStreamController)) throw new TypeError('Illegal invocation');
      return rbcGetBYOBRequest(this);
    }
    get desiredSize() {
      if (!(this instanceof ReadableByteStreamController)) throw new TypeError('Illegal invocation');
      return controllerDesiredSize(this);
    }
    close() {
      if (!(this instanceof ReadableByteStreamController)) throw new TypeError('Illegal invocation');
      if (this._closeRequested) throw new TypeError('Invalid state: Controller is already closed');
      if (this._stream._state !== 'readable') throw new TypeError('Invalid state: the stream is not readable');
      rbcClose(this);
    }
    enqueue(chunk) {
      if (!(this instanceof ReadableByteStreamController)) throw new TypeError('Illegal invocation');
      viewOf(chunk, 'ReadableByteStreamController.enqueue');
      if (chunk.byteLength === 0) throw new TypeError('ReadableByteStreamController.enqueue: the chunk is empty');
      if (chunk.buffer.byteLength === 0) throw new TypeError('ReadableByteStreamController.enqueue: the chunk\'s buffer is detached or empty');
      if (this._closeRequested) throw new TypeError('Invalid state: Controller is already closed');
      if (this._stream._state !== 'readable') throw new TypeError('Invalid state: the stream is not readable');
      rbcEnqueue(this, chunk);
    }
    error(e) {
      if (!(this instanceof ReadableByteStreamController)) throw new TypeError('Illegal invocation');
      controllerError(this, e);
    }
    get [Symbol.toStringTag]() { return 'ReadableByteStreamController'; }
  }
  function rbcPullSteps(c, request) {
    const stream = c._stream;
    if (c._queueSize > 0) {
      rbcFillReadRequestFromQueue(c, request);
      return;
    }
    const size = c._autoAllocate;
    if (size !== undefined) {
      let buffer;
      try {
        buffer = new ArrayBuffer(size);
      } catch (e) {
        request.error(e);
        return;
      }
      c._pendingPullIntos.push({
        buffer, bufferByteLength: size, byteOffset: 0, byteLength: size, bytesFilled: 0,
        minimumFill: 1, elementSize: 1, viewConstructor: Uint8Array, readerType: 'default',
      });
    }
    stream._reader._requests.push(request);
    callPullIfNeeded(c);
  }
  function rbcReleaseSteps(c) {
    if (c._pendingPullIntos.length > 0) {
      const first = c._pendingPullIntos[0];
      first.readerType = 'none';
      c._pendingPullIntos = [first];
    }
  }
  // A controller's [[PullSteps]] and [[ReleaseSteps]].
  const isByteController = (c) => c instanceof ReadableByteStreamController;
  function pullSteps(c, request) { return isByteController(c) ? rbcPullSteps(c, request) : rsdcPullSteps(c, request); }
  function releaseSteps(c) { return isByteController(c) ? rbcReleaseSteps(c) : undefined; }
  function setUpByteController(stream, start, pull, cancel, hwm, autoAllocate) {
    const c = Object.create(ReadableByteStreamController.prototype);
    Object.assign(c, {
      _stream: stream, _queue: [], _queueSize: 0, _hwm: hwm, _autoAllocate: autoAllocate,
      _started: false, _closeRequested: false, _pulling: false, _pullAgain: false,
      _byobRequest: null, _pendingPullIntos: [], _pull: pull, _cancel: cancel,
    });
    stream._controller = c;
    startController(c, start);
    return c;
  }
  const hasByobReader = (stream) => stream._reader !== null && stream._reader instanceof ReadableStreamBYOBReaderImpl;
  const hasDefaultReader = (stream) => stream._reader !== null && stream._reader instanceof ReadableStreamDefaultReaderImpl;
  function rbcGetBYOBRequest(c) {
    if (c._byobRequest === null && c._pendingPullIntos.length > 0) {
      const first = c._pendingPullIntos[0];
      const req = Object.create(ReadableStreamBYOBRequest.prototype);
      req._controller = c;
      req._view = new Uint8Array(first.buffer, first.byteOffset + first.bytesFilled, first.byteLength - first.bytesFilled);
      c._byobRequest = req;
    }
    return c._byobRequest;
  }
  function rbcInvalidateBYOBRequest(c) {
    if (c._byobRequest === null) return;
    c._byobRequest._controller = undefined;
    c._byobRequest._view = null;
    c._byobRequest = null;
  }
  function rbcClearPendingPullIntos(c) {
    rbcInvalidateBYOBRequest(c);
    c._pendingPullIntos = [];
  }
  function rbcClose(c) {
    const stream = c._stream;
    if (c._closeRequested || stream._state !== 'readable') return;
    if (c._queueSize > 0) {
      c._closeRequested = true;
      return;
    }
    if (c._pendingPullIntos.length > 0) {
      const first = c._pendingPullIntos[0];
      if (first.bytesFilled % first.elementSize !== 0) {
        const e = new TypeError('Invalid state: the stream was closed with a partial element pending in a read into a view');
        controllerError(c, e);
        throw e;
      }
    }
    clearAlgorithms(c);
    rsClose(stream);
  }
  function rbcEnqueue(c, chunk) {
    const stream = c._stream;
    if (c._closeRequested || stream._state !== 'readable') return;
    const { buffer, byteOffset, byteLength } = chunk;
    if (isDetached(buffer)) throw new TypeError('ReadableByteStreamController.enqueue: the chunk\'s buffer is detached');
    const transferred = transferBuffer(buffer);
    if (c._pendingPullIntos.length > 0) {
      const first = c._pendingPullIntos[0];
      if (isDetached(first.buffer)) throw new TypeError('Invalid state: the pending read\'s buffer is detached');
      rbcInvalidateBYOBRequest(c);
      first.buffer = transferBuffer(first.buffer);
      if (first.readerType === 'none') rbcEnqueueDetachedPullIntoToQueue(c, first);
    }
    if (hasDefaultReader(stream)) {
      rbcProcessReadRequestsUsingQueue(c);
      if (stream._reader._requests.length === 0) {
        rbcEnqueueChunk(c, transferred, byteOffset, byteLength);
      } else {
        if (c._pendingPullIntos.length > 0) rbcShiftPendingPullInto(c);
        rsFulfillReadRequest(stream, new Uint8Array(transferred, byteOffset, byteLength), false);
      }
    } else if (hasByobReader(stream)) {
      rbcEnqueueChunk(c, transferred, byteOffset, byteLength);
      for (const filled of rbcProcessPullIntosUsingQueue(c)) rbcCommitPullInto(stream, filled);
    } else {
      rbcEnqueueChunk(c, transferred, byteOffset, byteLength);
    }
    callPullIfNeeded(c);
  }
  function rbcEnqueueChunk(c, buffer, byteOffset, byteLength) {
    c._queue.push({ buffer, byteOffset, byteLength });
    c._queueSize += byteLength;
  }
  function rbcEnqueueClonedChunk(c, buffer, byteOffset, byteLength) {
    let clone;
    try {
      clone = buffer.slice(byteOffset, byteOffset + byteLength);
    } catch (e) {
      controllerError(c, e);
      throw e;
    }
    rbcEnqueueChunk(c, clone, 0, byteLength);
  }
  function rbcEnqueueDetachedPullIntoToQueue(c, desc) {
    if (desc.bytesFilled > 0) rbcEnqueueClonedChunk(c, desc.buffer, desc.byteOffset, desc.bytesFilled);
    rbcShiftPendingPullInto(c);
  }
  function rbcShiftPendingPullInto(c) { return c._pendingPullIntos.shift(); }
  // Copies what the queue has into `desc`'s buffer; whether it now holds
  // at least its minimum (in whole elements).
  function rbcFillPullIntoFromQueue(c, desc) {
    const maxBytesToCopy = Math.min(c._queueSize, desc.byteLength - desc.bytesFilled);
    const maxBytesFilled = desc.bytesFilled + maxBytesToCopy;
    let remaining = maxBytesToCopy;
    let ready = false;
    const maxAligned = maxBytesFilled - (maxBytesFilled % desc.elementSize);
    if (maxAligned >= desc.minimumFill) {
      remaining = maxAligned - desc.bytesFilled;
      ready = true;
    }
    while (remaining > 0) {
      const head = c._queue[0];
      const n = Math.min(remaining, head.byteLength);
      new Uint8Array(desc.buffer, desc.byteOffset + desc.bytesFilled, n).set(new Uint8Array(head.buffer, head.byteOffset, n));
      if (head.byteLength === n) c._queue.shift();
      else {
        head.byteOffset += n;
        head.byteLength -= n;
      }
      c._queueSize -= n;
      desc.bytesFilled += n;
      remaining -= n;
    }
    return ready;
  }
  function rbcFillReadRequestFromQueue(c, request) {
    const entry = c._queue.shift();
    c._queueSize -= entry.byteLength;
    rbcHandleQueueDrain(c);
    request.chunk(new Uint8Array(entry.buffer, entry.byteOffset, entry.byteLength));
  }
  function rbcHandleQueueDrain(c) {
    if (c._queueSize === 0 && c._closeRequested) {
      clearAlgorithms(c);
      rsClose(c._stream);
    } else {
      callPullIfNeeded(c);
    }
  }
  function rbcProcessPullIntosUsingQueue(c) {
    const filled = [];
    while (c._pendingPullIntos.length > 0 && c._queueSize > 0) {
      const desc = c._pendingPullIntos[0];
      if (!rbcFillPullIntoFromQueue(c, desc)) break;
      rbcShiftPendingPullInto(c);
      filled.push(desc);
    }
    return filled;
  }
  function rbcProcessReadRequestsUsingQueue(c) {
    const reader = c._stream._reader;
    while (reader._requests.length > 0 && c._queueSize > 0) rbcFillReadRequestFromQueue(c, reader._requests.shift());
  }
  function rbcPullInto(c, view, min, request) {
    const stream = c._stream;
    let elementSize = 1;
    let ctor = DataView;
    if (!(view instanceof DataView)) {
      elementSize = view.BYTES_PER_ELEMENT;
      ctor = view.constructor;
    }
    const { byteOffset, byteLength } = view;
    let buffer;
    try {
      buffer = transferBuffer(view.buffer);
    } catch (e) {
      request.error(e);
      return;
    }
    const desc = {
      buffer, bufferByteLength: buffer.byteLength, byteOffset, byteLength, bytesFilled: 0,
      minimumFill: min * elementSize, elementSize, viewConstructor: ctor, readerType: 'byob',
    };
    if (c._pendingPullIntos.length > 0) {
      c._pendingPullIntos.push(desc);
      stream._reader._requests.push(request);
      return;
    }
    if (stream._state === 'closed') {
      request.close(new ctor(desc.buffer, desc.byteOffset, 0));
      return;
    }
    if (c._queueSize > 0) {
      if (rbcFillPullIntoFromQueue(c, desc)) {
        const filled = rbcConvertPullInto(desc);
        rbcHandleQueueDrain(c);
        request.chunk(filled);
        return;
      }
      if (c._closeRequested) {
        const e = new TypeError('Invalid state: the stream is closing and has too few bytes for this read');
        controllerError(c, e);
        request.error(e);
        return;
      }
    }
    c._pendingPullIntos.push(desc);
    stream._reader._requests.push(request);
    callPullIfNeeded(c);
  }
  function rbcRespond(c, bytesWritten) {
    const first = c._pendingPullIntos[0];
    if (c._stream._state === 'closed') {
      if (bytesWritten !== 0) throw new TypeError('ReadableStreamBYOBRequest.respond: bytesWritten must be 0 when the stream is closed');
    } else {
      if (bytesWritten === 0) throw new TypeError('ReadableStreamBYOBRequest.respond: bytesWritten must be greater than 0 when the stream is readable');
      if (first.bytesFilled + bytesWritten > first.byteLength) throw new RangeError('ReadableStreamBYOBRequest.respond: bytesWritten out of range');
    }
    first.buffer = transferBuffer(first.buffer);
    rbcRespondInternal(c, bytesWritten);
  }
  function rbcRespondWithNewView(c, view) {
    const first = c._pendingPullIntos[0];
    if (c._stream._state === 'closed') {
      if (view.byteLength !== 0) throw new TypeError('ReadableStreamBYOBRequest.respondWithNewView: the view must be empty when the stream is closed');
    } else if (view.byteLength === 0) {
      throw new TypeError('ReadableStreamBYOBRequest.respondWithNewView: the view must not be empty when the stream is readable');
    }
    if (first.byteOffset + first.bytesFilled !== view.byteOffset) throw new RangeError('ReadableStreamBYOBRequest.respondWithNewView: the view has a different byteOffset from the request\'s');
    if (first.bufferByteLength !== view.buffer.byteLength) throw new RangeError('ReadableStreamBYOBRequest.respondWithNewView: the view\'s buffer has a different length from the request\'s');
    if (first.bytesFilled + view.byteLength > first.byteLength) throw new RangeError('ReadableStreamBYOBRequest.respondWithNewView: the view is longer than the request\'s');
    const n = view.byteLength;
    first.buffer = transferBuffer(view.buffer);
    rbcRespondInternal(c, n);
  }
  function rbcRespondInternal(c, bytesWritten) {
    const first = c._pendingPullIntos[0];
    rbcInvalidateBYOBRequest(c);
    const stream = c._stream;
    if (stream._state === 'closed') {
      if (first.readerType === 'none') rbcShiftPendingPullInto(c);
      if (hasByobReader(stream)) {
        while (stream._reader._requests.length > 0) rbcCommitPullInto(stream, rbcShiftPendingPullInto(c));
      }
    } else {
      first.bytesFilled += bytesWritten;
      if (first.readerType === 'none') {
        rbcEnqueueDetachedPullIntoToQueue(c, first);
        for (const filled of rbcProcessPullIntosUsingQueue(c)) rbcCommitPullInto(stream, filled);
      } else if (first.bytesFilled >= first.minimumFill) {
        rbcShiftPendingPullInto(c);
        const remainder = first.bytesFilled % first.elementSize;
        if (remainder > 0) {
          const end = first.byteOffset + first.bytesFilled;
          rbcEnqueueClonedChunk(c, first.buffer, end - remainder, remainder);
        }
        first.bytesFilled -= remainder;
        const filled = rbcProcessPullIntosUsingQueue(c);
        rbcCommitPullInto(stream, first);
        for (const f of filled) rbcCommitPullInto(stream, f);
      }
    }
    callPullIfNeeded(c);
  }
  function rbcConvertPullInto(desc) {
    const buffer = transferBuffer(desc.buffer);
    return new desc.viewConstructor(buffer, desc.byteOffset, desc.bytesFilled / desc.elementSize);
  }
  function rbcCommitPullInto(stream, desc) {
    const done = stream._state === 'closed';
    const view = rbcConvertPullInto(desc);
    const request = stream._reader._requests.shift();
    if (desc.readerType === 'default') {
      if (done) request.close(undefined);
      else request.chunk(view);
    } else if (done) {
      request.close(view);
    } else {
      request.chunk(view);
    }
  }

  // pipeTo's and pipeThrough's options, read in the Streams standard's
  // order (each getter once) and the signal checked; then neither stream
  // may be locked.
  function pipeStart(source, dest, options) {
    const opts = pipeOptions(options);
    if (source.locked) throw new TypeError('Invalid state: ReadableStream is locked');
    if (dest.locked) throw new TypeError('Invalid state: WritableStream is locked');
    return opts;
  }
  function pipeOptions(options) {
    if (options === undefined || options === null) return { preventAbort: false, preventCancel: false, preventClose: false, signal: undefined };
    if (typeof options !== 'object' && typeof options !== 'function') throw new TypeError('pipeTo: options must be an object');
    const preventAbort = Boolean(options.preventAbort);
    const preventCancel = Boolean(options.preventCancel);
    const preventClose = Boolean(options.preventClose);
    const signal = options.signal;
    if (signal !== undefined && !(signal instanceof AbortSignalImpl)) throw new TypeError('pipeTo: options.signal must be an AbortSignal');
    return { preventAbort, preventCancel, preventClose, signal };
  }
  // The Streams standard's ReadableStreamPipeTo: chunks go from `source` to
  // `dest` as `dest` wants them (its writer's `ready`); an error or a close
  // on either side, or the signal, shuts the pipe down, after the writes
  // already made have finished, with the action the options allow.
  function pipe(source, dest, { preventAbort, preventCancel, preventClose, signal }) {
    const reader = new ReadableStreamDefaultReaderImpl(source);
    const writer = new WritableStreamDefaultWriterImpl(dest);
    source._disturbed = true;
    const result = deferred();
    let shuttingDown = false;
    let currentWrite = Promise.resolve();
    let onAbort = null;
    const destClosing = () => dest._state === 'closed' || wsCloseQueuedOrInFlight(dest);
    // Waits for every write made so far (a write made while waiting too).
    const writesDone = () => {
      const last = currentWrite;
      return upon(last, () => (last === currentWrite ? undefined : writesDone()), () => undefined);
    };
    function finalize(isError, error) {
      writer.releaseLock();
      reader.releaseLock();
      if (onAbort) signal.removeEventListener('abort', onAbort);
      if (isError) result.reject(error);
      else result.resolve(undefined);
    }
    function shutdown(action, isError, error) {
      if (shuttingDown) return;
      shuttingDown = true;
      const rest = () => {
        if (!action) return finalize(isError, error);
        let p;
        try {
          p = Promise.resolve(action());
        } catch (e) {
          p = Promise.reject(e);
        }
        return upon(p, () => finalize(isError, error), (e) => finalize(true, e));
      };
      // The writes already made finish first; with none to wait for, the
      // action runs at once (before a stream it looks at changes state).
      if (dest._state === 'writable' && !wsCloseQueuedOrInFlight(dest)) upon(writesDone(), rest);
      else rest();
    }
    const abortDest = (e) => () => wsAbort(dest, e);
    const cancelSource = (e) => () => rsCancel(source, e);
    // The checks, in the standard's order: errors forward, errors backward,
    // closing forward, closing backward.
    function check() {
      if (shuttingDown) return true;
      if (source._state === 'errored') {
        const e = source._stored;
        shutdown(preventAbort ? null : abortDest(e), true, e);
        return true;
      }
      if (dest._state === 'errored') {
        const e = dest._stored;
        shutdown(preventCancel ? null : cancelSource(e), true, e);
        return true;
      }
      if (source._state === 'closed') {
        shutdown(preventClose ? null : () => {
          if (destClosing()) return undefined;
          if (dest._state === 'errored') throw dest._stored;
          return writer.close();
        }, false);
        return true;
      }
      if (destClosing()) {
        const e = new TypeError('the destination writable stream closed before all the data could be piped to it');
        shutdown(preventCancel ? null : cancelSource(e), true, e);
        return true;
      }
      return false;
    }
    if (signal !== undefined) {
      onAbort = () => {
        const e = signal.reason;
        const actions = [];
        if (!preventAbort) actions.push(() => (dest._state === 'writable' ? wsAbort(dest, e) : undefined));
        if (!preventCancel) actions.push(() => (source._state === 'readable' ? rsCancel(source, e) : undefined));
        shutdown(() => Promise.all(actions.map((a) => a())), true, e);
      };
      if (signal.aborted) {
        onAbort();
        return result.promise;
      }
      signal.addEventListener('abort', onAbort);
    }
    upon(reader._closed.promise, check, check);
    upon(writer._closed.promise, check, check);
    function step() {
      if (check()) return;
      upon(upon(writer._ready.promise, () => {
        if (check()) return;
        // A read request of its own: no chunk goes through a promise, so
        // a patched `Object.prototype.then` sees nothing of the pipe.
        rsRead(reader, {
          chunk: (value) => microtask(() => {
            currentWrite = writer.write(value);
            quietly(currentWrite);
            step();
          }),
          close: check,
          error: check,
        });
      }, () => undefined), undefined, () => check());
    }
    step();
    return result.promise;
  }

  // The standard's ReadableStreamClose, ReadableStreamError and
  // ReadableStreamCancel, and the read requests' fulfilment.
  function rsClose(stream) {
    stream._state = 'closed';
    const reader = stream._reader;
    if (reader === null) return;
    reader._closed.resolve(undefined);
    if (reader instanceof ReadableStreamDefaultReaderImpl) {
      for (const r of reader._requests.splice(0)) r.close(undefined);
    }
  }
  function rsError(stream, e) {
    stream._state = 'errored';
    stream._stored = e;
    const reader = stream._reader;
    if (reader === null) return;
    reader._closed.reject(e);
    for (const r of reader._requests.splice(0)) r.error(e);
  }
  function rsCancel(stream, reason) {
    stream._disturbed = true;
    if (stream._state === 'closed') return Promise.resolve(undefined);
    if (stream._state === 'errored') return Promise.reject(stream._stored);
    rsClose(stream);
    const reader = stream._reader;
    if (reader !== null && reader instanceof ReadableStreamBYOBReaderImpl) {
      for (const r of reader._requests.splice(0)) r.close(undefined);
    }
    return upon(cancelSteps(stream._controller, reason), () => undefined);
  }
  function rsFulfillReadRequest(stream, chunk, done) {
    const request = stream._reader._requests.shift();
    if (done) request.close(undefined);
    else request.chunk(chunk);
  }
  // A stream of the standard's CreateReadableStream (a default controller
  // run by the prelude's algorithms), or of CreateReadableByteStream.
  function createReadableStream(start, pull, cancel, hwm = 1, size = () => 1) {
    const stream = Object.create(ReadableStreamImpl.prototype);
    rsInit(stream);
    setUpDefaultController(stream, start, pull, cancel, hwm, size);
    return stream;
  }
  function createByteStream(start, pull, cancel) {
    const stream = Object.create(ReadableStreamImpl.prototype);
    rsInit(stream);
    setUpByteController(stream, start, pull, cancel, 0, undefined);
    return stream;
  }
  function rsInit(stream) {
    stream._state = 'readable';
    stream._reader = null;
    stream._stored = undefined;
    stream._disturbed = false;
    stream._controller = undefined;
  }
  // The standard's ReadableStreamDefaultReaderRead: `request` gets the
  // next chunk, the end or the error.
  function rsRead(reader, request) {
    const stream = reader._stream;
    stream._disturbed = true;
    if (stream._state === 'closed') request.close(undefined);
    else if (stream._state === 'errored') request.error(stream._stored);
    else pullSteps(stream._controller, request);
  }

  // A ReadableStream made by its constructor or the prelude (not an object
  // that only has its prototype).
  const hasOwn = (o, k) => apply(Object.prototype.hasOwnProperty, o, [k]);
  const isReadableStream = (x) => x instanceof ReadableStreamImpl && hasOwn(x, '_state');

  class ReadableStreamImpl {
    constructor(source, strategy) {
      // WebIDL converts the strategy (a dictionary) before the body reads
      // the source's members, in their (alphabetical) order.
      const strat = queuingStrategy(strategy, 'ReadableStream');
      const src = underlying(source, 'ReadableStream: the underlying source');
      const autoIn = src.autoAllocateChunkSize;
      const autoAllocate = autoIn === undefined ? undefined : enforceRange(autoIn, 'ReadableStream: autoAllocateChunkSize');
      const cancel = methodOf(src, 'cancel', 'ReadableStream');
      const pull = methodOf(src, 'pull', 'ReadableStream');
      const start = methodOf(src, 'start', 'ReadableStream');
      const type = src.type === undefined ? undefined : String(src.type);
      if (type !== undefined && type !== 'bytes') {
        throw new TypeError(`ReadableStream: '${type}' is not a valid value for the source's type (the only one is 'bytes')`);
      }
      rsInit(this);
      const startAlg = (c) => (start === undefined ? undefined : apply(start, src, [c]));
      const pullAlg = (c) => callMethod(pull, src, c);
      const cancelAlg = (reason) => callMethod(cancel, src, reason);
      if (type === 'bytes') {
        if (strat.size !== undefined) throw new RangeError('ReadableStream: a byte stream\'s strategy cannot have a size');
        const hwm = highWaterMarkOf(strat, 0);
        if (autoAllocate === 0) throw new TypeError('ReadableStream: autoAllocateChunkSize must be greater than 0');
        setUpByteController(this, startAlg, pullAlg, cancelAlg, hwm, autoAllocate);
      } else {
        const hwm = highWaterMarkOf(strat, 1);
        setUpDefaultController(this, startAlg, pullAlg, cancelAlg, hwm, strat.size === undefined ? () => 1 : strat.size);
      }
    }
    // The standard's ReadableStreamFromIterable.
    static from(asyncIterable) {
      let iterator;
      let next;
      const asyncMethod = asyncIterable === undefined || asyncIterable === null ? undefined : asyncIterable[Symbol.asyncIterator];
      if (asyncMethod !== undefined && asyncMethod !== null) {
        if (typeof asyncMethod !== 'function') throw new TypeError('ReadableStream.from: Symbol.asyncIterator is not a function');
        iterator = apply(asyncMethod, asyncIterable, []);
        if (iterator === null || (typeof iterator !== 'object' && typeof iterator !== 'function')) throw new TypeError('ReadableStream.from: the async iterator is not an object');
        next = iterator.next;
      } else {
        const syncMethod = asyncIterable === undefined || asyncIterable === null ? undefined : asyncIterable[Symbol.iterator];
        if (typeof syncMethod !== 'function') throw new TypeError('ReadableStream.from: the argument is not iterable');
        const sync = apply(syncMethod, asyncIterable, []);
        if (sync === null || (typeof sync !== 'object' && typeof sync !== 'function')) throw new TypeError('ReadableStream.from: the iterator is not an object');
        const syncNext = sync.next;
        // ECMAScript's CreateAsyncFromSyncIterator.
        const settle = (r) => {
          if (r === null || (typeof r !== 'object' && typeof r !== 'function')) throw new TypeError('ReadableStream.from: the iterator result is not an object');
          const done = Boolean(r.done);
          return upon(Promise.resolve(r.value), (value) => ({ value, done }));
        };
        iterator = {
          next() { return new Promise((ok) => ok(settle(apply(syncNext, sync, [])))); },
          get return() {
            const ret = sync.return;
            if (ret === undefined || ret === null) return undefined;
            return (v) => new Promise((ok) => ok(settle(apply(ret, sync, [v]))));
          },
        };
        next = iterator.next;
      }
      const stream = createReadableStream(() => undefined, (c) => {
        let result;
        try {
          result = Promise.resolve(apply(next, iterator, []));
        } catch (e) {
          return Promise.reject(e);
        }
        return upon(result, (r) => {
          if (r === null || (typeof r !== 'object' && typeof r !== 'function')) throw new TypeError('ReadableStream.from: the iterator result is not an object');
          if (r.done) rsdcClose(c);
          else rsdcEnqueue(c, r.value);
        });
      }, (reason) => {
        try {
          const ret = iterator.return;
          if (ret === undefined || ret === null) return Promise.resolve(undefined);
          if (typeof ret !== 'function') throw new TypeError('ReadableStream.from: the iterator\'s return is not a function');
          return upon(Promise.resolve(apply(ret, iterator, [reason])), (r) => {
            if (r === null || (typeof r !== 'object' && typeof r !== 'function')) throw new TypeError('ReadableStream.from: the iterator\'s return result is not an object');
          });
        } catch (e) {
          return Promise.reject(e);
        }
      }, 0);
      return stream;
    }
    get locked() {
      if (!(this instanceof ReadableStreamImpl)) throw new TypeError('Illegal invocation');
      return this._reader !== null;
    }
    getReader(options) {
      if (!(this instanceof ReadableStreamImpl)) throw new TypeError('Illegal invocation');
      if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw new TypeError('ReadableStream.getReader: options must be an object');
      }
      const mode = options === undefined || options === null ? undefined : options.mode;
      if (mode === undefined) return new ReadableStreamDefaultReaderImpl(this);
      if (String(mode) !== 'byob') throw new TypeError(`ReadableStream.getReader: '${mode}' is not a valid mode (the only one is 'byob')`);
      return new ReadableStreamBYOBReaderImpl(this);
    }
    cancel(reason) {
      if (!(this instanceof ReadableStreamImpl)) return Promise.reject(new TypeError('Illegal invocation'));
      if (this._reader !== null) return Promise.reject(new TypeError('Invalid state: ReadableStream is locked'));
      return rsCancel(this, reason);
    }
    _cancel(reason) { return rsCancel(this, reason); }
    pipeThrough(transform, options) {
      if (!(this instanceof ReadableStreamImpl)) throw new TypeError('Illegal invocation');
      if (transform === null || (typeof transform !== 'object' && typeof transform !== 'function')) throw new TypeError('pipeThrough: expected { writable, readable }');
      const readable = transform.readable;
      if (!isReadableStream(readable)) throw new TypeError('pipeThrough: transform.readable is not a ReadableStream');
      const writable = transform.writable;
      if (!(writable instanceof WritableStreamImpl)) throw new TypeError('pipeThrough: transform.writable is not a WritableStream');
      quietly(pipe(this, writable, pipeStart(this, writable, options)));
      return readable;
    }
    pipeTo(dest, options) {
      try {
        if (!(this instanceof ReadableStreamImpl)) throw new TypeError('pipeTo: this is not a ReadableStream');
        if (!(dest instanceof WritableStreamImpl)) throw new TypeError('pipeTo: the destination is not a WritableStream');
        return pipe(this, dest, pipeStart(this, dest, options));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    tee() {
      if (!(this instanceof ReadableStreamImpl)) throw new TypeError('tee: this is not a ReadableStream');
      return this._controller instanceof ReadableByteStreamController ? byteTee(this) : defaultTee(this);
    }
    values(options) {
      if (!(this instanceof ReadableStreamImpl)) throw new TypeError('Illegal invocation');
      const preventCancel = options === undefined || options === null ? false : Boolean(options.preventCancel);
      return readableIterator(new ReadableStreamDefaultReaderImpl(this), preventCancel);
    }
    get [Symbol.toStringTag]() { return 'ReadableStream'; }
  }
  Object.defineProperty(ReadableStreamImpl.prototype, Symbol.asyncIterator, {
    value: ReadableStreamImpl.prototype.values, writable: true, configurable: true,
  });

  // The async iterator of WebIDL's `async iterable<any>`: one step at a
  // time (a `next` or `return` waits for the one before), finished for
  // good at the end, on an error or after `return`.
  const AsyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype);
  const ReadableStreamAsyncIteratorPrototype = Object.create(AsyncIteratorPrototype, {
    next: {
      value: function next() {
        const it = this;
        if (!it || !it._readableIterator) return Promise.reject(new TypeError('next: this is not a ReadableStream async iterator'));
        const step = () => {
          if (it._finished) return Promise.resolve({ value: undefined, done: true });
          const reader = it._reader;
          const d = deferred();
          rsRead(reader, {
            chunk: (value) => d.resolve({ value, done: false }),
            close: () => { rsReaderRelease(reader); d.resolve({ value: undefined, done: true }); },
            error: (e) => { rsReaderRelease(reader); d.reject(e); },
          });
          return upon(d.promise, (r) => {
            it._ongoing = null;
            if (r.done) it._finished = true;
            return r;
          }, (e) => {
            it._ongoing = null;
            it._finished = true;
            throw e;
          });
        };
        it._ongoing = it._ongoing ? upon(it._ongoing, step, step) : step();
        return it._ongoing;
      },
      writable: true, enumerable: true, configurable: true,
    },
    return: {
      value: { return(value) {
        const it = this;
        if (!it || !it._readableIterator) return Promise.reject(new TypeError('return: this is not a ReadableStream async iterator'));
        const step = () => {
          if (it._finished) return Promise.resolve({ value, done: true });
          it._finished = true;
          const reader = it._reader;
          if (!it._preventCancel) {
            const result = rsCancel(reader._stream, value);
            rsReaderRelease(reader);
            return result;
          }
          rsReaderRelease(reader);
          return Promise.resolve(undefined);
        };
        it._ongoing = it._ongoing ? upon(it._ongoing, step, step) : step();
        return upon(it._ongoing, () => ({ value, done: true }));
      } }.return,
      writable: true, enumerable: true, configurable: true,
    },
    [Symbol.toStringTag]: { value: 'ReadableStream AsyncIterator', configurable: true },
  });
  function readableIterator(reader, preventCancel) {
    const it = Object.create(ReadableStreamAsyncIteratorPrototype);
    Object.defineProperties(it, {
      _readableIterator: { value: true },
      _reader: { value: reader },
      _preventCancel: { value: preventCancel },
      _finished: { value: false, writable: true },
      _ongoing: { value: null, writable: true },
    });
    return it;
  }

  // The readers' common part (the standard's ReadableStreamReaderGeneric*).
  // (`bytes`: a BYOB reader, which only a byte stream takes.)
  function rsReaderInit(reader, stream, what, bytes = false) {
    if (!(stream instanceof ReadableStreamImpl)) throw new TypeError(`${what}: expected a ReadableStream`);
    if (stream._reader !== null) throw new TypeError(`${what} constructor can only accept readable streams that are not yet locked to a reader`);
    if (bytes && !isByteController(stream._controller)) throw new TypeError(`${what}: the stream is not a byte stream (made with type: 'bytes')`);
    reader._stream = stream;
    reader._requests = [];
    reader._closed = deferred(true);
    stream._reader = reader;
    if (stream._state === 'closed') reader._closed.resolve(undefined);
    if (stream._state === 'errored') reader._closed.reject(stream._stored);
  }
  function rsReaderRelease(reader) {
    const stream = reader._stream;
    const released = new TypeError('Invalid state: Releasing reader');
    if (stream._state === 'readable') reader._closed.reject(released);
    else reader._closed = rejectedDeferred(reader._closed, released);
    releaseSteps(stream._controller);
    stream._reader = null;
    reader._stream = null;
    for (const r of reader._requests.splice(0)) r.error(released);
  }
  const detachedReader = () => new TypeError('Invalid state: The reader is not attached to a stream');

  class ReadableStreamDefaultReaderImpl {
    constructor(stream) {
      rsReaderInit(this, stream, 'ReadableStreamDefaultReader');
    }
    read() {
      if (!(this instanceof ReadableStreamDefaultReaderImpl)) return Promise.reject(new TypeError('Illegal invocation'));
      if (!this._stream) return Promise.reject(detachedReader());
      const d = deferred();
      rsRead(this, readRequest(d));
      return d.promise;
    }
    get [Symbol.toStringTag]() { return 'ReadableStreamDefaultReader'; }
  }

  class ReadableStreamBYOBReaderImpl {
    constructor(stream) {
      rsReaderInit(this, stream, 'ReadableStreamBYOBReader', true);
    }
    read(view, options) {
      let min;
      try {
        if (!(this instanceof ReadableStreamBYOBReaderImpl)) throw new TypeError('Illegal invocation');
        viewOf(view, 'ReadableStreamBYOBReader.read');
        if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') throw new TypeError('ReadableStreamBYOBReader.read: options must be an object');
        const minIn = options === undefined || options === null ? undefined : options.min;
        min = minIn === undefined ? 1 : enforceRange(minIn, 'ReadableStreamBYOBReader.read: min');
        if (view.byteLength === 0) throw new TypeError('ReadableStreamBYOBReader.read: the view is empty');
        if (view.buffer.byteLength === 0) throw new TypeError('ReadableStreamBYOBReader.read: the view\'s buffer is detached or empty');
        if (min === 0) throw new TypeError('ReadableStreamBYOBReader.read: min must be greater than 0');
        if (view instanceof DataView ? min > view.byteLength : min > view.length) throw new RangeError('ReadableStreamBYOBReader.read: min is greater than the view\'s length');
        if (!this._stream) throw detachedReader();
      } catch (e) {
        return Promise.reject(e);
      }
      const d = deferred();
      byobRead(this, view, min, readRequest(d));
      return d.promise;
    }
    get [Symbol.toStringTag]() { return 'ReadableStreamBYOBReader'; }
  }
  // The standard's ReadableStreamGenericReader mixin (`closed`, `cancel`,
  // `releaseLock`), on each reader's own prototype.
  for (const C of [ReadableStreamDefaultReaderImpl, ReadableStreamBYOBReaderImpl]) {
    const generic = {
      get closed() {
        if (!(this instanceof C)) return Promise.reject(new TypeError('Illegal invocation'));
        return this._closed.promise;
      },
      cancel(reason) {
        if (!(this instanceof C)) return Promise.reject(new TypeError('Illegal invocation'));
        if (!this._stream) return Promise.reject(detachedReader());
        return rsCancel(this._stream, reason);
      },
      releaseLock() {
        if (!(this instanceof C)) throw new TypeError('Illegal invocation');
        if (this._stream) rsReaderRelease(this);
      },
    };
    for (const [name, desc] of Object.entries(Object.getOwnPropertyDescriptors(generic))) {
      Object.defineProperty(C.prototype, name, { ...desc, enumerable: false });
    }
  }
  function byobRead(reader, view, min, request) {
    const stream = reader._stream;
    stream._disturbed = true;
    if (stream._state === 'errored') request.error(stream._stored);
    else rbcPullInto(stream._controller, view, min, request);
  }

  // Both tees' branch cancels: each is remembered, and the source is
  // cancelled, with both reasons, once both branches are; `cancelled`
  // settles every branch's cancel.
  function teeCancels(source) {
    const canceled = [false, false];
    const reasons = [undefined, undefined];
    const cancelled = deferred();
    const cancel = (i) => (reason) => {
      canceled[i] = true;
      reasons[i] = reason;
      if (canceled[1 - i]) cancelled.resolve(rsCancel(source, reasons));
      return cancelled.promise;
    };
    return { canceled, cancelled, cancel };
  }

  // The standard's ReadableStreamDefaultTee: one read feeds both
  // branches; each branch's cancel is remembered, and the source is
  // cancelled (with both reasons) only when both are.
  function defaultTee(source) {
    const reader = new ReadableStreamDefaultReaderImpl(source);
    let reading = false;
    let readAgain = false;
    const { canceled, cancelled, cancel } = teeCancels(source);
    const branches = [];
    const pull = () => {
      if (reading) {
        readAgain = true;
        return Promise.resolve();
      }
      reading = true;
      rsRead(reader, {
        chunk: (value) => microtask(() => {
          readAgain = false;
          for (const i of [0, 1]) if (!canceled[i]) rsdcEnqueue(branches[i]._controller, value);
          reading = false;
          if (readAgain) pull();
        }),
        close: () => {
          reading = false;
          for (const i of [0, 1]) if (!canceled[i]) rsdcClose(branches[i]._controller);
          if (!canceled[0] || !canceled[1]) cancelled.resolve(undefined);
        },
        error: () => { reading = false; },
      });
      return Promise.resolve();
    };
    branches.push(createReadableStream(() => undefined, pull, cancel(0)), createReadableStream(() => undefined, pull, cancel(1)));
    upon(reader._closed.promise, undefined, (e) => {
      for (const b of branches) controllerError(b._controller, e);
      if (!canceled[0] || !canceled[1]) cancelled.resolve(undefined);
    });
    return branches;
  }

  // The standard's ReadableByteStreamTee: a branch that a BYOB reader
  // reads has the source read into its view, the other gets a copy.
  function byteTee(source) {
    let reader = new ReadableStreamDefaultReaderImpl(source);
    let reading = false;
    const readAgain = [false, false];
    const { canceled, cancelled, cancel } = teeCancels(source);
    const branches = [];
    const controllerOf = (i) => branches[i]._controller;
    const forwardError = (r) => {
      upon(r._closed.promise, undefined, (e) => {
        if (r !== reader) return;
        controllerError(controllerOf(0), e);
        controllerError(controllerOf(1), e);
        if (!canceled[0] || !canceled[1]) cancelled.resolve(undefined);
      });
    };
    const cloneFailed = (e) => {
      controllerError(controllerOf(0), e);
      controllerError(controllerOf(1), e);
      cancelled.resolve(rsCancel(source, e));
    };
    const again = () => {
      reading = false;
      if (readAgain[0]) pullBranch(0)();
      else if (readAgain[1]) pullBranch(1)();
    };
    const cloneView = (v) => new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
    function pullWithDefaultReader() {
      if (reader instanceof ReadableStreamBYOBReaderImpl) {
        rsReaderRelease(reader);
        reader = new ReadableStreamDefaultReaderImpl(source);
        forwardError(reader);
      }
      rsRead(reader, {
        chunk: (chunk) => microtask(() => {
          readAgain[0] = false;
          readAgain[1] = false;
          let chunk2 = chunk;
          if (!canceled[0] && !canceled[1]) {
            try {
              chunk2 = cloneView(chunk);
            } catch (e) {
              cloneFailed(e);
              return;
            }
          }
          if (!canceled[0]) rbcEnqueue(controllerOf(0), chunk);
          if (!canceled[1]) rbcEnqueue(controllerOf(1), chunk2);
          again();
        }),
        close: () => {
          reading = false;
          for (const i of [0, 1]) if (!canceled[i]) rbcClose(controllerOf(i));
          for (const i of [0, 1]) if (controllerOf(i)._pendingPullIntos.length > 0) rbcRespond(controllerOf(i), 0);
          if (!canceled[0] || !canceled[1]) cancelled.resolve(undefined);
        },
        error: () => { reading = false; },
      });
    }
    function pullWithByobReader(view, i) {
      if (reader instanceof ReadableStreamDefaultReaderImpl) {
        rsReaderRelease(reader);
        reader = new ReadableStreamBYOBReaderImpl(source);
        forwardError(reader);
      }
      const other = 1 - i;
      byobRead(reader, view, 1, {
        chunk: (chunk) => microtask(() => {
          readAgain[0] = false;
          readAgain[1] = false;
          if (!canceled[other]) {
            let clone;
            try {
              clone = cloneView(chunk);
            } catch (e) {
              cloneFailed(e);
              return;
            }
            if (!canceled[i]) rbcRespondWithNewView(controllerOf(i), chunk);
            rbcEnqueue(controllerOf(other), clone);
          } else if (!canceled[i]) {
            rbcRespondWithNewView(controllerOf(i), chunk);
          }
          again();
        }),
        close: (chunk) => {
          reading = false;
          if (!canceled[i]) rbcClose(controllerOf(i));
          if (!canceled[other]) rbcClose(controllerOf(other));
          if (chunk !== undefined) {
            if (!canceled[i]) rbcRespondWithNewView(controllerOf(i), chunk);
            if (!canceled[other] && controllerOf(other)._pendingPullIntos.length > 0) rbcRespond(controllerOf(other), 0);
          }
          if (!canceled[i] || !canceled[other]) cancelled.resolve(undefined);
        },
        error: () => { reading = false; },
      });
    }
    const pullBranch = (i) => () => {
      if (reading) {
        readAgain[i] = true;
        return Promise.resolve(undefined);
      }
      reading = true;
      const request = rbcGetBYOBRequest(controllerOf(i));
      if (request === null) pullWithDefaultReader();
      else pullWithByobReader(request._view, i);
      return Promise.resolve(undefined);
    };
    branches.push(createByteStream(() => undefined, pullBranch(0), cancel(0)), createByteStream(() => undefined, pullBranch(1), cancel(1)));
    forwardError(reader);
    return branches;
  }

  // WritableStream as the Streams standard defines it: the states
  // writable, erroring, errored and closed; one sink operation in flight
  // at a time; an abort waits for the operation in flight, then calls the
  // sink's abort; the controller's `signal` is aborted at once. Functions
  // named `ws*` are the standard's abstract operations of the same names.
  const closeSentinel = {};
  class WritableStreamDefaultController {
    constructor() { throw new TypeError('Illegal constructor'); }
    get signal() { return this._signal; }
    error(e) {
      if (this._stream._state === 'writable') wsControllerError(this, e);
    }
    get [Symbol.toStringTag]() { return 'WritableStreamDefaultController'; }
  }
  class WritableStreamImpl {
    constructor(sink, strategy) {
      const strat = queuingStrategy(strategy, 'WritableStream');
      const snk = underlying(sink, 'WritableStream: the underlying sink');
      const abort = methodOf(snk, 'abort', 'WritableStream');
      const close = methodOf(snk, 'close', 'WritableStream');
      const start = methodOf(snk, 'start', 'WritableStream');
      if (snk.type !== undefined) throw new RangeError('Invalid type is specified');
      const write = methodOf(snk, 'write', 'WritableStream');
      const hwm = highWaterMarkOf(strat, 1);
      const size = strat.size === undefined ? () => 1 : strat.size;
      this._state = 'writable';
      this._stored = undefined;
      this._writer = null;
      this._writeRequests = [];
      this._inFlightWrite = null;
      this._closeRequest = null;
      this._inFlightClose = null;
      this._pendingAbort = null;
      this._backpressure = false;
      const c = Object.create(WritableStreamDefaultController.prototype);
      Object.assign(c, {
        _stream: this, _queue: [], _queueSize: 0, _hwm: hwm, _size: size, _started: false, _signal: newSignal(),
        _write: (chunk) => callMethod(write, snk, chunk, c),
        _close: () => callMethod(close, snk),
        _abort: (reason) => callMethod(abort, snk, reason),
      });
      this._controller = c;
      wsUpdateBackpressure(this, wsBackpressure(c));
      const started = start === undefined ? undefined : apply(start, snk, [c]);
      upon(Promise.resolve(started), () => {
        c._started = true;
        wsAdvanceQueueIfNeeded(c);
      }, (r) => {
        c._started = true;
        wsDealWithRejection(this, r);
      });
    }
    get locked() { return this._writer !== null; }
    getWriter() { return new WritableStreamDefaultWriterImpl(this); }
    abort(reason) {
      if (this.locked) return Promise.reject(new TypeError('Invalid state: WritableStream is locked'));
      return wsAbort(this, reason);
    }
    close() {
      if (this.locked) return Promise.reject(new TypeError('Invalid state: WritableStream is locked'));
      if (wsCloseQueuedOrInFlight(this)) return Promise.reject(new TypeError('Invalid state: WritableStream is closing'));
      return wsClose(this);
    }
    // What a TransformStream does to its writable side on error.
    _error(e) {
      if (this._state === 'writable') wsControllerError(this._controller, e);
    }
    get [Symbol.toStringTag]() { return 'WritableStream'; }
  }

  function wsAbort(stream, reason) {
    if (stream._state === 'closed' || stream._state === 'errored') return Promise.resolve(undefined);
    signalAbort(stream._controller._signal, reason);
    if (stream._state === 'closed' || stream._state === 'errored') return Promise.resolve(undefined);
    if (stream._pendingAbort) return stream._pendingAbort.done.promise;
    const wasAlreadyErroring = stream._state === 'erroring';
    const done = deferred();
    stream._pendingAbort = { done, reason: wasAlreadyErroring ? undefined : reason, wasAlreadyErroring };
    if (!wasAlreadyErroring) wsStartErroring(stream, reason);
    return done.promise;
  }
  function wsClose(stream) {
    if (stream._state === 'closed' || stream._state === 'errored') {
      return Promise.reject(new TypeError('Invalid state: WritableStream is closed'));
    }
    const done = deferred();
    stream._closeRequest = done;
    const writer = stream._writer;
    if (writer && stream._backpressure && stream._state === 'writable') writer._ready.resolve();
    const c = stream._controller;
    c._queue.push({ chunk: closeSentinel, size: 0 });
    wsAdvanceQueueIfNeeded(c);
    return done.promise;
  }
  function wsCloseQueuedOrInFlight(stream) { return stream._closeRequest !== null || stream._inFlightClose !== null; }
  function wsDealWithRejection(stream, error) {
    if (stream._state === 'writable') {
      wsStartErroring(stream, error);
      return;
    }
    wsFinishErroring(stream);
  }
  function wsStartErroring(stream, reason) {
    const c = stream._controller;
    stream._state = 'erroring';
    stream._stored = reason;
    if (stream._writer) stream._writer._ready = rejectedDeferred(stream._writer._ready, reason);
    if (stream._inFlightWrite === null && stream._inFlightClose === null && c._started) wsFinishErroring(stream);
  }
  function wsFinishErroring(stream) {
    stream._state = 'errored';
    const c = stream._controller;
    c._queue = [];
    c._queueSize = 0;
    const stored = stream._stored;
    for (const w of stream._writeRequests.splice(0)) w.reject(stored);
    const abort = stream._pendingAbort;
    if (abort === null) {
      wsRejectCloseAndClosed(stream);
      return;
    }
    stream._pendingAbort = null;
    if (abort.wasAlreadyErroring) {
      abort.done.reject(stored);
      wsRejectCloseAndClosed(stream);
      return;
    }
    const sinkAbort = c._abort(abort.reason);
    wsClearAlgorithms(c);
    upon(sinkAbort, () => {
      abort.done.resolve();
      wsRejectCloseAndClosed(stream);
    }, (e) => {
      abort.done.reject(e);
      wsRejectCloseAndClosed(stream);
    });
  }
  function wsRejectCloseAndClosed(stream) {
    if (stream._closeRequest) {
      stream._closeRequest.reject(stream._stored);
      stream._closeRequest = null;
    }
    if (stream._writer) stream._writer._closed = rejectedDeferred(stream._writer._closed, stream._stored);
  }
  function wsUpdateBackpressure(stream, backpressure) {
    const writer = stream._writer;
    if (writer && backpressure !== stream._backpressure) {
      if (backpressure) writer._ready = deferred(true);
      else writer._ready.resolve();
    }
    stream._backpressure = backpressure;
  }
  function wsDesiredSize(c) { return c._hwm - c._queueSize; }
  function wsBackpressure(c) { return wsDesiredSize(c) <= 0; }
  // After the queue changed: a writable stream with no close coming
  // updates its backpressure.
  function wsQueueChanged(stream) {
    if (!wsCloseQueuedOrInFlight(stream) && stream._state === 'writable') wsUpdateBackpressure(stream, wsBackpressure(stream._controller));
  }
  function wsClearAlgorithms(c) {
    const settled = () => Promise.resolve(undefined);
    c._write = settled;
    c._close = settled;
    c._abort = settled;
    c._size = () => 1;
  }
  function wsControllerError(c, error) {
    wsClearAlgorithms(c);
    wsStartErroring(c._stream, error);
  }
  function wsAdvanceQueueIfNeeded(c) {
    const stream = c._stream;
    if (!c._started || stream._inFlightWrite !== null) return;
    if (stream._state === 'closed' || stream._state === 'errored') return;
    if (stream._state === 'erroring') {
      wsFinishErroring(stream);
      return;
    }
    if (c._queue.length === 0) return;
    const { chunk } = c._queue[0];
    if (chunk === closeSentinel) wsProcessClose(c);
    else wsProcessWrite(c, chunk);
  }
  function wsProcessClose(c) {
    const stream = c._stream;
    stream._inFlightClose = stream._closeRequest;
    stream._closeRequest = null;
    c._queue.shift();
    const sinkClose = c._close();
    wsClearAlgorithms(c);
    upon(sinkClose, () => {
      stream._inFlightClose.resolve();
      stream._inFlightClose = null;
      if (stream._state === 'erroring') {
        stream._stored = undefined;
        if (stream._pendingAbort) {
          stream._pendingAbort.done.resolve();
          stream._pendingAbort = null;
        }
      }
      stream._state = 'closed';
      if (stream._writer) stream._writer._closed.resolve();
    }, (e) => {
      stream._inFlightClose.reject(e);
      stream._inFlightClose = null;
      if (stream._pendingAbort) {
        stream._pendingAbort.done.reject(e);
        stream._pendingAbort = null;
      }
      wsDealWithRejection(stream, e);
    });
  }
  function wsProcessWrite(c, chunk) {
    const stream = c._stream;
    stream._inFlightWrite = stream._writeRequests.shift();
    upon(c._write(chunk), () => {
      stream._inFlightWrite.resolve();
      stream._inFlightWrite = null;
      const { size } = c._queue.shift();
      c._queueSize = Math.max(0, c._queueSize - size);
      wsQueueChanged(stream);
      wsAdvanceQueueIfNeeded(c);
    }, (e) => {
      if (stream._state === 'writable') wsClearAlgorithms(c);
      stream._inFlightWrite.reject(e);
      stream._inFlightWrite = null;
      wsDealWithRejection(stream, e);
    });
  }
  // A writer's `ready` or `closed` rejected with `error`: the pending one,
  // or a new one where it had settled (the standard's "ensure ... rejected").
  function rejectedDeferred(d, error) {
    const out = d.settled ? deferred(true) : d;
    out.reject(error);
    return out;
  }

  const unboundWriter = () => new TypeError('Invalid state: Writer is not bound to a WritableStream');
  class WritableStreamDefaultWriterImpl {
    constructor(stream) {
      if (!(stream instanceof WritableStreamImpl)) throw new TypeError('WritableStreamDefaultWriter: expected a WritableStream');
      if (stream.locked) throw new TypeError('Invalid state: WritableStream is locked');
      this._stream = stream;
      stream._writer = this;
      this._ready = deferred(true);
      this._closed = deferred(true);
      const state = stream._state;
      if (state === 'writable') {
        if (wsCloseQueuedOrInFlight(stream) || !stream._backpressure) this._ready.resolve();
      } else if (state === 'erroring') {
        this._ready.reject(stream._stored);
      } else if (state === 'closed') {
        this._ready.resolve();
        this._closed.resolve();
      } else {
        this._ready.reject(stream._stored);
        this._closed.reject(stream._stored);
      }
    }
    _attached() {
      if (!this._stream) throw unboundWriter();
      return this._stream;
    }
    get closed() { return this._closed.promise; }
    get ready() { return this._ready.promise; }
    get desiredSize() {
      const stream = this._attached();
      if (stream._state === 'errored' || stream._state === 'erroring') return null;
      if (stream._state === 'closed') return 0;
      return wsDesiredSize(stream._controller);
    }
    write(chunk) {
      if (!this._stream) return Promise.reject(unboundWriter());
      const stream = this._stream;
      const c = stream._controller;
      let size = 1;
      try {
        size = c._size(chunk);
      } catch (e) {
        if (stream._state === 'writable') wsControllerError(c, e);
      }
      if (stream !== this._stream) return Promise.reject(new TypeError('Invalid state: the writer was released while sizing the chunk'));
      const state = stream._state;
      if (state === 'errored') return Promise.reject(stream._stored);
      if (wsCloseQueuedOrInFlight(stream) || state === 'closed') return Promise.reject(new TypeError('Invalid state: WritableStream is closing or closed'));
      if (state === 'erroring') return Promise.reject(stream._stored);
      const done = deferred();
      stream._writeRequests.push(done);
      const n = Number(size);
      if (!(n >= 0) || n === Infinity) {
        wsControllerError(c, new RangeError('Invalid chunk size: a size must be a finite, non-negative number'));
        return done.promise;
      }
      c._queue.push({ chunk, size: n });
      c._queueSize += n;
      wsQueueChanged(stream);
      wsAdvanceQueueIfNeeded(c);
      return done.promise;
    }
    close() {
      if (!this._stream) return Promise.reject(unboundWriter());
      if (wsCloseQueuedOrInFlight(this._stream)) return Promise.reject(new TypeError('Invalid state: WritableStream is closing'));
      return wsClose(this._stream);
    }
    abort(reason) {
      if (!this._stream) return Promise.reject(unboundWriter());
      return wsAbort(this._stream, reason);
    }
    releaseLock() {
      const stream = this._stream;
      if (!stream) return;
      const released = new TypeError('Invalid state: Writer has been released');
      this._ready = rejectedDeferred(this._ready, released);
      this._closed = rejectedDeferred(this._closed, released);
      stream._writer = null;
      this._stream = null;
    }
    get [Symbol.toStringTag]() { return 'WritableStreamDefaultWriter'; }
  }

  // TransformStream as the Streams standard defines it: a writable side
  // whose writes wait while the readable side has backpressure, a
  // transformer's `transform`, `flush` and `cancel`, and errors that reach
  // both sides. `ts*` are the standard's TransformStream* operations.
  class TransformStreamDefaultController {
    constructor() { throw new TypeError('Illegal constructor'); }
    get desiredSize() {
      if (!(this instanceof TransformStreamDefaultController)) throw new TypeError('Illegal invocation');
      return controllerDesiredSize(this._stream._readable._controller);
    }
    enqueue(chunk) {
      if (!(this instanceof TransformStreamDefaultController)) throw new TypeError('Illegal invocation');
      tsdcEnqueue(this, chunk);
    }
    error(reason) {
      if (!(this instanceof TransformStreamDefaultController)) throw new TypeError('Illegal invocation');
      tsError(this._stream, reason);
    }
    terminate() {
      if (!(this instanceof TransformStreamDefaultController)) throw new TypeError('Illegal invocation');
      tsdcTerminate(this);
    }
    get [Symbol.toStringTag]() { return 'TransformStreamDefaultController'; }
  }

  class TransformStreamImpl {
    constructor(transformer, writableStrategy, readableStrategy) {
      const ws = queuingStrategy(writableStrategy, 'TransformStream');
      const rs = queuingStrategy(readableStrategy, 'TransformStream');
      const t = underlying(transformer, 'TransformStream: the transformer');
      const cancel = methodOf(t, 'cancel', 'TransformStream');
      const flush = methodOf(t, 'flush', 'TransformStream');
      const readableType = t.readableType;
      const start = methodOf(t, 'start', 'TransformStream');
      const transform = methodOf(t, 'transform', 'TransformStream');
      const writableType = t.writableType;
      if (readableType !== undefined) throw new RangeError('TransformStream: readableType is not supported');
      if (writableType !== undefined) throw new RangeError('TransformStream: writableType is not supported');
      const readableHwm = highWaterMarkOf(rs, 0);
      const writableHwm = highWaterMarkOf(ws, 1);
      const started = deferred();
      tsInit(this, started.promise, writableHwm, ws.size, readableHwm, rs.size);
      const c = Object.create(TransformStreamDefaultController.prototype);
      Object.assign(c, {
        _stream: this,
        _transform: transform === undefined ? (chunk) => {
          try {
            tsdcEnqueue(c, chunk);
            return Promise.resolve(undefined);
          } catch (e) {
            return Promise.reject(e);
          }
        } : (chunk) => callMethod(transform, t, chunk, c),
        _flush: () => callMethod(flush, t, c),
        _cancel: (reason) => callMethod(cancel, t, reason),
        _finish: undefined,
      });
      this._controller = c;
      if (start === undefined) started.resolve(undefined);
      else started.resolve(apply(start, t, [c]));
    }
    get readable() {
      if (!(this instanceof TransformStreamImpl)) throw new TypeError('Illegal invocation');
      return this._readable;
    }
    get writable() {
      if (!(this instanceof TransformStreamImpl)) throw new TypeError('Illegal invocation');
      return this._writable;
    }
    get [Symbol.toStringTag]() { return 'TransformStream'; }
  }
  function tsInit(stream, startPromise, writableHwm, writableSize, readableHwm, readableSize) {
    stream._writable = new WritableStreamImpl({
      start: () => startPromise,
      write: (chunk) => tsSinkWrite(stream, chunk),
      abort: (reason) => tsSinkAbort(stream, reason),
      close: () => tsSinkClose(stream),
    }, { highWaterMark: writableHwm, size: writableSize });
    stream._readable = createReadableStream(() => startPromise, () => tsSourcePull(stream), (reason) => tsSourceCancel(stream, reason),
      readableHwm, readableSize === undefined ? () => 1 : readableSize);
    stream._backpressure = undefined;
    stream._backpressureChange = undefined;
    tsSetBackpressure(stream, true);
  }
  function tsError(stream, e) {
    controllerError(stream._readable._controller, e);
    tsErrorWritableAndUnblockWrite(stream, e);
  }
  function tsdcClearAlgorithms(c) {
    c._transform = () => Promise.resolve(undefined);
    c._flush = () => Promise.resolve(undefined);
    c._cancel = () => Promise.resolve(undefined);
  }
  function tsErrorWritableAndUnblockWrite(stream, e) {
    tsdcClearAlgorithms(stream._controller);
    stream._writable._error(e);
    tsUnblockWrite(stream);
  }
  function tsUnblockWrite(stream) {
    if (stream._backpressure) tsSetBackpressure(stream, false);
  }
  function tsSetBackpressure(stream, backpressure) {
    if (stream._backpressureChange !== undefined) stream._backpressureChange.resolve(undefined);
    stream._backpressureChange = deferred();
    stream._backpressure = backpressure;
  }
  function tsdcEnqueue(c, chunk) {
    const stream = c._stream;
    const rc = stream._readable._controller;
    if (!rsdcCanCloseOrEnqueue(rc)) throw new TypeError('Invalid state: the TransformStream\'s readable side is not accepting chunks');
    try {
      rsdcEnqueue(rc, chunk);
    } catch (e) {
      tsErrorWritableAndUnblockWrite(stream, e);
      throw stream._readable._stored;
    }
    const backpressure = !shouldCallPull(rc);
    if (backpressure !== stream._backpressure) tsSetBackpressure(stream, true);
  }
  function tsdcPerformTransform(c, chunk) {
    return upon(c._transform(chunk), undefined, (r) => {
      tsError(c._stream, r);
      throw r;
    });
  }
  function tsdcTerminate(c) {
    const stream = c._stream;
    rsdcClose(stream._readable._controller);
    tsErrorWritableAndUnblockWrite(stream, new TypeError('the TransformStream was terminated'));
  }
  function tsSinkWrite(stream, chunk) {
    const c = stream._controller;
    if (stream._backpressure) {
      return upon(stream._backpressureChange.promise, () => {
        const writable = stream._writable;
        if (writable._state === 'erroring') throw writable._stored;
        return tsdcPerformTransform(c, chunk);
      });
    }
    return tsdcPerformTransform(c, chunk);
  }
  // The writable side's abort and close, and the readable side's cancel:
  // whichever comes first runs the transformer's `cancel` or `flush`, and
  // the others get its outcome.
  function tsFinish(stream, run, onDone, onFail) {
    const c = stream._controller;
    if (c._finish !== undefined) return c._finish.promise;
    const finish = deferred();
    c._finish = finish;
    const p = run(c);
    tsdcClearAlgorithms(c);
    upon(p, () => onDone(finish), (r) => {
      onFail(r);
      finish.reject(r);
    });
    return finish.promise;
  }
  function tsSinkAbort(stream, reason) {
    const readable = stream._readable;
    return tsFinish(stream, (c) => c._cancel(reason), (finish) => {
      if (readable._state === 'errored') finish.reject(readable._stored);
      else {
        controllerError(readable._controller, reason);
        finish.resolve(undefined);
      }
    }, (r) => controllerError(readable._controller, r));
  }
  function tsSinkClose(stream) {
    const readable = stream._readable;
    return tsFinish(stream, (c) => c._flush(), (finish) => {
      if (readable._state === 'errored') finish.reject(readable._stored);
      else {
        rsdcClose(readable._controller);
        finish.resolve(undefined);
      }
    }, (r) => controllerError(readable._controller, r));
  }
  function tsSourcePull(stream) {
    tsSetBackpressure(stream, false);
    return stream._backpressureChange.promise;
  }
  function tsSourceCancel(stream, reason) {
    const writable = stream._writable;
    return tsFinish(stream, (c) => c._cancel(reason), (finish) => {
      if (writable._state === 'errored') finish.reject(writable._stored);
      else {
        writable._error(reason);
        tsUnblockWrite(stream);
        finish.resolve(undefined);
      }
    }, (r) => {
      writable._error(r);
      tsUnblockWrite(stream);
    });
  }

  class TextEncoderStreamImpl extends TransformStreamImpl {
    constructor() {
      const enc = new g.TextEncoder();
      // A high surrogate ending a chunk waits for the low one that may
      // start the next (the Encoding Standard's "pending high surrogate").
      let high = '';
      super({
        transform(chunk, c) {
          let s = high + String(chunk);
          high = '';
          const last = s.charCodeAt(s.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            high = s.slice(-1);
            s = s.slice(0, -1);
          }
          if (s !== '') c.enqueue(enc.encode(s));
        },
        flush(c) {
          if (high !== '') c.enqueue(enc.encode(high));
        },
      });
    }
    get encoding() { return 'utf-8'; }
    get [Symbol.toStringTag]() { return 'TextEncoderStream'; }
  }

  class TextDecoderStreamImpl extends TransformStreamImpl {
    constructor(label = 'utf-8', options = {}) {
      const dec = new g.TextDecoder(label, options);
      super({
        transform(chunk, c) {
          if (!(chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk))) {
            throw new TypeError('TextDecoderStream: a chunk must be an ArrayBuffer or a view of one');
          }
          const s = dec.decode(chunk, { stream: true });
          if (s !== '') c.enqueue(s);
        },
        flush(c) {
          const s = dec.decode();
          if (s !== '') c.enqueue(s);
        },
      });
      this._decoder = dec;
    }
    get encoding() { return this._decoder.encoding; }
    get fatal() { return this._decoder.fatal; }
    get ignoreBOM() { return this._decoder.ignoreBOM; }
    get [Symbol.toStringTag]() { return 'TextDecoderStream'; }
  }

  // CompressionStream and DecompressionStream (checked by WPT's
  // compression/): the host codes each chunk (`calls::COMPRESS`, flate2:
  // host/src/engine/compress.rs), handing out at most 1 MiB per call.
  function codingStream(format, compress, what) {
    const f = `${format}`;
    if (!['gzip', 'deflate', 'deflate-raw'].includes(f)) throw new TypeError(`Failed to construct '${what}': Unsupported compression format: '${f}'`);
    const { id } = namedCall('compress', { op: 'open', format: f, compress }).value;
    // Every piece of what one op gives, while the host says there is more.
    const run = (op, bytes, c) => {
      let more = true;
      for (let first = true; more; first = false) {
        const { value, data } = namedCall('compress', { op, id }, first ? bytes : undefined);
        more = value.more;
        if (data.length > 0) c.enqueue(data);
      }
    };
    return {
      transform(chunk, c) {
        if (!(chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk)) || (typeof SharedArrayBuffer === 'function' && (chunk instanceof SharedArrayBuffer || chunk.buffer instanceof SharedArrayBuffer))) {
          throw new TypeError(`${what}: a chunk must be an ArrayBuffer or a view of one`);
        }
        run('write', chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength), c);
      },
      flush(c) {
        run('finish', undefined, c);
      },
    };
  }
  class CompressionStreamImpl extends TransformStreamImpl {
    constructor(format) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'CompressionStream': 1 argument required, but only 0 present.");
      super(codingStream(format, true, 'CompressionStream'));
    }
    get [Symbol.toStringTag]() { return 'CompressionStream'; }
  }
  class DecompressionStreamImpl extends TransformStreamImpl {
    constructor(format) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'DecompressionStream': 1 argument required, but only 0 present.");
      super(codingStream(format, false, 'DecompressionStream'));
    }
    get [Symbol.toStringTag]() { return 'DecompressionStream'; }
  }

  // Calls `each` with every chunk of `stream`, which must be bytes. A chunk
  // of anything else (rejecting with `Err`), or an `each` that throws,
  // cancels the stream and rejects. Read with the prelude's own read
  // requests (no `then` of the app's is called), in a loop while chunks
  // are queued.
  // `onWait`, if given, is called once, when a read must wait for the
  // stream's source (every chunk before it came at once).
  function eachChunk(stream, what, Err, each, onWait = null) {
    const reader = new ReadableStreamDefaultReaderImpl(stream);
    return new Promise((resolve, reject) => {
      const fail = (e) => {
        upon(rsCancel(stream, e), () => reject(e), () => reject(e));
        return false;
      };
      const take = (value) => {
        if (!(value instanceof Uint8Array)) {
          return fail(new Err(`${what}: the body stream gave ${kindOf(value)}; a body stream must give Uint8Array chunks (pipe text through a TextEncoderStream)`));
        }
        try {
          each(value);
        } catch (e) {
          return fail(e);
        }
        return true;
      };
      const next = () => {
        for (let again = true; again;) {
          let sync = true;
          let answered = false;
          again = false;
          rsRead(reader, {
            chunk: (value) => {
              answered = true;
              if (!take(value)) return;
              if (sync) again = true;
              else next();
            },
            close: () => {
              answered = true;
              resolve(undefined);
            },
            error: (e) => {
              answered = true;
              reject(e);
            },
          });
          sync = false;
          if (!answered && onWait !== null) {
            const wait = onWait;
            onWait = null;
            try {
              wait();
            } catch (e) {
              fail(e);
            }
          }
        }
      };
      next();
    });
  }
  // Every chunk of `stream`, which must be bytes, as one Uint8Array.
  function readAllBytes(stream, what, Err = TypeError) {
    const chunks = [];
    return eachChunk(stream, what, Err, (c) => chunks.push(c)).then(() => concat(chunks));
  }

  defineMissing('ReadableStream', ReadableStreamImpl);
  defineMissing('ReadableStreamDefaultReader', ReadableStreamDefaultReaderImpl);
  defineMissing('ReadableStreamDefaultController', ReadableStreamDefaultController);
  defineMissing('ReadableStreamBYOBReader', ReadableStreamBYOBReaderImpl);
  defineMissing('ReadableStreamBYOBRequest', ReadableStreamBYOBRequest);
  defineMissing('ReadableByteStreamController', ReadableByteStreamController);
  defineMissing('TransformStreamDefaultController', TransformStreamDefaultController);
  defineMissing('WritableStream', WritableStreamImpl);
  defineMissing('WritableStreamDefaultWriter', WritableStreamDefaultWriterImpl);
  defineMissing('WritableStreamDefaultController', WritableStreamDefaultController);
  defineMissing('TransformStream', TransformStreamImpl);
  defineMissing('TextEncoderStream', TextEncoderStreamImpl);
  defineMissing('TextDecoderStream', TextDecoderStreamImpl);
  defineMissing('CompressionStream', CompressionStreamImpl);
  defineMissing('DecompressionStream', DecompressionStreamImpl);
  // The standard's two strategies: `size` is one function per global.
  function strategyInit(init, what) {
    if (init === null || (typeof init !== 'object' && typeof init !== 'function')) throw new TypeError(`${what}: expected { highWaterMark }`);
    if (init.highWaterMark === undefined) throw new TypeError(`${what}: highWaterMark is required`);
    return Number(init.highWaterMark);
  }
  const countSize = { size() { return 1; } }.size;
  const byteLengthSize = { size(chunk) { return chunk.byteLength; } }.size;
  class CountQueuingStrategy {
    #hwm;
    constructor(init) { this.#hwm = strategyInit(init, 'CountQueuingStrategy'); }
    get highWaterMark() {
      if (!(#hwm in this)) throw new TypeError('Illegal invocation');
      return this.#hwm;
    }
    get size() {
      if (!(#hwm in this)) throw new TypeError('Illegal invocation');
      return countSize;
    }
    get [Symbol.toStringTag]() { return 'CountQueuingStrategy'; }
  }
  class ByteLengthQueuingStrategy {
    #hwm;
    constructor(init) { this.#hwm = strategyInit(init, 'ByteLengthQueuingStrategy'); }
    get highWaterMark() {
      if (!(#hwm in this)) throw new TypeError('Illegal invocation');
      return this.#hwm;
    }
    get size() {
      if (!(#hwm in this)) throw new TypeError('Illegal invocation');
      return byteLengthSize;
    }
    get [Symbol.toStringTag]() { return 'ByteLengthQueuingStrategy'; }
  }
  defineMissing('CountQueuingStrategy', CountQueuingStrategy);
  defineMissing('ByteLengthQueuingStrategy', ByteLengthQueuingStrategy);

  // -------------------------------------------- Headers, Blob, FormData,
  // ------------------------------------------------- Request and Response
  // The Fetch standard's classes, with Node's (undici's) behaviour as the
  // reference. A body is a string, bytes or a ReadableStream of bytes (read
  // whole where the host needs it whole). A request's `signal` follows the
  // one it was made with; a `fetch` whose signal aborts rejects with its
  // reason.
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  const encoder = () => new g.TextEncoder();
  const decoder = () => new g.TextDecoder();

  // Header names and values already checked, each with what it became
  // (a lower-case name; a value without the whitespace at its ends): most
  // responses set the same few (`content-type: text/html`), and a regular
  // expression's test costs about 1 us in QuickJS on Wasm, its replace 3
  // (`ssr render --repeat`, a page making Headers in a loop). Bounded:
  // cleared when full, and only short strings are kept.
  const checkedNames = new Map();
  const checkedValues = new Map();
  function remember(map, key, value) {
    if (key.length <= 64) {
      if (map.size >= 256) map.clear();
      map.set(key, value);
    }
    return value;
  }
  const isHttpSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13;
  function headerValue(value) {
    const s = typeof value === 'string' ? value : String(value);
    const known = checkedValues.get(s);
    if (known !== undefined) return known;
    let v = s;
    if (v.length > 0 && (isHttpSpace(v.charCodeAt(0)) || isHttpSpace(v.charCodeAt(v.length - 1)))) {
      v = v.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    }
    if (/[\0\r\n\u0100-\uffff]/.test(v)) throw new TypeError(`Headers.append: "${v}" is an invalid header value.`);
    return remember(checkedValues, s, v);
  }

  // The request headers a render reads become part of its cache key (the
  // host keys the page on their values): a Headers with `_reads` records
  // each name read and '*' when all are listed.
  class HeadersImpl {
    constructor(init) {
      this._list = [];
      this._reads = null;
      if (init === undefined) return;
      if (init === null) throw new TypeError("Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'.");
      if (init instanceof HeadersImpl) {
        if (init._reads) init._reads.add('*');
        this._list = init._list.map(([k, v]) => [k, v]);
      } else if (typeof init !== 'object') {
        throw new TypeError("Headers constructor: expected a record or a sequence of name/value pairs");
      } else if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const p = Array.from(pair);
          if (p.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${p.length}.`);
          this.append(p[0], p[1]);
        }
      } else {
        for (const k of Object.keys(init)) this.append(k, init[k]);
      }
    }
    _name(name, op) {
      const s = typeof name === 'string' ? name : String(name);
      const known = checkedNames.get(s);
      if (known !== undefined) return known;
      if (!TOKEN.test(s)) throw new TypeError(`Headers.${op}: "${s}" is an invalid header name.`);
      return remember(checkedNames, s, s.toLowerCase());
    }
    _read(name) {
      if (this._reads) this._reads.add(name);
      return name;
    }
    // A fetched response's headers, and an error's or a redirect's, are
    // immutable (the Fetch standard's guard), as on Workers.
    _mutable(op) {
      if (this._immutable) throw new TypeError(`Headers.${op}: these headers are immutable (a fetched response's: copy them with new Response(body, response))`);
    }
    append(name, value) {
      this._mutable('append');
      const n = this._name(name, 'append');
      this._list.push([n, headerValue(value)]);
    }
    delete(name) {
      this._mutable('delete');
      const n = this._name(name, 'delete');
      this._list = this._list.filter(([k]) => k !== n);
    }
    // Lists that every request walks are walked by index: a destructured
    // pair takes QuickJS through the iterator protocol
    // (docs/development.md, "What the prelude costs a render").
    get(name) {
      const n = this._read(this._name(name, 'get'));
      let out = null;
      for (let i = 0; i < this._list.length; i++) {
        const p = this._list[i];
        if (p[0] === n) out = out === null ? p[1] : `${out}, ${p[1]}`;
      }
      return out;
    }
    getSetCookie() {
      this._read('set-cookie');
      return this._list.filter(([k]) => k === 'set-cookie').map(([, v]) => v);
    }
    has(name) {
      const n = this._read(this._name(name, 'has'));
      for (let i = 0; i < this._list.length; i++) if (this._list[i][0] === n) return true;
      return false;
    }
    set(name, value) {
      this._mutable('set');
      const n = this._name(name, 'set');
      this.delete(n);
      this.append(n, value);
    }
    // The Fetch standard's "sort and combine": by name, a name's values
    // joined, each `set-cookie` apart.
    _sorted() {
      if (this._reads) this._reads.add('*');
      const out = [];
      for (const n of Array.from(new Set(this._list.map(([k]) => k))).sort()) {
        if (n === 'set-cookie') {
          for (const [k, v] of this._list) if (k === n) out.push([n, v]);
        } else {
          out.push([n, this._list.filter(([k]) => k === n).map(([, v]) => v).join(', ')]);
        }
      }
      return out;
    }
    entries() { return headersIterator(this, (p) => [p[0], p[1]]); }
    keys() { return headersIterator(this, (p) => p[0]); }
    values() { return headersIterator(this, (p) => p[1]); }
    forEach(fn, thisArg) {
      for (let i = 0, all = this._sorted(); i < all.length; i++, all = this._sorted()) fn.call(thisArg, all[i][1], all[i][0], this);
    }
    [Symbol.iterator]() { return this.entries(); }
    get [Symbol.toStringTag]() { return 'Headers'; }
  }
  // WebIDL's pair iterator: live, so each step sorts the list as it is
  // then and takes the next index (a header added or removed during the
  // walk moves what comes next, as the standard says).
  const HeadersIteratorPrototype = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())), {
    next: {
      value() {
        const it = headersIterators.get(this);
        if (it === undefined) throw new TypeError("Illegal invocation: next() of a Headers iterator");
        const all = it.headers._sorted();
        if (it.at >= all.length) return { value: undefined, done: true };
        return { value: it.pick(all[it.at++]), done: false };
      },
      writable: true,
      configurable: true,
      enumerable: true,
    },
    [Symbol.toStringTag]: { value: 'Headers Iterator', configurable: true },
  });
  const headersIterators = new WeakMap();
  function headersIterator(headers, pick) {
    const it = Object.create(HeadersIteratorPrototype);
    headersIterators.set(it, { headers, pick, at: 0 });
    return it;
  }

  // A body's bytes as a new Uint8Array (strings as UTF-8).
  function bytesOf(part) {
    if (typeof part === 'string') return encoder().encode(part);
    if (part instanceof BlobImpl) return part._bytes;
    if (part instanceof ArrayBuffer) return new Uint8Array(part.slice(0));
    if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.byteLength));
    return encoder().encode(String(part));
  }
  function concat(chunks) {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out;
  }

  // WebIDL's [Clamp] long long (Blob.slice's offsets): the nearest
  // integer, a tie to the even one.
  function clampInteger(v) {
    const n = Number(v);
    if (Number.isNaN(n)) return 0;
    if (!Number.isFinite(n)) return n > 0 ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER;
    const f = Math.floor(n);
    const d = n - f;
    const r = d < 0.5 ? f : d > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
    return r === 0 ? 0 : r;
  }
  const isBytes = (p) => p instanceof BlobImpl || p instanceof ArrayBuffer || ArrayBuffer.isView(p);
  class BlobImpl {
    // As the File API says: the parts are converted in order (each a
    // buffer, a Blob or a string), then the options, `endings` before
    // `type`; with `endings: 'native'` a string's line breaks are LF.
    constructor(parts = undefined, options = undefined) {
      let items = [];
      if (parts !== undefined) {
        if ((typeof parts !== 'object' && typeof parts !== 'function') || parts === null || typeof parts[Symbol.iterator] !== 'function') {
          throw new TypeError("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
        }
        items = Array.from(parts, (p) => (isBytes(p) ? p : `${p}`));
      }
      if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw new TypeError("Failed to construct 'Blob': The provided value is not of type 'BlobPropertyBag'.");
      }
      const givenEndings = options == null ? undefined : options.endings;
      const endings = givenEndings === undefined ? 'transparent' : `${givenEndings}`;
      if (endings !== 'transparent' && endings !== 'native') {
        throw new TypeError(`Failed to construct 'Blob': The provided value '${endings}' is not a valid enum value of type EndingType.`);
      }
      const givenType = options == null ? undefined : options.type;
      const type = givenType === undefined ? '' : `${givenType}`;
      const native = endings === 'native';
      this._bytes = concat(items.map((p) => bytesOf(native && typeof p === 'string' ? p.replace(/\r\n?/g, '\n') : p)));
      this._type = /^[\u0020-\u007e]*$/.test(type) ? type.toLowerCase() : '';
    }
    get size() { return this._bytes.length; }
    get type() { return this._type; }
    slice(start = undefined, end = undefined, type = undefined) {
      const size = this.size;
      const at = (v, absent) => {
        if (v === undefined) return absent;
        const i = clampInteger(v);
        return i < 0 ? Math.max(size + i, 0) : Math.min(i, size);
      };
      const from = at(start, 0);
      const to = at(end, size);
      const b = new BlobImpl([], { type: type === undefined ? '' : `${type}` });
      b._bytes = this._bytes.slice(from, Math.max(from, to));
      return b;
    }
    // A new byte stream each call, read 64 KiB at a time.
    stream() {
      const bytes = this._bytes;
      let at = 0;
      return new ReadableStreamImpl({
        type: 'bytes',
        pull(c) {
          if (at >= bytes.length) {
            c.close();
            const pending = c.byobRequest;
            if (pending) pending.respond(0);
            return;
          }
          const n = Math.min(65536, bytes.length - at);
          c.enqueue(bytes.slice(at, at + n));
          at += n;
        },
      });
    }
    text() { return Promise.resolve(decoder().decode(this._bytes)); }
    arrayBuffer() { return Promise.resolve(this._bytes.slice().buffer); }
    bytes() { return Promise.resolve(this._bytes.slice()); }
    get [Symbol.toStringTag]() { return 'Blob'; }
  }
  class FileImpl extends BlobImpl {
    constructor(parts, name, options = {}) {
      super(parts, options);
      if (name === undefined) throw new TypeError("Failed to construct 'File': 2 arguments required, but only 1 present.");
      this._name = String(name);
      this._lastModified = options.lastModified === undefined ? Date.now() : Number(options.lastModified);
    }
    get name() { return this._name; }
    get lastModified() { return this._lastModified; }
    get [Symbol.toStringTag]() { return 'File'; }
  }

  class FormDataImpl {
    constructor(form) {
      if (form !== undefined) throw new TypeError("FormData constructor: a form element is not available on a server; build it with append()");
      this._list = [];
    }
    _entry(value, filename) {
      if (!(value instanceof BlobImpl)) return String(value);
      if (value instanceof FileImpl && filename === undefined) return value;
      return new FileImpl([value], filename === undefined ? 'blob' : String(filename), { type: value.type });
    }
    append(name, value, filename) { this._list.push([String(name), this._entry(value, filename)]); }
    delete(name) { this._list = this._list.filter(([k]) => k !== String(name)); }
    get(name) { const p = this._list.find(([k]) => k === String(name)); return p ? p[1] : null; }
    getAll(name) { return this._list.filter(([k]) => k === String(name)).map(([, v]) => v); }
    has(name) { return this._list.some(([k]) => k === String(name)); }
    set(name, value, filename) {
      const n = String(name);
      const i = this._list.findIndex(([k]) => k === n);
      const entry = [n, this._entry(value, filename)];
      if (i < 0) this._list.push(entry);
      else this._list = this._list.filter(([k], j) => j <= i || k !== n).map((p, j) => (j === i ? entry : p));
    }
    *entries() { for (const [k, v] of this._list) yield [k, v]; }
    *keys() { for (const [k] of this._list) yield k; }
    *values() { for (const [, v] of this._list) yield v; }
    forEach(fn, thisArg) { for (const [k, v] of this._list) fn.call(thisArg, v, k, this); }
    [Symbol.iterator]() { return this.entries(); }
    get [Symbol.toStringTag]() { return 'FormData'; }
  }

  // The Fetch standard's "extract a body": [body, content type or null],
  // the body a string or a Uint8Array that no one else holds.
  function extractBody(body) {
    if (typeof body === 'string') return [body, 'text/plain;charset=UTF-8'];
    if (body instanceof URLSearchParamsImpl || (g.URLSearchParams && body instanceof g.URLSearchParams)) {
      return [body.toString(), 'application/x-www-form-urlencoded;charset=UTF-8'];
    }
    if (body instanceof BlobImpl) return [body._bytes.slice(), body.type || null];
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return [bytesOf(body), null];
    if (body instanceof FormDataImpl) {
      const boundary = `----ssrFormBoundary${Math.random().toString(16).slice(2)}${Math.random().toString(16).slice(2)}`;
      const escape = (s) => s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
      const chunks = [];
      for (const [name, value] of body._list) {
        let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(name)}"`;
        if (typeof value === 'string') {
          chunks.push(bytesOf(`${head}\r\n\r\n${value.replace(/\r(?!\n)|(?<!\r)\n/g, '\r\n')}\r\n`));
        } else {
          head += `; filename="${escape(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`;
          chunks.push(bytesOf(head), value._bytes, bytesOf('\r\n'));
        }
      }
      chunks.push(bytesOf(`--${boundary}--\r\n`));
      return [concat(chunks), `multipart/form-data; boundary=${boundary}`];
    }
    if (body instanceof ReadableStreamImpl) {
      if (body._disturbed || body.locked) throw new TypeError('Response body object should not be disturbed or locked');
      return [body, null];
    }
    return [String(body), 'text/plain;charset=UTF-8'];
  }

  // The Body mixin of Request and Response. `_body` is null, a string, a
  // Uint8Array or a ReadableStream (read whole here); `_used` is set once a
  // method has read it.
  // `bodyUsed` is the Fetch standard's "disturbed"; a body is unusable
  // when disturbed or locked to a reader.
  function streamUsed(b) { return b instanceof ReadableStreamImpl && b._disturbed; }
  const bodyMethods = {
    _take() {
      if (this._used || streamUsed(this._body) || (this._body instanceof ReadableStreamImpl && this._body.locked)) {
        return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
      }
      this._used = this._body !== null;
      if (this._body instanceof ReadableStreamImpl) return readAllBytes(this._body, 'reading the body');
      return Promise.resolve(this._body);
    },
    text() { return this._take().then((b) => (b === null ? '' : typeof b === 'string' ? b : decoder().decode(b))); },
    bytes() { return this._take().then((b) => (b === null ? new Uint8Array(0) : typeof b === 'string' ? encoder().encode(b) : b.slice())); },
    arrayBuffer() { return this.bytes().then((b) => b.buffer); },
    json() { return this.text().then((t) => JSON.parse(t)); },
    blob() { return this.bytes().then((b) => new BlobImpl([b], { type: this.headers.get('content-type') || '' })); },
    // The body is read first, so that its stream's error is what a
    // failed read rejects with; then its type decides.
    formData() {
      const given = this.headers.get('content-type') || '';
      const type = given.toLowerCase();
      return this.bytes().then((b) => {
        if (type.startsWith('application/x-www-form-urlencoded')) {
          const form = new FormDataImpl();
          for (const [k, v] of new URLSearchParamsImpl(decoder().decode(b))) form.append(k, v);
          return form;
        }
        if (type.startsWith('multipart/form-data')) return parseMultipart(b, given);
        throw new TypeError(`formData() reads application/x-www-form-urlencoded or multipart/form-data bodies; this one is ${given ? `"${given}"` : 'untyped'}`);
      });
    },
  };
  function parseMultipart(bytes, type) {
    const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
    if (!m) throw new TypeError('formData(): the multipart/form-data body has no boundary');
    // Latin-1 keeps one character per byte, so offsets map back to bytes.
    const text = Array.from(bytes, (c) => String.fromCharCode(c)).join('');
    const form = new FormDataImpl();
    const parts = text.split(`--${m[1] || m[2]}`);
    if (parts.length < 2 || !parts[parts.length - 1].startsWith('--')) throw new TypeError('formData(): the multipart/form-data body does not end with its boundary');
    for (const part of parts.slice(1, -1)) {
      const split = part.indexOf('\r\n\r\n');
      if (split < 0) continue;
      const head = part.slice(2, split);
      const content = part.slice(split + 4, part.length - 2);
      const name = /name="([^"]*)"/i.exec(head);
      if (!name) continue;
      const filename = /filename="([^"]*)"/i.exec(head);
      const raw = Uint8Array.from(content, (c) => c.charCodeAt(0));
      if (filename) {
        const ct = /content-type:\s*([^\r\n]*)/i.exec(head);
        form.append(name[1], new FileImpl([raw], filename[1], { type: ct ? ct[1] : '' }));
      } else {
        form.append(name[1], decoder().decode(raw));
      }
    }
    return form;
  }
  function withBody(C) {
    for (const [name, fn] of Object.entries(bodyMethods)) {
      Object.defineProperty(C.prototype, name, { value: fn, writable: true, configurable: true });
    }
    Object.defineProperty(C.prototype, 'bodyUsed', { get() { return this._used || streamUsed(this._body); }, configurable: true });
    // A string or bytes become a byte stream (BYOB readers can read it, as
    // the Fetch standard says) of one chunk when first asked for. The bytes
    // are the body's own copy, so the stream may take (transfer) them.
    Object.defineProperty(C.prototype, 'body', {
      get() {
        const b = this._body;
        if (b === null || b instanceof ReadableStreamImpl) return b;
        const bytes = typeof b === 'string' ? encoder().encode(b) : b;
        this._body = new ReadableStreamImpl({
          type: 'bytes',
          start(c) {
            if (bytes.byteLength > 0) c.enqueue(bytes);
            c.close();
          },
        });
        // A body read whole was read through a reader, which keeps it.
        if (this._used) {
          this._body.getReader();
          this._body._disturbed = true;
        }
        return this._body;
      },
      configurable: true,
    });
  }
  // Sets `_body`, and the content type the body implies unless set.
  function setBody(target, body) {
    target._body = null;
    target._used = false;
    if (body === undefined || body === null) return;
    const [bytes, type] = extractBody(body);
    target._body = bytes;
    if (type !== null && !target._headers.has('content-type')) target._headers.append('content-type', type);
  }

  const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
  // RequestInit's enumerations, as WebIDL checks them.
  const REQUEST_ENUMS = {
    mode: ['navigate', 'same-origin', 'no-cors', 'cors'],
    credentials: ['omit', 'same-origin', 'include'],
    cache: ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'],
    redirect: ['follow', 'error', 'manual'],
    referrerPolicy: ['', 'no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin', 'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url'],
    priority: ['high', 'low', 'auto'],
    duplex: ['half'],
  };
  function requestEnum(init, name, fallback) {
    const v = init[name];
    if (v === undefined) return fallback;
    const str = String(v);
    if (!REQUEST_ENUMS[name].includes(str)) {
      throw new TypeError(`Failed to construct 'Request': The provided value '${str}' is not a valid enum value of type Request${name[0].toUpperCase()}${name.slice(1)}.`);
    }
    return str;
  }
  // A clone's body: a copy of the bytes, or a branch of the stream's tee.
  function cloneBody(from, to) {
    if (from._body instanceof Uint8Array) to._body = from._body.slice();
    if (from._body instanceof ReadableStreamImpl) [from._body, to._body] = from._body.tee();
  }
  const unusable = (r) => r._used || streamUsed(r._body) || (r._body instanceof ReadableStreamImpl && r._body.locked);
  // The Fetch standard's Request constructor, its steps in order (what
  // applies without a document: no window, no client, no navigation), but
  // for two refusals workerd does not make and Workers apps rely on (a
  // stream body without `duplex`, a URL with credentials).
  class RequestImpl {
    constructor(input, init) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'Request': 1 argument required, but only 0 present.");
      if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function') {
        throw new TypeError("Failed to construct 'Request': The provided value is not of type 'RequestInit'.");
      }
      const i = init === undefined || init === null ? {} : init;
      const from = input instanceof RequestImpl ? input : null;
      let url;
      if (from) {
        url = from._url;
      } else {
        // A URL with credentials is accepted, as on workerd (the standard
        // refuses it).
        try {
          url = new URLImpl(String(input)).href;
        } catch (_) {
          throw new TypeError(`Failed to parse URL from ${String(input)}`);
        }
      }
      if (i.window !== undefined && i.window !== null) throw new TypeError("Failed to construct 'Request': 'window' can only be null.");
      let referrer = from ? from._referrer : 'about:client';
      if (i.referrer !== undefined) {
        const r = String(i.referrer);
        if (r === '') referrer = 'no-referrer';
        else {
          let parsed;
          try {
            parsed = new URLImpl(r, url);
          } catch (_) {
            throw new TypeError(`Failed to construct 'Request': Referrer '${r}' is not a valid URL.`);
          }
          referrer = parsed.href === 'about:client' ? 'about:client' : parsed.href;
        }
      }
      this._referrer = referrer;
      this._referrerPolicy = requestEnum(i, 'referrerPolicy', from ? from._referrerPolicy : '');
      const mode = requestEnum(i, 'mode', from ? from._mode : 'cors');
      if (mode === 'navigate') throw new TypeError("Failed to construct 'Request': Cannot construct a Request with a RequestInit whose mode member is set as 'navigate'.");
      this._mode = mode;
      this._credentials = requestEnum(i, 'credentials', from ? from._credentials : 'same-origin');
      this._cache = requestEnum(i, 'cache', from ? from._cache : 'default');
      if (this._cache === 'only-if-cached' && this._mode !== 'same-origin') {
        throw new TypeError("Failed to construct 'Request': 'only-if-cached' can be set only with 'same-origin' mode");
      }
      this._redirect = requestEnum(i, 'redirect', from ? from._redirect : 'follow');
      this._integrity = i.integrity !== undefined ? String(i.integrity) : from ? from._integrity : '';
      this._keepalive = i.keepalive !== undefined ? Boolean(i.keepalive) : from ? from._keepalive : false;
      let method = from ? from._method : 'GET';
      if (i.method !== undefined) {
        method = String(i.method);
        if (!TOKEN.test(method)) throw new TypeError(`'${method}' is not a valid HTTP method.`);
        if (['CONNECT', 'TRACE', 'TRACK'].includes(method.toUpperCase())) throw new TypeError(`'${method}' HTTP method is unsupported.`);
        if (METHODS.includes(method.toUpperCase())) method = method.toUpperCase();
      }
      const signal = i.signal !== undefined && i.signal !== null ? i.signal : from ? from.signal : undefined;
      if (signal !== undefined && !(signal instanceof AbortSignalImpl)) {
        throw new TypeError("Failed to construct 'Request': member signal is not of type AbortSignal.");
      }
      requestEnum(i, 'priority', 'auto');
      this._url = url;
      this._method = method;
      // Made when first read: most requests never read theirs.
      this._signal = signal === undefined ? undefined : AbortSignalImpl.any([signal]);
      if (this._mode === 'no-cors' && !['GET', 'HEAD', 'POST'].includes(method)) {
        throw new TypeError(`Failed to construct 'Request': '${method}' is unsupported in no-cors mode.`);
      }
      this._headers = new HeadersImpl(i.headers !== undefined ? i.headers : from ? from._headers : undefined);
      const body = i.body !== undefined ? i.body : null;
      const inputBody = from ? from._body : null;
      if ((body !== null || inputBody !== null) && (method === 'GET' || method === 'HEAD')) {
        throw new TypeError('Request with GET/HEAD method cannot have body.');
      }
      // A stream body needs no `duplex: 'half'`, as on workerd (the
      // standard, and Node, require it): Workers apps forward a request's
      // body without it.
      requestEnum(i, 'duplex', 'half');
      this._body = null;
      this._used = false;
      if (body !== null) {
        setBody(this, body);
      } else if (inputBody !== null) {
        if (unusable(from)) throw new TypeError('Cannot construct a Request with a Request object that has already been used.');
        // The body moves to the new request (a stream through a proxy, as
        // the standard says): the input's is now used.
        if (inputBody instanceof ReadableStreamImpl) {
          const proxy = new TransformStreamImpl();
          quietly(pipe(inputBody, proxy._writable, pipeOptions(undefined)));
          this._body = proxy._readable;
        } else {
          this._body = inputBody;
          from._used = true;
        }
      }
    }
    get url() { return this._url; }
    get method() { return this._method; }
    get headers() { return this._headers; }
    get redirect() { return this._redirect; }
    get signal() {
      if (this._signal === undefined) this._signal = newSignal();
      return this._signal;
    }
    get cache() { return this._cache; }
    get credentials() { return this._credentials; }
    get mode() { return this._mode; }
    get destination() { return ''; }
    get referrer() { return this._referrer === 'no-referrer' ? '' : this._referrer; }
    get referrerPolicy() { return this._referrerPolicy; }
    get integrity() { return this._integrity; }
    get keepalive() { return this._keepalive; }
    get isReloadNavigation() { return false; }
    get isHistoryNavigation() { return false; }
    get duplex() { return 'half'; }
    clone() {
      if (unusable(this)) throw new TypeError('Request.clone: Body has already been consumed.');
      const r = Object.create(RequestImpl.prototype);
      // Listing the headers marks them all read (the page varies on them).
      Object.assign(r, this, { _headers: new HeadersImpl(this._headers) });
      if (this._signal !== undefined) r._signal = AbortSignalImpl.any([this._signal]);
      cloneBody(this, r);
      return r;
    }
    get [Symbol.toStringTag]() { return 'Request'; }
  }
  withBody(RequestImpl);
  // What a request the host made (the incoming one) has: the defaults.
  for (const [k, v] of Object.entries({ _referrer: 'about:client', _referrerPolicy: '', _mode: 'cors', _credentials: 'same-origin', _cache: 'default', _integrity: '', _keepalive: false })) {
    Object.defineProperty(RequestImpl.prototype, k, { value: v, writable: true, configurable: true });
  }

  const NULL_BODY = [101, 103, 204, 205, 304];
  const REDIRECTS = [301, 302, 303, 307, 308];
  class ResponseImpl {
    constructor(body = null, init = {}) {
      const status = init.status === undefined ? 200 : Number(init.status);
      if (!Number.isInteger(status) || status < 200 || status > 599) {
        throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`);
      }
      this._status = status;
      this._statusText = init.statusText === undefined ? '' : String(init.statusText);
      // The reason-phrase production: tabs, spaces and visible Latin-1.
      if (this._statusText !== '' && !/^[\t\x20-\x7e\x80-\xff]*$/.test(this._statusText)) throw new TypeError(`Response constructor: "${this._statusText}" is an invalid statusText`);
      this._headers = new HeadersImpl(init.headers);
      this._type = 'default';
      this._urlList = [];
      if (body !== null && body !== undefined && NULL_BODY.includes(status)) {
        throw new TypeError(`Response constructor: Invalid response status code ${status}`);
      }
      setBody(this, body);
    }
    static error() {
      const r = new ResponseImpl(null, { status: 200 });
      r._status = 0;
      r._type = 'error';
      r._headers._immutable = true;
      return r;
    }
    static redirect(url, status = 302) {
      let href;
      try {
        href = new URLImpl(String(url)).href;
      } catch (_) {
        throw new TypeError(`Failed to parse URL from ${String(url)}`);
      }
      if (!REDIRECTS.includes(status)) throw new RangeError(`Invalid status code ${status}`);
      const r = new ResponseImpl(null, { status });
      r._headers.set('location', href);
      return r;
    }
    static json(data, init = {}) {
      const text = JSON.stringify(data);
      if (text === undefined) throw new TypeError('Value is not JSON serializable');
      const r = new ResponseImpl(text, init);
      r._headers.set('content-type', init.headers && new HeadersImpl(init.headers).get('content-type') || 'application/json');
      return r;
    }
    get status() { return this._status; }
    get ok() { return this._status >= 200 && this._status <= 299; }
    get statusText() { return this._statusText; }
    get headers() { return this._headers; }
    get type() { return this._type; }
    get url() { return this._urlList.length ? this._urlList[this._urlList.length - 1] : ''; }
    get redirected() { return this._urlList.length > 1; }
    clone() {
      if (this._used || streamUsed(this._body)) throw new TypeError('Response.clone: Body has already been consumed.');
      const r = new ResponseImpl(null, { status: 200 });
      Object.assign(r, this, { _headers: new HeadersImpl(this._headers), _urlList: this._urlList.slice() });
      cloneBody(this, r);
      return r;
    }
    get [Symbol.toStringTag]() { return 'Response'; }
  }
  withBody(ResponseImpl);

  // ------------------------------------------------------------------ fetch
  // The host makes the request (`calls::FETCH`), to an origin the tenant
  // was granted, and the driver delivers its response when it finishes
  // (`runNextTimer`). Until streams come, a body is read whole.
  // The Fetch standard's data: URL processor: answered here, as on
  // Workers; a data: URL reaches no network and needs no grant.
  function dataResponse(req) {
    const url = req._url.replace(/#.*$/s, '').slice('data:'.length);
    const comma = url.indexOf(',');
    if (comma < 0) throw new TypeError(`fetch of a data: URL without a comma: ${req._url.slice(0, 64)}`);
    let type = url.slice(0, comma).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
    let bytes = percentDecode(url.slice(comma + 1));
    const base64 = /;[\t\n\f\r ]*base64[\t\n\f\r ]*$/i.exec(type);
    if (base64) {
      type = type.slice(0, base64.index);
      let text;
      try {
        text = g.atob(Array.from(bytes, (c) => String.fromCharCode(c)).join(""));
      } catch {
        throw new TypeError('fetch of a data: URL whose base64 is not valid');
      }
      bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    }
    if (type.startsWith(';')) type = `text/plain${type}`;
    if (!/^[^\s/;]+\/[^\s/;]+/.test(type)) type = 'text/plain;charset=US-ASCII';
    const r = new ResponseImpl(req._method === 'HEAD' ? null : bytes, { status: 200, statusText: 'OK', headers: [['content-type', type]] });
    r._urlList = [req._url];
    r._type = 'basic';
    r._headers._immutable = true;
    return r;
  }
  function percentDecode(text) {
    const out = [];
    const utf8 = encoder().encode(text);
    for (let i = 0; i < utf8.length; i++) {
      const hex = utf8[i] === 0x25 && i + 2 < utf8.length ? String.fromCharCode(utf8[i + 1], utf8[i + 2]) : '';
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 2;
      } else out.push(utf8[i]);
    }
    return Uint8Array.from(out);
  }
  function fetchImpl(input, init) {
    return new Promise((ok) => {
      const req = new RequestImpl(input, init === undefined ? {} : init);
      // A stream body is read whole before the request goes.
      const b = req._body;
      ok(b instanceof ReadableStreamImpl ? readAllBytes(b, 'fetch').then((bytes) => [req, bytes]) : [req, b]);
    }).then(([req, b]) => new Promise((resolve, reject) => {
      const signal = req._signal;
      if (signal !== undefined && signal.aborted) throw signal.reason;
      if (req._url.startsWith('data:')) {
        resolve(dataResponse(req));
        return;
      }
      const body = b === null ? undefined : typeof b === 'string' ? encoder().encode(b) : b;
      const headers = req._headers._list.map(([k, v]) => [k, v]);
      const args = { method: req._method, url: req._url, headers, redirect: req._redirect };
      const id = host('fetch', args, body).value;
      inflight.set(id, { resolve, reject, method: req._method });
      // An aborted signal ends the host's request at once.
      if (signal !== undefined) {
        signal.addEventListener('abort', () => {
          if (!inflight.delete(id)) return;
          host('fetch-abort', id);
          reject(signal.reason);
        }, { once: true });
      }
    }));
  }
  // What the engine's wait brought: `fetch-wait`'s reply as JSON, and its
  // bytes. The clock moves on by the time waited.
  function arrived(text, data) {
    const value = JSON.parse(text);
    clock += value.waited;
    if (value.id !== undefined) fetched(value, data);
    if (value.gone && leaving !== null) {
      const r = leaving;
      leaving = null;
      signalAbort(r.signal, new DOMEx('The client went away before the response was complete', 'AbortError'));
    }
  }
  // Settles the promise of the request the host finished.
  function fetched(v, data) {
    const p = inflight.get(v.id);
    if (p === undefined) return;
    inflight.delete(v.id);
    if (v.error !== undefined) {
      p.reject(new TypeError(v.error));
      return;
    }
    const r = new ResponseImpl(null, { status: 200 });
    r._status = v.status;
    r._statusText = v.statusText;
    for (const [k, val] of v.headers) r._headers._list.push([k, val]);
    r._urlList = v.urls;
    r._type = 'basic';
    r._headers._immutable = true;
    r._body = NULL_BODY.includes(v.status) || p.method === 'HEAD' ? null : data;
    p.resolve(r);
  }

  defineMissing('fetch', fetchImpl);
  defineMissing('Headers', HeadersImpl);
  defineMissing('Blob', BlobImpl);
  defineMissing('File', FileImpl);
  defineMissing('FormData', FormDataImpl);
  defineMissing('Request', RequestImpl);
  defineMissing('Response', ResponseImpl);

  // -------------------------------------------------------------------- Intl
  // QuickJS has no Intl: the host answers each call with V8's own (the
  // capability `intl`, `calls::INTL`, host/src/engine/intl.rs), so the
  // Wasm engine formats exactly as the V8 engine does, and the locale data
  // is never in a tenant. Each object keeps what made it (its locales and
  // options, as JSON) and its resolved options; the host keeps the
  // formatters. Where the engine has Intl (V8), none of this is defined.
  if (typeof g.Intl === 'undefined') {
    const intlState = new WeakMap();
    // The host's call: the object's key ({type, locales, options} as
    // JSON, which the host keeps its formatter by), the op, its arguments.
    const intlKey = (type, locales, options) => JSON.stringify({ type, locales, options });
    const intlCallKey = (key, op, args = []) => {
      const [ok, text] = hostCall('intl', `${key}\n${op}\n${JSON.stringify(args)}`);
      if (ok) return JSON.parse(text).ok;
      throw namedError(text);
    };
    const intlCall = (type, op, locales, options, args) => intlCallKey(intlKey(type, locales, options), op, args);
    // The resolved options of the last INTL_KEPT objects made, by key: a
    // component that makes `new Intl.NumberFormat('de')` on every render
    // asks the host once.
    const INTL_KEPT = 64;
    const intlKept = new Map();
    const intlResolved = (key) => {
      let resolved = intlKept.get(key);
      if (resolved === undefined) {
        resolved = intlCallKey(key, 'new');
        if (intlKept.size >= INTL_KEPT) intlKept.delete(intlKept.keys().next().value);
        intlKept.set(key, resolved);
      }
      return resolved;
    };
    const ownState = (self, type) => {
      const s = intlState.get(self);
      if (s === undefined || s.type !== type) throw new TypeError(`Method Intl.${type}.prototype method called on an incompatible receiver`);
      return s;
    };
    // Locales as JSON: tags, with an Intl.Locale as its tag.
    // An Intl.Locale's tag, read from its state (not through toString).
    const localeTag = (l) => {
      const s = intlState.get(l);
      return s !== undefined && s.type === 'Locale' ? s.tag : undefined;
    };
    // The standard's CanonicalizeLocaleList, but for the canonicalizing
    // (the host does that): tags, an Intl.Locale as its tag (its toString
    // is not called), only the indices an array-like has.
    const intlLocales = (locales) => {
      if (locales === undefined || typeof locales === 'string') return locales;
      if (locales === null) throw new TypeError('Cannot convert undefined or null to object');
      if (localeTag(locales) !== undefined) return localeTag(locales);
      const o = Object(locales);
      const length = Math.min(Math.max(Math.trunc(Number(o.length)) || 0, 0), 2 ** 32);
      const tags = [];
      for (let k = 0; k < length; k++) {
        if (!(k in o)) continue;
        const v = o[k];
        if (typeof v !== 'string' && (typeof v !== 'object' || v === null)) {
          throw new TypeError(`Language ID should be string or object, got ${typeof v}`);
        }
        tags.push(localeTag(v) ?? `${v}`);
      }
      return tags;
    };
    // The options a constructor reads, in the standard's order: each is
    // read once (a getter runs, and may throw), and travels as a primitive
    // (an object as its string, a symbol is the TypeError ToString gives).
    const DIGITS = ['minimumIntegerDigits', 'minimumFractionDigits', 'maximumFractionDigits', 'minimumSignificantDigits', 'maximumSignificantDigits', 'roundingIncrement', 'roundingMode', 'roundingPriority', 'trailingZeroDisplay'];
    const DATE_FIELDS = ['weekday', 'era', 'year', 'month', 'day', 'dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits', 'timeZoneName'];
    const OPTIONS = {
      Collator: ['usage', 'localeMatcher', 'collation', 'numeric', 'caseFirst', 'sensitivity', 'ignorePunctuation'],
      NumberFormat: ['localeMatcher', 'numberingSystem', 'style', 'currency', 'currencyDisplay', 'currencySign', 'unit', 'unitDisplay', 'notation', ...DIGITS, 'compactDisplay', 'useGrouping', 'signDisplay'],
      DateTimeFormat: ['localeMatcher', 'calendar', 'numberingSystem', 'hour12', 'hourCycle', 'timeZone', ...DATE_FIELDS, 'formatMatcher', 'dateStyle', 'timeStyle'],
      PluralRules: ['localeMatcher', 'type', ...DIGITS],
      RelativeTimeFormat: ['localeMatcher', 'numberingSystem', 'style', 'numeric'],
      ListFormat: ['localeMatcher', 'type', 'style'],
      Segmenter: ['localeMatcher', 'granularity'],
      DisplayNames: ['localeMatcher', 'style', 'type', 'fallback', 'languageDisplay'],
      Locale: ['language', 'script', 'region', 'calendar', 'collation', 'hourCycle', 'caseFirst', 'numeric', 'numberingSystem'],
      supportedLocalesOf: ['localeMatcher'],
    };
    // Constructors whose options must be an object (GetOptionsObject).
    const OPTIONS_OBJECT = new Set(['ListFormat', 'Segmenter', 'DisplayNames', 'Locale']);
    const intlOptions = (options, type) => {
      if (options === undefined) return undefined;
      if (options === null || (typeof options !== 'object' && typeof options !== 'function' && OPTIONS_OBJECT.has(type))) {
        throw new TypeError(`Intl.${type}: options must be an object`);
      }
      const o = Object(options);
      const out = Object.create(null);
      for (const k of OPTIONS[type] || []) {
        const v = o[k];
        if (v === undefined) continue;
        out[k] = typeof v === 'symbol' || (typeof v === 'object' && v !== null) || typeof v === 'function' ? `${v}` : v;
      }
      return out;
    };
    // A time value, or now; NaN is the standard's RangeError.
    const intlTime = (date) => {
      const t = date === undefined ? Date.now() : Number(date);
      if (!Number.isFinite(t)) throw new RangeError('Invalid time value');
      return t;
    };
    // A number as JSON: BigInts and non-finite numbers travel tagged.
    const intlNumber = (x) => {
      if (typeof x === 'bigint') return { $bigint: String(x) };
      if (typeof x === 'string') return x;
      const n = Number(x);
      return Number.isFinite(n) && !Object.is(n, -0) ? n : { $number: Object.is(n, -0) ? '-0' : String(n) };
    };
    // A constructor `type`: `methods` get the object's state and the call's
    // arguments; `bound` are getters of bound functions (`format`,
    // `compare`); `callable`: it may be called without `new`.
    function intlClass(type, { methods = {}, bound = {}, callable = false } = {}) {
      const C = function (locales, options) {
        if (new.target === undefined) {
          if (callable) return new C(locales, options);
          throw new TypeError(`Constructor Intl.${type} requires 'new'`);
        }
        const key = intlKey(type, intlLocales(locales), intlOptions(options, type));
        intlState.set(this, Object.assign(Object.create(null), { type, key, resolved: intlResolved(key) }));
      };
      Object.defineProperty(C, 'name', { value: type });
      const call = (s, op, args) => intlCallKey(s.key, op, args);
      const proto = {
        resolvedOptions() {
          return dataObject(ownState(this, type).resolved);
        },
      };
      // Methods and bound functions get the standard's lengths and names.
      const named = (f, name, length) => Object.defineProperties(f, { name: { value: name, configurable: true }, length: { value: length, configurable: true } });
      for (const [name, [fn, length]] of Object.entries(methods)) {
        proto[name] = named({ [name](...args) { return fn(ownState(this, type), call, ...args); } }[name], name, length);
      }
      for (const [name, [fn, length]] of Object.entries(bound)) {
        Object.defineProperty(proto, name, {
          configurable: true,
          get: named({ get() {
            const s = ownState(this, type);
            if (s[name] === undefined) s[name] = named((...args) => fn(s, call, ...args), '', length);
            return s[name];
          } }.get, `get ${name}`, 0),
        });
      }
      Object.defineProperty(proto, Symbol.toStringTag, { value: `Intl.${type}`, configurable: true });
      for (const k of Object.keys(proto)) Object.defineProperty(proto, k, { enumerable: false });
      Object.defineProperty(C, 'prototype', { value: proto, writable: false, enumerable: false, configurable: false });
      Object.defineProperty(proto, 'constructor', { value: C, writable: true, configurable: true });
      Object.defineProperty(C, 'length', { value: type === 'DisplayNames' ? 2 : 0, configurable: true });
      Object.defineProperty(C, 'supportedLocalesOf', {
        writable: true,
        configurable: true,
        value: named({ supportedLocalesOf(locales, options) {
          return intlCall(type, 'supportedLocalesOf', intlLocales(locales), intlOptions(options, 'supportedLocalesOf'));
        } }.supportedLocalesOf, 'supportedLocalesOf', 1),
      });
      return C;
    }
    const oneTime = (op) => (s, call, date) => call(s, op, [intlTime(date)]);
    const twoTimes = (op) => (s, call, start, end) => {
      if (start === undefined || end === undefined) throw new TypeError(`${op}: startDate and endDate are required`);
      return call(s, op, [intlTime(start), intlTime(end)]);
    };
    const numbers = (op) => (s, call, ...xs) => call(s, op, xs.map(intlNumber));
    // StringListFromIterable: an element that is not a string closes the
    // iterator and is a TypeError.
    const stringList = (list) => {
      if (list === undefined) return [];
      const out = [];
      const it = list[Symbol.iterator]();
      for (let step = it.next(); !step.done; step = it.next()) {
        if (typeof step.value !== 'string') {
          if (typeof it.return === 'function') it.return();
          throw new TypeError(`Iterable yielded ${typeof step.value} which is not a string`);
        }
        out.push(step.value);
      }
      return out;
    };
    const DateTimeFormat = intlClass('DateTimeFormat', {
      callable: true,
      bound: { format: [oneTime('format'), 1] },
      methods: { formatToParts: [oneTime('formatToParts'), 1], formatRange: [twoTimes('formatRange'), 2], formatRangeToParts: [twoTimes('formatRangeToParts'), 2] },
    });
    const NumberFormat = intlClass('NumberFormat', {
      callable: true,
      bound: { format: [numbers('format'), 1] },
      methods: { formatToParts: [numbers('formatToParts'), 1], formatRange: [numbers('formatRange'), 2], formatRangeToParts: [numbers('formatRangeToParts'), 2] },
    });
    const Collator = intlClass('Collator', {
      callable: true,
      bound: { compare: [(s, call, a, b) => call(s, 'compare', [`${a}`, `${b}`]), 2] },
    });
    const PluralRules = intlClass('PluralRules', {
      methods: { select: [numbers('select'), 1], selectRange: [numbers('selectRange'), 2] },
    });
    const RelativeTimeFormat = intlClass('RelativeTimeFormat', {
      methods: {
        format: [(s, call, value, unit) => call(s, 'format', [intlNumber(value), `${unit}`]), 2],
        formatToParts: [(s, call, value, unit) => call(s, 'formatToParts', [intlNumber(value), `${unit}`]), 2],
      },
    });
    const ListFormat = intlClass('ListFormat', {
      methods: {
        format: [(s, call, list) => call(s, 'format', [stringList(list)]), 1],
        formatToParts: [(s, call, list) => call(s, 'formatToParts', [stringList(list)]), 1],
      },
    });
    const DisplayNames = intlClass('DisplayNames', {
      methods: { of: [(s, call, code) => call(s, 'of', [`${code}`]), 1] },
    });
    // A text's segments: the host says where each starts.
    const Segmenter = intlClass('Segmenter', {
      methods: {
        segment: [function (s, call, input) {
          const text = `${input}`;
          const { starts, wordLike } = call(s, 'segment', [text]);
          const data = (i) => {
            const d = { segment: text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : text.length), index: starts[i], input: text };
            return wordLike.length > 0 ? Object.defineProperty(d, 'isWordLike', { value: wordLike[i] === 1, writable: true, enumerable: true, configurable: true }) : d;
          };
          const segments = {
            containing(index) {
              if (!segmentsMade.has(this)) throw new TypeError('containing called on an incompatible receiver');
              const n = index === undefined ? 0 : Math.trunc(+index) || 0;
              if (n < 0 || n >= text.length) return undefined;
              let i = starts.length - 1;
              while (i > 0 && starts[i] > n) i--;
              return data(i);
            },
            *[Symbol.iterator]() {
              for (let i = 0; i < starts.length; i++) yield data(i);
            },
          };
          segmentsMade.add(segments);
          return segments;
        }, 1],
      },
    });
    const segmentsMade = new WeakSet();
    // A plain object with `from`'s properties, made without [[Set]] (a
    // setter on Object.prototype sees nothing).
    const dataObject = (from) => {
      const out = {};
      for (const [k, v] of Object.entries(from)) Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
      return out;
    };
    class IntlLocale {
      constructor(tag, options) {
        if (typeof tag !== 'string' && (typeof tag !== 'object' || tag === null)) {
          throw new TypeError('First argument to Intl.Locale constructor can\'t be empty or missing');
        }
        const given = localeTag(tag) ?? `${tag}`;
        const state = intlCall('Locale', 'new', undefined, intlOptions(options, 'Locale'), [given]);
        intlState.set(this, Object.assign(Object.create(null), state, { type: 'Locale' }));
      }
      maximize() { return new IntlLocale(ownState(this, 'Locale').maximal); }
      minimize() { return new IntlLocale(ownState(this, 'Locale').minimal); }
      toString() { return ownState(this, 'Locale').tag; }
    }
    Object.defineProperty(IntlLocale.prototype, Symbol.toStringTag, { value: 'Intl.Locale', configurable: true });
    Object.defineProperty(IntlLocale, 'length', { value: 1, configurable: true });
    for (const k of ['baseName', 'calendar', 'caseFirst', 'collation', 'hourCycle', 'language', 'numberingSystem', 'numeric', 'region', 'script', 'calendars', 'collations', 'hourCycles', 'numberingSystems', 'timeZones', 'textInfo', 'weekInfo']) {
      const get = { get() { return ownState(this, 'Locale')[k]; } }.get;
      Object.defineProperty(get, 'name', { value: `get ${k}`, configurable: true });
      Object.defineProperty(IntlLocale.prototype, k, { configurable: true, get });
    }
    Object.defineProperty(IntlLocale, 'name', { value: 'Locale' });
    const Intl = {
      DateTimeFormat, NumberFormat, Collator, PluralRules, RelativeTimeFormat, ListFormat, DisplayNames, Segmenter, Locale: IntlLocale,
      getCanonicalLocales: (locales) => intlCall('Intl', 'getCanonicalLocales', intlLocales(locales)),
      supportedValuesOf: (key) => intlCall('Intl', 'supportedValuesOf', undefined, undefined, [`${key}`]),
    };
    Object.defineProperty(Intl, Symbol.toStringTag, { value: 'Intl', configurable: true });
    for (const k of Object.keys(Intl)) Object.defineProperty(Intl, k, { enumerable: false });
    defineMissing('Intl', Intl);
    // The built-ins' locale methods go through it, as the standard says.
    // A built-in method: no prototype, the standard's length.
    const method = (proto, name, fn, length = 0) => Object.defineProperty(proto, name, {
      value: Object.defineProperties({ [name](...args) { return fn.apply(this, args); } }[name], { length: { value: length, configurable: true } }),
      writable: true,
      configurable: true,
      enumerable: false,
    });
    for (const op of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
      method(Date.prototype, op, function (locales, options) {
        const t = Date.prototype.getTime.call(this);
        return Number.isNaN(t) ? 'Invalid Date' : intlCall('Date', op, intlLocales(locales), intlOptions(options, 'DateTimeFormat'), [t]);
      });
    }
    method(Number.prototype, 'toLocaleString', function (locales, options) {
      return intlCall('Number', 'toLocaleString', intlLocales(locales), intlOptions(options, 'NumberFormat'), [intlNumber(Number.prototype.valueOf.call(this))]);
    });
    method(BigInt.prototype, 'toLocaleString', function (locales, options) {
      return intlCall('BigInt', 'toLocaleString', intlLocales(locales), intlOptions(options, 'NumberFormat'), [intlNumber(BigInt.prototype.valueOf.call(this))]);
    });
    method(String.prototype, 'localeCompare', function (that, locales, options) {
      if (this === undefined || this === null) throw new TypeError('String.prototype.localeCompare called on null or undefined');
      return intlCall('String', 'localeCompare', intlLocales(locales), intlOptions(options, 'Collator'), [String(this), String(that)]);
    }, 1);
    // ECMA-402 passes the locales and options on to each element.
    const listLocaleString = function (locales, options) {
      return Array.prototype.map.call(this, (e) => (e === undefined || e === null ? '' : Object(e).toLocaleString(locales, options))).join(',');
    };
    method(Array.prototype, 'toLocaleString', listLocaleString);
    method(Object.getPrototypeOf(Uint8Array.prototype), 'toLocaleString', listLocaleString);
    for (const op of ['toLocaleUpperCase', 'toLocaleLowerCase']) {
      method(String.prototype, op, function (locales) {
        if (this === undefined || this === null) throw new TypeError(`String.prototype.${op} called on null or undefined`);
        return intlCall('String', op, intlLocales(locales), undefined, [String(this)]);
      });
    }
  }

  // ------------------------------------------------------ renderer driver
  class BadResult extends Error {}

  function kindOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'an array';
    if (typeof v === 'object') return 'an object';
    return typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`;
  }

  function normalizeHeaders(h) {
    const out = [];
    if (h === undefined || h === null) return out;
    const entries = typeof h.entries === 'function' && !Array.isArray(h) ? Array.from(h.entries())
      : Array.isArray(h) ? h : Object.keys(h).map((k) => [k, h[k]]);
    for (const pair of entries) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new BadResult('render() returned headers that are not name/value pairs; use an object like { "cache-control": "max-age=60" }');
      }
      const values = Array.isArray(pair[1]) ? pair[1] : [pair[1]];
      for (const v of values) out.push([String(pair[0]).toLowerCase(), String(v)]);
    }
    return out;
  }

  function normalizeCache(c) {
    if (c === undefined || c === null) return -1;
    if (c === 'no-store' || c === false) return -2;
    const ttl = typeof c === 'number' ? c : typeof c === 'object' ? c.ttl : undefined;
    if (Number.isInteger(ttl) && ttl >= 0 && ttl <= 0xffffffff) return ttl;
    throw new BadResult(`render() returned cache ${JSON.stringify(c)}; use "no-store", a number of seconds, or { ttl: seconds }`);
  }

  // ----------------------------------------------------------------- caches
  // The Workers Cache API, kept by the host in its page cache
  // (`calls::CACHE`, `host/src/cache/api.rs`) by the page cache's rules:
  // per tenant, bounded in bytes, expiring by the response's
  // `Cache-Control`, never keeping a response that sets a cookie, and
  // matching a `Vary`ing response only for the same header values.
  function cacheRequest(request, op) {
    const req = request instanceof RequestImpl ? request : new RequestImpl(request);
    if (!/^https?:$/.test(new URLImpl(req._url).protocol)) throw new TypeError(`cache.${op}: only http and https URLs are cached, not ${req._url}`);
    return req;
  }
  function cacheCall(op, name, req, response, body) {
    const args = { op, name, url: req._url, headers: req._headers._list.map(([k, v]) => [k, v]), response };
    return host('cache', args, body);
  }
  class CacheImpl {
    constructor(name) { this._name = name; }
    async match(request, options = {}) {
      const req = cacheRequest(request, 'match');
      if (req._method !== 'GET' && !(options && options.ignoreMethod)) return undefined;
      const { value, data } = cacheCall('match', this._name, req);
      if (value === null) return undefined;
      const headers = new HeadersImpl(value.headers);
      headers.set('cf-cache-status', 'HIT');
      return new ResponseImpl(NULL_BODY.includes(value.status) ? null : data, { status: value.status, headers });
    }
    async put(request, response) {
      const req = cacheRequest(request, 'put');
      if (req._method !== 'GET') throw new TypeError('cache.put: only a response to a GET request is cached');
      if (!(response instanceof ResponseImpl)) throw new TypeError('cache.put: the second argument must be a Response');
      if (response._status === 206) throw new TypeError('cache.put: a partial response (206) is not cached');
      const vary = response._headers.get('vary');
      if (vary !== null && vary.split(',').some((v) => v.trim() === '*')) throw new TypeError('cache.put: a response with Vary: * is not cached');
      if (response.bodyUsed) throw new TypeError('cache.put: the response body was already read');
      const body = new Uint8Array(await response.arrayBuffer());
      const head = { status: response._status, headers: response._headers._list.map(([k, v]) => [k, v]), ttl: ttlOf(response._headers.get('cache-control')) };
      cacheCall('put', this._name, req, head, body);
    }
    async delete(request, options = {}) {
      const req = cacheRequest(request, 'delete');
      if (req._method !== 'GET' && !(options && options.ignoreMethod)) return false;
      return cacheCall('delete', this._name, req).value;
    }
    get [Symbol.toStringTag]() { return 'Cache'; }
  }
  const cacheStorage = {
    default: new CacheImpl(''),
    async open(name) {
      // The default cache's name is '' so that no opened name is the same.
      return new CacheImpl(`:${String(name)}`);
    },
  };
  defineMissing('caches', cacheStorage);
  defineMissing('Cache', CacheImpl);

  // A fetch handler's `Cache-Control` as the host's ttl: shared caches
  // never keep `private`, `no-store` or `no-cache` responses; `s-maxage`
  // wins over `max-age`; otherwise the host's default.
  function ttlOf(cacheControl) {
    if (cacheControl === null) return -1;
    const d = cacheControl.toLowerCase().split(',').map((x) => x.trim().replace(/\s*=\s*/, '='));
    if (d.some((x) => /^(private|no-store|no-cache)(=|$)/.test(x))) return -2;
    const age = d.find((x) => x.startsWith('s-maxage=')) || d.find((x) => x.startsWith('max-age='));
    const n = age ? Number(age.split('=')[1].replace(/"/g, '')) : NaN;
    return Number.isInteger(n) && n >= 0 ? Math.min(n, 0xffffffff) : -1;
  }

  // A fetch handler's Response, normalized.
  function fromResponse(out) {
    if (out._type === 'error') throw new BadResult('fetch() returned Response.error(); return a Response with a status from 200 to 599');
    if (out._used || streamUsed(out._body)) throw new BadResult("fetch() returned a Response whose body was already read; return a new one, or the Response's clone()");
    const body = out._body === null || out._body instanceof ReadableStreamImpl ? '' : out._body;
    return { status: out._status, headers: out._headers._list.map((p) => [p[0], p[1]]), body, ttl: ttlOf(out._headers.get('cache-control')), vary: [] };
  }

  // A body the engine takes: a string, or a Uint8Array.
  function bodyOf(body) {
    if (typeof body === 'string' || body instanceof Uint8Array) return body;
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return bytesOf(body);
    throw new BadResult(`render() returned an object whose body is ${kindOf(body)}; body must be a string or bytes (a Uint8Array)`);
  }

  // A streamed body: read a turn later, whole into `res` if it never makes
  // the render wait; otherwise the head to the host (`calls::RESPONSE_HEAD`),
  // then each chunk as the stream gives it (`RESPONSE_WRITE`), and `res`
  // with an empty body once the stream ends. A host that takes bodies whole
  // (`ssr render`) gets it read whole into `res`.
  // A normalized response without its body: what `response-head` takes.
  function headOf(res) {
    return { status: res.status, headers: res.headers, ttl: res.ttl, vary: res.vary };
  }

  function sendStream(stream, res) {
    const what = `${handlerName}()`;
    // The body is first read a timer turn later, as workerd reads it once
    // its event loop comes round: work the app scheduled for "now"
    // (React's flush of ready Suspense boundaries) goes into the first
    // chunk, so a streamed page comes out as on workerd
    // (tests/all/apps.rs compares them byte for byte). It costs about 3% of
    // a streamed Hono page's req/s on Wasm and nothing measurable on V8
    // (wrk, alternating with a build without it; issue 33's note).
    // A stream whose source closed it already can give nothing more, so
    // it is read at once: the turn cost a streamed page 23 us on Wasm
    // (`ssr render --repeat`, a page awaiting a timer against one that
    // does not).
    const c = stream._controller;
    const whole = c instanceof ReadableStreamDefaultController && c._closeRequested;
    const turn = whole ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, 0));
    // What the stream gives before a read must wait goes to the host with
    // the response, whole, as a string body does; only a stream that makes
    // the render wait sends its head then (`onWait`), what it gave so far,
    // and each chunk as it comes. Three calls fewer for a page rendered to a
    // stream at once (Hono's JSX renderer), and one write to the client.
    const early = [];
    const onWait = () => {
      headSent = host('response-head', headOf(res)).value;
      if (headSent) for (const chunk of early.splice(0)) host('response-write', null, chunk);
    };
    const each = (chunk) => {
      if (headSent) host('response-write', null, chunk);
      else early.push(chunk);
    };
    return turn.then(() => eachChunk(stream, what, BadResult, each, onWait)).then(() => {
      if (!headSent) res.body = concat(early);
      return res;
    });
  }

  function normalize(out) {
    if (typeof out === 'string') {
      return { status: 200, headers: [['content-type', 'text/html; charset=utf-8']], body: out, ttl: -1, vary: [] };
    }
    if (out instanceof ResponseImpl) return fromResponse(out);
    if (out === null || typeof out !== 'object' || Array.isArray(out)) {
      throw new BadResult(`${handlerName}() returned ${kindOf(out)}; ${handlerName === 'fetch' ? 'return a Response' : 'return an HTML string or { status, headers, body }'}`);
    }
    const body = out.body instanceof ReadableStreamImpl ? '' : bodyOf(out.body);
    const status = out.status === undefined ? 200 : out.status;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new BadResult(`render() returned status ${JSON.stringify(status)}; use an integer from 200 to 599`);
    }
    const headers = normalizeHeaders(out.headers);
    if (!headers.some(([k]) => k === 'content-type')) headers.push(['content-type', 'text/html; charset=utf-8']);
    const vary = Array.isArray(out.vary) ? out.vary.map((v) => String(v).toLowerCase()) : [];
    return { status, headers, body, ttl: normalizeCache(out.cache), vary };
  }

  // The renderer's frames only: the driver's own frames (this file) and the
  // engine's native frames below them say nothing to the site's author.
  // V8 starts a stack with the "Name: message" lines, QuickJS with the
  // first frame: keep from the first frame, so both engines say the same.
  function userStack(stack) {
    let lines = String(stack || '').split('\n');
    const first = lines.findIndex((l) => /^\s+at /.test(l));
    if (first > 0) lines = lines.slice(first);
    const cut = lines.findIndex((l) => l.includes('ssr:prelude'));
    return (cut < 0 ? lines : lines.slice(0, cut)).join('\n').trimEnd();
  }

  function describe(reason) {
    if (reason instanceof BadResult) return { kind: 'bad-result', message: reason.message, stack: '' };
    if (reason instanceof Error) {
      return { kind: 'exception', message: `${reason.name}: ${reason.message}`, stack: userStack(reason.stack) };
    }
    return { kind: 'exception', message: `Uncaught ${inspect(reason, 1, [])}`, stack: '' };
  }

  // The request headers a render reads become part of its cache key (the
  // host keys the page on their values): `headers` is a proxy that records
  // each name read, tested (`in`) or described, and that listing the names
  // (`Object.keys`, spread, `JSON.stringify`) reads them all ('*'). Names of
  // Object.prototype and the `toJSON`/`then` probes are not header reads
  // unless the request has such a header.
  const notHeaders = new Set(['toJSON', 'then', ...Object.getOwnPropertyNames(Object.prototype)]);
  function recordingHeaders(target, reads) {
    const note = (t, k) => {
      if (typeof k === 'string' && (own.call(t, k) || !notHeaders.has(k))) reads.add(k.toLowerCase());
    };
    return new Proxy(target, {
      get(t, k, r) { note(t, k); return Reflect.get(t, k, r); },
      has(t, k) { note(t, k); return Reflect.has(t, k); },
      getOwnPropertyDescriptor(t, k) { note(t, k); return Reflect.getOwnPropertyDescriptor(t, k); },
      ownKeys(t) { reads.add('*'); return Reflect.ownKeys(t); },
    });
  }

  const own = Object.prototype.hasOwnProperty;
  function shapeRequest(raw, reads) {
    const query = {};
    for (let i = 0; i < raw.query.length; i++) {
      const k = raw.query[i][0];
      if (!own.call(query, k)) query[k] = raw.query[i][1];
    }
    const headers = {};
    for (let i = 0; i < raw.headers.length; i++) {
      const name = raw.headers[i][0].toLowerCase();
      const v = raw.headers[i][1];
      headers[name] = own.call(headers, name) ? `${headers[name]}, ${v}` : v;
    }
    return { method: raw.method, url: raw.url, href: raw.href, base: raw.base, path: raw.path, query, headers: recordingHeaders(headers, reads), tenant: raw.tenant };
  }

  // The incoming request as a fetch handler's `Request`, made without
  // parsing again what the host parsed. A handler owns its URL space: under
  // path routing its URL is without the base (`/t/<id>`), which comes as
  // `x-forwarded-prefix` for the links it makes.
  // The incoming request, whose `signal` (made when first read) aborts
  // when its client goes away before the response is complete
  // (`fetch-wait` says so).
  let leaving = null;
  function incomingRequest(raw, reads) {
    const r = Object.create(RequestImpl.prototype);
    leaving = r;
    r._url = raw.href.slice(0, raw.href.length - raw.base.length - raw.url.length) + raw.url;
    r._method = raw.method;
    r._headers = new HeadersImpl();
    const list = r._headers._list;
    for (let i = 0; i < raw.headers.length; i++) list.push([raw.headers[i][0].toLowerCase(), raw.headers[i][1]]);
    if (raw.base !== '') list.push(['x-forwarded-prefix', raw.base]);
    r._headers._reads = reads;
    r._redirect = 'follow';
    r._body = raw.body === undefined || raw.body === null ? null : raw.body;
    r._used = false;
    return r;
  }

  // A fetch handler's third argument. The promises given to waitUntil()
  // are waited for after the response has gone (`afterResponse`), within
  // the render's CPU time and the request's wall-clock limit; at most
  // MAX_WAIT_UNTIL per request.
  const MAX_WAIT_UNTIL = 32;
  let afterwork = [];
  let given = 0;
  const context = Object.freeze({
    waitUntil(promise) {
      if (++given > MAX_WAIT_UNTIL) {
        hostLog(3, `ctx.waitUntil(): more than ${MAX_WAIT_UNTIL} promises in one request; this one is not waited for`);
        return;
      }
      afterwork.push(Promise.resolve(promise));
    },
    passThroughOnException() {},
  });
  // Whether this render's head went to the host as a stream's
  // (`sendStream`): its body is then sent, and only its end is left.
  let headSent = false;

  // The response goes first (its head and body to the host, which sends
  // them, then its end), then the render waits for its waitUntil() work,
  // telling the host how each promise settled. Without a client to stream
  // to (`ssr render`), the work is waited for before the response.
  function afterResponse(res) {
    if (!headSent) {
      const head = headOf(res);
      headSent = host('response-head', head).value;
      if (headSent) {
        const bytes = typeof res.body === 'string' ? encoder().encode(res.body) : res.body;
        if (bytes.length > 0) host('response-write', null, bytes);
        res.body = '';
      }
    }
    if (headSent) host('response-end', res.vary);
    // Work may give more work to wait for.
    const drain = () => {
      if (afterwork.length === 0) return res;
      const work = afterwork;
      afterwork = [];
      return Promise.allSettled(work).then((settled) => {
        for (const s of settled) {
          host('wait-until', { failed: s.status === 'fulfilled' ? null : describe(s.reason).message });
        }
        return drain();
      });
    };
    return drain();
  }

  // The tenant's vars and secrets, asked of the host once per instance:
  // they change only with the tenant's version, which makes new instances.
  let env = null;
  function tenantEnv() {
    if (env === null) {
      const { vars, assets, missing } = host('env', null).value;
      const bindings = {};
      // Bindings its wrangler config declares that the host does not
      // provide: there, but touching one throws, naming it.
      for (const [name, kind] of Object.entries(missing || {})) {
        bindings[name] = missingBinding(name, kind);
      }
      // A tenant with assets gets the Workers binding (a var of that name wins).
      if (assets) bindings[assets] = assetsBinding;
      env = Object.freeze(Object.assign(bindings, vars));
    }
    return env;
  }
  function missingBinding(name, kind) {
    const fail = () => {
      throw new Error(
        `env.${name} (${kind}, declared in the app's wrangler config) is not provided by ssr; see docs/compatibility.md`,
      );
    };
    return new Proxy(Object.freeze(Object.create(null)), {
      // Asked by await, JSON.stringify and inspection, which touch nothing.
      get: (_, k) => (typeof k === 'symbol' || k === 'then' || k === 'toJSON' ? undefined : fail()),
      has: fail,
      apply: fail,
    });
  }
  // `env.ASSETS`: the tenant's packed assets by Workers' rules for HTML
  // files (`calls::ASSETS`, `host/src/assets/binding.rs`).
  let requestBase = '';
  const assetsBinding = Object.freeze({
    async fetch(input, init) {
      const req = input instanceof RequestImpl && init === undefined ? input : new RequestImpl(input, init);
      // Below the base the host routed by (`/t/<id>` under path routing).
      let path = new URLImpl(req._url).pathname;
      if (requestBase !== '' && (path === requestBase || path.startsWith(`${requestBase}/`))) {
        path = path.slice(requestBase.length) || '/';
      }
      const { value, data } = host('assets', { path });
      const body = req._method !== 'HEAD' && data && data.length > 0 ? data : null;
      return new ResponseImpl(body, { status: value.status, headers: value.headers });
    },
  });

  // What `import ... from "cloudflare:workers"` gives (host/src/build/
  // workers.js re-exports these). `env` is a read-only live view of the
  // tenant's vars and secrets: empty while the bundle's top level runs
  // (`ssr build` runs it, before any tenant exists; V8 runs it when an
  // isolate starts), their current values once a request is served.
  let serving = false;
  const liveEnv = new Proxy(Object.create(null), {
    get: (_, k) => (serving && typeof k === 'string' ? tenantEnv()[k] : undefined),
    has: (_, k) => serving && k in tenantEnv(),
    ownKeys: () => (serving ? Reflect.ownKeys(tenantEnv()) : []),
    getOwnPropertyDescriptor(_, k) {
      const d = serving ? Reflect.getOwnPropertyDescriptor(tenantEnv(), k) : undefined;
      return d && { value: d.value, writable: false, enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  // The base of a handler in class form: `export default class extends
  // WorkerEntrypoint { fetch(request) { ... this.env ... } }`.
  class WorkerEntrypoint {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }
  // Declaring one is fine (a framework's build may); making one is not.
  class DurableObject {
    constructor() {
      throw new Error('Durable Objects are not supported by ssr: a tenant has no storage or addressable objects of its own; keep such state behind an API the renderer fetches');
    }
  }
  const workers = Object.freeze({ env: liveEnv, WorkerEntrypoint, DurableObject, waitUntil: (p) => context.waitUntil(p) });

  // The renderer, set once the bundle's top level has run: (raw, reads) ->
  // its result. `handlerName` names it in messages.
  let render = null;
  let handlerName = 'render';
  const ssr = {
    // Pick the renderer from a module namespace: a default class with a
    // `fetch` method (the Workers `WorkerEntrypoint` form: one instance per
    // request, given the context and `env`), a default object with a
    // `fetch` method (the Workers form), `render`, a default function, or
    // a default object with a `render` method.
    resolve(ns) {
      const d = ns.default;
      if (typeof d === 'function' && d.prototype && typeof d.prototype.fetch === 'function') {
        handlerName = 'fetch';
        render = (raw, reads) => new d(context, tenantEnv()).fetch(incomingRequest(raw, reads));
        return;
      }
      if (d && typeof d === 'object' && typeof d.fetch === 'function') {
        handlerName = 'fetch';
        render = (raw, reads) => d.fetch(incomingRequest(raw, reads), tenantEnv(), context);
        return;
      }
      let fn = null;
      if (typeof ns.render === 'function') fn = ns.render;
      else if (typeof d === 'function') fn = d;
      else if (d && typeof d.render === 'function') fn = d.render.bind(d);
      else {
        const names = Object.keys(ns);
        throw new BadResult(`the module does not export a render function (exports: ${names.length ? names.join(', ') : 'none'}); add \`export default { fetch(request, env) { ... } }\` or \`export function render(request, env) { ... }\``);
      }
      render = (raw, reads) => fn(shapeRequest(raw, reads), tenantEnv());
    },
    // `raw` is {method, url, href, base, path, query: [[name, value]], headers:
    // [[name, value]], tenant, body?: Uint8Array}, as every engine passes it;
    // a fetch handler sees it as a Request, a render function as an object
    // with `query` holding each name's first value and `headers` with
    // lower-case names, repeated ones joined with ", ".
    // The response's `vary` lists the headers the renderer declared and
    // those it read.
    // A body that is a stream goes to the host as it comes (`sendStream`);
    // the head goes with the headers read so far, and the final result
    // lists every header read, those read while the body streamed too
    // (a Suspense boundary reading a cookie), so that the host keys the
    // page it keeps on all of them.
    call(raw) {
      serving = true;
      asyncContext.frame = undefined;
      const reads = new Set();
      const noteReads = (res) => {
        for (const name of reads) if (!res.vary.includes(name)) res.vary.push(name);
        return res;
      };
      afterwork = [];
      given = 0;
      headSent = false;
      requestBase = typeof raw.base === 'string' ? raw.base : '';
      return new Promise((ok) => ok(render(raw, reads))).then((out) => {
        const res = noteReads(normalize(out));
        const body = out instanceof ResponseImpl ? out._body : out !== null && typeof out === 'object' ? out.body : null;
        return body instanceof ReadableStreamImpl ? sendStream(body, res).then(noteReads) : res;
      }).then((res) => (afterwork.length > 0 ? afterResponse(res) : res));
    },
    describe,
    workers,
    // What the `node:` modules (host/src/build/node/) build on.
    node: Object.freeze({
      asyncContext,
      reportUncaught,
      digest: (hash, bytes) => subtleCall({ op: 'digest', hash }, [bytes]).data,
      hmac: (hash, key, bytes) => subtleCall({ op: 'sign', alg: 'HMAC', hash }, [key, bytes]).data,
    }),
    runNextTimer,
    arrived,
    reset() {
      asyncContext.frame = undefined;
      outerFrames.length = 0;
      timers.clear();
      inflight.clear();
      afterwork = [];
    },
  };
  Object.defineProperty(g, '__ssr', { value: Object.freeze(ssr), enumerable: false });
}
