// `node:crypto`'s Diffie-Hellman (crypto.js re-exports it): DiffieHellman
// and DiffieHellmanGroup over a prime (RFC 3526's groups modp14 to modp18,
// the ones `workerd` has), ECDH on raw keys (createECDH, ECDH.convertKey),
// diffieHellman() on key objects, and generatePrime/checkPrime. The host
// does the arithmetic (web/crypto/dh.rs, ec.rs); the objects here keep the
// prime, generator and keys as bytes.
import { Buffer } from './buffer.js';
import { codedError, invalidArgType, invalidArgValue, outOfRange, validateFunction, validateString } from './_errors.js';
import { CURVE_OF, KeyObject, hostCall, isBytes, keyState, later } from './_crypto_keys.js';

// RFC 3526's MODP groups (generator 2): for n bits and its k, the prime
// 2^n - 2^(n-64) - 1 + 2^64 (floor(2^(n-130) pi) + k). PI is
// floor(2^8062 pi), in hex; a shorter group's term is its leading bits.
const PI =
  'c90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b' +
  '302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7edee386bfb5a899fa5' +
  'ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f83655d23dca3ad96' +
  '1c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3be39e772c180e8603' +
  '9b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa051015728e5a8aaac42d' +
  'ad33170d04507a33a85521abdf1cba64ecfb850458dbef0a8aea71575d060c7db3970f85a6e1e4c7abf5ae8cdb0933d7' +
  '1e8c94e04a25619dcee3d2261ad2ee6bf12ffa06d98a0864d87602733ec86a64521f2b18177b200cbbe117577a615d6c' +
  '770988c0bad946e208e24fa074e5ab3143db5bfce0fd108e4b82d120a92108011a723c12a787e6d788719a10bdba5b26' +
  '99c327186af4e23c1a946834b6150bda2583e9ca2ad44ce8dbbbc2db04de8ef92e8efc141fbecaa6287c59474e6bc05d' +
  '99b2964fa090c3a2233ba186515be7ed1f612970cee2d7afb81bdd762170481cd0069127d5b05aa993b4ea988d8fddc1' +
  '86ffb7dc90a6c08f4df435c93402849236c3fab4d27c7026c1d4dcb2602646dec9751e763dba37bdf8ff9406ad9e530e' +
  'e5db382f413001aeb06a53ed9027d831179727b0865a8918da3edbebcf9b14ed44ce6cbaced4bb1bdb7f1447e6cc254b' +
  '332051512bd7af426fb8f401378cd2bf5983ca01c64b92ecf032ea15d1721d03f482d7ce6e74fef6d55e702f46980c82' +
  'b5a84031900b1c9e59e7c97fbec7e8f323a97a7e36cc88be0f1d45b7ff585ac54bd407b22b4154aacc8f6d7ebf48e1d8' +
  '14cc5ed20f8037e0a79715eef29be32806a1d58bb7c5da76f550aa3d8a1fbff0eb19ccb1a313d55cda56c9ec2ef29632' +
  '387fe8d76e3c0468043e8f663f4860ee12bf2d5b0b7474d6e694f91e6dbe115974a3926f12fee5e438777cb6a932df8c' +
  'd8bec4d073b931ba3bc832b68d9dd300741fa7bf8afc47ed2576f6936ba424663aab639c5ae4f5683423b4742bf1c978' +
  '238f16cbe39d652de3fdb8befc848ad922222e04a4037c0713eb57a81a23f0c73473fc646cea306b4bcbc8862f8385dd' +
  'fa9d4b7fa2c087e879683303ed5bdd3a062b3cf5b3a278a66d2a13f83f44f82ddf310ee074ab6a364597e899a0255dc1' +
  '64f31cc50846851df9ab48195ded7ea1b1d510bd7ee74d73faf36bc31ecfa268359046f4eb879f924009438b481c6cd7' +
  '889a002ed5ee382bc9190da6fc026e479558e4475677e9aa9e3050e2765694dfc81f56e880b96e7160c980dd98a573ea';
