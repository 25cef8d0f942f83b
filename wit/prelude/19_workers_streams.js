//! Workers' byte streams: `IdentityTransformStream` (what is written is
//! read, as bytes, a write resolving once its bytes are read) and
//! `FixedLengthStream` (the same, of a length given up front: more bytes,
//! or a close before them all, error the readable side), as `workerd` has
//! them. Their readable side is a byte stream, so a BYOB reader reads it.
//!
//! Departures from `workerd`: a chunk that is not bytes (or a string,
//! written as UTF-8) rejects the write and errors the readable side with
//! the same error, where `workerd` leaves a read pending for ever; and a
//! response whose body is a `FixedLengthStream` is sent with its length
//! only when the whole body is there when the host first reads it (else
//! chunked; `workerd` sends its `Content-Length`): the host frames every
//! response itself.
//!
//! And `crypto.DigestStream` (a `WritableStream` whose bytes are hashed;
//! `digest` resolves with the hash once it closes), kept until the close
//! and hashed in one call of `crypto.subtle`'s (`subtleCall`,
//! 11_subtle.js), as `node:crypto`'s `createHash` does.
//!
//! Defines: IdentityTransformStream, FixedLengthStream
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/workers-streams.js
  // ------------------------------------------------ Workers' byte streams
  // A chunk written to a Workers byte stream (or socket), as the bytes
  // read from it; anything but bytes and text is refused with `refusal`.
  function identityBytes(chunk, refusal = 'This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.') {
    if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
    if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk.slice(0));
    if (ArrayBuffer.isView(chunk)) {
      return new Uint8Array(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength));
    }
    throw new TypeError(refusal);
  }

  // Each stream's joined sides (`identityPair`), where a FixedLengthStream
  // sets its length once made.
  const identityState = new WeakMap();
  // Readable streams whose length is known up front, as `workerd` knows
  // it (a FixedLengthStream's readable side, a body made whole, an R2
  // object's body): what R2's `put` takes.
  const knownLengths = new WeakMap();

  // `stream`'s two sides, joined: a written chunk waits until a read asks
  // for bytes (the readable side's pull), then is enqueued and its write
  // resolves. `limit` (-1 until a FixedLengthStream sets it) is the length.
  function identityPair(stream, highWaterMark) {
    const s = { rc: null, wc: null, waiting: null, pulled: null, seen: 0, done: false, limit: -1 };
    identityState.set(stream, s);
    const fail = (e) => {
      if (!s.done) s.rc.error(e);
      s.done = true;
    };
    const deliver = () => {
      const w = s.waiting;
      s.waiting = null;
      s.rc.enqueue(w.bytes);
      w.resolve();
    };
    stream._readable = new ReadableStreamImpl({
      type: 'bytes',
      start(c) { s.rc = c; },
      pull() {
        if (s.waiting !== null) return deliver();
        return new Promise((resolve) => { s.pulled = resolve; });
      },
      cancel(reason) {
        s.done = true;
        if (s.waiting !== null) s.waiting.reject(reason);
        s.waiting = null;
        s.wc.error(reason);
      },
    });
    stream._writable = new WritableStreamImpl({
      start(c) { s.wc = c; },
      write(chunk) {
        let bytes;
        try {
          bytes = identityBytes(chunk);
        } catch (e) {
          fail(e);
          throw e;
        }
        if (s.limit >= 0) {
          if (s.seen + bytes.byteLength > s.limit) return fail(new TypeError('Attempt to write too many bytes through a FixedLengthStream.'));
          s.seen += bytes.byteLength;
        }
        if (bytes.byteLength === 0 || s.done) return undefined;
        return new Promise((resolve, reject) => {
          s.waiting = { bytes, resolve, reject };
          if (s.pulled !== null) {
            const pulled = s.pulled;
            s.pulled = null;
            deliver();
            pulled();
          }
        });
      },
      close() {
        if (s.limit >= 0 && s.seen < s.limit) return fail(new TypeError('FixedLengthStream did not see all expected bytes before close().'));
        if (!s.done) s.rc.close();
        s.done = true;
        return undefined;
      },
      abort(reason) { fail(reason); },
    }, { highWaterMark, size: byteSize });
  }

  // A chunk's size against the high-water mark: its bytes (what is not
  // bytes is refused by the write, not here).
  function byteSize(chunk) {
    if (typeof chunk === 'string') return chunk.length;
    return chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk) ? chunk.byteLength : 0;
  }

  function identityHighWaterMark(options) {
    const hwm = options == null ? undefined : options.highWaterMark;
    return hwm === undefined ? 1 : enforceRange(hwm, 'IdentityTransformStream: highWaterMark');
  }

  class IdentityTransformStream extends TransformStreamImpl {
    constructor(...args) {
      super();
      identityPair(this, identityHighWaterMark(args[0]));
    }
    get [Symbol.toStringTag]() { return 'IdentityTransformStream'; }
  }

  // A FixedLengthStream's length (`args`: the constructor's arguments): a
  // number or bigint, not negative, a fraction cut off, in `workerd`'s
  // words.
  function expectedLengthOf(args) {
    if (args.length === 0) throw new TypeError("Failed to construct 'FixedLengthStream': constructor parameter 1 is not of type 'bigint'.");
    const n = Number(args[0]);
    if (!Number.isFinite(n)) throw new TypeError('The value cannot be converted because it is not an integer.');
    if (n < 0) throw new TypeError('The value cannot be converted because it is negative and this API expects a positive bigint.');
    return Math.trunc(n);
  }

  class FixedLengthStream extends IdentityTransformStream {
    constructor(...args) {
      const length = expectedLengthOf(args);
      super(args[1]);
      identityState.get(this).limit = length;
      knownLengths.set(this._readable, length);
    }
    get [Symbol.toStringTag]() { return 'FixedLengthStream'; }
  }
  defineMissing('IdentityTransformStream', IdentityTransformStream);
  defineMissing('FixedLengthStream', FixedLengthStream);

  // Workers' crypto.DigestStream, as workerd has it: the hashes of
  // node:crypto's createHash that Workers name (host/src/web/crypto/).
  const DIGEST_STREAM_HASHES = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512', 'MD5'];
  class DigestStream extends WritableStreamImpl {
    #digest;
    #written = 0n;
    constructor(algorithm) {
      const name = typeof algorithm === 'string' ? algorithm : algorithm !== null && typeof algorithm === 'object' ? algorithm.name : undefined;
      if (typeof name !== 'string') throw new TypeError("Failed to construct 'DigestStream': constructor parameter 1 is not of type 'string or HashAlgorithm'.");
      const hash = DIGEST_STREAM_HASHES.find((h) => h === name.toUpperCase());
      if (hash === undefined) throw new DOMEx('Unrecognized or unimplemented digest algorithm requested.', 'NotSupportedError');
      const parts = [];
      let settle;
      const digest = new Promise((resolve, reject) => { settle = { resolve, reject }; });
      // Read by no one: an aborted stream's rejection is not uncaught.
      digest.catch(() => {});
      let self = null;
      super({
        write(chunk) {
          const bytes = identityBytes(chunk);
          parts.push(bytes);
          self.#written += BigInt(bytes.length);
        },
        close() {
          settle.resolve(subtleCall({ op: 'digest', hash }, [concat(parts)]).data.buffer);
          parts.length = 0;
        },
        abort(reason) {
          settle.reject(reason);
        },
      });
      self = this;
      this.#digest = digest;
    }
    get digest() { return this.#digest; }
    get bytesWritten() { return this.#written; }
  }
  Object.defineProperty(DigestStream, 'length', { value: 0 });
  if (cryptoObject !== undefined && Object.getPrototypeOf(cryptoObject) === Crypto.prototype) {
    Object.defineProperty(Crypto.prototype, 'DigestStream', { value: DigestStream, writable: true, configurable: true, enumerable: true });
  }
