// `node:events` as `ssr build` resolves it (build/bundle.rs): Node's
// EventEmitter, and `once` / `on` over one.

import { AsyncResource } from './async_hooks.js';

const kCapture = Symbol('kCapture');
export const errorMonitor = Symbol('events.errorMonitor');
export const captureRejectionSymbol = Symbol.for('nodejs.rejection');

function checkListener(listener) {
  if (typeof listener !== 'function') {
    throw new TypeError(`The "listener" argument must be of type function. Received ${listener === null ? 'null' : typeof listener}`);
  }
}

export function EventEmitter(options) {
  EventEmitter.init.call(this, options);
}
let defaultMaxListeners = 10;
Object.defineProperty(EventEmitter, 'defaultMaxListeners', {
  enumerable: true,
  get: () => defaultMaxListeners,
  set(n) {
    if (typeof n !== 'number' || n < 0 || Number.isNaN(n)) {
      throw new RangeError(`The value of "defaultMaxListeners" is out of range. It must be a non-negative number. Received ${n}`);
    }
    defaultMaxListeners = n;
  },
});
EventEmitter.init = function (options) {
  if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
    this._events = Object.create(null);
    this._eventsCount = 0;
  }
  this._maxListeners = this._maxListeners || undefined;
  this[kCapture] = Boolean(options && options.captureRejections);
};
EventEmitter.prototype._events = undefined;
EventEmitter.prototype._eventsCount = 0;
EventEmitter.prototype._maxListeners = undefined;

EventEmitter.prototype.setMaxListeners = function (n) {
  if (typeof n !== 'number' || n < 0 || Number.isNaN(n)) {
    throw new RangeError(`The value of "n" is out of range. It must be a non-negative number. Received ${n}`);
  }
  this._maxListeners = n;
  return this;
};
EventEmitter.prototype.getMaxListeners = function () {
  return this._maxListeners === undefined ? defaultMaxListeners : this._maxListeners;
};

EventEmitter.prototype.emit = function (type, ...args) {
  const events = this._events;
  if (type === 'error' && events !== undefined && events[errorMonitor] !== undefined) {
    this.emit(errorMonitor, ...args);
  }
  const handler = events === undefined ? undefined : events[type];
  if (handler === undefined) {
    if (type === 'error') {
      const er = args[0];
      if (er instanceof Error) throw er;
      const err = new Error(`Unhandled error. (${typeof er === 'string' ? `'${er}'` : String(er)})`);
      err.code = 'ERR_UNHANDLED_ERROR';
      err.context = er;
      throw err;
    }
    return false;
  }
  const listeners = typeof handler === 'function' ? [handler] : handler.slice();
  for (const listener of listeners) {
    const result = listener.apply(this, args);
    if (this[kCapture] && result !== undefined && result !== null && typeof result.then === 'function') {
      result.then(undefined, (err) => {
        const capture = this[captureRejectionSymbol];
        if (typeof capture === 'function') capture.call(this, err, type, ...args);
        else this.emit('error', err);
      });
    }
  }
  return true;
};

function addListener(target, type, listener, prepend) {
  checkListener(listener);
  let events = target._events;
  if (events === undefined) {
    events = target._events = Object.create(null);
    target._eventsCount = 0;
  } else if (events.newListener !== undefined) {
    target.emit('newListener', type, listener.listener ? listener.listener : listener);
    events = target._events;
  }
  const existing = events[type];
  if (existing === undefined) {
    events[type] = listener;
    target._eventsCount++;
  } else if (typeof existing === 'function') {
    events[type] = prepend ? [listener, existing] : [existing, listener];
  } else if (prepend) {
    existing.unshift(listener);
  } else {
    existing.push(listener);
  }
  const list = events[type];
  const max = target.getMaxListeners();
  if (Array.isArray(list) && max > 0 && list.length > max && !list.warned) {
    list.warned = true;
    console.warn(`MaxListenersExceededWarning: Possible EventEmitter memory leak detected. ${list.length} ${String(type)} listeners added to ${target.constructor.name}. MaxListeners is ${max}. Use emitter.setMaxListeners() to increase limit`);
  }
  return target;
}

EventEmitter.prototype.addListener = function (type, listener) {
  return addListener(this, type, listener, false);
};
EventEmitter.prototype.on = EventEmitter.prototype.addListener;
EventEmitter.prototype.prependListener = function (type, listener) {
  return addListener(this, type, listener, true);
};

