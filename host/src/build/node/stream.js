// `node:stream`: Node's streams, written for ssr (build/node.rs): Readable
// (paused and flowing modes, `readable` events, `pipe`, async iteration,
// `from`, `fromWeb`/`toWeb`), Writable (buffering with `highWaterMark`,
// `drain`, `cork`, `writev`, `final`), Duplex, Transform and PassThrough,
// and `pipeline`, `finished`, `addAbortSignal`, `destroy` and the `is*`
// tests. The constructors are functions, as Node's are, so that code
// written for Node's old inheritance (`Readable.call(this, options)` with
// `util.inherits`) works too. Events that Node defers to the next tick are
// deferred to a microtask.
//
// Invariants: a stream emits `error` at most once and `close` at most
// once, after `end`/`finish`; a chunk written is handed to `_write` in
// order, one at a time; nothing here holds a chunk after it is consumed.
import EventEmitter from './events.js';
import { Buffer } from './buffer.js';
import { StringDecoder } from './string_decoder.js';
import { codedError, notImplemented } from './_errors.js';

const nextTick = (fn, ...args) => queueMicrotask(() => fn(...args));

const prematureClose = () => codedError(Error, 'ERR_STREAM_PREMATURE_CLOSE', 'Premature close');

function abortError(reason) {
  const e = new Error('The operation was aborted', { cause: reason });
  e.name = 'AbortError';
  e.code = 'ABORT_ERR';
  return e;
}

let defaultHighWaterMark = 64 * 1024;
let defaultObjectHighWaterMark = 16;

export function getDefaultHighWaterMark(objectMode) {
  return objectMode ? defaultObjectHighWaterMark : defaultHighWaterMark;
}

export function setDefaultHighWaterMark(objectMode, value) {
  if (typeof value !== 'number' || !(value >= 0)) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "value" argument must be of type number. Received ${typeof value}`);
  }
  if (objectMode) defaultObjectHighWaterMark = value;
  else defaultHighWaterMark = value;
}

function highWaterMark(options, key, objectMode) {
  const v = options && (options[key] ?? options.highWaterMark);
  if (v === undefined || v === null) return getDefaultHighWaterMark(objectMode);
  if (!Number.isInteger(v) || v < 0) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.${key}' is invalid. Received ${v}`);
  }
  return v;
}

export const _isUint8Array = (v) => v instanceof Uint8Array;
export const _isArrayBufferView = (v) => ArrayBuffer.isView(v);
export const _uint8ArrayToBuffer = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

// Takes the implementation methods an options object gives (`read` as
// `_read`...), and its `signal`.
function takeMethods(stream, options, names) {
  if (!options) return;
  for (const name of names) {
    if (typeof options[name] === 'function') stream[`_${name}`] = options[name];
  }
  if (options.signal) addAbortSignal(options.signal, stream);
}

function inherit(Child, Parent) {
  Object.setPrototypeOf(Child.prototype, Parent.prototype);
  Object.setPrototypeOf(Child, Parent);
}

// ----------------------------------------------------------------- Stream
// The legacy base: an EventEmitter with `pipe`.
export function Stream(options) {
  EventEmitter.call(this, options);
}
inherit(Stream, EventEmitter);

// The legacy `pipe` of streams that are not Readables (a Readable has its
// own): `data` is written to `dest`, paused while `dest` is full, `dest`
// ended (or destroyed, on `close`) once, unless `{ end: false }`; an error
// on either side undoes the pipe and is thrown on where nothing else
// listens for it.
Stream.prototype.pipe = function (dest, options) {
  const source = this;
  const errorListeners = (emitter) => EventEmitter.prototype.listenerCount.call(emitter, 'error');
  const ondata = (chunk) => {
    if (dest.writable && dest.write(chunk) === false && source.pause) source.pause();
  };
  const ondrain = () => {
    if (source.readable && source.resume) source.resume();
  };
  let ended = false;
  const onend = () => {
    if (ended) return;
    ended = true;
    dest.end();
  };
  const onclose = () => {
    if (ended) return;
    ended = true;
    if (typeof dest.destroy === 'function') dest.destroy();
  };
  function onerror(err) {
    cleanup();
    if (errorListeners(this) === 0) this.emit('error', err);
  }
  function cleanup() {
    source.removeListener('data', ondata);
    dest.removeListener('drain', ondrain);
    source.removeListener('end', onend);
    source.removeListener('close', onclose);
    source.removeListener('error', onerror);
    dest.removeListener('error', onerror);
    source.removeListener('end', cleanup);
    source.removeListener('close', cleanup);
    dest.removeListener('close', cleanup);
  }
  source.on('data', ondata);
  dest.on('drain', ondrain);
  if (!dest._isStdio && (!options || options.end !== false)) {
    source.on('end', onend);
    source.on('close', onclose);
  }
  EventEmitter.prototype.prependListener.call(source, 'error', onerror);
  EventEmitter.prototype.prependListener.call(dest, 'error', onerror);
  source.on('end', cleanup);
  source.on('close', cleanup);
  dest.on('close', cleanup);
  dest.emit('pipe', source);
  return dest;
};

// Shared by both sides: destroying a stream once, with its error.
function destroyImpl(err, cb) {
  const r = this._readableState;
  const w = this._writableState;
  const s = r ?? w;
  if (s.destroyed) {
    if (typeof cb === 'function') cb(err);
    return this;
  }
  // What still waits to be written, and `end()`'s callbacks, fail with
  // the stream's error (or its destruction) on the next tick, as Node's.
  if (w && (w.buffered.length > 0 || w.finishCallbacks.length > 0)) nextTick(failPending, w);
  for (const state of [r, w]) {
    if (state) {
      state.destroyed = true;
      if (err && !state.errored) state.errored = err;
    }
  }
  const done = (e) => {
    if (typeof cb === 'function') cb(e);
    nextTick(() => {
      if (e && !s.errorEmitted) {
        for (const state of [r, w]) if (state) state.errorEmitted = true;
        this.emit('error', e);
      }
      for (const state of [r, w]) if (state) state.closed = true;
      if (s.emitClose !== false && !s.closeEmitted) {
        for (const state of [r, w]) if (state) state.closeEmitted = true;
        this.emit('close');
      }
    });
  };
  try {
    this._destroy(err ?? null, (e) => done(e ?? err));
  } catch (e) {
    done(e);
  }
  return this;
}

