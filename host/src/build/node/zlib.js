// `node:zlib`'s gzip, deflate, raw deflate, brotli and zstd, sync, with
// callbacks and as streams, on the host's coders (`CompressionStream`'s,
// flate2, brotli and libzstd: host/src/web/compress.rs); and `crc32`. A
// decompression comes out at most 1 MiB per host call, and stops at
// `maxOutputLength` (at most `buffer.kMaxLength`) with `workerd`'s
// "Memory limit exceeded"; short of that, a bomb meets the tenant's memory
// limit, never the server's.
import { Buffer, kMaxLength } from './buffer.js';
import { Transform } from './stream.js';

const { compress: host } = globalThis.__ssr.node;

function dataError(e) {
  const message = String(e && e.message ? e.message : e).replace(/^(TypeError|RangeError): /, '');
  const err = new Error(message);
  err.code = 'Z_DATA_ERROR';
  err.errno = -3;
  return err;
}

function bytesOf(input, name = 'buffer') {
  if (typeof input === 'string') return Buffer.from(input);
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  const e = new TypeError(`The "${name}" argument must be of type string or an instance of Buffer, TypedArray, DataView, or ArrayBuffer. Received ${input === null ? 'null' : typeof input}`);
  e.code = 'ERR_INVALID_ARG_TYPE';
  throw e;
}

// A coder on the host: `format` is gzip, deflate, deflate-raw, brotli or
// zstd (whose Node `params` go as [key, value] pairs).
class Coder {
  constructor(format, compress, options) {
    const level = options && options.level !== undefined && options.level !== -1 ? options.level : undefined;
    const params = Object.entries((options && options.params) || {}).map(([k, v]) => [Number(k), Number(v)]);
    this.compress = compress;
    this.max = Math.min((options && options.maxOutputLength) || kMaxLength, kMaxLength);
    this.total = 0;
    try {
      this.id = host({ op: 'open', format, compress, level, params }).value.id;
    } catch (e) {
      throw e instanceof TypeError ? dataError(e) : e;
    }
  }

  // Codes `bytes` (and, when `last`, ends the stream): the chunks out.
  code(bytes, last) {
    const out = [];
    const op = last ? 'finish' : 'write';
    let first = true;
    for (;;) {
      let r;
      try {
        r = host({ op, id: this.id }, first ? bytes : undefined);
      } catch (e) {
        // The host's refusals of bad data are TypeErrors; anything else
        // (a buffer past the memory limit) is not the data's fault.
        throw !this.compress && e instanceof TypeError ? dataError(e) : e;
      }
      first = false;
      if (r.data.length > 0) {
        this.total += r.data.length;
        if (this.total > this.max) {
          const e = new RangeError('Memory limit exceeded');
          e.code = 'ERR_BUFFER_TOO_LARGE';
          throw e;
        }
        out.push(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength));
      }
      if (!r.value.more) return out;
    }
  }
}

// `unzip`: gzip when it starts with gzip's magic, else zlib's deflate.
const formatOf = (name, bytes) => (name === 'unzip' ? (bytes[0] === 0x1f && bytes[1] === 0x8b ? 'gzip' : 'deflate') : name);

const KINDS = {
  gzip: ['gzip', true],
  gunzip: ['gzip', false],
  deflate: ['deflate', true],
  inflate: ['deflate', false],
  deflateRaw: ['deflate-raw', true],
  inflateRaw: ['deflate-raw', false],
  unzip: ['unzip', false],
  brotliCompress: ['brotli', true],
  brotliDecompress: ['brotli', false],
  zstdCompress: ['zstd', true],
  zstdDecompress: ['zstd', false],
};

function codeSync(kind, input, options) {
  const [name, compress] = KINDS[kind];
  const bytes = bytesOf(input);
  const coder = new Coder(formatOf(name, bytes), compress, options);
  const out = coder.code(bytes, true);
  const buffer = out.length === 1 ? out[0] : Buffer.concat(out);
  // `info`: the result with a stream of its kind, as Node gives it.
  return options && options.info ? { buffer, engine: new CLASSES[kind](options) } : buffer;
}

function codeLater(kind, input, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = {};
  }
  if (typeof callback !== 'function') {
    const e = new TypeError('The "callback" argument must be of type function');
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  queueMicrotask(() => {
    let result;
    try {
      result = codeSync(kind, input, options);
    } catch (e) {
      callback(e);
      return;
    }
    callback(null, result);
  });
}

// A Transform that codes what is written through it.
function ZlibStream(kind, options) {
  const [name, compress] = KINDS[kind];
  let coder = null;
  Transform.call(this, {
    ...options,
    transform(chunk, encoding, cb) {
      try {
        const bytes = bytesOf(chunk, 'chunk');
        coder ??= new Coder(formatOf(name, bytes), compress, options);
        for (const out of coder.code(bytes, false)) this.push(out);
        cb();
      } catch (e) {
        cb(e);
      }
    },
    flush(cb) {
      try {
        coder ??= new Coder(name === 'unzip' ? 'deflate' : name, compress, options);
        for (const out of coder.code(new Uint8Array(0), true)) this.push(out);
        cb();
      } catch (e) {
        cb(e);
      }
    },
  });
  this.bytesWritten = 0;
}
Object.setPrototypeOf(ZlibStream.prototype, Transform.prototype);
Object.setPrototypeOf(ZlibStream, Transform);
ZlibStream.prototype.params = function (level, strategy, callback) {
  if (callback) queueMicrotask(callback);
};
ZlibStream.prototype.reset = function () {};
ZlibStream.prototype.flush = function (kind, callback) {
  if (typeof kind === 'function') callback = kind;
  if (callback) queueMicrotask(callback);
};
ZlibStream.prototype.close = function (callback) {
  if (callback) this.once('close', callback);
  this.destroy();
};

