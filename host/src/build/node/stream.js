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
import { codedError, invalidArgType, notImplemented } from './_errors.js';

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

// `highWaterMark` wins over a Duplex's `readableHighWaterMark` and
// `writableHighWaterMark`, as in Node.
function highWaterMark(options, key, objectMode, isDuplex) {
  const name = options && options.highWaterMark != null ? 'highWaterMark' : key;
  const v = options && (options.highWaterMark ?? (isDuplex ? options[key] : undefined));
  if (v === undefined || v === null) return getDefaultHighWaterMark(objectMode);
  if (!Number.isInteger(v) || v < 0) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.${name}' is invalid. Received ${v}`);
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
// A listener's rejected promise (`captureRejections`) destroys the stream.
Stream.prototype[EventEmitter.captureRejectionSymbol] = function (err) {
  this.destroy(err);
};

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

const kDestroy = Symbol('kDestroy');

// Shared by both sides: destroying a stream once, with its error.
function destroyImpl(err, cb) {
  const r = this._readableState;
  const w = this._writableState;
  const s = r ?? w;
  if (s.destroyed) {
    if (typeof cb === 'function') cb();
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
  // Once: what the callback throws is caught below and goes nowhere, as
  // in Node.
  let called = false;
  const done = (e) => {
    if (called) return;
    called = true;
    for (const state of [r, w]) {
      if (!state) continue;
      if (e && !state.errored) state.errored = e;
      state.closed = true;
    }
    if (typeof cb === 'function') cb(e);
    nextTick(() => {
      if (e && !s.errorEmitted) {
        for (const state of [r, w]) if (state) state.errorEmitted = true;
        this.emit('error', e);
      }
      if (s.emitClose !== false && !s.closeEmitted) {
        for (const state of [r, w]) if (state) state.closeEmitted = true;
        this.emit('close');
      }
    });
  };
  const destroyNow = (e) => {
    try {
      this._destroy(e ?? null, (e2) => done(e2));
    } catch (e2) {
      done(e2);
    }
  };
  // A stream still being made (`_construct`) is destroyed once it is made.
  if ((r && r.constructed === false) || (w && w.constructed === false)) {
    this.once(kDestroy, (er) => destroyNow(er ?? err));
  } else {
    destroyNow(err);
  }
  return this;
}

// Node's `_undestroy`: a destroyed stream made new again (its side that
// was not readable, or not writable, stays ended).
function undestroy() {
  const r = this._readableState;
  const w = this._writableState;
  for (const state of [r, w]) {
    if (!state) continue;
    state.constructed = true;
    state.destroyed = false;
    state.closed = false;
    state.closeEmitted = false;
    state.errored = null;
    state.errorEmitted = false;
  }
  if (r) {
    r.reading = false;
    r.ended = r.endEmitted = r.readable === false;
  }
  if (w) {
    w.finalCalled = w.prefinished = false;
    w.ended = w.ending = w.finished = w.writable === false;
  }
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

// An error met by the stream itself: it destroys the stream, or, where
// the stream does not destroy itself, is emitted (now, or on the next
// tick when met within a call that is still running, `sync`).
function errorOrDestroy(stream, err, sync) {
  const r = stream._readableState;
  const w = stream._writableState;
  const s = r ?? w;
  if (s.destroyed) return;
  if (s.autoDestroy !== false) {
    stream.destroy(err);
    return;
  }
  for (const state of [r, w]) if (state && !state.errored) state.errored = err;
  const emit = () => {
    if ((r && r.errorEmitted) || (w && w.errorEmitted)) return;
    for (const state of [r, w]) if (state) state.errorEmitted = true;
    stream.emit('error', err);
  };
  if (sync) nextTick(emit);
  else emit();
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
  this.highWaterMark = highWaterMark(o, 'readableHighWaterMark', this.objectMode, isDuplex);
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
  this.readingMore = false;
  this.awaitDrainWriters = null;
  this.multiAwaitDrain = false;
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
    // Destroyed while it was being made: the destruction goes on now.
    if (states().some((state) => state.destroyed)) {
      stream.emit(kDestroy, err);
      return;
    }
    if (err) {
      errorOrDestroy(stream, err, true);
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
Readable.prototype._undestroy = undestroy;
Readable.prototype._destroy = function (err, cb) {
  cb(err);
};
Readable.prototype._read = function () {
  throw notImplemented('_read()');
};

// A chunk as the buffer holds it: bytes, or a string in the stream's
// encoding (a string in another one is re-encoded whole when unshifted,
// since what is unshifted bypasses the decoder).
function toChunk(state, chunk, encoding, front) {
  if (state.objectMode) return chunk;
  if (typeof chunk === 'string') {
    const enc = encoding || state.defaultEncoding;
    if (state.encoding === enc && state.decoder) return chunk;
    if (front && state.encoding) return Buffer.from(chunk, enc).toString(state.encoding);
    return Buffer.from(chunk, enc);
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
  if (!state.objectMode && chunk === undefined) return !state.ended && (state.length < state.highWaterMark || state.length === 0);
  let c;
  try {
    c = toChunk(state, chunk, encoding, front);
  } catch (e) {
    errorOrDestroy(stream, e);
    return false;
  }
  if (front && state.endEmitted) {
    errorOrDestroy(stream, codedError(Error, 'ERR_STREAM_UNSHIFT_AFTER_END_EVENT', 'stream.unshift() after end event'));
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
    return !state.ended && (state.length < state.highWaterMark || state.length === 0);
  }
  // Bytes pushed to a stream with an encoding are decoded, objects'
  // bytes too (each push its own chunk).
  if (state.decoder && !front && (state.objectMode ? ArrayBuffer.isView(c) && !encoding : typeof c !== 'string')) {
    c = state.decoder.write(c);
    if (c.length === 0 && !state.objectMode) {
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
  // Asking for more than the high-water mark raises it (to a power of
  // two, at most 1 GiB), so that the read can be answered.
  if (n > state.highWaterMark) {
    if (n > 0x40000000) throw codedError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "size" is out of range. It must be <= 1GiB. Received ${n}`);
    state.highWaterMark = 2 ** Math.ceil(Math.log2(n));
  }
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
    if (state.multiAwaitDrain) state.awaitDrainWriters.clear();
    else state.awaitDrainWriters = null;
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
        if (w && stream.allowHalfOpen === false && !w.ending) {
          nextTick(() => {
            if (stream.writable && !stream.writableEnded && !stream.destroyed) stream.end();
          });
        }
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

// Piping: each chunk read is written to `dest`; when `dest` is full the
// source pauses until every full destination drains. `dest` is ended when
// the source ends (unless `{ end: false }`), and the pipe is undone when
// `dest` closes, finishes or errors, or by `unpipe`; an error on `dest`
// that nothing else listens for is thrown on there.
Readable.prototype.pipe = function (dest, options) {
  const src = this;
  const state = this._readableState;
  state.pipes.push(dest);
  if (state.pipes.length > 1 && !state.multiAwaitDrain) {
    state.multiAwaitDrain = true;
    state.awaitDrainWriters = new Set(state.awaitDrainWriters ? [state.awaitDrainWriters] : []);
  }
  const doEnd = (!options || options.end !== false) && !dest._isStdio;
  const unpipe = () => src.unpipe(dest);
  const onend = () => dest.end();
  const endFn = doEnd ? onend : unpipe;
  if (state.endEmitted) nextTick(endFn);
  else src.once('end', endFn);

  let ondrain = null;
  let cleanedUp = false;
  const pause = () => {
    if (!cleanedUp) {
      if (state.pipes.length === 1 && state.pipes[0] === dest) {
        state.awaitDrainWriters = dest;
        state.multiAwaitDrain = false;
      } else if (state.pipes.length > 1 && state.pipes.includes(dest)) {
        state.awaitDrainWriters.add(dest);
      }
      src.pause();
    }
    if (!ondrain) {
      ondrain = () => {
        if (state.awaitDrainWriters === dest) state.awaitDrainWriters = null;
        else if (state.multiAwaitDrain) state.awaitDrainWriters.delete(dest);
        if ((!state.awaitDrainWriters || state.awaitDrainWriters.size === 0) && src.listenerCount('data')) {
          src.resume();
        }
      };
      dest.on('drain', ondrain);
    }
  };
  const ondata = (chunk) => {
    if (dest.write(chunk) === false) pause();
  };
  function onerror(err) {
    unpipe();
    dest.removeListener('error', onerror);
    if (dest.listenerCount('error') === 0) {
      const s = dest._writableState ?? dest._readableState;
      if (s && !s.errorEmitted) errorOrDestroy(dest, err);
      else dest.emit('error', err);
    }
  }
  const onclose = () => {
    dest.removeListener('finish', onfinish);
    unpipe();
  };
  const onfinish = () => {
    dest.removeListener('close', onclose);
    unpipe();
  };
  const onunpipe = (readable, info) => {
    if (readable === src && info && info.hasUnpiped === false) {
      info.hasUnpiped = true;
      cleanup();
    }
  };
  function cleanup() {
    dest.removeListener('close', onclose);
    dest.removeListener('finish', onfinish);
    if (ondrain) dest.removeListener('drain', ondrain);
    dest.removeListener('error', onerror);
    dest.removeListener('unpipe', onunpipe);
    src.removeListener('end', onend);
    src.removeListener('end', unpipe);
    src.removeListener('data', ondata);
    cleanedUp = true;
    // A destination that was full and is gone no longer holds the source.
    if (ondrain && state.awaitDrainWriters && (!dest._writableState || dest._writableState.needDrain)) ondrain();
  }
  dest.on('unpipe', onunpipe);
  src.on('data', ondata);
  EventEmitter.prototype.prependListener.call(dest, 'error', onerror);
  dest.once('close', onclose);
  dest.once('finish', onfinish);
  dest.emit('pipe', src);
  if (dest.writableNeedDrain === true) pause();
  else if (!state.flowing) src.resume();
  return dest;
};

Readable.prototype.unpipe = function (dest) {
  const state = this._readableState;
  if (state.pipes.length === 0) return this;
  if (dest === undefined) {
    const dests = state.pipes.splice(0);
    this.pause();
    for (const d of dests) d.emit('unpipe', this, { hasUnpiped: false });
    return this;
  }
  const index = state.pipes.indexOf(dest);
  if (index === -1) return this;
  state.pipes.splice(index, 1);
  if (state.pipes.length === 0) this.pause();
  dest.emit('unpipe', this, { hasUnpiped: false });
  return this;
};

// An old-style stream (an emitter of `data` and `end`) read as a
// Readable: paused while this one is full; its `close` or `destroy`
// destroys this one; its other methods are reached through this one.
Readable.prototype.wrap = function (old) {
  let paused = false;
  old.on('data', (chunk) => {
    if (!this.push(chunk) && old.pause) {
      paused = true;
      old.pause();
    }
  });
  old.on('end', () => this.push(null));
  old.on('error', (e) => errorOrDestroy(this, e));
  old.on('close', () => this.destroy());
  old.on('destroy', () => this.destroy());
  this._read = () => {
    if (paused && old.resume) {
      paused = false;
      old.resume();
    }
  };
  for (const key of Object.keys(old)) {
    if (this[key] === undefined && typeof old[key] === 'function') this[key] = old[key].bind(old);
  }
  return this;
};

Readable.prototype[Symbol.asyncIterator] = function () {
  return readableIterator(this);
};

Readable.prototype.iterator = function (options) {
  return readableIterator(this, options);
};

// `error` is undefined while the stream runs, null once it ended well,
// or its error. Leaving the loop early (or on an error) destroys the
// stream unless `destroyOnReturn: false`; ending well destroys it too,
// when it destroys itself anyway.
async function* readableIterator(stream, options) {
  let wake = () => {};
  const next = () => new Promise((resolve) => {
    wake = resolve;
  });
  const onReadable = () => wake();
  stream.on('readable', onReadable);
  let error;
  const cleanup = finished(stream, { writable: false }, (err) => {
    error = err ? err : null;
    wake();
  });
  try {
    for (;;) {
      const chunk = stream.destroyed ? null : stream.read();
      if (chunk !== null) {
        yield chunk;
      } else if (error) {
        throw error;
      } else if (error === null) {
        return;
      } else {
        await next();
      }
    }
  } catch (e) {
    error = e;
    throw e;
  } finally {
    if ((error || !options || options.destroyOnReturn !== false) && (error === undefined || stream._readableState.autoDestroy)) {
      stream.destroy(null);
    } else {
      stream.off('readable', onReadable);
      cleanup();
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
  // As Node: the option is floored first, so that what is not a number
  // is out of range.
  const concurrency = options && options.concurrency != null ? Math.floor(options.concurrency) : 1;
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

// `promise`, or an AbortError as soon as `signal` aborts: a call that
// never settles does not hold an aborted operator.
function untilAborted(signal, promise) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

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
          const next = await untilAborted(signal, iterator.next());
          if (next.done) {
            done = true;
            break;
          }
          const result = Promise.resolve().then(() => fn(next.value, { signal }));
          result.catch(() => {});
          queue.push(result);
        }
        if (queue.length === 0) return;
        const value = await untilAborted(signal, queue.shift());
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

// The properties Node lets code set: `readable`, `writable` (a side made
// unusable by hand) and `readableFlowing`.
function stateSetter(key, name) {
  if (name === 'readable' || name === 'writable') {
    return function (v) {
      if (this[key]) this[key][name] = Boolean(v);
    };
  }
  if (name === 'readableFlowing') {
    return function (v) {
      if (this[key]) this[key].flowing = v;
    };
  }
  return undefined;
}

for (const [name, get] of Object.entries({
  readable: (s) => s.readable !== false && !s.destroyed && !s.errorEmitted && !s.endEmitted,
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
    set: stateSetter('_readableState', name),
  });
}

for (const proto of [Readable.prototype]) {
  Object.defineProperty(proto, 'destroyed', {
    configurable: true,
    get() {
      return (this._readableState ?? this._writableState)?.destroyed ?? false;
    },
    set(v) {
      for (const s of [this._readableState, this._writableState]) if (s) s.destroyed = v;
    },
  });
  Object.defineProperty(proto, 'closed', {
    configurable: true,
    get() {
      return (this._readableState ?? this._writableState)?.closed ?? false;
    },
  });
  Object.defineProperty(proto, 'errored', {
    configurable: true,
    get() {
      return (this._readableState ?? this._writableState)?.errored ?? null;
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
  this.highWaterMark = highWaterMark(o, 'writableHighWaterMark', this.objectMode, isDuplex);
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
  this.bufferProcessing = false;
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
Writable.prototype._undestroy = undestroy;
Writable.prototype._destroy = function (err, cb) {
  cb(err);
};

// A Writable has nothing to pipe out.
Writable.prototype.pipe = function () {
  errorOrDestroy(this, codedError(Error, 'ERR_STREAM_CANNOT_PIPE', 'Cannot pipe, not readable'));
};

Writable.prototype.write = function (chunk, encoding, cb) {
  if (typeof encoding === 'function') {
    cb = encoding;
    encoding = null;
  }
  return writeChunk(this, chunk, encoding, cb) === true;
};

// A write: whether there is room for more, or the error it met (which
// `end(chunk)` reports as its own).
function writeChunk(stream, chunk, encoding, cb) {
  const state = stream._writableState;
  if (typeof cb !== 'function') cb = () => {};
  // A chunk of the wrong kind is the caller's mistake, thrown at once, as
  // Node throws it; writing after the end is the stream's state, an error
  // on it.
  if (chunk === null) {
    throw codedError(TypeError, 'ERR_STREAM_NULL_VALUES', 'May not write null values to stream');
  } else if (!state.objectMode) {
    if (!encoding) encoding = state.defaultEncoding;
    else if (encoding !== 'buffer' && !Buffer.isEncoding(encoding)) throw unknownEncoding(encoding);
    if (typeof chunk === 'string') {
      if (state.decodeStrings) {
        chunk = Buffer.from(chunk, encoding);
        encoding = 'buffer';
      }
    } else if (ArrayBuffer.isView(chunk)) {
      if (!Buffer.isBuffer(chunk)) chunk = _uint8ArrayToBuffer(chunk);
      encoding = 'buffer';
    } else {
      throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "chunk" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${chunk === undefined ? 'undefined' : typeof chunk}`);
    }
  }
  let err = null;
  if (state.ending) err = codedError(Error, 'ERR_STREAM_WRITE_AFTER_END', 'write after end');
  else if (state.destroyed) err = codedError(Error, 'ERR_STREAM_DESTROYED', 'Cannot call write after a stream was destroyed');
  if (err) {
    nextTick(cb, err);
    errorOrDestroy(stream, err, true);
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
    doWrite(stream, state, false, len, chunk, encoding, cb);
  }
  return ret && !state.errored && !state.destroyed;
}

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

// Writes what is buffered, in order. A write that calls back at once
// goes on to the next here, in this loop, not by calling this again
// (`bufferProcessing`), so a `_write` that ends the stream from inside
// sees the chunks after its own still buffered.
function clearBuffer(stream, state) {
  if (state.writing || state.corked || state.bufferProcessing || state.destroyed || state.constructed === false || state.buffered.length === 0) return;
  state.bufferProcessing = true;
  try {
    writeBuffered(stream, state);
  } finally {
    state.bufferProcessing = false;
  }
}

function writeBuffered(stream, state) {
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
  do {
    const { chunk, encoding, callback } = state.buffered.shift();
    doWrite(stream, state, false, state.objectMode ? 1 : chunk.length, chunk, encoding, callback);
  } while (state.buffered.length > 0 && !state.writing);
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
    const ret = writeChunk(this, chunk, encoding);
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
    // (`_final` runs within `end()`: an error it gave is the outcome.)
    if (err || state.finished) nextTick(cb, err);
    else if (state.errored) nextTick(cb, state.errored);
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
          errorOrDestroy(stream, err, state.sync);
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
      callFinal();
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
  writable: (s) => s.writable !== false && !s.destroyed && !s.errored && !s.ending && !s.ended,
  writableEnded: (s) => s.ending,
  writableFinished: (s) => s.finished,
  writableLength: (s) => s.length,
  writableHighWaterMark: (s) => s.highWaterMark,
  writableObjectMode: (s) => s.objectMode,
  writableCorked: (s) => s.corked,
  writableNeedDrain: (s) => !s.destroyed && !s.ending && s.needDrain,
  writableAborted: (s) => (s.destroyed || s.errored !== null) && !s.finished,
  writableBuffer: (s) => s.getBuffer(),
})) {
  Object.defineProperty(Writable.prototype, name, {
    configurable: true,
    get() {
      return this._writableState ? get(this._writableState) : undefined;
    },
    set: stateSetter('_writableState', name),
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

// A WritableStream onto a Writable: a write resolves at once unless the
// Writable is full, then when it drains; `close` ends it and resolves when
// it has finished; an error or an early close errors the web side.
Writable.toWeb = function (writable) {
  let controller;
  let waiting = null;
  let closing = null;
  const settle = (key, err) => {
    const p = key === 'drain' ? waiting : closing;
    if (!p) return;
    if (key === 'drain') waiting = null;
    else closing = null;
    if (err) p.reject(err);
    else p.resolve();
  };
  writable.on('drain', () => settle('drain'));
  finished(writable, (err) => {
    if (err && err.code === 'ERR_STREAM_PREMATURE_CLOSE') err = abortError(err);
    // Errors after this are the web side's now.
    writable.on('error', () => {});
    if (err) {
      settle('drain', err);
      settle('close', err);
      controller.error(err);
    } else if (closing) {
      settle('close');
    } else {
      controller.error(abortError());
    }
  });
  return new WritableStream({
    start(c) {
      controller = c;
    },
    write(chunk) {
      if (writable.writableNeedDrain || !writable.write(chunk)) {
        return new Promise((resolve, reject) => {
          waiting = { resolve, reject };
        });
      }
      return undefined;
    },
    close() {
      return new Promise((resolve, reject) => {
        closing = { resolve, reject };
        if (!writable.writableEnded) writable.end();
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
      this._writableState.writable = false;
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
    feed(d, body);
    return d;
  }
  const iterable = body !== null && body !== undefined && (typeof body[Symbol.iterator] === 'function' || typeof body[Symbol.asyncIterator] === 'function');
  if (!iterable) {
    throw invalidArgType('body', 'of type function or an instance of Blob, ReadableStream, WritableStream, Stream, Iterable, AsyncIterable, or Promise or { readable, writable } pair', body);
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
  feed(d, r);
  return d;
};

// What `readable` gives, pushed into `duplex`'s readable side: it flows
// only while `duplex` wants more (the duplex's `read()` resumes it), and
// its end and errors are the duplex's.
function feed(duplex, readable) {
  readable.on('data', (c) => {
    if (!duplex.push(c)) readable.pause();
  });
  readable.on('end', () => duplex.push(null));
  readable.on('error', (e) => duplex.destroy(e));
  readable.pause();
}

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
  this.on('prefinish', transformPrefinish);
  if (options) {
    if (typeof options.transform === 'function') this._transform = options.transform;
    if (typeof options.flush === 'function') this._flush = options.flush;
  }
}
inherit(Transform, Duplex);

Transform.prototype._transform = function () {
  throw notImplemented('_transform()');
};

// Flushing: `_flush`'s last data, then the end of the readable side. A
// Transform given its own `final` still flushes, on `prefinish`, as Node.
function transformFinal(cb) {
  let called = false;
  const done = (err, data) => {
    if (called) return;
    called = true;
    if (err) {
      if (cb) cb(err);
      else this.destroy(err);
      return;
    }
    if (data !== null && data !== undefined) this.push(data);
    this.push(null);
    if (cb) cb();
  };
  if (typeof this._flush === 'function' && !this.destroyed) {
    const r = this._flush(done);
    if (r && typeof r.then === 'function') r.then((data) => done(null, data), done);
  } else {
    done(null);
  }
}
Transform.prototype._final = transformFinal;

function transformPrefinish() {
  if (this._final !== transformFinal) transformFinal.call(this);
}

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

// A stream that had not finished is destroyed with an AbortError.
export function destroy(stream, err) {
  if (!err && (isReadable(stream) || isWritable(stream))) err = abortError();
  if (stream && typeof stream.destroy === 'function') stream.destroy(err);
}

// Calls back once `stream` has ended, finished, failed or closed early.
export function finished(stream, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  if (typeof callback !== 'function') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "callback" argument must be of type function. Received ${callback === undefined ? 'undefined' : typeof callback}`);
  }
  if (options !== null && options !== undefined && typeof options !== 'object') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "options" argument must be of type object. Received type ${typeof options} (${String(options)})`);
  }
  options = options ?? {};
  const legacy = (o) => typeof o.on === 'function' && (typeof o.write === 'function' || typeof o.pipe === 'function');
  if (stream === null || typeof stream !== 'object' || !(isNodeStream(stream) || legacy(stream))) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "stream" argument must be an instance of ReadableStream, WritableStream, or Stream.');
  }
  let called = false;
  const done = (err) => {
    if (called) return;
    called = true;
    cleanup();
    if (err === undefined) callback.call(stream);
    else callback.call(stream, err);
  };
  const r = stream._readableState;
  const w = stream._writableState;
  // Which sides are waited for: those the stream has, unless told.
  const readable = options.readable ?? Boolean(r && (!w || r.readable !== false));
  const writable = options.writable ?? Boolean(w && (!r || w.writable !== false));
  // A stream that will emit `close` after its ends is waited for until
  // then, so that the callback comes after everything it emits.
  const willClose = (s) => Boolean(s && s.autoDestroy && s.emitClose && s.closed === false);
  let willEmitClose = willClose(w ?? r) && Boolean(r) === readable && Boolean(w) === writable;
  const readEnded = (strict) => Boolean(r && (r.endEmitted || (!strict && r.ended && r.length === 0)));
  const writeEnded = (strict) => Boolean(w && (w.finished || (!strict && w.ended && w.length === 0)));
  let readableFinished = readEnded(false);
  let writableFinished = writeEnded(false);
  const onfinish = () => {
    writableFinished = true;
    if (stream.destroyed) willEmitClose = false;
    if (willEmitClose && (!stream.readable || readable)) return;
    if (!readable || readableFinished) done();
  };
  const onend = () => {
    readableFinished = true;
    if (stream.destroyed) willEmitClose = false;
    if (willEmitClose && (!stream.writable || writable)) return;
    if (!writable || writableFinished) done();
  };
  const onerror = (err) => done(err);
  const onclose = () => {
    const errored = (w && w.errored) || (r && r.errored);
    if (errored && typeof errored !== 'boolean') return done(errored);
    if (readable && !readableFinished && r && !readEnded(false)) return done(prematureClose());
    if (writable && !writableFinished && !writeEnded(false)) return done(prematureClose());
    done();
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
  const closed = Boolean((w && w.closed) || (r && r.closed));
  const errorEmitted = Boolean((w && w.errorEmitted) || (r && r.errorEmitted));
  if (closed) nextTick(onclose);
  else if (errorEmitted) {
    if (!willEmitClose) nextTick(onclose);
  } else if (!readable && (!willEmitClose || stream.readable) && (writableFinished || isWritable(stream) === false)) {
    nextTick(onclose);
  } else if (!writable && (!willEmitClose || stream.writable) && (readableFinished || isReadable(stream) === false)) {
    nextTick(onclose);
  }
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

// `compose(...streams)`: one Duplex that writes into the first stage and
// reads from the last, the stages piped into each other (`pipeline`). A
// stage is a stream, a web stream, an iterable (first only), or a
// function: the first is called with nothing, a later one with the
// previous stage's output as an async iterable, and what it gives
// (an iterable or async generator) is that stage's output.
export function compose(...streams) {
  if (streams.length === 0) throw codedError(TypeError, 'ERR_MISSING_ARGS', 'The "streams" argument must be specified');
  if (streams.length === 1) return Duplex.from(streams[0]);
  const stages = streams.map((s, i) => {
    if (typeof s !== 'function') return isNodeStream(s) ? s : Duplex.from(s);
    if (i === 0) return Readable.from(s());
    // A function stage: what is written to it is the source it reads.
    const source = new PassThrough({ objectMode: true });
    const output = Readable.from(s(source));
    return stageOf(source, output);
  });
  const head = stages[0];
  const tail = stages[stages.length - 1];
  const outer = stageOf(head, tail);
  pipeline(stages, (err) => {
    if (err) outer.destroy(err);
  });
  return outer;
}

// A Duplex that writes into `input` and reads what `output` gives.
function stageOf(input, output) {
  const writable = input.writable !== false && typeof input.write === 'function';
  const readable = output.readable !== false && typeof output.on === 'function' && output._readableState !== undefined;
  const d = new Duplex({
    writableObjectMode: writable ? input.writableObjectMode : false,
    readableObjectMode: readable ? output.readableObjectMode : false,
    writable,
    readable,
    write(chunk, encoding, cb) {
      if (input.write(chunk, encoding)) cb();
      else input.once('drain', cb);
    },
    final(cb) {
      input.end();
      if (readable) cb();
      else finished(input, (err) => cb(err));
    },
    read() {
      output.resume();
    },
    destroy(err, cb) {
      if (!input.destroyed) input.destroy(err);
      if (!output.destroyed) output.destroy(err);
      cb(err);
    },
  });
  const fail = (e) => d.destroy(e);
  if (readable) feed(d, output);
  else output.on('error', fail);
  if (input !== output) input.on('error', fail);
  return d;
}

export function addAbortSignal(signal, stream) {
  if (!signal || typeof signal.aborted !== 'boolean') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "signal" argument must be an instance of AbortSignal. Received ${signal === undefined ? 'undefined' : typeof signal}`);
  }
  if (stream === null || typeof stream !== 'object' || typeof stream.destroy !== 'function') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "stream" argument must be an instance of ReadableStream, WritableStream, or Stream. Received ${stream === null ? 'null' : `type ${typeof stream}`}`);
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
  Stream, Readable, Writable, Duplex, Transform, PassThrough, pipeline, compose, finished, addAbortSignal, destroy, isReadable, isWritable,
  isErrored, isDestroyed, isDisturbed, getDefaultHighWaterMark, setDefaultHighWaterMark, duplexPair, promises,
  _isUint8Array, _isArrayBufferView, _uint8ArrayToBuffer,
});

export default Stream;
