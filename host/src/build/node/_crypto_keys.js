// `node:crypto`'s keys (host/src/build/node/crypto.js re-exports them):
// KeyObject and its three kinds, createSecretKey/createPrivateKey/
// createPublicKey, KeyObject.from(CryptoKey), export, and generateKey/
// generateKeyPair. The host reads and writes the formats
// (web/crypto/node.rs) and holds nothing: a key object keeps its canonical
// material (a secret's bytes, PKCS #8, SPKI) and sends it with each call.
//
// The key types are `workerd`'s: rsa, ec (P-256, P-384, P-521), ed25519,
// x25519, and dsa (read, written and measured; not used to sign). The
// messages are `workerd`'s where its tests check them.
import { Buffer } from './buffer.js';
import { codedError, invalidArgType, invalidArgValue, outOfRange, validateFunction, validateString } from './_errors.js';

const node = globalThis.__ssr.node;

// One host call (`op` of web/crypto/node.rs or mod.rs), its failure as
// Node's class: a bound of ssr's is a RangeError, a wrong argument a
// TypeError, a failed decryption stays the OperationError `workerd` throws,
// anything else (a key that does not parse) an Error with the host's words.
export function hostCall(args, parts) {
  try {
    return node.crypto(args, parts);
  } catch (e) {
    const text = String(e && e.message);
    const m = /^(\w*Error): ([\s\S]*)$/.exec(text);
    const [name, message] = m ? [m[1], m[2]] : [e && e.name, text];
    if (name === 'RangeError') throw new RangeError(message);
    if (name === 'TypeError') throw new TypeError(message);
    if (name === 'OperationError' && /^Decryption failed/.test(message)) throw e;
    throw new Error(message);
  }
}

const VIEW = 'an instance of ArrayBuffer, Buffer, TypedArray, or DataView';

// Bytes of a string (in `encoding`), an ArrayBuffer or a view, copied.
export function bytesOf(data, encoding, name = 'data') {
  if (typeof data === 'string') return new Uint8Array(Buffer.from(data, encoding));
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
  if (data instanceof ArrayBuffer) return new Uint8Array(data).slice();
  throw invalidArgType(name, `of type string or ${VIEW}`, data);
}

export const isBytes = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer;

// Whether two byte arrays are the same, in time that depends on their
// length alone.
export function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

// The NIST curves' Web Crypto names (the host's), by Node's (a key's
// `namedCurve` detail).
export const CURVE_OF = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
export const invalidKeyType = (type, expected) =>
  codedError(Error, 'ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE', `Invalid key object type ${type}, expected ${expected}.`);

// A key object's state, under a symbol: its kind, its material, and for an
// asymmetric key its type and details (`shown`); `extractable` is false for
// one made from a CryptoKey that is not (its equality is then unknown).
const kKey = Symbol('kKeyObject');
let making = false;

export class KeyObject {
  constructor(type, handle) {
    if (type !== 'secret' && type !== 'public' && type !== 'private') throw invalidArgValue('type', type);
    if (!making && !(handle instanceof Uint8Array)) throw invalidArgType('handle', 'of type object', handle);
    this[kKey] = { type, bytes: making ? handle : Uint8Array.from(handle), shown: null, extractable: true };
  }
  static from(key) {
    const state = node.keyOf(key);
    if (state === undefined) throw invalidArgType('key', 'an instance of CryptoKey', key);
    const made = state.type === 'secret' ? make(SecretKeyObject, 'secret', Uint8Array.from(state.material)) : asymmetric(state.type, 'der', state.type === 'private' ? 'pkcs8' : 'spki', state.material);
    made[kKey].extractable = state.extractable;
    return made;
  }
  get type() {
    return this[kKey].type;
  }
  equals(other) {
    if (!(other instanceof KeyObject)) throw invalidArgType('otherKeyObject', 'an instance of KeyObject', other);
    const a = this[kKey];
    const b = other[kKey];
    return a.extractable && b.extractable && a.type === b.type && sameBytes(a.bytes, b.bytes);
  }
  toCryptoKey() {
    throw codedError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'The toCryptoKey method is not implemented');
  }
  get [Symbol.toStringTag]() {
    return 'KeyObject';
  }
}

