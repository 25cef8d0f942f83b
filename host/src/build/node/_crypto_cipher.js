// `node:crypto`'s ciphers (crypto.js re-exports them): Cipheriv and
// Decipheriv (Transform streams, as Node's), getCiphers/getCipherInfo, and
// RSA's publicEncrypt, privateDecrypt, privateEncrypt and publicDecrypt.
//
// The ciphers are `workerd`'s: AES-128/192/256 in CBC, ECB, CTR, OFB and
// GCM, and ChaCha20-Poly1305. The host runs each step (web/crypto/node.rs)
// and keeps nothing; a cipher here keeps its stream's state between
// steps: the bytes short of a block, CBC's chaining block, the keystream
// position, OFB's feedback block, and for GCM the ciphertext its tag
// covers. CBC and ECB pad with PKCS #7 here. ChaCha20-Poly1305 takes one
// update, as `workerd`'s (its AEAD seals or opens a whole message).
import { Buffer } from './buffer.js';
import { Transform } from './stream.js';
import { StringDecoder } from './string_decoder.js';
import { codedError, invalidArgType, invalidArgValue, validateString } from './_errors.js';
import { KeyObject, bytesOf, createSecretKey, hostCall, invalidKeyType, keyArgument, keyState, sameBytes, secretOf } from './_crypto_keys.js';

const node = globalThis.__ssr.node;

// name: [mode, key bytes, IV bytes, block size, OpenSSL's nid].
const CIPHERS = {};
for (const [bits, nids] of [[128, [418, 419, 904, 420, 895]], [192, [422, 423, 905, 424, 898]], [256, [426, 427, 906, 428, 901]]]) {
  ['ecb', 'cbc', 'ctr', 'ofb', 'gcm'].forEach((mode, i) => {
    const stream = mode === 'ctr' || mode === 'ofb' || mode === 'gcm';
    CIPHERS[`aes-${bits}-${mode}`] = [mode, bits / 8, mode === 'ecb' ? 0 : mode === 'gcm' ? 12 : 16, stream ? 1 : 16, nids[i]];
  });
}
CIPHERS['chacha20-poly1305'] = ['chacha20-poly1305', 32, 12, 1, 1018];

export const getCiphers = () => Object.keys(CIPHERS).sort();

export function getCipherInfo(nameOrNid, options = {}) {
  if (typeof nameOrNid !== 'string' && typeof nameOrNid !== 'number') throw invalidArgType('nameOrNid', 'of type string or number', nameOrNid);
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const name = typeof nameOrNid === 'string' ? nameOrNid.toLowerCase() : Object.keys(CIPHERS).find((n) => CIPHERS[n][4] === nameOrNid);
  const c = CIPHERS[name];
  if (c === undefined) return undefined;
  const [mode, keyLength, ivLength, blockSize, nid] = c;
  const { keyLength: k, ivLength: iv } = options;
  if (k !== undefined && k !== keyLength) return undefined;
  if (iv !== undefined && (mode === 'gcm' ? !(iv >= 1) : iv !== ivLength)) return undefined;
  // AES's names as BoringSSL gives them (`workerd`), in capitals.
  const info = { name: mode === 'chacha20-poly1305' ? name : name.toUpperCase(), nid, blockSize, ivLength: iv ?? ivLength, keyLength, mode: mode === 'chacha20-poly1305' ? 'stream' : mode };
  return info;
}

const finalized = () => new Error('Cipher/decipher context has already been finalized');

// The key of a cipher: a secret key object or CryptoKey, or its bytes.
function secretKey(key) {
  if (key instanceof KeyObject) return secretOf(key);
  const state = node.keyOf(key);
  if (state !== undefined) {
    if (state.type !== 'secret') throw invalidKeyType(state.type, 'secret');
    return Uint8Array.from(state.material);
  }
  if (typeof key === 'string' || ArrayBuffer.isView(key) || key instanceof ArrayBuffer) return secretOf(createSecretKey(key));
  throw invalidArgType('key', 'of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey', key);
}

