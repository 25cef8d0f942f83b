//! `DOMException`, `Event`, `EventTarget`, `ErrorEvent`, `AbortSignal` and
//! `AbortController`, as the DOM standard and WebIDL define them; the other
//! event classes `workerd` has (`CustomEvent`, `MessageEvent`,
//! `CloseEvent`, and the ones only the runtime makes).
//!
//! Defines: DOMException, Event, EventTarget, ErrorEvent, AbortSignal, AbortController, CustomEvent, MessageEvent, CloseEvent, PromiseRejectionEvent, ExtendableEvent, FetchEvent, ScheduledEvent, TailEvent, TraceEvent
//! Host calls: none
//! Rust: none
//! WPT: dom/events, dom/abort
//! Test plugin: tests/plugins/abort.js
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
      // As on `workerd`, an `on<type>` property that holds a function is a
      // handler too, called before the listeners (an `AbortSignal` keeps
      // its `onabort` among its listeners, as the DOM standard says).
      const handler = signalState.has(this) ? undefined : this[`on${s.type}`];
      if (typeof handler === 'function') list.unshift({ callback: handler, capture: false, once: false, passive: false, removed: false });
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
  defineMissing('ErrorEvent', ErrorEventImpl);

  // The event classes an app makes, with their members' defaults as
  // `workerd` gives them (its constructors' `length` is 0).
  const initOf = (init) => (init === undefined || init === null ? {} : init);
  function eventClass(name, members, Base = EventImpl) {
    const E = class extends Base {
      constructor(...args) {
        if (args.length === 0 || args[0] === undefined) throw new TypeError(`Failed to construct '${name}': constructor parameter 1 is not of type 'string'.`);
        super(args[0], args[1]);
        const i = initOf(args[1]);
        const own = {};
        for (const [key, fallback, convert] of members) own[key] = i[key] === undefined ? fallback() : convert(i[key]);
        extraState.set(this, own);
      }
    };
    for (const [key] of members) {
      Object.defineProperty(E.prototype, key, { get() { return branded(extraState, this)[key]; }, enumerable: true, configurable: true });
    }
    Object.defineProperty(E, 'name', { value: name });
    Object.defineProperty(E.prototype, Symbol.toStringTag, { value: name, configurable: true });
    return E;
  }
  const extraState = new WeakMap();
  const same = (v) => v;
  defineMissing('CustomEvent', eventClass('CustomEvent', [['detail', () => null, same]]));
  const MessageEventImpl = eventClass('MessageEvent', [
    ['data', () => null, same], ['origin', () => '', String], ['lastEventId', () => '', String],
    ['source', () => null, same], ['ports', () => [], (v) => Array.from(v)],
  ]);
  defineMissing('MessageEvent', MessageEventImpl);
  const CloseEventImpl = eventClass('CloseEvent', [['code', () => 0, (v) => v & 0xffff], ['reason', () => '', String], ['wasClean', () => false, Boolean]]);
  defineMissing('CloseEvent', CloseEventImpl);
  // Events only the runtime makes: their classes, for `instanceof` and
  // `typeof`; `new` is refused, as on `workerd` (`ssr` makes none of them:
  // handlers get their arguments, as in the module syntax).
  function runtimeEvent(name, Base = EventImpl) {
    const E = class extends Base {
      constructor() {
        throw new TypeError('Illegal constructor');
      }
    };
    Object.defineProperty(E, 'name', { value: name });
    Object.defineProperty(E.prototype, Symbol.toStringTag, { value: name, configurable: true });
    return E;
  }
  defineMissing('PromiseRejectionEvent', runtimeEvent('PromiseRejectionEvent'));
  const ExtendableEventImpl = runtimeEvent('ExtendableEvent');
  defineMissing('ExtendableEvent', ExtendableEventImpl);
  defineMissing('FetchEvent', runtimeEvent('FetchEvent', ExtendableEventImpl));
  defineMissing('ScheduledEvent', runtimeEvent('ScheduledEvent', ExtendableEventImpl));
  defineMissing('TailEvent', runtimeEvent('TailEvent', ExtendableEventImpl));
  defineMissing('TraceEvent', runtimeEvent('TraceEvent', ExtendableEventImpl));

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
  defineMissing('AbortSignal', AbortSignalImpl);

  const controllerSignal = new WeakMap();
  class AbortControllerImpl {
    constructor() { controllerSignal.set(this, newSignal()); }
    get signal() { return ctrl(this); }
    abort(reason) { signalAbort(ctrl(this), reason); }
  }
  const ctrl = (c) => branded(controllerSignal, c);
  defineMissing('AbortController', AbortControllerImpl);