const GROUP_SIZES = { modp14: [2048, 124476], modp15: [3072, 1690314], modp16: [4096, 240904], modp17: [6144, 929484], modp18: [8192, 4743158] };

function groupPrime(name) {
  const [n, k] = GROUP_SIZES[name];
  const bits = BigInt(n);
  const p = (1n << bits) - (1n << (bits - 64n)) - 1n + (((BigInt(`0x${PI}`) >> BigInt(8192 - n)) + BigInt(k)) << 64n);
  return new Uint8Array(Buffer.from(p.toString(16), 'hex'));
}

const bytes = (v) => (ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v));

// Bytes from a string in `encoding` ('buffer' or none: UTF-8, as Node
// reads a string there), or from a buffer.
function input(value, encoding, name) {
  if (typeof value === 'string') return new Uint8Array(Buffer.from(value, encoding === 'buffer' ? undefined : encoding));
  if (isBytes(value)) return bytes(value).slice();
  throw invalidArgType(name, 'of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView', value);
}

function output(value, encoding) {
  const out = Buffer.from(value);
  return encoding === undefined || encoding === null || encoding === 'buffer' ? out : out.toString(encoding);
}

const trimmed = (b) => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};

const kState = Symbol('kDiffieHellman');

// The host's call for a group (`p`, `g`): `mode` with the given parts.
function dh(state, mode, ...parts) {
  return hostCall({ op: 'nodeDh', mode }, [state.prime, state.generator, ...parts]);
}

function generatorOf(generator, encoding) {
  if (generator === undefined || generator === 0) return new Uint8Array([2]);
  if (typeof generator === 'number') {
    if (!Number.isInteger(generator)) throw outOfRange('generator', 'an integer', generator);
    if (generator < 2 || generator > 2 ** 31 - 1) throw outOfRange('generator', '>= 2 && <= 2147483647', generator);
    return trimmed(new Uint8Array([generator >>> 24, (generator >>> 16) & 255, (generator >>> 8) & 255, generator & 255]));
  }
  if (typeof generator !== 'string' && !isBytes(generator)) {
    throw invalidArgType('generator', 'of type number or string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView', generator);
  }
  return input(generator, encoding, 'generator');
}

function init(self, sizeOrKey, keyEncoding, generator, genEncoding) {
  if (typeof sizeOrKey !== 'number' && typeof sizeOrKey !== 'string' && !isBytes(sizeOrKey)) {
    throw invalidArgType('sizeOrKey', 'of type number or string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView', sizeOrKey);
  }
  // createDiffieHellman(prime, generator): no encoding between.
  if (keyEncoding !== undefined && keyEncoding !== null && typeof keyEncoding !== 'string') {
    genEncoding = generator;
    generator = keyEncoding;
    keyEncoding = undefined;
  }
  if (genEncoding !== undefined && genEncoding !== null && typeof genEncoding !== 'string') throw invalidArgType('genEncoding', 'of type string', genEncoding);
  const g = generatorOf(generator, genEncoding);
  let prime;
  if (typeof sizeOrKey === 'number') {
    if (!Number.isInteger(sizeOrKey)) throw outOfRange('sizeOrKey', 'an integer', sizeOrKey);
    if (sizeOrKey > 10000) throw new RangeError(`The prime of ${sizeOrKey} bits is larger than 10,000 bits`);
    if (sizeOrKey < 2) throw new Error(`Invalid prime length: ${sizeOrKey}`);
    // A safe prime ≡ 11 (mod 24): 2 is a suitable generator for it.
    prime = new Uint8Array(hostCall({ op: 'nodePrime', mode: 'generate', length: sizeOrKey, safe: true }, [new Uint8Array([24]), new Uint8Array([11])]).data);
  } else {
    prime = input(sizeOrKey, keyEncoding, 'sizeOrKey');
  }
  if (g.length > prime.length) throw new RangeError('The generator is too large for the prime (generator is too large)');
  const p = trimmed(prime);
  const gen = trimmed(g);
  const last = p[p.length - 1];
  const small = (b) => b.length === 1 && b[0] < 2;
  if (p.length === 0 || last % 2 === 0 || small(p)) throw new Error('Invalid Diffie-Hellman prime: it must be odd and above 2');
  if (gen.length === 0 || small(gen)) throw new Error('Invalid Diffie-Hellman generator: it must be 2 or more');
  self[kState] = { prime: p, generator: gen, privateKey: null, publicKey: null, check: null };
}

