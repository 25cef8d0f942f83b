// `node:crypto` as `ssr build` resolves it (build/bundle.rs): random
// bytes, hashes and HMACs (computed by the host, as crypto.subtle's are),
// timingSafeEqual and Web Crypto. Ciphers, signatures and key objects are
// not here: `crypto.subtle` does those.
import { Buffer } from './buffer.js';

const node = globalThis.__ssr.node;

export const webcrypto = globalThis.crypto;
export const subtle = globalThis.crypto.subtle;
export const getRandomValues = (array) => globalThis.crypto.getRandomValues(array);
export const randomUUID = () => globalThis.crypto.randomUUID();

function fillRandom(bytes) {
  // getRandomValues fills at most 65,536 bytes a call.
  for (let i = 0; i < bytes.length; i += 65536) {
    globalThis.crypto.getRandomValues(bytes.subarray(i, i + 65536));
  }
  return bytes;
}

function callback(cb, fn) {
  if (typeof cb !== 'function') return fn();
  let result;
  try {
    result = fn();
  } catch (err) {
    queueMicrotask(() => cb(err));
    return undefined;
  }
  queueMicrotask(() => cb(null, result));
  return undefined;
}

export function randomBytes(size, cb) {
  if (typeof size !== 'number' || !(size >= 0 && size <= 2 ** 31 - 1)) {
    throw new RangeError(`The value of "size" is out of range. It must be >= 0 && <= 2147483647. Received ${size}`);
  }
  return callback(cb, () => fillRandom(Buffer.alloc(size)));
}

export function randomFillSync(buf, offset = 0, size) {
  const bytes = new Uint8Array(buf.buffer || buf, buf.byteOffset || 0, buf.byteLength);
  fillRandom(bytes.subarray(offset, size === undefined ? undefined : offset + size));
  return buf;
}

export function randomFill(buf, offset, size, cb) {
  if (typeof offset === 'function') return callback(offset, () => randomFillSync(buf));
  if (typeof size === 'function') return callback(size, () => randomFillSync(buf, offset));
  return callback(cb, () => randomFillSync(buf, offset, size));
}

// Uniform over [min, max), by rejecting the draws past the last whole range.
export function randomInt(min, max, cb) {
  if (typeof max !== 'number' || typeof max === 'function') {
    cb = max;
    max = min;
    min = 0;
  }
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max <= min || max - min > 2 ** 48) {
    throw new RangeError(`randomInt needs safe integers with min < max and max - min <= 2**48 (got ${min}, ${max})`);
  }
  return callback(cb, () => {
    const range = max - min;
    const limit = 2 ** 48 - (2 ** 48 % range);
    const six = new Uint8Array(6);
    for (;;) {
      fillRandom(six);
      const n = six.reduce((acc, b) => acc * 256 + b, 0);
      if (n < limit) return min + (n % range);
    }
  });
}

const HASHES = { md5: 'MD5', sha1: 'SHA-1', sha224: 'SHA-224', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };
function hashName(algorithm) {
  const name = HASHES[String(algorithm).toLowerCase().replace(/^rsa-/, '').replace('-', '')];
  if (name === undefined) {
    throw new Error(`Digest method not supported: ${algorithm} (ssr provides ${Object.keys(HASHES).join(', ')})`);
  }
  return name;
}

function bytesOf(data, encoding) {
  if (typeof data === 'string') return Buffer.from(data, encoding);
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError(`The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${data === null ? 'null' : typeof data}`);
}

// The input is kept (copied: the caller may reuse its buffer) until
// digest(): the host hashes it in one call.
class Digest {
  update(data, encoding) {
    if (this._done) throw new Error('Digest already called');
    this._parts.push(Uint8Array.prototype.slice.call(bytesOf(data, encoding)));
    return this;
  }
  digest(encoding) {
    if (this._done) throw new Error('Digest already called');
    this._done = true;
    const all = Buffer.concat(this._parts);
    this._parts = [];
    const out = Buffer.from(this._key === null ? node.digest(this._name, all) : node.hmac(this._name, this._key, all));
    return encoding === undefined || encoding === 'buffer' ? out : out.toString(encoding);
  }
}

function start(d, algorithm, key) {
  d._algorithm = algorithm;
  d._name = hashName(algorithm);
  d._key = key;
  d._parts = [];
  d._done = false;
  return d;
}

// Functions, as Node's are: callable without `new`.
export function Hash(algorithm) {
  if (!new.target) return new Hash(algorithm);
  start(this, algorithm, null);
}
Object.setPrototypeOf(Hash.prototype, Digest.prototype);
Hash.prototype.copy = function () {
  if (this._done) throw new Error('Digest already called');
  const h = new Hash(this._algorithm);
  h._parts = this._parts.slice();
  return h;
};

export function Hmac(algorithm, key, options) {
  if (!new.target) return new Hmac(algorithm, key, options);
  const k = key && typeof key === 'object' && key.type === 'secret' && typeof key.export === 'function' ? key.export() : key;
  start(this, algorithm, Uint8Array.from(bytesOf(k, options && options.encoding)));
}
Object.setPrototypeOf(Hmac.prototype, Digest.prototype);

export function createHash(algorithm) {
  return new Hash(algorithm);
}

export function createHmac(algorithm, key, options) {
  return new Hmac(algorithm, key, options);
}

// Node 21's one-shot form.
export function hash(algorithm, data, outputEncoding = 'hex') {
  return createHash(algorithm).update(data).digest(outputEncoding);
}

export function timingSafeEqual(a, b) {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x.length !== y.length) {
    const err = new RangeError('Input buffers must have the same byte length');
    err.code = 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH';
    throw err;
  }
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

export const getHashes = () => Object.keys(HASHES);
export const getCiphers = () => [];
export const getCurves = () => [];
export const constants = Object.freeze({});

export default {
  webcrypto, subtle, getRandomValues, randomUUID, randomBytes, randomFillSync, randomFill, randomInt,
  createHash, createHmac, hash, Hash, Hmac, timingSafeEqual, getHashes, getCiphers, getCurves, constants,
};