export class SecretKeyObject extends KeyObject {
  constructor(handle) {
    super('secret', handle);
  }
  get symmetricKeySize() {
    return this[kKey].bytes.length;
  }
  export(options) {
    if (options !== undefined && (options === null || typeof options !== 'object')) throw invalidArgType('options', 'of type object', options);
    const format = options && options.format;
    if (format === 'jwk') return { kty: 'oct', ext: true, k: Buffer.from(this[kKey].bytes).toString('base64url') };
    if (format !== undefined && format !== 'buffer') throw invalidArgValue('options.format', format, "must be one of: undefined, 'buffer', 'jwk'");
    return Buffer.from(this[kKey].bytes);
  }
}

class AsymmetricKeyObject extends KeyObject {
  get asymmetricKeyType() {
    return this[kKey].shown.type;
  }
  get asymmetricKeyDetails() {
    const d = this[kKey].shown.details;
    const out = Object.assign({}, d);
    if (typeof d.publicExponent === 'string') out.publicExponent = BigInt(`0x${d.publicExponent}`);
    return out;
  }
  export(options) {
    if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
    const state = this[kKey];
    const { format = 'pem', type, cipher, passphrase } = options;
    if (format === 'jwk') return exportJwk(state);
    if (format !== 'pem' && format !== 'der') throw invalidArgValue('options.format', format, "must be one of: 'pem', 'der', 'jwk'");
    validateString(type, 'options.type');
    const pass = [];
    if (cipher !== undefined) {
      if (state.type !== 'private') throw invalidArgValue('options.cipher', cipher, 'is only for a private key');
      validateString(cipher, 'options.cipher');
      if (passphrase === undefined) throw invalidArgType('options.passphrase', `of type string or ${VIEW}`, passphrase);
      pass.push(bytesOf(passphrase, undefined, 'options.passphrase'));
    }
    const args = { op: 'nodeExport', kind: state.type, format, type, cipher: cipher === undefined ? '' : cipher.toLowerCase() };
    const out = hostCall(args, [state.bytes, ...pass]).data;
    return format === 'pem' ? Buffer.from(out).toString('latin1') : Buffer.from(out);
  }
}

export class PublicKeyObject extends AsymmetricKeyObject {
  constructor(handle) {
    super('public', handle);
  }
}

export class PrivateKeyObject extends AsymmetricKeyObject {
  constructor(handle) {
    super('private', handle);
  }
}

// The bundler may rename a class; Node's names are what apps see.
for (const [C, name] of [[KeyObject, 'KeyObject'], [SecretKeyObject, 'SecretKeyObject'], [PublicKeyObject, 'PublicKeyObject'], [PrivateKeyObject, 'PrivateKeyObject']]) {
  Object.defineProperty(C, 'name', { value: name });
}

function make(Class, type, bytes, shown = null) {
  making = true;
  try {
    const k = new Class(bytes);
    k[kKey].shown = shown;
    return k;
  } finally {
    making = false;
  }
}

// A key the host has read: `{ kind, type, details }` and its DER.
function fromHost(reply) {
  const shown = reply.value;
  return shown.kind === 'private' ? make(PrivateKeyObject, 'private', reply.data, shown) : make(PublicKeyObject, 'public', reply.data, shown);
}

// A `kind` key from its bytes in a format and type, with a passphrase.
function asymmetric(kind, format, type, data, passphrase) {
  const parts = [data];
  if (passphrase !== undefined) parts.push(passphrase);
  return fromHost(hostCall({ op: 'nodeImport', kind, format, type: type || '', hasPassphrase: passphrase !== undefined }, parts));
}

export const isKeyObject = (v) => v instanceof KeyObject;
export const keyState = (k) => k[kKey];

// The Web Crypto algorithm whose JWK export serves each type.
const JWK_ALGORITHM = { rsa: 'RSA-OAEP', ec: 'ECDSA', ed25519: 'Ed25519', x25519: 'X25519' };

