//! `TransformStream` and its controller.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: streams
//! Test plugin: tests/plugins/piping.js
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