const kState = Symbol('kHandle');

function start(cipher, encrypt, algorithm, key, iv, options) {
  validateString(algorithm, 'algorithm');
  const spec = CIPHERS[algorithm.toLowerCase()];
  if (spec === undefined) throw new Error(`Unknown cipher: ${algorithm}`);
  const [mode, keyLength, ivLength] = spec;
  const k = secretKey(key);
  if (iv !== null && typeof iv !== 'string' && !ArrayBuffer.isView(iv) && !(iv instanceof ArrayBuffer)) {
    throw invalidArgType('iv', 'of type string or an instance of Buffer, TypedArray, DataView, or null', iv);
  }
  // Copied now: changing the caller's buffer later changes nothing.
  const v = iv === null ? new Uint8Array(0) : bytesOf(iv, 'utf8', 'iv');
  if (k.length !== keyLength) throw new Error('Invalid key length');
  const ivOk = mode === 'gcm' ? v.length >= 1 : v.length === ivLength;
  if (!ivOk) throw new Error('Invalid initialization vector');
  const o = options === undefined ? {} : options;
  let tagLength = o.authTagLength;
  if (tagLength !== undefined && (typeof tagLength !== 'number' || !Number.isInteger(tagLength) || tagLength < 1 || tagLength > 16)) {
    throw invalidArgValue('options.authTagLength', tagLength);
  }
  Transform.call(cipher, o);
  cipher[kState] = {
    encrypt, mode, key: k, iv: v, chain: v, position: 0, pending: new Uint8Array(0), padding: true,
    aad: new Uint8Array(0), ofbUsed: 16, tagLength, tag: null, texts: [], updated: false, done: false, decoder: null,
  };
}

export function Cipheriv(algorithm, key, iv, options) {
  if (!new.target) return new Cipheriv(algorithm, key, iv, options);
  start(this, true, algorithm, key, iv, options);
}
export function Decipheriv(algorithm, key, iv, options) {
  if (!new.target) return new Decipheriv(algorithm, key, iv, options);
  start(this, false, algorithm, key, iv, options);
}
for (const C of [Cipheriv, Decipheriv]) {
  Object.setPrototypeOf(C.prototype, Transform.prototype);
  Object.setPrototypeOf(C, Transform);
}

export const createCipheriv = (algorithm, key, iv, options) => new Cipheriv(algorithm, key, iv, options);
export const createDecipheriv = (algorithm, key, iv, options) => new Decipheriv(algorithm, key, iv, options);

// One host step: `mode` over `data` with this state's key.
function step(s, mode, iv, data, extra = {}) {
  const args = Object.assign({ op: 'nodeCipher', mode, encrypt: s.encrypt, position: s.position }, extra);
  return hostCall(args, [s.key, iv, data, s.aad, s.tag || new Uint8Array(0)]).data;
}

const join = (a, b) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

// The bytes an update gives, and the state after it.
function run(s, data) {
  switch (s.mode) {
    case 'ecb':
    case 'cbc': {
      const all = join(s.pending, data);
      let keep = all.length % 16;
      // A decipher that unpads holds back its last block until final().
      if (keep === 0 && !s.encrypt && s.padding && all.length > 0) keep = 16;
      const whole = all.subarray(0, all.length - keep);
      s.pending = all.slice(all.length - keep);
      if (whole.length === 0) return new Uint8Array(0);
      const out = step(s, s.mode, s.chain, whole);
      s.chain = (s.encrypt ? out : whole).slice(-16);
      return out;
    }
    case 'ofb': {
      const out = step(s, 'ofb', s.chain, data, { position: s.ofbUsed });
      s.chain = out.slice(out.length - 16);
      if (data.length > 0) s.ofbUsed = ((s.ofbUsed + data.length - 1) % 16) + 1;
      return out.subarray(0, out.length - 16);
    }
    default: {
      // ctr, gcm: a keystream at a position.
      const out = step(s, s.mode, s.iv, data);
      s.position += data.length;
      if (s.mode === 'gcm') s.texts.push(s.encrypt ? out : data);
      return out;
    }
  }
}

