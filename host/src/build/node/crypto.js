// `node:crypto` as `ssr build` resolves it (build/bundle.rs): random
// bytes; hashes, HMACs, PBKDF2, HKDF and scrypt (computed by the host, as
// crypto.subtle's are); timingSafeEqual and Web Crypto. Key objects are in
// _crypto_keys.js, signatures in _crypto_sign.js, ciphers and RSA
// encryption in _crypto_cipher.js; this module gives them all.
import { Buffer, kMaxLength } from './buffer.js';
import { Transform } from './stream.js';
import { codedError, invalidArgType, invalidArgValue, outOfRange, validateFunction, validateInteger, validateString } from './_errors.js';
import { KeyObject, SecretKeyObject, PublicKeyObject, PrivateKeyObject, createSecretKey, createPrivateKey, createPublicKey, generateKey, generateKeySync, generateKeyPair, generateKeyPairSync, bytesOf, later, sameBytes, secretOf } from './_crypto_keys.js';
import { Sign, Verify, createSign, createVerify, sign, verify } from './_crypto_sign.js';
import { DiffieHellman, DiffieHellmanGroup, ECDH, checkPrime, checkPrimeSync, createDiffieHellman, createDiffieHellmanGroup, createECDH, diffieHellman, generatePrime, generatePrimeSync, getCurves, getDiffieHellman } from './_crypto_dh.js';
import { Cipheriv, Decipheriv, createCipheriv, createDecipheriv, getCipherInfo, getCiphers, publicEncrypt, privateDecrypt, privateEncrypt, publicDecrypt } from './_crypto_cipher.js';
import { Certificate, X509Certificate } from './_crypto_x509.js';

export { KeyObject, SecretKeyObject, PublicKeyObject, PrivateKeyObject, createSecretKey, createPrivateKey, createPublicKey, generateKey, generateKeySync, generateKeyPair, generateKeyPairSync };
export { Sign, Verify, createSign, createVerify, sign, verify };
export { DiffieHellman, DiffieHellmanGroup, ECDH, checkPrime, checkPrimeSync, createDiffieHellman, createDiffieHellmanGroup, createECDH, diffieHellman, generatePrime, generatePrimeSync, getCurves, getDiffieHellman };
export { Cipheriv, Decipheriv, createCipheriv, createDecipheriv, getCipherInfo, getCiphers, publicEncrypt, privateDecrypt, privateEncrypt, publicDecrypt };
export { Certificate, X509Certificate };

const node = globalThis.__ssr.node;

export const webcrypto = globalThis.crypto;
export const subtle = globalThis.crypto.subtle;
export const CryptoKey = globalThis.CryptoKey;
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
  if (max === undefined || typeof max === 'function') {
    cb = max;
    max = min;
    min = 0;
  }
  if (!Number.isSafeInteger(min)) throw invalidArgType('min', 'a safe integer', min);
  if (!Number.isSafeInteger(max)) throw invalidArgType('max', 'a safe integer', max);
  if (max <= min) throw outOfRange('max', `greater than the value of "min" (${min})`, max);
  if (max - min > 2 ** 48) throw outOfRange('max - min', `<= ${2 ** 48}`, max - min);
  if (cb !== undefined) validateFunction(cb, 'callback');
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

// What createHash and the KDFs take (lower case), by the host's name: the
// list `workerd` gives, but for MD4 and MD5-SHA1, which the host has not.
const HASHES = {
  md5: 'MD5', sha1: 'SHA-1', sha224: 'SHA-224', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512',
  'rsa-md5': 'MD5', 'rsa-sha1': 'SHA-1', 'rsa-sha224': 'SHA-224', 'rsa-sha256': 'SHA-256', 'rsa-sha384': 'SHA-384', 'rsa-sha512': 'SHA-512',
  'dsa-sha1': 'SHA-1', 'ecdsa-with-sha1': 'SHA-1',
};
const HASH_NAMES = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'RSA-MD5', 'RSA-SHA1', 'RSA-SHA224', 'RSA-SHA256', 'RSA-SHA384', 'RSA-SHA512', 'DSA-SHA1', 'ecdsa-with-SHA1'];
const SIZES = { MD5: 16, 'SHA-1': 20, 'SHA-224': 28, 'SHA-256': 32, 'SHA-384': 48, 'SHA-512': 64 };
const hostName = (algorithm) => HASHES[String(algorithm).toLowerCase()];

function hashName(algorithm, argument = 'algorithm') {
  validateString(algorithm, argument);
  const name = hostName(algorithm);
  if (name === undefined) throw new Error('Digest method not supported');
  return name;
}

const finalized = () => codedError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');