export function DiffieHellman(sizeOrKey, keyEncoding, generator, genEncoding) {
  if (!new.target) return new DiffieHellman(sizeOrKey, keyEncoding, generator, genEncoding);
  init(this, sizeOrKey, keyEncoding, generator, genEncoding);
}

export function DiffieHellmanGroup(name) {
  if (!new.target) return new DiffieHellmanGroup(name);
  validateString(name, 'name');
  if (!Object.prototype.hasOwnProperty.call(GROUP_SIZES, name)) throw new Error(`Failed to init DiffieHellmanGroup: invalid group. Only groups {${Object.keys(GROUP_SIZES).join(', ')}} are supported.`);
  this[kState] = { prime: groupPrime(name), generator: new Uint8Array([2]), privateKey: null, publicKey: null, check: 8 };
}

function generateKeys(encoding) {
  const s = this[kState];
  const reply = dh(s, 'generate', s.privateKey || new Uint8Array(0));
  const [n] = reply.value.parts;
  s.privateKey = reply.data.slice(0, n);
  s.publicKey = reply.data.slice(n);
  return output(s.publicKey, encoding);
}

function computeSecret(key, inputEncoding, outputEncoding) {
  const s = this[kState];
  if (s.privateKey === null) throw new Error('No private key - did you forget to generate one?');
  const peer = input(key, inputEncoding, 'key');
  if (peer.length === 0) throw new Error('Supplied key is empty (invalid peer public key)');
  let secret;
  try {
    secret = dh(s, 'compute', s.privateKey, peer).data;
  } catch (e) {
    // A RangeError, as `workerd`'s for a key out of range.
    throw new RangeError(`${e.message} (invalid peer public key)`);
  }
  return output(secret, outputEncoding);
}

function getter(field, missing) {
  return function (encoding) {
    const v = this[kState][field];
    if (v === null) throw new Error(missing);
    return output(v, encoding);
  };
}

function setPublicKey(key, encoding) {
  const s = this[kState];
  const k = trimmed(input(key, encoding, 'key'));
  const value = BigInt(`0x${Buffer.from(k).toString('hex') || '0'}`);
  const p = BigInt(`0x${Buffer.from(s.prime).toString('hex')}`);
  if (value <= 1n) throw new Error('Supplied key is too small (invalid public key)');
  if (value >= p - 1n) throw new Error('Supplied key is too large (invalid public key)');
  s.publicKey = k;
  return this;
}

function setPrivateKey(key, encoding) {
  this[kState].privateKey = input(key, encoding, 'key');
  return this;
}

const verifyError = {
  get() {
    const s = this[kState];
    if (s.check === null) s.check = dh(s, 'check').value;
    return s.check;
  },
  enumerable: true,
  configurable: true,
};

const common = {
  generateKeys,
  computeSecret,
  getPrime: getter('prime', 'No prime'),
  getGenerator: getter('generator', 'No generator'),
  getPublicKey: getter('publicKey', 'No public key - did you forget to generate one?'),
  getPrivateKey: getter('privateKey', 'No private key - did you forget to generate one?'),
};
Object.assign(DiffieHellman.prototype, common, { setPublicKey, setPrivateKey });
Object.assign(DiffieHellmanGroup.prototype, common);
Object.defineProperty(DiffieHellman.prototype, 'verifyError', verifyError);
Object.defineProperty(DiffieHellmanGroup.prototype, 'verifyError', verifyError);

export const createDiffieHellman = (sizeOrKey, keyEncoding, generator, genEncoding) => new DiffieHellman(sizeOrKey, keyEncoding, generator, genEncoding);
export const createDiffieHellmanGroup = (name) => new DiffieHellmanGroup(name);
export const getDiffieHellman = createDiffieHellmanGroup;