function streamClass(kind) {
  const name = kind[0].toUpperCase() + kind.slice(1);
  const C = {
    [name]: function (options) {
      if (!new.target) return new C(options);
      ZlibStream.call(this, kind, options);
    },
  }[name];
  Object.setPrototypeOf(C.prototype, ZlibStream.prototype);
  Object.setPrototypeOf(C, ZlibStream);
  return C;
}

export const Gzip = streamClass('gzip');
export const Gunzip = streamClass('gunzip');
export const Deflate = streamClass('deflate');
export const Inflate = streamClass('inflate');
export const DeflateRaw = streamClass('deflateRaw');
export const InflateRaw = streamClass('inflateRaw');
export const Unzip = streamClass('unzip');
export const BrotliCompress = streamClass('brotliCompress');
export const BrotliDecompress = streamClass('brotliDecompress');
export const ZstdCompress = streamClass('zstdCompress');
export const ZstdDecompress = streamClass('zstdDecompress');
const CLASSES = {
  gzip: Gzip, gunzip: Gunzip, deflate: Deflate, inflate: Inflate, deflateRaw: DeflateRaw, inflateRaw: InflateRaw,
  unzip: Unzip, brotliCompress: BrotliCompress, brotliDecompress: BrotliDecompress, zstdCompress: ZstdCompress,
  zstdDecompress: ZstdDecompress,
};

export const createGzip = (options) => new Gzip(options);
export const createGunzip = (options) => new Gunzip(options);
export const createDeflate = (options) => new Deflate(options);
export const createInflate = (options) => new Inflate(options);
export const createDeflateRaw = (options) => new DeflateRaw(options);
export const createInflateRaw = (options) => new InflateRaw(options);
export const createUnzip = (options) => new Unzip(options);
export const createBrotliCompress = (options) => new BrotliCompress(options);
export const createBrotliDecompress = (options) => new BrotliDecompress(options);
export const createZstdCompress = (options) => new ZstdCompress(options);
export const createZstdDecompress = (options) => new ZstdDecompress(options);

export const gzipSync = (input, options) => codeSync('gzip', input, options);
export const gunzipSync = (input, options) => codeSync('gunzip', input, options);
export const deflateSync = (input, options) => codeSync('deflate', input, options);
export const inflateSync = (input, options) => codeSync('inflate', input, options);
export const deflateRawSync = (input, options) => codeSync('deflateRaw', input, options);
export const inflateRawSync = (input, options) => codeSync('inflateRaw', input, options);
export const unzipSync = (input, options) => codeSync('unzip', input, options);
export const brotliCompressSync = (input, options) => codeSync('brotliCompress', input, options);
export const brotliDecompressSync = (input, options) => codeSync('brotliDecompress', input, options);
export const zstdCompressSync = (input, options) => codeSync('zstdCompress', input, options);
export const zstdDecompressSync = (input, options) => codeSync('zstdDecompress', input, options);

export const gzip = (input, options, callback) => codeLater('gzip', input, options, callback);
export const gunzip = (input, options, callback) => codeLater('gunzip', input, options, callback);
export const deflate = (input, options, callback) => codeLater('deflate', input, options, callback);
export const inflate = (input, options, callback) => codeLater('inflate', input, options, callback);
export const deflateRaw = (input, options, callback) => codeLater('deflateRaw', input, options, callback);
export const inflateRaw = (input, options, callback) => codeLater('inflateRaw', input, options, callback);
export const unzip = (input, options, callback) => codeLater('unzip', input, options, callback);
export const brotliCompress = (input, options, callback) => codeLater('brotliCompress', input, options, callback);
export const brotliDecompress = (input, options, callback) => codeLater('brotliDecompress', input, options, callback);
export const zstdCompress = (input, options, callback) => codeLater('zstdCompress', input, options, callback);
export const zstdDecompress = (input, options, callback) => codeLater('zstdDecompress', input, options, callback);

// CRC-32 (IEEE), continuing from `value`.
let table = null;
export function crc32(data, value = 0) {
  if (table === null) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  const bytes = bytesOf(data, 'data');
  let crc = ~value;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

export default {
  Gzip, Gunzip, Deflate, Inflate, DeflateRaw, InflateRaw, Unzip, BrotliCompress, BrotliDecompress, ZstdCompress,
  ZstdDecompress, createGzip, createGunzip, createDeflate, createInflate, createDeflateRaw, createInflateRaw,
  createUnzip, createBrotliCompress, createBrotliDecompress, createZstdCompress, createZstdDecompress, gzipSync,
  gunzipSync, deflateSync, inflateSync, deflateRawSync, inflateRawSync, unzipSync, brotliCompressSync,
  brotliDecompressSync, zstdCompressSync, zstdDecompressSync, gzip, gunzip, deflate, inflate, deflateRaw, inflateRaw,
  unzip, brotliCompress, brotliDecompress, zstdCompress, zstdDecompress, crc32,
};
