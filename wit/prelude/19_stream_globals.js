//! The streams' globals, the queuing strategies, and reading a byte stream
//! chunk by chunk or whole (what every body uses).
//!
//! Defines: ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableByteStreamController, TransformStreamDefaultController, WritableStream, WritableStreamDefaultWriter, WritableStreamDefaultController, TransformStream, TextEncoderStream, TextDecoderStream, CompressionStream, DecompressionStream, CountQueuingStrategy, ByteLengthQueuingStrategy
//! Host calls: none
//! Rust: none
//! WPT: streams
//! Test plugin: tests/plugins/byte-streams.js
  // Calls `each` with every chunk of `stream`, which must be bytes. A chunk
  // of anything else (rejecting with `Err`), or an `each` that throws,
  // cancels the stream and rejects. Read with the prelude's own read
  // requests (no `then` of the app's is called), in a loop while chunks
  // are queued.
  // `onWait`, if given, is called once, when a read must wait for the
  // stream's source (every chunk before it came at once). An `each` that
  // returns a promise is waited for before the next read (backpressure).
  function eachChunk(stream, what, Err, each, onWait = null) {
    const reader = new ReadableStreamDefaultReaderImpl(stream);
    return new Promise((resolve, reject) => {
      const fail = (e) => {
        upon(rsCancel(stream, e), () => reject(e), () => reject(e));
        return false;
      };
      // True to read on, false once failed, or a promise to wait for.
      const take = (value) => {
        if (!(value instanceof Uint8Array)) {
          return fail(new Err(`${what}: the body stream gave ${kindOf(value)}; a body stream must give Uint8Array chunks (pipe text through a TextEncoderStream)`));
        }
        try {
          const wait = each(value);
          return wait instanceof Promise ? wait : true;
        } catch (e) {
          return fail(e);
        }
      };
      const next = () => {
        for (let again = true; again;) {
          let sync = true;
          let answered = false;
          again = false;
          rsRead(reader, {
            chunk: (value) => {
              answered = true;
              const went = take(value);
              if (went === false) return;
              if (went !== true) upon(went, next, fail);
              else if (sync) again = true;
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