// ECDH's curves, by Node's (OpenSSL's) names.
const CURVES = { ...CURVE_OF, secp256r1: 'P-256' };
const FORMATS = ['compressed', 'uncompressed', 'hybrid'];

function ecdh(curve, mode, format, a = new Uint8Array(0), b = new Uint8Array(0)) {
  if (format !== undefined && format !== null && !FORMATS.includes(format)) throw new Error('Invalid ECDH format: ' + format);
  const reply = hostCall({ op: 'nodeEcdh', curve, mode, format: format || 'uncompressed' }, [a, b]);
  const parts = [];
  let at = 0;
  for (const n of reply.value.parts) {
    parts.push(reply.data.slice(at, at + n));
    at += n;
  }
  return parts;
}

export function ECDH(curve) {
  if (!new.target) return new ECDH(curve);
  validateString(curve, 'curve');
  const name = CURVES[curve];
  if (name === undefined) throw new Error('Invalid curve');
  this[kState] = { curve: name, privateKey: null, publicKey: null };
}

ECDH.prototype.generateKeys = function generateKeys(encoding, format) {
  const s = this[kState];
  [s.privateKey, s.publicKey] = ecdh(s.curve, 'generate');
  return this.getPublicKey(encoding, format);
};

ECDH.prototype.computeSecret = function computeSecret(key, inputEncoding, outputEncoding) {
  const s = this[kState];
  if (s.privateKey === null) throw new Error('No private key - did you forget to generate one?');
  const [secret] = ecdh(s.curve, 'compute', undefined, s.privateKey, input(key, inputEncoding, 'key'));
  return output(secret, outputEncoding);
};

ECDH.prototype.getPrivateKey = function getPrivateKey(encoding) {
  const s = this[kState];
  if (s.privateKey === null) throw new Error('No private key - did you forget to generate one?');
  return output(s.privateKey, encoding);
};

ECDH.prototype.getPublicKey = function getPublicKey(encoding, format) {
  const s = this[kState];
  if (s.publicKey === null) throw new Error('No public key - did you forget to generate one?');
  const [point] = format === undefined || format === null || format === 'uncompressed' ? [s.publicKey] : ecdh(s.curve, 'convert', format, s.publicKey);
  return output(point, encoding);
};

ECDH.prototype.setPrivateKey = function setPrivateKey(key, encoding) {
  const s = this[kState];
  [s.privateKey, s.publicKey] = ecdh(s.curve, 'fromScalar', undefined, input(key, encoding, 'key'));
  return this;
};

ECDH.convertKey = function convertKey(key, curve, inEnc, outEnc, format) {
  validateString(curve, 'curve');
  const name = CURVES[curve];
  if (name === undefined) throw new Error('Invalid curve');
  const [point] = ecdh(name, 'convert', format || 'uncompressed', input(key, inEnc, 'key'));
  return output(point, outEnc);
};

export const createECDH = (curve) => new ECDH(curve);

// The curves createECDH takes. (`workerd` lists secp224r1 too, which ssr
// does not have.)
export const getCurves = () => Object.keys(CURVES).filter((c) => c !== 'secp256r1');

// diffieHellman({ privateKey, publicKey }): key objects of one type.
export function diffieHellman(options) {
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { privateKey, publicKey } = options;
  if (!(privateKey instanceof KeyObject) || keyState(privateKey).type !== 'private') throw invalidArgValue('options.privateKey', privateKey && privateKey.type);
  if (!(publicKey instanceof KeyObject) || keyState(publicKey).type !== 'public') throw invalidArgValue('options.publicKey', publicKey && publicKey.type);
  const a = keyState(privateKey).shown;
  const b = keyState(publicKey).shown;
  if (a.type !== b.type) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.publicKey.asymmetricKeyType' must equal privateKey.asymmetricKeyType. Received '${b.type}'`);
  }
  const curve = CURVE_OF[a.details.namedCurve];
  const alg = a.type === 'x25519' ? 'X25519' : a.type === 'ec' ? 'ECDH' : null;
  if (alg === null) throw new Error(`Failed to derive a shared secret: ${a.type} keys do not agree one`);
  return Buffer.from(hostCall({ op: 'agree', alg, curve: curve || '' }, [keyState(privateKey).bytes, keyState(publicKey).bytes]).data);
}