function encodedOut(s, bytes, encoding) {
  const out = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (encoding === undefined || encoding === 'buffer') return out;
  if (s.decoder === null || s.decoder.encoding !== encoding) {
    s.decoder = new StringDecoder(encoding);
    s.decoder.encoding = encoding;
  }
  return s.decoder.write(out);
}

function update(data, inputEncoding, outputEncoding) {
  const s = this[kState];
  if (s.done) throw finalized();
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) throw invalidArgType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  const bytes = bytesOf(data, typeof data === 'string' ? inputEncoding || 'utf8' : undefined);
  if (s.mode === 'chacha20-poly1305') {
    if (s.updated) throw new Error('update() can only be invoked once on an AEAD');
    if (!s.encrypt && s.tag === null) throw new Error('No auth tag provided');
    s.updated = true;
    const out = step(s, s.mode, s.iv, bytes, { length: s.tagLength || 16 });
    if (s.encrypt) {
      s.tag = out.slice(out.length - (s.tagLength || 16));
      return encodedOut(s, out.subarray(0, bytes.length), outputEncoding);
    }
    return encodedOut(s, out, outputEncoding);
  }
  s.updated = true;
  return encodedOut(s, run(s, bytes), outputEncoding);
}

// PKCS #7: a block's last byte says how many bytes of padding it ends
// with, each of that value.
function unpad(block) {
  const n = block[15];
  if (n < 1 || n > 16 || block.subarray(16 - n).some((b) => b !== n)) throw new Error('bad decrypt');
  return block.subarray(0, 16 - n);
}

function final(outputEncoding) {
  const s = this[kState];
  if (s.done) throw finalized();
  s.done = true;
  let out = new Uint8Array(0);
  if (s.mode === 'ecb' || s.mode === 'cbc') {
    if (s.encrypt && s.padding) {
      const n = 16 - (s.pending.length % 16);
      const padded = join(s.pending, new Uint8Array(n).fill(n));
      s.pending = new Uint8Array(0);
      out = run(s, padded);
    } else if (s.pending.length !== (s.encrypt || !s.padding ? 0 : 16)) {
      throw new Error('wrong final block length');
    } else if (!s.encrypt && s.padding) {
      const last = s.pending;
      s.pending = new Uint8Array(0);
      out = unpad(step(s, s.mode, s.chain, last));
    }
  } else if (s.mode === 'gcm') {
    const length = s.encrypt ? s.tagLength || 16 : s.tag === null ? 16 : s.tag.length;
    if (!s.encrypt && s.tag === null) throw new Error('Unsupported state or unable to authenticate data');
    const tag = step(s, 'gcmTag', s.iv, Buffer.concat(s.texts), { length });
    s.texts = [];
    if (s.encrypt) s.tag = tag;
    else if (!sameBytes(tag, s.tag)) throw new Error('Unsupported state or unable to authenticate data');
  }
  const shown = encodedOut(s, out, outputEncoding);
  return typeof shown === 'string' && s.decoder !== null ? shown + s.decoder.end() : shown;
}

const AEAD = ['gcm', 'chacha20-poly1305'];

function setAAD(buffer, options) {
  const s = this[kState];
  if (s.done) throw finalized();
  if (!AEAD.includes(s.mode)) throw new Error('Cipher does not support authenticated mode');
  if (s.updated) throw new Error('Failed to set AAD');
  s.aad = bytesOf(buffer, options && options.encoding, 'buffer');
  return this;
}

function setAutoPadding(autoPadding = true) {
  const s = this[kState];
  if (s.done) throw finalized();
  if (s.mode === 'chacha20-poly1305') throw new Error('Setting autopadding is not supported on AEADs');
  s.padding = Boolean(autoPadding);
  return this;
}

const GCM_TAG_LENGTHS = [4, 8, 12, 13, 14, 15, 16];