function failPending(state) {
  if (state.writing) return;
  for (const { chunk, callback } of state.buffered.splice(0)) {
    state.length -= state.objectMode ? 1 : chunk.length;
    state.pendingcb--;
    callback(state.errored ?? codedError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed'));
  }
  for (const end of state.finishCallbacks.splice(0)) {
    end(state.errored ?? codedError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call end after a stream was destroyed'));
  }
}

function errorOrDestroy(stream, err) {
  const s = stream._readableState ?? stream._writableState;
  if (s.destroyed) return;
  if (s.autoDestroy !== false) stream.destroy(err);
  else if (!s.errorEmitted) {
    s.errorEmitted = true;
    s.errored = err;
    nextTick(() => stream.emit('error', err));
  }
}

// --------------------------------------------------------------- Readable
// What both sides' states say of the stream's end: destroyed, its error,
// and whether `error` and `close` were emitted.
function lifecycle(state, o) {
  state.destroyed = false;
  state.errored = null;
  state.errorEmitted = false;
  state.closed = false;
  state.closeEmitted = false;
  state.emitClose = o.emitClose !== false;
  state.autoDestroy = o.autoDestroy !== false;
}

function ReadableState(options, stream, isDuplex) {
  const o = options ?? {};
  this.objectMode = Boolean(o.objectMode || (isDuplex && o.readableObjectMode));
  this.highWaterMark = highWaterMark(o, 'readableHighWaterMark', this.objectMode);
  this.buffer = [];
  this.length = 0;
  this.pipes = [];
  this.flowing = null;
  this.ended = false;
  this.endEmitted = false;
  this.reading = false;
  this.sync = true;
  this.needReadable = false;
  this.emittedReadable = false;
  this.readableListening = false;
  this.resumeScheduled = false;
  lifecycle(this, o);
  this.dataEmitted = false;
  this.defaultEncoding = o.defaultEncoding || 'utf8';
  this.decoder = o.encoding ? new StringDecoder(o.encoding) : null;
  this.encoding = o.encoding || null;
}

export function Readable(options) {
  if (!(this instanceof Readable)) return new Readable(options);
  const isDuplex = this instanceof Duplex;
  this._readableState = new ReadableState(options, this, isDuplex);
  takeMethods(this, options, ['read', 'destroy', 'construct']);
  Stream.call(this, options);
  if (typeof this._construct === 'function') construct(this);
}
inherit(Readable, Stream);

// `_construct(callback)`: runs on the next tick; until it calls back, the
// stream neither reads nor writes (writes are buffered) nor finishes. An
// error destroys the stream; a second call is ERR_MULTIPLE_CALLBACK.
function construct(stream) {
  const states = () => [stream._readableState, stream._writableState].filter(Boolean);
  for (const state of states()) state.constructed = false;
  let called = false;
  const done = (err) => {
    if (called) {
      errorOrDestroy(stream, err ?? codedError(Error, 'ERR_MULTIPLE_CALLBACK', 'Callback called multiple times'));
      return;
    }
    called = true;
    for (const state of states()) state.constructed = true;
    if (err) {
      errorOrDestroy(stream, err);
      return;
    }
    const r = stream._readableState;
    const w = stream._writableState;
    if (r && r.needReadable) maybeReadMore(stream, r);
    if (r && r.flowing) flow(stream);
    if (w && !w.destroyed) {
      clearBuffer(stream, w);
      finishMaybe(stream, w);
    }
  };
  nextTick(() => {
    try {
      stream._construct((err) => nextTick(done, err));
    } catch (e) {
      nextTick(done, e);
    }
  });
}
Readable.ReadableState = ReadableState;

Readable.prototype.destroy = destroyImpl;
Readable.prototype._destroy = function (err, cb) {
  cb(err);
};
Readable.prototype._read = function () {
  throw notImplemented('_read()');
};

function toChunk(state, chunk, encoding) {
  if (state.objectMode) return chunk;
  if (typeof chunk === 'string') {
    const enc = encoding || state.defaultEncoding;
    return state.encoding === enc && state.decoder ? chunk : Buffer.from(chunk, enc);
  }
  if (chunk instanceof Uint8Array) return Buffer.isBuffer(chunk) ? chunk : _uint8ArrayToBuffer(chunk);
  throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${chunk === undefined ? 'undefined' : typeof chunk}`);
}

function addChunk(stream, state, chunk, front) {
  if (state.flowing && state.length === 0 && !state.sync && stream.listenerCount('data') > 0 && !front) {
    state.dataEmitted = true;
    stream.emit('data', chunk);
  } else {
    state.length += state.objectMode ? 1 : chunk.length;
    if (front) state.buffer.unshift(chunk);
    else state.buffer.push(chunk);
    if (state.needReadable) emitReadable(stream);
  }
  maybeReadMore(stream, state);
}

function readableAddChunk(stream, chunk, encoding, front) {
  const state = stream._readableState;
  if (chunk === null) {
    state.reading = false;
    onEof(stream, state);
    return false;
  }
  if (!state.objectMode && chunk === undefined) return state.length < state.highWaterMark;
  let c;
  try {
    c = toChunk(state, chunk, encoding);
  } catch (e) {
    errorOrDestroy(stream, e);
    return false;
  }
  if (state.ended && !front) {
    errorOrDestroy(stream, codedError(Error, 'ERR_STREAM_PUSH_AFTER_EOF', 'stream.push() after EOF'));
    return false;
  }
  if (state.destroyed) return false;
  // A push ends the read that asked for it; an unshift puts back what was
  // read. An empty chunk adds nothing, and a pushed one asks for more, as
  // Node's does.
  if (!front) state.reading = false;
  if (!state.objectMode && c.length === 0) {
    if (!front) maybeReadMore(stream, state);
    return state.length < state.highWaterMark;
  }
  if (state.decoder && !state.objectMode && typeof c !== 'string') {
    c = state.decoder.write(c);
    if (c.length === 0) {
      maybeReadMore(stream, state);
      return state.length < state.highWaterMark;
    }
  }
  addChunk(stream, state, c, front);
  return !state.ended && (state.length < state.highWaterMark || state.length === 0);
}

Readable.prototype.push = function (chunk, encoding) {
  return readableAddChunk(this, chunk, encoding, false);
};

Readable.prototype.unshift = function (chunk, encoding) {
  return readableAddChunk(this, chunk, encoding, true);
};

function onEof(stream, state) {
  if (state.ended) return;
  if (state.decoder) {
    const rest = state.decoder.end();
    if (rest && rest.length) {
      state.buffer.push(rest);
      state.length += state.objectMode ? 1 : rest.length;
    }
  }
  state.ended = true;
  if (state.sync) {
    emitReadable(stream);
  } else {
    state.needReadable = false;
    state.emittedReadable = true;
    emitReadableNow(stream);
  }
}

function emitReadable(stream) {
  const state = stream._readableState;
  state.needReadable = false;
  if (!state.emittedReadable) {
    state.emittedReadable = true;
    nextTick(emitReadableNow, stream);
  }
}

function emitReadableNow(stream) {
  const state = stream._readableState;
  if (!state.destroyed && !state.errored && (state.length || state.ended)) {
    stream.emit('readable');
    state.emittedReadable = false;
  }
  state.needReadable = !state.flowing && !state.ended && state.length <= state.highWaterMark;
  flow(stream);
}

function maybeReadMore(stream, state) {
  if (!state.readingMore) {
    state.readingMore = true;
    nextTick(() => {
      while (!state.reading && !state.ended && (state.length < state.highWaterMark || (state.flowing && state.length === 0))) {
        const len = state.length;
        stream.read(0);
        if (len === state.length) break;
      }
      state.readingMore = false;
    });
  }
}

// Takes `n` units from the buffer (bytes, characters or one object).
function fromList(n, state) {
  if (state.length === 0) return null;
  let ret;
  if (state.objectMode) {
    ret = state.buffer.shift();
  } else if (!n || n >= state.length) {
    if (state.decoder) ret = state.buffer.join('');
    else if (state.buffer.length === 1) ret = state.buffer[0];
    else ret = Buffer.concat(state.buffer, state.length);
    state.buffer.length = 0;
  } else {
    const parts = [];
    let need = n;
    while (need > 0) {
      const head = state.buffer[0];
      if (head.length <= need) {
        parts.push(head);
        state.buffer.shift();
        need -= head.length;
      } else {
        parts.push(head.slice(0, need));
        state.buffer[0] = head.slice(need);
        need = 0;
      }
    }
    ret = state.decoder ? parts.join('') : Buffer.concat(parts, n);
  }
  return ret;
}

function howMuchToRead(n, state) {
  if (n <= 0 || (state.length === 0 && state.ended)) return 0;
  if (state.objectMode) return 1;
  if (Number.isNaN(n)) return state.flowing && state.length ? (state.decoder ? state.buffer[0].length : state.buffer[0].length) : state.length;
  if (n <= state.length) return n;
  return state.ended ? state.length : 0;
}

Readable.prototype.read = function (n) {
  const state = this._readableState;
  n = n === undefined ? NaN : Number.parseInt(n, 10);
  const nOrig = n;
  if (n !== 0) state.emittedReadable = false;
  if (n === 0 && state.needReadable && ((state.highWaterMark !== 0 ? state.length >= state.highWaterMark : state.length > 0) || state.ended)) {
    if (state.length === 0 && state.ended) endReadable(this);
    else emitReadable(this);
    return null;
  }
  n = howMuchToRead(n, state);
  if (n === 0 && state.ended) {
    if (state.length === 0) endReadable(this);
    return null;
  }
  let doRead = state.needReadable;
  if (state.length === 0 || state.length - n < state.highWaterMark) doRead = true;
  if (state.ended || state.reading || state.destroyed || state.errored || state.constructed === false) doRead = false;
  if (doRead) {
    state.reading = true;
    state.sync = true;
    if (state.length === 0) state.needReadable = true;
    try {
      this._read(state.highWaterMark);
    } catch (e) {
      errorOrDestroy(this, e);
    }
    state.sync = false;
    if (!state.reading) n = howMuchToRead(nOrig, state);
  }
  let ret = n > 0 ? fromList(n, state) : null;
  if (ret === null) {
    state.needReadable = state.length <= state.highWaterMark;
    n = 0;
  } else {
    state.length -= state.objectMode ? 1 : n;
  }
  if (state.length === 0) {
    if (!state.ended) state.needReadable = true;
    if (nOrig !== n && state.ended) endReadable(this);
  }
  if (ret !== null && !state.errorEmitted && !state.closeEmitted) {
    state.dataEmitted = true;
    this.emit('data', ret);
  }
  return ret;
};

function endReadable(stream) {
  const state = stream._readableState;
  if (!state.endEmitted) {
    state.ended = true;
    nextTick(() => {
      if (!state.errored && !state.closeEmitted && !state.endEmitted && state.length === 0) {
        state.endEmitted = true;
        stream.emit('end');
        const w = stream._writableState;
        if (w && stream.allowHalfOpen === false && !w.ending) stream.end();
        if (state.autoDestroy && (!w || (w.finished && w.autoDestroy !== false))) stream.destroy();
      }
    });
  }
}

function flow(stream) {
  const state = stream._readableState;
  while (state.flowing && stream.read() !== null);
}

Readable.prototype.on = function (ev, fn) {
  const res = Stream.prototype.on.call(this, ev, fn);
  const state = this._readableState;
  if (ev === 'data') {
    state.readableListening = this.listenerCount('readable') > 0;
    if (state.flowing !== false) this.resume();
  } else if (ev === 'readable') {
    if (!state.endEmitted && !state.readableListening) {
      state.readableListening = state.needReadable = true;
      state.flowing = false;
      state.emittedReadable = false;
      if (state.length) emitReadable(this);
      else if (!state.reading) nextTick(() => this.read(0));
    }
  }
  return res;
};
Readable.prototype.addListener = Readable.prototype.on;

Readable.prototype.removeListener = function (ev, fn) {
  const res = Stream.prototype.removeListener.call(this, ev, fn);
  if (ev === 'readable') nextTick(() => updateReadableListening(this));
  return res;
};
Readable.prototype.off = Readable.prototype.removeListener;

function updateReadableListening(stream) {
  const state = stream._readableState;
  state.readableListening = stream.listenerCount('readable') > 0;
  if (state.resumeScheduled && state.paused === false) state.flowing = true;
  else if (stream.listenerCount('data') > 0) stream.resume();
  else if (!state.readableListening) state.flowing = null;
}

Readable.prototype.resume = function () {
  const state = this._readableState;
  if (!state.flowing) {
    state.flowing = !state.readableListening;
    if (!state.resumeScheduled) {
      state.resumeScheduled = true;
      nextTick(() => {
        if (!state.reading) this.read(0);
        state.resumeScheduled = false;
        this.emit('resume');
        flow(this);
        if (state.flowing && !state.reading) this.read(0);
      });
    }
  }
  state.paused = false;
  return this;
};

Readable.prototype.pause = function () {
  const state = this._readableState;
  if (state.flowing !== false) {
    state.flowing = false;
    this.emit('pause');
  }
  state.paused = true;
  return this;
};

Readable.prototype.isPaused = function () {
  const state = this._readableState;
  return state.paused === true || state.flowing === false;
};

Readable.prototype.setEncoding = function (enc) {
  const state = this._readableState;
  const decoder = new StringDecoder(enc);
  state.decoder = decoder;
  state.encoding = decoder.encoding;
  let text = '';
  for (const chunk of state.buffer) text += decoder.write(chunk);
  state.buffer = text === '' ? [] : [text];
  state.length = text.length;
  return this;
};

Readable.prototype.pipe = function (dest, options) {
  const src = this;
  const state = this._readableState;
  state.pipes.push(dest);
  const end = !options || options.end !== false;
  const ondata = (chunk) => {
    if (dest.write(chunk) === false) src.pause();
  };
  const ondrain = () => src.resume();
  const onend = () => dest.end();
  const cleanup = () => {
    src.removeListener('data', ondata);
    dest.removeListener('drain', ondrain);
    src.removeListener('end', onend);
    dest.removeListener('unpipe', onunpipe);
  };
  const onunpipe = (s) => {
    if (s === src) cleanup();
  };
  src.on('data', ondata);
  dest.on('drain', ondrain);
  dest.on('unpipe', onunpipe);
  if (end) src.on('end', onend);
  dest.once('error', (e) => {
    src.unpipe(dest);
    if (dest.listenerCount('error') === 0) errorOrDestroy(dest, e);
  });
  dest.emit('pipe', src);
  if (dest.writableNeedDrain === true) src.pause();
  else if (!state.flowing) src.resume();
  return dest;
};

Readable.prototype.unpipe = function (dest) {
  const state = this._readableState;
  const targets = dest === undefined ? state.pipes.slice() : state.pipes.includes(dest) ? [dest] : [];
  for (const d of targets) {
    state.pipes.splice(state.pipes.indexOf(d), 1);
    d.emit('unpipe', this, { hasUnpiped: false });
  }
  if (state.pipes.length === 0) this.pause();
  return this;
};

Readable.prototype.wrap = function (old) {
  old.on('data', (chunk) => {
    if (!this.push(chunk) && old.pause) old.pause();
  });
  old.on('end', () => this.push(null));
  old.on('error', (e) => errorOrDestroy(this, e));
  this._read = () => {
    if (old.resume) old.resume();
  };
  return this;
};

Readable.prototype[Symbol.asyncIterator] = function () {
  return readableIterator(this);
};

Readable.prototype.iterator = function (options) {
  return readableIterator(this, options);
};

async function* readableIterator(stream, options) {
  let wake = () => {};
  const next = () => new Promise((resolve) => {
    wake = resolve;
  });
  stream.on('readable', () => wake());
  let error = null;
  let done = false;
  finished(stream, { writable: false }, (err) => {
    error = err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE' ? err : null;
    done = true;
    wake();
  });
  try {
    for (;;) {
      const chunk = stream.destroyed ? null : stream.read();
      if (chunk !== null) {
        yield chunk;
      } else if (error) {
        throw error;
      } else if (done) {
        return;
      } else {
        await next();
      }
    }
  } finally {
    if ((error || (options && options.destroyOnReturn === false) === false || !done) && !stream._readableState.endEmitted) {
      if (!(options && options.destroyOnReturn === false)) stream.destroy(null);
    }
  }
}

// The iterator helpers (Node's stream operators): `map`, `filter`,
// `flatMap`, `drop` and `take` make a new stream; `forEach`, `toArray`,
// `some`, `every`, `find` and `reduce` answer a promise. `map` runs up to
// `concurrency` calls at once and yields in the stream's order; a
// `signal` that aborts ends the work with an AbortError.
function operatorOptions(options) {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options" argument must be of type object. Received ${options === null ? 'null' : typeof options}`);
  }
  const signal = options ? options.signal : undefined;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "options.signal" property must be an instance of AbortSignal');
  }
  let concurrency = options && options.concurrency !== undefined ? options.concurrency : 1;
  if (typeof concurrency !== 'number') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options.concurrency" property must be of type number. Received type ${typeof concurrency}`);
  }
  if (!(concurrency >= 1) || (concurrency !== Infinity && !Number.isInteger(concurrency))) {
    throw codedError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "options.concurrency" is out of range. It must be >= 1 && <= 2147483647. Received ${concurrency}`);
  }
  return { signal, concurrency };
}

function operatorFunction(fn, name = 'fn') {
  if (typeof fn !== 'function') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "${name}" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`);
  }
}