// A host failure as Node's class: a bound ssr keeps is a RangeError, an
// unknown algorithm a TypeError.
function hostError(e) {
  const Kind = e.name === 'RangeError' ? RangeError : e.name === 'NotSupportedError' ? TypeError : Error;
  return new Kind(e.message);
}

// What update() and hash() take: text or a view, not an ArrayBuffer.
function checkData(data) {
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) throw invalidArgType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

// The host's derivation (`args.alg`), its failure as Node's class.
function derive(args, parts) {
  try {
    return node.derive(args, parts);
  } catch (e) {
    throw hostError(e);
  }
}

function encoded(out, encoding) {
  if (encoding === undefined || encoding === 'buffer') return out;
  return out.toString(typeof encoding === 'string' ? encoding : String(encoding));
}

// The hashing state, under a symbol named as Node's (`kHandle`): the
// parts hashed, and once `digest()` ran on it, the digest, kept (the
// stream's end computes it, and a later `hash.digest()` gives it).
const kState = Symbol('kHandle');
const kAlgorithm = Symbol('kAlgorithm');
const kDone = Symbol('kFinalized');
class Handle {
  constructor(name, key, parts) {
    this.name = name;
    this.key = key;
    this.parts = parts;
    this.result = null;
  }
  update(bytes) {
    this.parts.push(bytes);
  }
  digest() {
    if (this.result === null) {
      const all = Buffer.concat(this.parts);
      this.parts = [];
      this.result = Buffer.from(this.key === null ? node.digest(this.name, all) : node.hmac(this.name, this.key, all));
    }
    return this.result;
  }
}

// Hash and Hmac are Transform streams, as Node's are: written data is
// hashed, and the digest is read when the stream ends. The input is kept
// (copied: the caller may reuse its buffer) until digest(): the host
// hashes it in one call.
export function Hash(algorithm, options) {
  if (!new.target) return new Hash(algorithm, options);
  const name = hashName(algorithm);
  if (options && options.outputLength !== undefined) {
    validateInteger(options.outputLength, 'options.outputLength', 0, 2 ** 32 - 1);
    if (options.outputLength !== SIZES[name]) throw new Error(`Output length ${options.outputLength} is invalid for ${algorithm}, which does not support XOF`);
  }
  start(this, algorithm, new Handle(name, null, []), options);
}
Object.setPrototypeOf(Hash.prototype, Transform.prototype);
Object.setPrototypeOf(Hash, Transform);

// A Hash's or an Hmac's stream and state.
function start(h, algorithm, handle, options) {
  Transform.call(h, options);
  h[kState] = handle;
  h[kAlgorithm] = algorithm;
  h[kDone] = false;
}

Hash.prototype.update = function update(data, encoding) {
  if (this[kDone]) throw finalized();
  checkData(data);
  this[kState].update(bytesOf(data, encoding));
  return this;
};

Hash.prototype.digest = function digest(encoding) {
  if (this[kDone]) throw finalized();
  const shown = encoding === undefined ? undefined : String(encoding);
  this[kDone] = true;
  return encoded(this[kState].digest(), shown);
};

Hash.prototype.copy = function copy(options) {
  if (this[kDone]) throw finalized();
  const state = this[kState];
  if (state.result !== null) throw codedError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'The hash has already been finalized');
  const h = new Hash(this[kAlgorithm], options);
  h[kState].parts = state.parts.slice();
  return h;
};

Hash.prototype._transform = function (chunk, encoding, callback) {
  this.update(chunk, encoding === 'buffer' ? undefined : encoding);
  callback();
};

Hash.prototype._flush = function (callback) {
  this.push(this[kState].digest());
  callback();
};

export function Hmac(algorithm, key, options) {
  if (!new.target) return new Hmac(algorithm, key, options);
  const name = hashName(algorithm, 'hmac');
  const k = key instanceof KeyObject ? secretOf(key) : bytesOf(key, options && options.encoding, 'key');
  start(this, algorithm, new Handle(name, Uint8Array.from(k), []), options);
}
Object.setPrototypeOf(Hmac.prototype, Transform.prototype);
Object.setPrototypeOf(Hmac, Transform);
Hmac.prototype.update = Hash.prototype.update;
Hmac.prototype._transform = Hash.prototype._transform;
Hmac.prototype._flush = Hash.prototype._flush;
// A second digest() is empty, as Node's.
Hmac.prototype.digest = function digest(encoding) {
  const shown = encoding === undefined ? undefined : String(encoding);
  const out = this[kDone] ? Buffer.alloc(0) : this[kState].digest();
  this[kDone] = true;
  return encoded(out, shown);
};

export function createHash(algorithm, options) {
  return new Hash(algorithm, options);
}

export function createHmac(algorithm, key, options) {
  return new Hmac(algorithm, key, options);
}