function setAuthTag(tag, encoding) {
  const s = this[kState];
  if (s.done) throw finalized();
  if (!AEAD.includes(s.mode)) throw new Error('Cipher does not support authenticated mode');
  if (s.tag !== null) throw new Error('Auth tag is already set');
  const t = bytesOf(tag, encoding, 'buffer');
  const valid = s.mode === 'gcm' ? GCM_TAG_LENGTHS.includes(t.length) && (s.tagLength === undefined || s.tagLength === t.length) : t.length === (s.tagLength || 16);
  if (!valid) throw new Error('Invalid authentication tag length');
  s.tag = t;
  return this;
}

function getAuthTag() {
  const s = this[kState];
  if (!AEAD.includes(s.mode)) throw new Error('Cipher does not support authenticated mode');
  if (!s.done) throw new Error('Auth tag is only available once cipher context has been finalized');
  return s.tag === null ? Buffer.alloc(0) : Buffer.from(s.tag);
}

function _transform(chunk, encoding, callback) {
  let out;
  try {
    out = this.update(chunk, encoding === 'buffer' ? undefined : encoding);
  } catch (e) {
    callback(e);
    return;
  }
  if (out.length > 0) this.push(out);
  callback();
}

function _flush(callback) {
  let out;
  try {
    out = this.final();
  } catch (e) {
    callback(e);
    return;
  }
  if (out.length > 0) this.push(out);
  callback();
}

Object.assign(Cipheriv.prototype, { update, final, setAAD, setAutoPadding, getAuthTag, _transform, _flush });
Object.assign(Decipheriv.prototype, { update, final, setAAD, setAutoPadding, setAuthTag, _transform, _flush });

// RSA encryption, as Node's four functions: the key (or an object of it
// with `padding`, `oaepHash`, `oaepLabel`, `encoding`; a key object
// carries them as properties too) and the data.
const RSA_PKCS1_PADDING = 1;
const RSA_PKCS1_OAEP_PADDING = 4;
const OAEP_HASHES = { sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };

function rsaCipher(mode, kind, defaultPadding) {
  const oaep = defaultPadding === RSA_PKCS1_OAEP_PADDING;
  return function (key, buffer) {
    if (key === undefined || buffer === undefined) {
      throw codedError(TypeError, 'ERR_MISSING_ARGS', 'The "key" and "buffer" arguments must be specified');
    }
    const [k, options] = keyArgument(key, kind);
    const from = key instanceof KeyObject ? key : options;
    const padding = from.padding === undefined ? defaultPadding : from.padding;
    const hashName = from.oaepHash === undefined ? 'sha1' : String(from.oaepHash).toLowerCase();
    const hash = OAEP_HASHES[hashName];
    if (hash === undefined) throw new TypeError(`Invalid digest: ${from.oaepHash}`);
    // The label is OAEP's, which only encryption with the public key and
    // decryption with the private one use.
    let label = new Uint8Array(0);
    if (from.oaepLabel !== undefined && from.oaepLabel !== null && oaep) {
      label = bytesOf(from.oaepLabel, undefined, 'key.oaepLabel');
      if (padding !== RSA_PKCS1_OAEP_PADDING && label.length > 0) throw new Error('Failed to set the OAEP label');
    }
    if (keyState(k).shown.type !== 'rsa') throw new Error(`${mode} needs an RSA key`);
    const data = bytesOf(buffer, typeof buffer === 'string' ? from.encoding : undefined, 'buffer');
    const args = { op: 'nodeRsa', mode, kind: keyState(k).type, padding, hash };
    return Buffer.from(hostCall(args, [keyState(k).bytes, data, label]).data);
  };
}

export const publicEncrypt = rsaCipher('publicEncrypt', 'public', RSA_PKCS1_OAEP_PADDING);
export const privateDecrypt = rsaCipher('privateDecrypt', 'private', RSA_PKCS1_OAEP_PADDING);
export const privateEncrypt = rsaCipher('privateEncrypt', 'private', RSA_PKCS1_PADDING);
export const publicDecrypt = rsaCipher('publicDecrypt', 'public', RSA_PKCS1_PADDING);