const kSkip = Symbol('skip');

Readable.prototype.map = function (fn, options) {
  operatorFunction(fn);
  const { signal, concurrency } = operatorOptions(options);
  const stream = this;
  async function* mapped() {
    const queue = [];
    const iterator = stream[Symbol.asyncIterator]();
    let done = false;
    const aborted = () => signal && signal.aborted;
    try {
      for (;;) {
        while (!done && queue.length < concurrency) {
          if (aborted()) throw abortError(signal.reason);
          const next = await iterator.next();
          if (next.done) {
            done = true;
            break;
          }
          const result = Promise.resolve().then(() => fn(next.value, { signal }));
          result.catch(() => {});
          queue.push(result);
        }
        if (queue.length === 0) return;
        const value = await queue.shift();
        if (aborted()) throw abortError(signal.reason);
        if (value !== kSkip) yield value;
      }
    } finally {
      if (!done) await iterator.return();
    }
  }
  return Readable.from(mapped(), { objectMode: true, signal });
};

Readable.prototype.filter = function (fn, options) {
  operatorFunction(fn);
  operatorOptions(options);
  return this.map(async (value, o) => ((await fn(value, o)) ? value : kSkip), options);
};

Readable.prototype.flatMap = function (fn, options) {
  operatorFunction(fn);
  operatorOptions(options);
  const mapped = this.map(fn, options);
  return Readable.from((async function* () {
    for await (const value of mapped) yield* value;
  })(), { objectMode: true });
};