function exportJwk(state) {
  const type = state.shown.type;
  if (JWK_ALGORITHM[type] === undefined) throw new Error('Key type is invalid for JWK export');
  const args = { op: 'export', alg: JWK_ALGORITHM[type], curve: CURVE_OF[state.shown.details.namedCurve] || '', kind: state.type, format: 'jwk' };
  const jwk = hostCall(args, [state.bytes]).value;
  if (type === 'ed25519') jwk.alg = 'EdDSA';
  // Node's order of members (a JWK may be stored or compared as text).
  const order = JWK_ORDER[jwk.kty].filter((k) => k in jwk);
  return Object.fromEntries([...order, ...Object.keys(jwk).filter((k) => !order.includes(k))].map((k) => [k, jwk[k]]));
}

const JWK_ORDER = { RSA: ['kty', 'n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'], EC: ['kty', 'x', 'y', 'crv', 'd'], OKP: ['crv', 'd', 'x', 'kty'] };

// What a JWK must have, by its kty, with `workerd`'s messages.
const JWK_MEMBERS = { RSA: [['n', 'e'], ['d', 'p', 'q', 'dp', 'dq', 'qi']], EC: [['crv', 'x', 'y'], ['d']], OKP: [['crv', 'x'], ['d']] };

function jwkKey(jwk, kind) {
  if (jwk === null || typeof jwk !== 'object') throw invalidArgType('key.key', 'of type object', jwk);
  const members = JWK_MEMBERS[jwk.kty];
  if (members === undefined) throw new Error(`JWK ${kind} key import is not implemented for this key type`);
  // `crv` first: it says which members the rest are.
  const needed = kind === 'private' ? [...members[0], ...members[1]] : members[0];
  for (const name of needed) {
    if (typeof jwk[name] !== 'string') throw codedError(TypeError, 'ERR_CRYPTO_INVALID_JWK', `${jwk.kty} JWK missing ${name} parameter`);
  }
  const own = ['kty', ...needed];
  const trimmed = Object.fromEntries(own.map((k) => [k, jwk[k]]));
  return fromHost(hostCall({ op: 'nodeImport', kind, format: 'jwk', jwk: trimmed }, []));
}

// createPrivateKey/createPublicKey's argument: key data, or an object of
// it (`key`) and how to read it. The messages differ by form, as Node's.
function keyInput(input, kind) {
  if (typeof input === 'string' || isBytes(input)) return { data: input, format: 'pem' };
  if (input === null || typeof input !== 'object' || input instanceof KeyObject) {
    throw invalidArgType('options.key', `of type string or ${VIEW}`, input);
  }
  const { key, format = 'pem', type, passphrase, encoding } = input;
  if (format === 'jwk') return { jwk: key, format };
  if (format !== 'pem' && format !== 'der') throw invalidArgValue('options.format', format, "must be one of: 'pem', 'der', 'jwk'");
  if (key instanceof KeyObject || node.keyOf(key) !== undefined) return { keyObject: key };
  if (typeof key !== 'string' && !isBytes(key)) {
    throw invalidArgType('key', `of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, KeyObject, or CryptoKey`, key);
  }
  if (type !== undefined) validateString(type, 'options.type');
  const pass = passphrase === undefined || passphrase === null ? undefined : bytesOf(passphrase, undefined, 'options.passphrase');
  return { data: format === 'der' && typeof key === 'string' ? Buffer.from(key, encoding) : key, format, type, passphrase: pass, kind };
}

export function createPrivateKey(key) {
  const input = keyInput(key, 'private');
  if (input.jwk !== undefined) return jwkKey(input.jwk, 'private');
  if (input.keyObject !== undefined) throw invalidArgType('key', `of type string or ${VIEW}`, input.keyObject);
  return asymmetric('private', input.format, input.type, bytesOf(input.data), input.passphrase);
}

export function createPublicKey(key) {
  // A private key object: its public half.
  const from = key instanceof KeyObject ? key : key && typeof key === 'object' && key.key instanceof KeyObject ? key.key : undefined;
  if (from !== undefined) {
    const state = from[kKey];
    if (state.type === 'secret') throw invalidKeyType('secret', 'private or public');
    if (state.type === 'public') return from;
    return make(PublicKeyObject, 'public', hostCall({ op: 'nodePublic', kind: 'private' }, [state.bytes]).data, Object.assign({}, state.shown, { kind: 'public' }));
  }
  const input = keyInput(key, 'public');
  if (input.jwk !== undefined) return jwkKey(input.jwk, 'public');
  if (input.keyObject !== undefined) return KeyObject.from(input.keyObject);
  return asymmetric('public', input.format, input.type, bytesOf(input.data), input.passphrase);
}

