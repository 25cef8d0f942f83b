// `node:crypto`'s signatures (crypto.js re-exports them): Sign and Verify
// (Writable streams, as Node's), createSign/createVerify, and the one-shot
// sign/verify. The host signs (web/crypto/node.rs): RSA with PKCS #1 v1.5
// or PSS (Node's `padding` and `saltLength`), ECDSA in DER or IEEE P1363
// (`dsaEncoding`), Ed25519 (no digest). DSA keys are refused, as on
// `workerd`.
import { Buffer } from './buffer.js';
import { Writable } from './stream.js';
import { invalidArgType, validateFunction, validateString } from './_errors.js';
import { CURVE_OF, bytesOf, hostCall, keyArgument, keyState, later } from './_crypto_keys.js';

// Digest names as Node takes them, by the host's.
const DIGESTS = {
  sha1: 'SHA-1', sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512',
  'rsa-sha1': 'SHA-1', 'rsa-sha256': 'SHA-256', 'rsa-sha384': 'SHA-384', 'rsa-sha512': 'SHA-512',
  'sha-1': 'SHA-1', 'sha-256': 'SHA-256', 'sha-384': 'SHA-384', 'sha-512': 'SHA-512',
  'ecdsa-with-sha1': 'SHA-1', 'dsa-sha1': 'SHA-1',
};

function digestOf(algorithm) {
  const name = DIGESTS[String(algorithm).toLowerCase()];
  if (name === undefined) throw new Error(`Invalid digest: ${algorithm}`);
  return name;
}

// The host's arguments for a key and Node's options: `hash` empty for
// Ed25519, which takes none (and refuses one, as `workerd`).
function signArgs(op, key, algorithm, options) {
  const shown = keyState(key).shown;
  const type = shown.type;
  let hash = '';
  if (type === 'ed25519') {
    if (algorithm !== null && algorithm !== undefined) throw new Error('Failed to set signature digest');
  } else {
    hash = algorithm === null || algorithm === undefined ? 'SHA-256' : digestOf(algorithm);
  }
  const curve = CURVE_OF[shown.details.namedCurve] || '';
  const { padding, saltLength, dsaEncoding = 'der' } = options;
  if (dsaEncoding !== 'der' && dsaEncoding !== 'ieee-p1363') throw invalidArgType('options.dsaEncoding', "one of 'der' or 'ieee-p1363'", dsaEncoding);
  return { op, type, hash, curve, padding: padding === undefined ? 0 : padding, salt: saltLength === undefined ? null : saltLength, dsaEncoding };
}

function output(bytes, encoding) {
  const out = Buffer.from(bytes);
  return encoding === undefined || encoding === 'buffer' ? out : out.toString(encoding);
}

const kState = Symbol('kSignState');

function checkData(data) {
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) {
    throw invalidArgType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  }
}

// Sign and Verify keep what was written until the end, as one host call
// signs it whole.
export function Sign(algorithm, options) {
  if (!new.target) return new Sign(algorithm, options);
  start(this, algorithm, options);
}

function start(stream, algorithm, options) {
  validateString(algorithm, 'algorithm');
  Writable.call(stream, options);
  stream[kState] = { algorithm, parts: [], done: false };
}
Object.setPrototypeOf(Sign.prototype, Writable.prototype);
Object.setPrototypeOf(Sign, Writable);

Sign.prototype._write = function _write(chunk, encoding, callback) {
  this.update(chunk, encoding === 'buffer' ? undefined : encoding);
  callback();
};

Sign.prototype.update = function update(data, encoding) {
  checkData(data);
  this[kState].parts.push(bytesOf(data, encoding));
  return this;
};

Sign.prototype.sign = function sign(privateKey, outputEncoding) {
  const state = this[kState];
  if (privateKey === undefined || privateKey === null) throw new Error('No key provided to sign');
  if (state.done) throw new Error('Signing context has already been finalized');
  const [key, options] = keyArgument(privateKey, 'private');
  const args = signArgs('nodeSign', key, state.algorithm, options);
  state.done = true;
  return output(hostCall(args, [keyState(key).bytes, Buffer.concat(state.parts)]).data, outputEncoding);
};

export function Verify(algorithm, options) {
  if (!new.target) return new Verify(algorithm, options);
  start(this, algorithm, options);
}
Object.setPrototypeOf(Verify.prototype, Writable.prototype);
Object.setPrototypeOf(Verify, Writable);
Verify.prototype._write = Sign.prototype._write;
Verify.prototype.update = Sign.prototype.update;

Verify.prototype.verify = function verify(publicKey, signature, signatureEncoding) {
  const state = this[kState];
  if (publicKey === undefined || publicKey === null) throw new Error('No key provided to sign');
  if (state.done) throw new Error('Verification context has already been finalized');
  const [key, options] = keyArgument(publicKey, 'public');
  const args = signArgs('nodeVerify', key, state.algorithm, options);
  const sig = bytesOf(signature, signatureEncoding, 'signature');
  state.done = true;
  return hostCall(args, [keyState(key).bytes, sig, Buffer.concat(state.parts)]).value;
};

export function createSign(algorithm, options) {
  return new Sign(algorithm, options);
}

export function createVerify(algorithm, options) {
  return new Verify(algorithm, options);
}

// The one-shot forms; with a callback, the result comes on a later turn.
function oneShot(callback, compute) {
  if (callback === undefined) return compute();
  validateFunction(callback, 'callback');
  later(callback, compute);
  return undefined;
}

export function sign(algorithm, data, key, callback) {
  if (algorithm !== null && algorithm !== undefined) validateString(algorithm, 'algorithm');
  checkData(data);
  return oneShot(callback, () => {
    const [k, options] = keyArgument(key, 'private');
    const args = signArgs('nodeSign', k, algorithm, options);
    return Buffer.from(hostCall(args, [keyState(k).bytes, bytesOf(data)]).data);
  });
}

export function verify(algorithm, data, key, signature, callback) {
  if (algorithm !== null && algorithm !== undefined) validateString(algorithm, 'algorithm');
  checkData(data);
  return oneShot(callback, () => {
    const [k, options] = keyArgument(key, 'public');
    const args = signArgs('nodeVerify', k, algorithm, options);
    return hostCall(args, [keyState(k).bytes, bytesOf(signature, undefined, 'signature'), bytesOf(data)]).value;
  });
}