function countArgument(number) {
  number = Number(number);
  if (Number.isNaN(number)) number = 0;
  number = Math.trunc(number);
  if (number < 0) throw codedError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "number" is out of range. It must be >= 0. Received ${number}`);
  return number;
}

Readable.prototype.drop = function (number, options) {
  const { signal } = operatorOptions(options);
  number = countArgument(number);
  const stream = this;
  return Readable.from((async function* () {
    let left = number;
    for await (const value of stream) {
      if (signal && signal.aborted) throw abortError(signal.reason);
      if (left > 0) left--;
      else yield value;
    }
  })(), { objectMode: true });
};

Readable.prototype.take = function (number, options) {
  const { signal } = operatorOptions(options);
  number = countArgument(number);
  const stream = this;
  return Readable.from((async function* () {
    if (number === 0) return;
    let left = number;
    for await (const value of stream) {
      if (signal && signal.aborted) throw abortError(signal.reason);
      yield value;
      if (--left === 0) return;
    }
  })(), { objectMode: true });
};

Readable.prototype.forEach = async function (fn, options) {
  operatorFunction(fn);
  for await (const unused of this.map(async (value, o) => {
    await fn(value, o);
    return kSkip;
  }, options));
};

Readable.prototype.toArray = async function (options) {
  const { signal } = operatorOptions(options);
  const out = [];
  for await (const chunk of this) {
    if (signal && signal.aborted) throw abortError(signal.reason);
    out.push(chunk);
  }
  return out;
};

Readable.prototype.some = async function (fn, options) {
  operatorFunction(fn);
  for await (const unused of this.filter(fn, options)) return true;
  return false;
};

Readable.prototype.every = async function (fn, options) {
  operatorFunction(fn);
  return !(await this.some(async (...args) => !(await fn(...args)), options));
};

Readable.prototype.find = async function (fn, options) {
  operatorFunction(fn);
  for await (const value of this.filter(fn, options)) return value;
  return undefined;
};

Readable.prototype.reduce = async function (reducer, initial, options) {
  operatorFunction(reducer, 'reducer');
  const { signal } = operatorOptions(options);
  let hasValue = arguments.length > 1;
  let value = initial;
  if (signal && signal.aborted) {
    const e = abortError(signal.reason);
    this.once('error', () => {});
    this.destroy(e);
    throw e;
  }
  for await (const chunk of this) {
    if (signal && signal.aborted) throw abortError(signal.reason);
    if (hasValue) value = await reducer(value, chunk, { signal });
    else {
      value = chunk;
      hasValue = true;
    }
  }
  if (!hasValue) throw codedError(TypeError, 'ERR_INVALID_ARGS', 'Reduce of an empty stream requires an initial value');
  return value;
};

for (const [name, get] of Object.entries({
  readable: (s) => !s.destroyed && !s.errorEmitted && !s.endEmitted,
  readableEnded: (s) => s.endEmitted,
  readableFlowing: (s) => s.flowing,
  readableLength: (s) => s.length,
  readableHighWaterMark: (s) => s.highWaterMark,
  readableObjectMode: (s) => s.objectMode,
  readableEncoding: (s) => s.encoding,
  readableAborted: (s) => (s.destroyed || s.errored !== null) && !s.endEmitted,
  readableDidRead: (s) => s.dataEmitted,
})) {
  Object.defineProperty(Readable.prototype, name, {
    configurable: true,
    get() {
      return this._readableState ? get(this._readableState) : undefined;
    },
  });
}

for (const proto of [Readable.prototype]) {
  Object.defineProperty(proto, 'destroyed', {
    configurable: true,
    get() {
      return (this._readableState ?? this._writableState).destroyed;
    },
    set(v) {
      for (const s of [this._readableState, this._writableState]) if (s) s.destroyed = v;
    },
  });
  Object.defineProperty(proto, 'closed', {
    configurable: true,
    get() {
      return (this._readableState ?? this._writableState).closed;
    },
  });
  Object.defineProperty(proto, 'errored', {
    configurable: true,
    get() {
      return (this._readableState ?? this._writableState).errored;
    },
  });
}

// A Readable of what an iterable (or async iterable, or a promise) gives;
// a string or a Buffer is one chunk.
Readable.from = function (iterable, options) {
  if (typeof iterable === 'string' || iterable instanceof Uint8Array) {
    return new Readable({ objectMode: true, ...options, read() {
      this.push(iterable);
      this.push(null);
    } });
  }
  let iterator;
  let isAsync;
  if (iterable && typeof iterable[Symbol.asyncIterator] === 'function') {
    isAsync = true;
    iterator = iterable[Symbol.asyncIterator]();
  } else if (iterable && typeof iterable[Symbol.iterator] === 'function') {
    isAsync = false;
    iterator = iterable[Symbol.iterator]();
  } else {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "iterable" argument must be an instance of Iterable. Received ${iterable === null ? 'null' : typeof iterable}`);
  }
  let reading = false;
  const readable = new Readable({
    objectMode: true,
    highWaterMark: 1,
    ...options,
    read() {
      if (reading) return;
      reading = true;
      (async () => {
        try {
          for (;;) {
            const { value, done } = isAsync ? await iterator.next() : iterator.next();
            if (done) {
              this.push(null);
              break;
            }
            const chunk = value && typeof value.then === 'function' ? await value : value;
            if (chunk === null) throw codedError(TypeError, 'ERR_STREAM_NULL_VALUES', 'May not write null values to stream');
            if (!this.push(chunk)) break;
          }
        } catch (e) {
          this.destroy(e);
        }
        reading = false;
      })();
    },
    destroy(err, cb) {
      const close = typeof iterator.return === 'function' ? iterator.return() : undefined;
      Promise.resolve(close).then(() => cb(err), (e) => cb(err || e));
    },
  });
  return readable;
};

