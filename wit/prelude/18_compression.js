//! `CompressionStream` and `DecompressionStream`: gzip, deflate and deflate-
//! raw, coded by the host.
//!
//! Defines: none
//! Host calls: compress
//! Rust: host/src/web/compress.rs
//! WPT: compression
//! Test plugin: tests/plugins/compression.js
  // CompressionStream and DecompressionStream (checked by WPT's
  // compression/): the host codes each chunk (`calls::COMPRESS`, flate2:
  // host/src/web/compress.rs), taking and handing out at most 1 MiB per
  // call (a V8 worker's channel carries a bounded frame: a 32 MiB chunk in
  // one call was refused there).
  const PIECE = 1 << 20;
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
        const bytes = chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        let at = 0;
        do {
          run('write', bytes.subarray(at, at + PIECE), c);
          at += PIECE;
        } while (at < bytes.length);
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