function onceWrapper(target, type, listener) {
  const state = { fired: false, wrapFn: undefined, target, type, listener };
  const wrapped = function (...args) {
    if (!state.fired) {
      state.target.removeListener(state.type, state.wrapFn);
      state.fired = true;
      return state.listener.apply(state.target, args);
    }
    return undefined;
  };
  wrapped.listener = listener;
  state.wrapFn = wrapped;
  return wrapped;
}
EventEmitter.prototype.once = function (type, listener) {
  checkListener(listener);
  return this.on(type, onceWrapper(this, type, listener));
};
EventEmitter.prototype.prependOnceListener = function (type, listener) {
  checkListener(listener);
  return this.prependListener(type, onceWrapper(this, type, listener));
};

EventEmitter.prototype.removeListener = function (type, listener) {
  checkListener(listener);
  const events = this._events;
  if (events === undefined) return this;
  const list = events[type];
  if (list === undefined) return this;
  if (list === listener || list.listener === listener) {
    if (--this._eventsCount === 0) this._events = Object.create(null);
    else delete events[type];
    if (events.removeListener !== undefined) this.emit('removeListener', type, list.listener || listener);
  } else if (typeof list !== 'function') {
    let position = -1;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i] === listener || list[i].listener === listener) {
        position = i;
        break;
      }
    }
    if (position < 0) return this;
    const [removed] = list.splice(position, 1);
    if (list.length === 1) events[type] = list[0];
    if (events.removeListener !== undefined) this.emit('removeListener', type, removed.listener || listener);
  }
  return this;
};
EventEmitter.prototype.off = EventEmitter.prototype.removeListener;

EventEmitter.prototype.removeAllListeners = function (type) {
  const events = this._events;
  if (events === undefined) return this;
  if (events.removeListener === undefined) {
    if (arguments.length === 0) {
      this._events = Object.create(null);
      this._eventsCount = 0;
    } else if (events[type] !== undefined) {
      if (--this._eventsCount === 0) this._events = Object.create(null);
      else delete events[type];
    }
    return this;
  }
  if (arguments.length === 0) {
    for (const key of Reflect.ownKeys(events)) {
      if (key !== 'removeListener') this.removeAllListeners(key);
    }
    this.removeAllListeners('removeListener');
    this._events = Object.create(null);
    this._eventsCount = 0;
    return this;
  }
  const listeners = events[type];
  if (typeof listeners === 'function') this.removeListener(type, listeners);
  else if (listeners !== undefined) {
    for (let i = listeners.length - 1; i >= 0; i--) this.removeListener(type, listeners[i]);
  }
  return this;
};

function listenersOf(target, type, unwrap) {
  const events = target._events;
  const list = events === undefined ? undefined : events[type];
  if (list === undefined) return [];
  const all = typeof list === 'function' ? [list] : list.slice();
  return unwrap ? all.map((l) => l.listener || l) : all;
}
EventEmitter.prototype.listeners = function (type) {
  return listenersOf(this, type, true);
};
EventEmitter.prototype.rawListeners = function (type) {
  return listenersOf(this, type, false);
};
EventEmitter.prototype.listenerCount = function (type, listener) {
  const all = listenersOf(this, type, false);
  return listener === undefined ? all.length : all.filter((l) => l === listener || l.listener === listener).length;
};
EventEmitter.prototype.eventNames = function () {
  return this._eventsCount > 0 ? Reflect.ownKeys(this._events) : [];
};

export function listenerCount(emitter, type) {
  return emitter.listenerCount(type);
}
export function getEventListeners(target, type) {
  if (typeof target.listeners === 'function') return target.listeners(type);
  return [];
}
export function setMaxListeners(n = defaultMaxListeners, ...targets) {
  if (targets.length === 0) defaultMaxListeners = n;
  for (const t of targets) if (typeof t.setMaxListeners === 'function') t.setMaxListeners(n);
}

export function getMaxListeners(emitter) {
  if (typeof emitter.getMaxListeners === 'function') return emitter.getMaxListeners();
  return defaultMaxListeners;
}