// A Readable over a web `ReadableStream`, and back.
Readable.fromWeb = function (webStream, options) {
  const reader = webStream.getReader();
  let closed = false;
  return new Readable({
    ...options,
    read() {
      reader.read().then(({ done, value }) => {
        if (done) this.push(null);
        else this.push(options && options.objectMode ? value : value);
      }, (e) => this.destroy(e));
    },
    destroy(err, cb) {
      if (!closed) {
        closed = true;
        reader.cancel(err ?? undefined).then(() => cb(err), () => cb(err));
      } else {
        cb(err);
      }
    },
  });
};

Readable.toWeb = function (readable) {
  return new ReadableStream({
    start(controller) {
      readable.on('data', (chunk) => {
        controller.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk instanceof Uint8Array ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : chunk);
        if (controller.desiredSize <= 0) readable.pause();
      });
      readable.on('end', () => controller.close());
      readable.on('error', (e) => controller.error(e));
      readable.pause();
    },
    pull() {
      readable.resume();
    },
    cancel(reason) {
      readable.destroy(reason);
    },
  });
};

Readable.wrap = function (src, options) {
  return new Readable({ objectMode: src.readableObjectMode ?? src.objectMode ?? true, ...options }).wrap(src);
};

// --------------------------------------------------------------- Writable
function WritableState(options, stream, isDuplex) {
  const o = options ?? {};
  this.objectMode = Boolean(o.objectMode || (isDuplex && o.writableObjectMode));
  this.highWaterMark = highWaterMark(o, 'writableHighWaterMark', this.objectMode);
  this.decodeStrings = o.decodeStrings !== false;
  this.defaultEncoding = o.defaultEncoding || 'utf8';
  this.length = 0;
  this.writing = false;
  this.corked = 0;
  this.sync = true;
  this.buffered = [];
  this.pendingcb = 0;
  this.ending = false;
  this.ended = false;
  this.finished = false;
  this.finalCalled = false;
  this.prefinished = false;
  this.needDrain = false;
  lifecycle(this, o);
  this.finishCallbacks = [];
}

export function Writable(options) {
  const isDuplex = this instanceof Duplex;
  if (!isDuplex && !(this instanceof Writable)) return new Writable(options);
  this._writableState = new WritableState(options, this, isDuplex);
  takeMethods(this, options, ['write', 'writev', 'destroy', 'final', 'construct']);
  Stream.call(this, options);
  if (typeof this._construct === 'function') construct(this);
}
inherit(Writable, Stream);
Writable.WritableState = WritableState;
Object.defineProperty(WritableState.prototype, 'bufferedRequestCount', {
  get() { return this.buffered.length; },
});
WritableState.prototype.getBuffer = function () {
  return this.buffered.slice();
};

// `instanceof Writable` holds for a Duplex too, as in Node.
Object.defineProperty(Writable, Symbol.hasInstance, {
  value(object) {
    if (Function.prototype[Symbol.hasInstance].call(this, object)) return true;
    if (this !== Writable) return false;
    return Boolean(object && object._writableState instanceof WritableState);
  },
});

Writable.prototype._write = function (chunk, encoding, cb) {
  if (this._writev) this._writev([{ chunk, encoding }], cb);
  else throw notImplemented('_write()');
};
Writable.prototype._writev = null;
Writable.prototype.destroy = destroyImpl;
Writable.prototype._destroy = function (err, cb) {
  cb(err);
};

// A Writable has nothing to pipe out.
Writable.prototype.pipe = function () {
  errorOrDestroy(this, codedError(Error, 'ERR_STREAM_CANNOT_PIPE', 'Cannot pipe, not readable'));
};