// Node 21's one-shot form.
export function hash(algorithm, data, outputEncoding = 'hex') {
  validateString(algorithm, 'algorithm');
  checkData(data);
  validateString(outputEncoding, 'outputEncoding');
  return createHash(algorithm).update(data).digest(outputEncoding);
}

function pbkdf2Arguments(password, salt, iterations, keylen, digest) {
  validateString(digest, 'digest');
  const pass = bytesOf(password, undefined, 'password');
  const s = bytesOf(salt, undefined, 'salt');
  validateInteger(iterations, 'iterations', 1, 2 ** 31 - 1);
  validateInteger(keylen, 'keylen', 0, 2 ** 31 - 1);
  return () => {
    const name = hostName(digest);
    if (name === undefined) throw new TypeError(`Invalid Pbkdf2 digest: ${digest}.`);
    if (keylen > 255 * SIZES[name]) throw new RangeError('Pbkdf2 failed: derived key length exceeds maximum for this hash');
    return Buffer.from(derive({ alg: 'PBKDF2', hash: name, iterations, length: keylen * 8 }, [pass, s, new Uint8Array(0)]));
  };
}

export function pbkdf2Sync(password, salt, iterations, keylen, digest) {
  return pbkdf2Arguments(password, salt, iterations, keylen, digest)();
}

export function pbkdf2(password, salt, iterations, keylen, digest, callback) {
  if (typeof digest === 'function') {
    callback = digest;
    digest = undefined;
  }
  const compute = pbkdf2Arguments(password, salt, iterations, keylen, digest);
  validateFunction(callback, 'callback');
  later(callback, compute);
}

function hkdfArguments(digest, ikm, salt, info, keylen) {
  validateString(digest, 'digest');
  const key = ikm instanceof KeyObject ? secretOf(ikm) : bytesOf(ikm, undefined, 'ikm');
  const s = bytesOf(salt, undefined, 'salt');
  const i = bytesOf(info, undefined, 'info');
  validateInteger(keylen, 'length', 0, kMaxLength);
  if (i.byteLength > 1024) throw outOfRange('info', 'must not contain more than 1024 bytes', i.byteLength);
  return () => {
    const name = hostName(digest);
    if (name === undefined) throw new TypeError(`Invalid Hkdf digest: ${digest}`);
    if (keylen > 255 * SIZES[name]) throw new RangeError('Invalid Hkdf key length');
    const out = derive({ alg: 'HKDF', hash: name, length: keylen * 8 }, [key, s, i]);
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
  };
}

export function hkdfSync(digest, ikm, salt, info, keylen) {
  return hkdfArguments(digest, ikm, salt, info, keylen)();
}

export function hkdf(digest, ikm, salt, info, keylen, callback) {
  const compute = hkdfArguments(digest, ikm, salt, info, keylen);
  validateFunction(callback, 'callback');
  later(callback, compute);
}

// scrypt's options, with Node's long names as aliases of N, r and p (one
// of each pair at most) and its defaults.
function scryptArguments(password, salt, keylen, options) {
  const pass = bytesOf(password, undefined, 'password');
  const s = bytesOf(salt, undefined, 'salt');
  validateInteger(keylen, 'keylen', 0, 2 ** 31 - 1);
  const o = options === undefined || options === null ? {} : options;
  if (typeof o !== 'object') throw invalidArgType('options', 'of type object', options);
  const pick = (short, long, fallback) => {
    if (o[short] !== undefined && o[long] !== undefined) throw invalidArgValue(`options.${short}`, o[short], `cannot be given with options.${long}`);
    const v = o[short] ?? o[long] ?? fallback;
    validateInteger(v, short, 0, 2 ** 32 - 1);
    return v;
  };
  const cost = pick('N', 'cost', 16384);
  const blockSize = pick('r', 'blockSize', 8);
  const parallelization = pick('p', 'parallelization', 1);
  const maxmem = o.maxmem === undefined ? 32 << 20 : o.maxmem;
  validateInteger(maxmem, 'maxmem', 0);
  return () => Buffer.from(derive({ alg: 'scrypt', cost, blockSize, parallelization, maxmem, length: keylen * 8 }, [pass, s]));
}

export function scryptSync(password, salt, keylen, options) {
  return scryptArguments(password, salt, keylen, options)();
}

export function scrypt(password, salt, keylen, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = undefined;
  }
  const compute = scryptArguments(password, salt, keylen, options);
  validateFunction(callback, 'callback');
  later(callback, compute);
}

export function timingSafeEqual(a, b) {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x.length !== y.length) {
    const err = new RangeError('Input buffers must have the same byte length');
    err.code = 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH';
    throw err;
  }
  return sameBytes(x, y);
}

export const getHashes = () => HASH_NAMES.slice();