export function createSecretKey(key, encoding) {
  return make(SecretKeyObject, 'secret', bytesOf(key, encoding, 'key'));
}

// A key argument of sign/verify/publicEncrypt...: a key object, a
// CryptoKey, key data, or an object with `key` and options. `kind` is
// what is needed: 'private', or 'public' (a private key gives its public
// half). Returns [key object, options].
export function keyArgument(value, kind) {
  let key = value;
  const options = value !== null && typeof value === 'object' && !isBytes(value) ? value : {};
  if (!(value instanceof KeyObject) && node.keyOf(value) === undefined && options.key !== undefined && !isBytes(value)) key = options.key;
  if (node.keyOf(key) !== undefined) key = KeyObject.from(key);
  if (key instanceof KeyObject) {
    const type = key[kKey].type;
    if (kind === 'private' && type !== 'private') throw invalidKeyType(type, 'private');
    if (type === 'secret') throw invalidKeyType(type, 'private or public');
    return [kind === 'public' ? createPublicKey(key) : key, options];
  }
  const given = key === value ? key : Object.assign({}, options, { key });
  return [kind === 'private' ? createPrivateKey(given) : createPublicKey(given), options];
}

// generateKey: HMAC keys of 8 to 65,536 bits (whole bytes, rounded down)
// and AES keys of 128, 192 or 256.
function secretArguments(type, options) {
  validateString(type, 'type');
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { length } = options;
  if (typeof length !== 'number') throw invalidArgType('options.length', 'of type number', length);
  if (type === 'hmac') {
    if (!Number.isInteger(length) || length < 8 || length > 65536) throw outOfRange('options.length', '>= 8 && <= 65536', length);
  } else if (type === 'aes') {
    if (![128, 192, 256].includes(length)) throw invalidArgValue('options.length', length, 'must be one of: 128, 192, 256');
  } else {
    throw invalidArgValue('type', type, "must be one of: 'hmac', 'aes'");
  }
  return () => {
    const bytes = new Uint8Array(Math.floor(length / 8));
    for (let i = 0; i < bytes.length; i += 65536) globalThis.crypto.getRandomValues(bytes.subarray(i, i + 65536));
    return make(SecretKeyObject, 'secret', bytes);
  };
}

export function generateKeySync(type, options) {
  return secretArguments(type, options)();
}

export function generateKey(type, options, callback) {
  const compute = secretArguments(type, options);
  validateFunction(callback, 'callback');
  later(callback, compute);
}

// A result to its callback on a later turn, as Node's thread pool gives
// it; a failure of the computation goes to the callback too. `spread`:
// the result is the callback's arguments (generateKeyPair's two halves).
export function later(callback, compute, spread = false) {
  let result;
  let failure = null;
  try {
    result = compute();
  } catch (e) {
    failure = e;
  }
  queueMicrotask(() => (failure === null ? callback(null, ...(spread ? result : [result])) : callback(failure)));
}

const uint32 = (v, name) => {
  if (typeof v !== 'number') throw invalidArgType(name, 'of type number', v);
  if (!Number.isInteger(v) || v < 0 || v > 2 ** 32 - 1) throw outOfRange(name, '>= 0 && < 4294967296', v);
};
const int32 = (v, name) => {
  if (typeof v !== 'number') throw invalidArgType(name, 'of type number', v);
  if (!Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1) throw outOfRange(name, '>= 0 && <= 2147483647', v);
};

// Node's curve names, and Web Crypto's, for the NIST curves.
const CURVES = { ...CURVE_OF, secp256r1: 'P-256', 'P-256': 'P-256', 'P-384': 'P-384', 'P-521': 'P-521' };