Writable.prototype.write = function (chunk, encoding, cb) {
  const state = this._writableState;
  if (typeof encoding === 'function') {
    cb = encoding;
    encoding = null;
  }
  if (!encoding) encoding = state.defaultEncoding;
  else if (encoding !== 'buffer' && !Buffer.isEncoding(encoding)) throw unknownEncoding(encoding);
  if (typeof cb !== 'function') cb = () => {};
  // A chunk of the wrong kind is the caller's mistake, thrown at once, as
  // Node throws it; writing after the end is the stream's state, an error
  // on it.
  if (chunk === null) {
    throw codedError(TypeError, 'ERR_STREAM_NULL_VALUES', 'May not write null values to stream');
  } else if (!state.objectMode) {
    if (typeof chunk === 'string') {
      if (state.decodeStrings) {
        chunk = Buffer.from(chunk, encoding);
        encoding = 'buffer';
      }
    } else if (chunk instanceof Uint8Array) {
      if (!Buffer.isBuffer(chunk)) chunk = _uint8ArrayToBuffer(chunk);
      encoding = 'buffer';
    } else {
      throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${chunk === undefined ? 'undefined' : typeof chunk}`);
    }
  }
  let err = null;
  if (state.ending) err = codedError(Error, 'ERR_STREAM_WRITE_AFTER_END', 'write after end');
  else if (state.destroyed) err = codedError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed');
  if (err) {
    nextTick(cb, err);
    errorOrDestroy(this, err);
    return err;
  }
  state.pendingcb++;
  const len = state.objectMode ? 1 : chunk.length;
  state.length += len;
  const ret = state.length < state.highWaterMark;
  if (!ret) state.needDrain = true;
  if (state.writing || state.corked || state.errored || state.constructed === false) {
    state.buffered.push({ chunk, encoding, callback: cb });
  } else {
    doWrite(this, state, false, len, chunk, encoding, cb);
  }
  return ret && !state.errored && !state.destroyed;
};

function doWrite(stream, state, writev, len, chunk, encoding, cb) {
  state.writelen = len;
  state.writecb = cb;
  state.writing = true;
  state.sync = true;
  const onwrite = (err) => afterWriteCall(stream, state, err);
  if (state.destroyed) onwrite(codedError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed'));
  else if (writev) stream._writev(chunk, onwrite);
  else stream._write(chunk, encoding, onwrite);
  state.sync = false;
}

function afterWriteCall(stream, state, err) {
  const cb = state.writecb;
  if (typeof cb !== 'function') {
    errorOrDestroy(stream, codedError(Error, 'ERR_MULTIPLE_CALLBACK', 'Callback called multiple times'));
    return;
  }
  state.writing = false;
  state.writecb = null;
  state.length -= state.writelen;
  state.writelen = 0;
  if (err) {
    if (!state.errored) state.errored = err;
    const fail = () => {
      state.pendingcb--;
      cb(err);
      for (const b of state.buffered.splice(0)) {
        state.pendingcb--;
        b.callback(err);
      }
      // `end()`'s callbacks learn of it too.
      for (const end of state.finishCallbacks.splice(0)) end(err);
      errorOrDestroy(stream, err);
    };
    if (state.sync) nextTick(fail);
    else fail();
    return;
  }
  if (state.buffered.length > 0 && !state.corked && !state.destroyed) clearBuffer(stream, state);
  const after = () => {
    if (state.needDrain && state.length === 0 && !state.ending && !state.destroyed) {
      state.needDrain = false;
      stream.emit('drain');
    }
    state.pendingcb--;
    cb(null);
    finishMaybe(stream, state);
  };
  if (state.sync) nextTick(after);
  else after();
}

function clearBuffer(stream, state) {
  if (state.writing || state.corked || state.destroyed || state.constructed === false || state.buffered.length === 0) return;
  if (state.buffered.length > 1 && stream._writev) {
    const items = state.buffered.splice(0);
    const len = state.objectMode ? items.length : items.reduce((n, b) => n + b.chunk.length, 0);
    const cb = (err) => {
      for (let i = 1; i < items.length; i++) {
        state.pendingcb--;
        items[i].callback(err);
      }
      items[0].callback(err);
    };
    doWrite(stream, state, true, len, items.map(({ chunk, encoding }) => ({ chunk, encoding })), null, cb);
    return;
  }
  const { chunk, encoding, callback } = state.buffered.shift();
  doWrite(stream, state, false, state.objectMode ? 1 : chunk.length, chunk, encoding, callback);
}

Writable.prototype.cork = function () {
  this._writableState.corked++;
};

Writable.prototype.uncork = function () {
  const state = this._writableState;
  if (state.corked) {
    state.corked--;
    if (!state.writing) clearBuffer(this, state);
  }
};

Writable.prototype.setDefaultEncoding = function (encoding) {
  if (typeof encoding === 'string') encoding = encoding.toLowerCase();
  if (!Buffer.isEncoding(encoding)) throw unknownEncoding(encoding);
  this._writableState.defaultEncoding = encoding;
  return this;
};

const unknownEncoding = (encoding) => codedError(TypeError, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${encoding}`);

Writable.prototype.end = function (chunk, encoding, cb) {
  const state = this._writableState;
  if (typeof chunk === 'function') {
    cb = chunk;
    chunk = null;
    encoding = null;
  } else if (typeof encoding === 'function') {
    cb = encoding;
    encoding = null;
  }
  let err;
  if (chunk !== null && chunk !== undefined) {
    const ret = this.write(chunk, encoding);
    if (ret instanceof Error) err = ret;
  }
  if (state.corked) {
    state.corked = 1;
    this.uncork();
  }
  if (!err) {
    if (!state.errored && !state.ending) {
      state.ending = true;
      finishMaybe(this, state, true);
      state.ended = true;
    } else if (state.finished) {
      err = codedError(Error, 'ERR_STREAM_ALREADY_FINISHED', 'Cannot call end after a stream was finished');
    } else if (state.destroyed) {
      err = codedError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call end after a stream was destroyed');
    }
  }
  if (typeof cb === 'function') {
    if (err || state.finished) nextTick(cb, err);
    else state.finishCallbacks.push(cb);
  }
  return this;
};

function needFinish(state) {
  return state.ending && state.constructed !== false && !state.destroyed && state.length === 0 && !state.errored && state.buffered.length === 0 && !state.finished && !state.writing && !state.errorEmitted && !state.closeEmitted;
}

function finishMaybe(stream, state, sync) {
  if (!needFinish(state)) return;
  if (!state.prefinished && !state.finalCalled) {
    if (typeof stream._final === 'function' && !state.destroyed) {
      state.finalCalled = true;
      state.sync = true;
      state.pendingcb++;
      let called = false;
      const onFinal = (err) => {
        if (called) {
          errorOrDestroy(stream, codedError(Error, 'ERR_MULTIPLE_CALLBACK', 'Callback called multiple times'));
          return;
        }
        called = true;
        state.pendingcb--;
        if (err) {
          for (const cb of state.finishCallbacks.splice(0)) cb(err);
          errorOrDestroy(stream, err);
        } else if (needFinish(state)) {
          state.prefinished = true;
          stream.emit('prefinish');
          state.pendingcb++;
          nextTick(finish, stream, state);
        }
      };
      const callFinal = () => {
        try {
          const r = stream._final(onFinal);
          if (r && typeof r.then === 'function') r.then(() => onFinal(), onFinal);
        } catch (e) {
          onFinal(e);
        }
      };
      // From `end()`, on the next tick, as Node calls it: the callback
      // `end()` was given is then waiting for its outcome.
      if (sync) nextTick(callFinal);
      else callFinal();
      state.sync = false;
      return;
    }
    state.prefinished = true;
    stream.emit('prefinish');
  }
  if (state.pendingcb === 0 && state.prefinished) {
    state.pendingcb++;
    if (sync) nextTick(finish, stream, state);
    else finish(stream, state);
  }
}

function finish(stream, state) {
  state.pendingcb--;
  if (state.finished || state.errorEmitted || state.destroyed) return;
  state.finished = true;
  for (const cb of state.finishCallbacks.splice(0)) cb(null);
  stream.emit('finish');
  if (state.autoDestroy) {
    const r = stream._readableState;
    if (!r || (r.autoDestroy !== false && (r.endEmitted || r.readable === false))) stream.destroy();
  }
}

for (const [name, get] of Object.entries({
  writable: (s) => !s.destroyed && !s.errored && !s.ending && !s.ended,
  writableEnded: (s) => s.ending,
  writableFinished: (s) => s.finished,
  writableLength: (s) => s.length,
  writableHighWaterMark: (s) => s.highWaterMark,
  writableObjectMode: (s) => s.objectMode,
  writableCorked: (s) => s.corked,
  writableNeedDrain: (s) => !s.destroyed && !s.ending && s.needDrain,
  writableAborted: (s) => (s.destroyed || s.errored !== null) && !s.finished,
})) {
  Object.defineProperty(Writable.prototype, name, {
    configurable: true,
    get() {
      return this._writableState ? get(this._writableState) : undefined;
    },
  });
}
for (const name of ['destroyed', 'closed', 'errored']) {
  Object.defineProperty(Writable.prototype, name, Object.getOwnPropertyDescriptor(Readable.prototype, name));
}

Writable.fromWeb = function (webStream, options) {
  const writer = webStream.getWriter();
  return new Writable({
    ...options,
    write(chunk, encoding, cb) {
      writer.ready.then(() => writer.write(chunk)).then(() => cb(), cb);
    },
    final(cb) {
      writer.close().then(() => cb(), cb);
    },
    destroy(err, cb) {
      writer.abort(err ?? undefined).then(() => cb(err), () => cb(err));
    },
  });
};

Writable.toWeb = function (writable) {
  return new WritableStream({
    write(chunk) {
      return new Promise((resolve, reject) => {
        writable.write(chunk, (err) => (err ? reject(err) : resolve()));
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        writable.end((err) => (err ? reject(err) : resolve()));
      });
    },
    abort(reason) {
      writable.destroy(reason);
    },
  });
};

// ----------------------------------------------------------------- Duplex
export function Duplex(options) {
  if (!(this instanceof Duplex)) return new Duplex(options);
  Readable.call(this, options);
  this._writableState = new WritableState(options, this, true);
  // A `_construct` that Readable started holds the writable side too.
  if (this._readableState.constructed === false) this._writableState.constructed = false;
  takeMethods(this, { ...options, signal: undefined }, ['write', 'writev', 'final']);
  if (options) {
    if (options.readable === false) {
      this._readableState.readable = false;
      this._readableState.ended = true;
      this._readableState.endEmitted = true;
    }
    if (options.writable === false) {
      this._writableState.ending = true;
      this._writableState.ended = true;
      this._writableState.finished = true;
    }
  }
  this.allowHalfOpen = !options || options.allowHalfOpen !== false;
}
inherit(Duplex, Readable);
for (const name of Object.getOwnPropertyNames(Writable.prototype)) {
  if (name === 'constructor' || name === 'destroy' || name === '_destroy' || name === 'pipe' || Object.prototype.hasOwnProperty.call(Duplex.prototype, name)) continue;
  Object.defineProperty(Duplex.prototype, name, Object.getOwnPropertyDescriptor(Writable.prototype, name));
}

// A Duplex of a pair (a web pair, a readable and a writable side), or
// of what `Readable.from` takes.
Duplex.from = function (body) {
  if (body instanceof Duplex) return body;
  if (body && typeof body.readable === 'object' && typeof body.writable === 'object' && !(body instanceof Stream)) {
    return Duplex.fromWeb(body);
  }
  if (body instanceof Readable) {
    const d = new Duplex({ objectMode: body.readableObjectMode, writable: false, read() {
      body.resume();
    } });
    body.on('data', (c) => {
      if (!d.push(c)) body.pause();
    });
    body.on('end', () => d.push(null));
    body.on('error', (e) => d.destroy(e));
    return d;
  }
  const r = Readable.from(body);
  return Duplex.from(r);
};

Duplex.fromWeb = function (pair, options) {
  const r = Readable.fromWeb(pair.readable, options);
  const w = Writable.fromWeb(pair.writable, options);
  const d = new Duplex({
    ...options,
    read() {
      r.resume();
    },
    write(chunk, encoding, cb) {
      w.write(chunk, encoding, cb);
    },
    final(cb) {
      w.end(cb);
    },
  });
  r.on('data', (c) => {
    if (!d.push(c)) r.pause();
  });
  r.on('end', () => d.push(null));
  r.on('error', (e) => d.destroy(e));
  r.pause();
  return d;
};

Duplex.toWeb = function (duplex) {
  return { readable: Readable.toWeb(duplex), writable: Writable.toWeb(duplex) };
};

// Two Duplexes, each reading what the other writes.
export function duplexPair(options) {
  let a;
  let b;
  const side = (other) => new Duplex({
    ...options,
    read() {},
    write(chunk, encoding, cb) {
      other().push(chunk);
      cb();
    },
    final(cb) {
      other().push(null);
      cb();
    },
  });
  a = side(() => b);
  b = side(() => a);
  return [a, b];
}

// -------------------------------------------------------------- Transform
export function Transform(options) {
  if (!(this instanceof Transform)) return new Transform(options);
  Duplex.call(this, options);
  this._readableState.sync = false;
  this._pendingCallback = null;
  if (options) {
    if (typeof options.transform === 'function') this._transform = options.transform;
    if (typeof options.flush === 'function') this._flush = options.flush;
  }
}
inherit(Transform, Duplex);

Transform.prototype._transform = function () {
  throw notImplemented('_transform()');
};

Transform.prototype._final = function (cb) {
  let called = false;
  const done = (err, data) => {
    if (called) return;
    called = true;
    if (err) {
      cb(err);
      return;
    }
    if (data !== null && data !== undefined) this.push(data);
    this.push(null);
    cb();
  };
  if (typeof this._flush === 'function' && !this.destroyed) {
    const r = this._flush(done);
    if (r && typeof r.then === 'function') r.then((data) => done(null, data), done);
  } else {
    done(null);
  }
};

Transform.prototype._write = function (chunk, encoding, callback) {
  const rState = this._readableState;
  const length = rState.length;
  const done = (err, data) => {
    if (err) {
      callback(err);
      return;
    }
    if (data !== null && data !== undefined) this.push(data);
    if (rState.ended || length === rState.length || rState.length < rState.highWaterMark) callback();
    else this._pendingCallback = callback;
  };
  // As Node: what `_transform` returns is not used (an async one calls
  // back, and its promise would call back again).
  this._transform(chunk, encoding, done);
};

Transform.prototype._read = function () {
  if (this._pendingCallback) {
    const cb = this._pendingCallback;
    this._pendingCallback = null;
    cb();
  }
};

export function PassThrough(options) {
  if (!(this instanceof PassThrough)) return new PassThrough(options);
  Transform.call(this, options);
}
inherit(PassThrough, Transform);
PassThrough.prototype._transform = function (chunk, encoding, cb) {
  cb(null, chunk);
};

// ------------------------------------------------------------ the helpers
const isNodeStream = (s) => s !== null && typeof s === 'object' && (s._readableState !== undefined || s._writableState !== undefined);

export function isReadable(stream) {
  if (!isNodeStream(stream)) return null;
  const r = stream._readableState;
  return Boolean(r && !r.destroyed && !r.endEmitted && !r.errored && r.readable !== false);
}

export function isWritable(stream) {
  if (!isNodeStream(stream)) return null;
  const w = stream._writableState;
  return Boolean(w && !w.destroyed && !w.ending && !w.errored);
}

export function isErrored(stream) {
  if (!isNodeStream(stream)) return null;
  return Boolean((stream._readableState && stream._readableState.errored) || (stream._writableState && stream._writableState.errored));
}

export function isDestroyed(stream) {
  if (!isNodeStream(stream)) return null;
  return Boolean(stream.destroyed);
}

export function isDisturbed(stream) {
  if (stream && typeof stream.locked === 'boolean' && typeof stream.getReader === 'function') return stream.locked;
  const r = stream && stream._readableState;
  return Boolean(r && (r.dataEmitted || r.endEmitted || r.errored || r.destroyed));
}

export function destroy(stream, err) {
  if (stream && typeof stream.destroy === 'function') stream.destroy(err);
}

// Calls back once `stream` has ended, finished, failed or closed early.
export function finished(stream, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  options = options ?? {};
  if (typeof callback !== 'function') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "callback" argument must be of type function. Received ${callback === undefined ? 'undefined' : typeof callback}`);
  }
  let called = false;
  const done = (err) => {
    if (called) return;
    called = true;
    cleanup();
    callback.call(stream, err);
  };
  const r = stream._readableState;
  const w = stream._writableState;
  const readable = options.readable ?? Boolean(r && r.readable !== false);
  const writable = options.writable ?? Boolean(w);
  let ended = !readable || (r && r.endEmitted);
  let finishedW = !writable || (w && w.finished);
  const onend = () => {
    ended = true;
    if (finishedW) done();
  };
  const onfinish = () => {
    finishedW = true;
    if (ended) done();
  };
  const onerror = (err) => done(err);
  const onclose = () => {
    if ((readable && !ended) || (writable && !finishedW)) done(prematureClose());
    else done();
  };
  stream.on('end', onend);
  stream.on('finish', onfinish);
  if (options.error !== false) stream.on('error', onerror);
  stream.on('close', onclose);
  const cleanup = () => {
    stream.removeListener('end', onend);
    stream.removeListener('finish', onfinish);
    stream.removeListener('error', onerror);
    stream.removeListener('close', onclose);
  };
  const s = r ?? w;
  if (s && s.errored && s.errorEmitted) nextTick(done, s.errored);
  else if (s && s.closeEmitted) nextTick(onclose);
  else if (ended && finishedW) nextTick(done);
  if (options.signal) {
    if (options.signal.aborted) nextTick(done, abortError(options.signal.reason));
    else options.signal.addEventListener('abort', () => done(abortError(options.signal.reason)), { once: true });
  }
  return cleanup;
}

// Pipes each stream into the next; a function in the chain is given the
// previous one's output (an async iterable) and gives the next input. Any
// error destroys every stream, and `callback` hears the first.
export function pipeline(...streams) {
  const callback = streams.pop();
  if (streams.length === 1 && Array.isArray(streams[0])) streams = streams[0];
  if (typeof callback !== 'function') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "streams[stream.length - 1]" property must be of type function. Received undefined');
  }
  if (streams.length < 2) {
    throw codedError(TypeError, 'ERR_MISSING_ARGS', 'The "streams" argument must be specified');
  }
  const chain = [];
  // Stages made by a function read their input themselves: nothing is
  // piped into them.
  const made = new Set();
  for (let i = 0; i < streams.length; i++) {
    let s = streams[i];
    if (typeof s === 'function') {
      made.add(i);
      const out = s(i === 0 ? undefined : chain[i - 1]);
      if (i === streams.length - 1 && out && typeof out.then === 'function') {
        chain.push({ promise: out });
        continue;
      }
      s = Readable.from(out);
    } else if (!isNodeStream(s) && s && (typeof s[Symbol.asyncIterator] === 'function' || typeof s[Symbol.iterator] === 'function') && i === 0) {
      s = Readable.from(s);
    } else if (s && typeof s.getReader === 'function') {
      s = Readable.fromWeb(s);
    } else if (s && typeof s.getWriter === 'function') {
      s = Writable.fromWeb(s);
    }
    chain.push(s);
  }
  let error = null;
  let pending = 0;
  let called = false;
  const last = chain[chain.length - 1];
  const finish = (err) => {
    if (err && !error) {
      error = err;
      for (const s of chain) if (isNodeStream(s) && !s.destroyed) s.destroy(err);
    }
    if (--pending === 0 || err) {
      if (!called) {
        called = true;
        nextTick(callback, error, last && last.promise === undefined ? undefined : lastValue);
      }
    }
  };
  let lastValue;
  for (let i = 0; i < chain.length; i++) {
    const s = chain[i];
    if (s.promise) {
      pending++;
      s.promise.then((v) => {
        lastValue = v;
        finish(null);
      }, finish);
      continue;
    }
    const isLast = i === chain.length - 1;
    pending++;
    finished(s, { readable: isLast ? undefined : true, writable: i === 0 ? false : undefined }, (err) => finish(err));
    if (i > 0 && !made.has(i) && !chain[i - 1].promise) {
      const prev = chain[i - 1];
      if (isNodeStream(prev)) prev.pipe(s);
    }
  }
  return last && last.promise === undefined ? last : undefined;
}

export function addAbortSignal(signal, stream) {
  if (!signal || typeof signal.aborted !== 'boolean') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "signal" argument must be an instance of AbortSignal. Received ${signal === undefined ? 'undefined' : typeof signal}`);
  }
  const abort = () => stream.destroy(abortError(signal.reason));
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return stream;
}

// Whether the last argument of `promises.pipeline` is its options.
const isOptions = (v) => v !== null && typeof v === 'object' && !isNodeStream(v) && !Array.isArray(v)
  && typeof v[Symbol.asyncIterator] !== 'function' && typeof v.getReader !== 'function' && typeof v.getWriter !== 'function';

export const promises = {
  pipeline: (...streams) => new Promise((resolve, reject) => {
    const options = isOptions(streams[streams.length - 1]) ? streams.pop() : {};
    const last = pipeline(...streams, (err, value) => (err ? reject(err) : resolve(value)));
    if (options.signal && last) addAbortSignal(options.signal, last);
  }),
  finished: (stream, options) => new Promise((resolve, reject) => {
    finished(stream, options, (err) => (err ? reject(err) : resolve()));
  }),
};

Object.assign(Stream, {
  Stream, Readable, Writable, Duplex, Transform, PassThrough, pipeline, finished, addAbortSignal, destroy, isReadable, isWritable,
  isErrored, isDestroyed, isDisturbed, getDefaultHighWaterMark, setDefaultHighWaterMark, duplexPair, promises,
  _isUint8Array, _isArrayBufferView, _uint8ArrayToBuffer,
});

export default Stream;