// Calls `listener` once when `signal` aborts (at once if it has); the
// returned disposable removes it.
export function addAbortListener(signal, listener) {
  if (signal === undefined || signal === null || typeof signal.aborted !== 'boolean') {
    const e = new TypeError('The "signal" argument must be an instance of AbortSignal');
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  if (typeof listener !== 'function') {
    const e = new TypeError('The "listener" argument must be of type function');
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  const remove = () => signal.removeEventListener('abort', listener);
  if (signal.aborted) queueMicrotask(() => listener());
  else signal.addEventListener('abort', listener, { once: true });
  const disposable = { remove };
  if (typeof Symbol.dispose === 'symbol') disposable[Symbol.dispose] = remove;
  return disposable;
}

function abortError(signal) {
  const err = new Error('The operation was aborted', { cause: signal && signal.reason });
  err.name = 'AbortError';
  err.code = 'ABORT_ERR';
  return err;
}

// A promise of the arguments of the next `type` event (rejected by an
// `error` event first, or by the signal).
export function once(emitter, type, options) {
  const signal = options && options.signal;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(abortError(signal));
      return;
    }
    if (typeof emitter.addEventListener === 'function' && typeof emitter.on !== 'function') {
      emitter.addEventListener(type, (...args) => resolve(args), { once: true, signal });
      return;
    }
    const onError = (err) => {
      emitter.removeListener(type, onEvent);
      reject(err);
    };
    const onEvent = (...args) => {
      if (type !== 'error') emitter.removeListener('error', onError);
      resolve(args);
    };
    emitter.once(type, onEvent);
    if (type !== 'error') emitter.once('error', onError);
    if (signal) {
      signal.addEventListener('abort', () => {
        emitter.removeListener(type, onEvent);
        emitter.removeListener('error', onError);
        reject(abortError(signal));
      }, { once: true });
    }
  });
}

// An async iterator over the arguments of each `type` event.
export function on(emitter, type, options) {
  const signal = options && options.signal;
  const queue = [];
  const waiting = [];
  let error = null;
  let done = false;
  const onEvent = (...args) => {
    if (waiting.length > 0) waiting.shift().resolve({ value: args, done: false });
    else queue.push(args);
  };
  const onError = (err) => {
    if (waiting.length > 0) waiting.shift().reject(err);
    else error = err;
    finish();
  };
  const finish = () => {
    done = true;
    emitter.removeListener(type, onEvent);
    emitter.removeListener('error', onError);
    for (const w of waiting.splice(0)) w.resolve({ value: undefined, done: true });
  };
  emitter.on(type, onEvent);
  if (type !== 'error') emitter.on('error', onError);
  if (signal) signal.addEventListener('abort', () => onError(abortError(signal)), { once: true });
  return {
    next() {
      if (queue.length > 0) return Promise.resolve({ value: queue.shift(), done: false });
      if (error !== null) {
        const e = error;
        error = null;
        return Promise.reject(e);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(err) {
      onError(err);
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

EventEmitter.EventEmitter = EventEmitter;
EventEmitter.once = once;
EventEmitter.on = on;
EventEmitter.listenerCount = listenerCount;
EventEmitter.getEventListeners = getEventListeners;
EventEmitter.setMaxListeners = setMaxListeners;
EventEmitter.errorMonitor = errorMonitor;
EventEmitter.captureRejectionSymbol = captureRejectionSymbol;
EventEmitter.captureRejections = false;
EventEmitter.getMaxListeners = getMaxListeners;
EventEmitter.addAbortListener = addAbortListener;
export const usingDomains = false;
EventEmitter.usingDomains = usingDomains;

// An EventEmitter that is an AsyncResource: listeners run in the async
// context the emitter was made in.
export class EventEmitterAsyncResource extends EventEmitter {
  constructor(options) {
    super(options);
    const name = (options && options.name) || new.target.name;
    this.asyncResource = new AsyncResource(name, options);
  }

  emit(event, ...args) {
    return this.asyncResource.runInAsyncScope(EventEmitter.prototype.emit, this, event, ...args);
  }

  emitDestroy() {
    this.asyncResource.emitDestroy();
  }

  get asyncId() {
    return this.asyncResource.asyncId();
  }

  get triggerAsyncId() {
    return this.asyncResource.triggerAsyncId();
  }
}
EventEmitter.EventEmitterAsyncResource = EventEmitterAsyncResource;
export default EventEmitter;