// As `workerd` answers: FIPS mode on (its BoringSSL's), no secure heap,
// and `pseudoRandomBytes` the same function as `randomBytes`.
export const getFips = () => true;
export const secureHeapUsed = () => ({ total: 0, used: 0, utilization: 0, min: 0 });
export const pseudoRandomBytes = randomBytes;
// OpenSSL's constants as `workerd` gives them: read-only, not enumerable,
// on an object with no prototype.
export const constants = Object.create(null);
for (const [name, value] of Object.entries({
  DH_CHECK_P_NOT_SAFE_PRIME: 2, DH_CHECK_P_NOT_PRIME: 1, DH_UNABLE_TO_CHECK_GENERATOR: 4,
  DH_NOT_SUITABLE_GENERATOR: 8, RSA_PKCS1_PADDING: 1, RSA_NO_PADDING: 3, RSA_PKCS1_OAEP_PADDING: 4,
  RSA_X931_PADDING: 5, RSA_PKCS1_PSS_PADDING: 6, RSA_PSS_SALTLEN_DIGEST: -1, RSA_PSS_SALTLEN_MAX_SIGN: -2,
  RSA_PSS_SALTLEN_AUTO: -2, POINT_CONVERSION_COMPRESSED: 2, POINT_CONVERSION_UNCOMPRESSED: 4,
  POINT_CONVERSION_HYBRID: 6, OPENSSL_VERSION_NUMBER: 0, SSL_OP_ALL: 2147485776,
  SSL_OP_ALLOW_NO_DHE_KEX: 1024, SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION: 262144,
  SSL_OP_CIPHER_SERVER_PREFERENCE: 4194304, SSL_OP_CISCO_ANYCONNECT: 32768, SSL_OP_COOKIE_EXCHANGE: 8192,
  SSL_OP_CRYPTOPRO_TLSEXT_BUG: 2147483648, SSL_OP_DONT_INSERT_EMPTY_FRAGMENTS: 2048,
  SSL_OP_LEGACY_SERVER_CONNECT: 4, SSL_OP_NO_COMPRESSION: 131072, SSL_OP_NO_ENCRYPT_THEN_MAC: 524288,
  SSL_OP_NO_QUERY_MTU: 4096, SSL_OP_NO_RENEGOTIATION: 1073741824,
  SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION: 65536, SSL_OP_NO_SSLv2: 0, SSL_OP_NO_SSLv3: 33554432,
  SSL_OP_NO_TICKET: 16384, SSL_OP_NO_TLSv1: 67108864, SSL_OP_NO_TLSv1_1: 268435456,
  SSL_OP_NO_TLSv1_2: 134217728, SSL_OP_NO_TLSv1_3: 536870912, SSL_OP_PRIORITIZE_CHACHA: 2097152,
  SSL_OP_TLS_ROLLBACK_BUG: 8388608, ENGINE_METHOD_RSA: 1, ENGINE_METHOD_DSA: 2, ENGINE_METHOD_DH: 4,
  ENGINE_METHOD_RAND: 8, ENGINE_METHOD_EC: 2048, ENGINE_METHOD_CIPHERS: 64, ENGINE_METHOD_DIGESTS: 128,
  ENGINE_METHOD_PKEY_METHS: 512, ENGINE_METHOD_PKEY_ASN1_METHS: 1024, ENGINE_METHOD_ALL: 65535,
  ENGINE_METHOD_NONE: 0, defaultCoreCipherList: "", TLS1_VERSION: 769, TLS1_1_VERSION: 770,
  TLS1_2_VERSION: 771, TLS1_3_VERSION: 772, defaultCipherList: "",
})) {
  Object.defineProperty(constants, name, { value, enumerable: false, writable: false, configurable: false });
}

export default {
  webcrypto, subtle, CryptoKey, getRandomValues, randomUUID, randomBytes, randomFillSync, randomFill, randomInt,
  createHash, createHmac, hash, Hash, Hmac, timingSafeEqual, getHashes, getCiphers, getCurves, constants,
  getFips, secureHeapUsed, pseudoRandomBytes,
  KeyObject, SecretKeyObject, PublicKeyObject, PrivateKeyObject, createSecretKey, createPrivateKey, createPublicKey,
  generateKey, generateKeySync, generateKeyPair, generateKeyPairSync, Sign, Verify, createSign, createVerify, sign, verify,
  Cipheriv, Decipheriv, createCipheriv, createDecipheriv, getCipherInfo, publicEncrypt, privateDecrypt, privateEncrypt, publicDecrypt,
  DiffieHellman, DiffieHellmanGroup, ECDH, checkPrime, checkPrimeSync, createDiffieHellman, createDiffieHellmanGroup, createECDH,
  diffieHellman, generatePrime, generatePrimeSync, getDiffieHellman,
  pbkdf2, pbkdf2Sync, hkdf, hkdfSync, scrypt, scryptSync, Certificate, X509Certificate,
};
