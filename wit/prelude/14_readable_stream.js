//! The Streams standard's shared algorithms and `ReadableStream` with its
//! controllers and readers, tee, pipes and async iteration.
//!
//! Defines: none
//! Host calls: none
//! Rust: host/src/web/stream.rs
//! WPT: streams
//! Test plugin: tests/plugins/streams.js
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

