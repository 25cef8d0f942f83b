//! `WritableStream`, its controller and writer.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: streams
//! Test plugin: tests/plugins/writable.js
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