// generateKeyPair's arguments, checked as `workerd` checks them; returns
// the work, which makes the pair and encodes each half as asked.
function pairArguments(type, options) {
  validateString(type, 'type');
  const o = options === undefined ? {} : options;
  if (o === null || typeof o !== 'object') throw invalidArgType('options', 'of type object', options);
  for (const name of ['publicKeyEncoding', 'privateKeyEncoding']) {
    if (o[name] !== undefined && (o[name] === null || typeof o[name] !== 'object')) throw invalidArgType(`options.${name}`, 'of type object', o[name]);
  }
  let generate;
  switch (type) {
    case 'rsa': {
      uint32(o.modulusLength, 'options.modulusLength');
      const e = o.publicExponent === undefined ? 65537 : o.publicExponent;
      uint32(e, 'options.publicExponent');
      const exponent = [e >>> 24, (e >>> 16) & 255, (e >>> 8) & 255, e & 255];
      generate = () => hostCall({ op: 'nodeGenerateRsa', modulusLength: o.modulusLength, publicExponent: exponent }, []);
      break;
    }
    case 'ec': {
      validateString(o.namedCurve, 'options.namedCurve');
      if (o.paramEncoding !== undefined && o.paramEncoding !== 'named' && o.paramEncoding !== 'explicit') {
        throw invalidArgValue('options.paramEncoding', o.paramEncoding, "must be one of: 'named', 'explicit'");
      }
      const curve = CURVES[o.namedCurve];
      if (curve === undefined) throw new TypeError(`Invalid EC curve name: ${o.namedCurve} (ssr has P-256, P-384 and P-521)`);
      generate = () => hostCall({ op: 'generate', alg: 'ECDSA', curve }, []);
      break;
    }
    case 'ed25519':
    case 'x25519':
      generate = () => hostCall({ op: 'generate', alg: type === 'ed25519' ? 'Ed25519' : 'X25519' }, []);
      break;
    case 'dh': {
      if (o.group !== undefined || o.groupName !== undefined) validateString(o.group ?? o.groupName, 'options.group');
      if (o.prime !== undefined && !isBytes(o.prime)) throw invalidArgType('options.prime', 'an instance of Buffer, TypedArray, or ArrayBuffer', o.prime);
      if (o.primeLength !== undefined) int32(o.primeLength, 'options.primeLength');
      if (o.generator !== undefined) int32(o.generator, 'options.generator');
      if (o.prime !== undefined && o.prime.byteLength > 1024) throw new RangeError('The prime is larger than 8192 bits');
      if (o.primeLength !== undefined) throw new Error('Generating DH keys from a prime length is not yet implemented');
      generate = () => {
        throw codedError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', 'Generating DH key pairs is not implemented');
      };
      break;
    }
    default:
      throw invalidArgValue('type', type, "must be one of: 'rsa', 'ec', 'ed25519', 'x25519', 'dh'");
  }
  return () => {
    const reply = generate();
    const [n] = reply.value.parts;
    const privateKey = asymmetric('private', 'der', 'pkcs8', reply.data.subarray(0, n));
    const publicKey = asymmetric('public', 'der', 'spki', reply.data.subarray(n));
    const encode = (key, encoding) => (encoding === undefined ? key : key.export(encoding));
    return [encode(publicKey, o.publicKeyEncoding), encode(privateKey, o.privateKeyEncoding)];
  };
}

export function generateKeyPairSync(type, options) {
  const [publicKey, privateKey] = pairArguments(type, options)();
  return { publicKey, privateKey };
}

export function generateKeyPair(type, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = undefined;
  }
  validateFunction(callback, 'callback');
  let compute;
  try {
    compute = pairArguments(type, options);
  } catch (e) {
    queueMicrotask(() => callback(e));
    return;
  }
  later(callback, compute, true);
}
// `util.promisify(generateKeyPair)` resolves with both halves, as Node's.
Object.defineProperty(generateKeyPair, Symbol.for('nodejs.util.promisify.custom'), {
  value: (type, options) =>
    new Promise((resolve, reject) => {
      generateKeyPair(type, options, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey })));
    }),
});

// A secret key object's bytes (Hmac, HKDF, ciphers).
export function secretOf(key) {
  const state = key[kKey];
  if (state.type !== 'secret') throw invalidKeyType(state.type, 'secret');
  return state.bytes;
}