// Primes: generatePrime(size, { safe, add, rem, bigint }) and
// checkPrime(candidate, { checks }), on the host.
function bigintBytes(value, name) {
  if (typeof value === 'bigint') {
    if (value < 0n) throw outOfRange(name, '>= 0', value);
    const hex = value.toString(16);
    return new Uint8Array(Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'));
  }
  if (isBytes(value)) return bytes(value).slice();
  throw invalidArgType(name, 'of type bigint or an instance of ArrayBuffer, Buffer, TypedArray, or DataView', value);
}

// `add` and `rem` as workerd takes them: one of the pairs Diffie-Hellman's
// generators need, with `add` no larger than the prime (anything else is a
// prime that is not random, or none).
const ADD_REM = ['12:11', '24:23', '60:59'];
function checkAddRem(size, addBytes, remBytes) {
  const big = (b) => BigInt(`0x${Buffer.from(b).toString('hex') || '0'}`);
  const add = big(addBytes);
  if (remBytes.length === 0 || !ADD_REM.includes(`${add}:${big(remBytes)}`)) throw new RangeError('Invalid values for add and rem');
  if (add.toString(2).length > size) throw new RangeError('options.add must not be bigger than size of the requested prime');
}

function primeArguments(size, options) {
  if (typeof size !== 'number') throw invalidArgType('size', 'of type number', size);
  if (!Number.isInteger(size) || size < 1 || size > 2 ** 31 - 1) throw outOfRange('size', '>= 1 && <= 2147483647', size);
  const o = options === undefined ? {} : options;
  if (o === null || typeof o !== 'object') throw invalidArgType('options', 'of type object', options);
  const { safe = false, bigint = false, add, rem } = o;
  if (typeof safe !== 'boolean') throw invalidArgType('options.safe', 'of type boolean', safe);
  if (typeof bigint !== 'boolean') throw invalidArgType('options.bigint', 'of type boolean', bigint);
  const addBytes = add === undefined ? new Uint8Array(0) : bigintBytes(add, 'options.add');
  const remBytes = rem === undefined ? new Uint8Array(0) : bigintBytes(rem, 'options.rem');
  if (size > 8192) throw new RangeError(`The prime of ${size} bits is larger than 8,192 bits`);
  return () => {
    if (add !== undefined) checkAddRem(size, addBytes, remBytes);
    const prime = hostCall({ op: 'nodePrime', mode: 'generate', length: size, safe }, [addBytes, remBytes]).data;
    if (bigint) return BigInt(`0x${Buffer.from(prime).toString('hex')}`);
    const out = new ArrayBuffer(prime.length);
    new Uint8Array(out).set(prime);
    return out;
  };
}

export function generatePrimeSync(size, options) {
  return primeArguments(size, options)();
}

export function generatePrime(size, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = undefined;
  }
  // The arguments are checked before the callback, as Node's.
  const compute = primeArguments(size, options);
  validateFunction(callback, 'callback');
  later(callback, compute);
}

function checkArguments(candidate, options) {
  const value = bigintBytes(candidate, 'candidate');
  const o = options === undefined ? {} : options;
  if (o === null || typeof o !== 'object') throw invalidArgType('options', 'of type object', options);
  const { checks = 0 } = o;
  if (typeof checks !== 'number') throw invalidArgType('options.checks', 'of type number', checks);
  if (!Number.isInteger(checks) || checks < 0 || checks > 2 ** 31 - 1) throw outOfRange('options.checks', '>= 0 && <= 2147483647', checks);
  return () => hostCall({ op: 'nodePrime', mode: 'check', iterations: checks }, [value]).value;
}

export function checkPrimeSync(candidate, options) {
  return checkArguments(candidate, options)();
}

export function checkPrime(candidate, options, callback) {
  if (typeof options === 'function') {
    callback = options;
    options = undefined;
  }
  const compute = checkArguments(candidate, options);
  validateFunction(callback, 'callback');
  later(callback, compute);
}
