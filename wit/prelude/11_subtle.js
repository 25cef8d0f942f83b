//! Web Crypto's `crypto.subtle`: arguments checked here, the arithmetic by
//! the host.
//!
//! Defines: CryptoKey, SubtleCrypto
//! Host calls: crypto
//! Rust: host/src/web/crypto/
//! WPT: WebCryptoAPI
//! Test plugin: tests/plugins/subtle.js
  // ---------------------------------------------------------- crypto.subtle
  // Web Crypto's SubtleCrypto: this side checks what the spec asks of the
  // caller (algorithm names, parameters, usages, extractable, JWK members)
  // and makes the CryptoKey objects; the host does the arithmetic
  // (`calls::CRYPTO`, `host/src/web/crypto/`), keeping no state: a key
  // travels with each call as its material (raw bytes for a secret key,
  // PKCS #8 or SPKI DER for a private or public one). Only `generateKey`
  // is refused at the top level, which runs at build time: its key would be
  // the same in every instance.
  // Besides Web Crypto's own algorithms: the Secure Curves draft's Ed448
  // and X448, and the Modern Algorithms draft's SHA-3, cSHAKE, KMAC,
  // AES-OCB and ChaCha20-Poly1305 (with its "raw-secret" and "raw-public"
  // key formats), as Node 24 has them.
  const HASHES = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
  const DIGESTS = [...HASHES, 'MD5', 'SHA3-256', 'SHA3-384', 'SHA3-512', 'cSHAKE128', 'cSHAKE256'];
  const AES = ['AES-CTR', 'AES-CBC', 'AES-GCM', 'AES-KW', 'AES-OCB'];
  const CIPHERS = ['RSA-OAEP', 'AES-CTR', 'AES-CBC', 'AES-GCM', 'AES-OCB', 'ChaCha20-Poly1305'];
  const SIGNERS = ['HMAC', 'ECDSA', 'Ed25519', 'Ed448', 'RSASSA-PKCS1-v1_5', 'RSA-PSS', 'KMAC128', 'KMAC256'];
  const DERIVERS = ['ECDH', 'X25519', 'X448', 'HKDF', 'PBKDF2'];
  // ML-KEM's key encapsulation.
  const KEMS = ['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024'];
  // The agreements, whose bits are a shared secret.
  const AGREERS = ['ECDH', 'X25519', 'X448'];
  // The secret keys of the drafts, imported and exported as "raw-secret"
  // (not "raw") or "jwk".
  const DRAFT_SECRETS = ['AES-OCB', 'ChaCha20-Poly1305', 'KMAC128', 'KMAC256'];
  const ALGORITHMS = [...SIGNERS, ...CIPHERS, 'AES-KW', ...DERIVERS, ...KEMS];
  // The algorithms each operation knows (the spec's "supported
  // algorithms"); another is a NotSupportedError.
  const OPERATIONS = {
    encrypt: CIPHERS, decrypt: CIPHERS, sign: SIGNERS, verify: SIGNERS,
    deriveBits: DERIVERS, deriveKey: DERIVERS,
    wrapKey: [...CIPHERS, 'AES-KW'], unwrapKey: [...CIPHERS, 'AES-KW'],
    generateKey: ALGORITHMS.filter((n) => n !== 'HKDF' && n !== 'PBKDF2'),
    encapsulateKey: KEMS, encapsulateBits: KEMS, decapsulateKey: KEMS, decapsulateBits: KEMS,
  };
  const CURVES = ['P-256', 'P-384', 'P-521'];
  const AES_BITS = [128, 192, 256];
  // The usages each kind of key may have.
  const CIPHER_USAGES = ['encrypt', 'decrypt', 'wrapKey', 'unwrapKey'];
  const USAGES = {
    HMAC: { secret: ['sign', 'verify'] },
    'AES-GCM': { secret: CIPHER_USAGES },
    'AES-CBC': { secret: CIPHER_USAGES },
    'AES-CTR': { secret: CIPHER_USAGES },
    'AES-KW': { secret: ['wrapKey', 'unwrapKey'] },
    'AES-OCB': { secret: CIPHER_USAGES },
    'ChaCha20-Poly1305': { secret: CIPHER_USAGES },
    KMAC128: { secret: ['sign', 'verify'] },
    KMAC256: { secret: ['sign', 'verify'] },
    PBKDF2: { secret: ['deriveBits', 'deriveKey'] },
    HKDF: { secret: ['deriveBits', 'deriveKey'] },
    ECDSA: { private: ['sign'], public: ['verify'] },
    Ed25519: { private: ['sign'], public: ['verify'] },
    Ed448: { private: ['sign'], public: ['verify'] },
    'RSASSA-PKCS1-v1_5': { private: ['sign'], public: ['verify'] },
    'RSA-PSS': { private: ['sign'], public: ['verify'] },
    'RSA-OAEP': { private: ['decrypt', 'unwrapKey'], public: ['encrypt', 'wrapKey'] },
    ECDH: { private: ['deriveKey', 'deriveBits'], public: [] },
    X25519: { private: ['deriveKey', 'deriveBits'], public: [] },
    X448: { private: ['deriveKey', 'deriveBits'], public: [] },
  };
  for (const name of KEMS) USAGES[name] = { private: ['decapsulateKey', 'decapsulateBits'], public: ['encapsulateKey', 'encapsulateBits'] };
  // A JWK's `kty` per algorithm of a key pair.
  const KTY = { ECDSA: 'EC', ECDH: 'EC', Ed25519: 'OKP', Ed448: 'OKP', X25519: 'OKP', X448: 'OKP', 'RSASSA-PKCS1-v1_5': 'RSA', 'RSA-PSS': 'RSA', 'RSA-OAEP': 'RSA' };
  // A JWK's `alg` per algorithm (the EC algorithms and X25519 name none).
  const JWK_ALG = {
    HMAC: (a) => `HS${a.hash.name.slice(4)}`,
    'AES-GCM': (a) => `A${a.length}GCM`,
    'AES-CBC': (a) => `A${a.length}CBC`,
    'AES-CTR': (a) => `A${a.length}CTR`,
    'AES-KW': (a) => `A${a.length}KW`,
    'AES-OCB': (a) => `A${a.length}OCB`,
    'ChaCha20-Poly1305': () => 'C20P',
    KMAC128: () => 'K128',
    KMAC256: () => 'K256',
    Ed25519: () => 'Ed25519',
    Ed448: () => 'Ed448',
    'RSASSA-PKCS1-v1_5': (a) => `RS${a.hash.name.slice(4)}`,
    'RSA-PSS': (a) => `PS${a.hash.name.slice(4)}`,
    'RSA-OAEP': (a) => (a.hash.name === 'SHA-1' ? 'RSA-OAEP' : `RSA-OAEP-${a.hash.name.slice(4)}`),
  };
  // The key formats of the spec and of the drafts; another is a TypeError.
  const KEY_FORMATS = ['raw', 'spki', 'pkcs8', 'jwk', 'raw-secret', 'raw-public', 'raw-private', 'raw-seed'];
  function cryptoError(name, message) { return new DOMEx(message, name); }
  function canonical(list, name, what) {
    const wanted = String(name).toUpperCase();
    const found = list.find((n) => n.toUpperCase() === wanted);
    if (found === undefined) throw cryptoError('NotSupportedError', `${what} "${name}" is not supported (${list.join(', ')})`);
    return found;
  }
  function normalizeAlgorithm(algorithm, op, list = OPERATIONS[op] || ALGORITHMS) {
    const a = typeof algorithm === 'string' ? { name: algorithm } : algorithm;
    if (a === null || typeof a !== 'object' || a.name === undefined) {
      throw new TypeError(`${op}: the algorithm must be a name or an object with a name`);
    }
    const out = Object.assign({}, a, { name: canonical(list, a.name, `${op}: the algorithm`) });
    if (a.hash !== undefined) out.hash = { name: canonical(HASHES, typeof a.hash === 'string' ? a.hash : a.hash && a.hash.name, 'the hash') };
    return out;
  }
  function needs(a, member, op) {
    if (a[member] === undefined) throw new TypeError(`${op}: ${a.name} needs "${member}"`);
    return a[member];
  }
  function bufferSource(value, what) {
    if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
    throw new TypeError(`${what} must be an ArrayBuffer or a view of one`);
  }
  function b64url(bytes) {
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return g.btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function unb64url(text, member) {
    if (typeof text !== 'string' || /[^A-Za-z0-9_-]/.test(text)) throw cryptoError('DataError', `the JWK's "${member}" is not base64url`);
    const s = g.atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  }

  // Calls the host's crypto; a refusal rejects with its DOMException.
  function subtleCall(args, parts) {
    const bytes = concat(parts);
    const [ok, text, data] = hostCall('crypto', JSON.stringify(Object.assign(args, { parts: parts.map((p) => p.length) })), bytes);
    if (!ok) {
      const m = /^(\w+Error): ([\s\S]*)$/.exec(text);
      throw m ? cryptoError(m[1], m[2]) : new TypeError(text);
    }
    return { value: text === '' ? undefined : JSON.parse(text), data };
  }

  const keyState = new WeakMap();
  let makingKey = false;
  class CryptoKeyImpl {
    constructor() {
      if (!makingKey) throw new TypeError('Illegal constructor');
    }
    get type() { return branded(keyState, this).type; }
    get extractable() { return branded(keyState, this).extractable; }
    get algorithm() { return branded(keyState, this).algorithm; }
    // The same array each time, as the spec's [[usages_cached]]; what the
    // key may do is its own copy, which changing this one does not change.
    get usages() { return branded(keyState, this).shownUsages; }
    get [Symbol.toStringTag]() { return 'CryptoKey'; }
  }
  function newKey(type, extractable, algorithm, usages, material) {
    makingKey = true;
    let key;
    try { key = new CryptoKeyImpl(); } finally { makingKey = false; }
    const shown = Object.assign({}, algorithm);
    if (shown.publicExponent) shown.publicExponent = new Uint8Array(shown.publicExponent);
    const list = usages.filter((u, i) => usages.indexOf(u) === i);
    keyState.set(key, { type, extractable, algorithm: shown, usages: list, shownUsages: list.slice(), material });
    return key;
  }
  // The usages asked for, checked against what a `type` key of `name` may
  // have; a secret or private key needs at least one, which the spec checks
  // last (`nonEmpty`), after the key's parameters and data.
  function checkUsages(name, type, usages, op, later = false) {
    const allowed = USAGES[name][type] || [];
    const list = Array.from(usages);
    for (const u of list) {
      if (!allowed.includes(u)) throw cryptoError('SyntaxError', `${op}: a ${type} ${name} key cannot be used to ${u}`);
    }
    return later ? list : nonEmpty(list, type, op);
  }
  function nonEmpty(list, type, op) {
    if (list.length === 0 && type !== 'public') throw cryptoError('SyntaxError', `${op}: a ${type} key needs at least one usage`);
    return list;
  }
  function usable(key, usage, name, op) {
    const k = branded(keyState, key);
    if (k.algorithm.name !== name || !k.usages.includes(usage)) {
      throw cryptoError('InvalidAccessError', `${op}: this key (${k.algorithm.name}, usages ${k.usages.join(', ') || 'none'}) cannot be used to ${usage} with ${name}`);
    }
    return k;
  }
  // The algorithm fields the host needs of a key's algorithm.
  function hostAlg(algorithm) {
    return { alg: algorithm.name, hash: algorithm.hash ? algorithm.hash.name : '', curve: algorithm.namedCurve || '' };
  }
  const HMAC_BLOCK = { 'SHA-1': 512, 'SHA-256': 512, 'SHA-384': 1024, 'SHA-512': 1024 };
  // The bits of a new secret key of `a`: HMAC's `length`, else its hash's
  // block size; AES's `length`.
  function keyBits(a, op) {
    if (a.name === 'ChaCha20-Poly1305') return 256;
    if (a.name === 'KMAC128' || a.name === 'KMAC256') return a.length === undefined ? Number(a.name.slice(4)) : Number(a.length);
    if (a.name !== 'HMAC') return Number(needs(a, 'length', op));
    return a.length === undefined ? HMAC_BLOCK[needs(a, 'hash', op).name] : Number(a.length);
  }
  // What a private or public key's `algorithm` shows: `a` as asked, with
  // what the host read of the key (an RSA key's size and exponent).
  function pairAlgorithm(a, value) {
    const shown = { name: a.name };
    if (a.namedCurve) shown.namedCurve = a.namedCurve;
    if (value.modulusLength) Object.assign(shown, { modulusLength: value.modulusLength, publicExponent: value.publicExponent });
    if (a.hash) shown.hash = a.hash;
    return shown;
  }
  function secretAlgorithm(a, bits, op) {
    if (a.name === 'HMAC') {
      const length = a.length === undefined ? bits : Number(a.length);
      if (length === 0 || length > bits || length <= bits - 8) throw cryptoError('DataError', `${op}: the HMAC key is ${bits} bits, not ${length}`);
      return { name: 'HMAC', hash: needs(a, 'hash', op), length };
    }
    if (AES.includes(a.name)) {
      if (!AES_BITS.includes(bits)) throw cryptoError('DataError', `${op}: an AES key is 128, 192 or 256 bits, not ${bits}`);
      return { name: a.name, length: bits };
    }
    if (a.name === 'ChaCha20-Poly1305' && bits !== 256) throw cryptoError('DataError', `${op}: a ChaCha20-Poly1305 key is 256 bits, not ${bits}`);
    if (a.name === 'KMAC128' || a.name === 'KMAC256') {
      if (a.length !== undefined && Number(a.length) !== bits) throw cryptoError('DataError', `${op}: the ${a.name} key is ${bits} bits, not ${a.length}`);
      return { name: a.name, length: bits };
    }
    return { name: a.name };
  }
  // An EC algorithm's curve, by its canonical name.
  function namedCurve(a, op) {
    if (a.name === 'ECDSA' || a.name === 'ECDH') a.namedCurve = canonical(CURVES, needs(a, 'namedCurve', op), `${op}: the curve`);
  }
  // The usages, each either a private key's or a public key's, as a pair
  // (`[private, public]`); a private key needs one.
  function pairUsages(name, usages, op) {
    const list = Array.from(usages);
    const { private: mine, public: theirs } = USAGES[name];
    for (const u of list) {
      if (!mine.includes(u) && !theirs.includes(u)) throw cryptoError('SyntaxError', `${op}: a ${name} key cannot be used to ${u}`);
    }
    return [list.filter((u) => mine.includes(u)), list.filter((u) => theirs.includes(u))];
  }

  async function importKey(format, keyData, algorithm, extractable, usages) {
    const a = normalizeAlgorithm(algorithm, 'importKey');
    return importNormalized(format, keyData, a, extractable, usages);
  }
  function importNormalized(format, keyData, a, extractable, usages) {
    const op = 'importKey';
    const kinds = USAGES[a.name];
    if (kinds.secret) {
      let bytes;
      if (format === 'raw-secret' || (format === 'raw' && !DRAFT_SECRETS.includes(a.name))) bytes = bufferSource(keyData, 'keyData');
      else if (format === 'jwk' && a.name !== 'PBKDF2' && a.name !== 'HKDF') {
        checkJwk(keyData, 'oct', a, extractable, usages);
        bytes = unb64url(keyData.k, 'k');
      } else throw cryptoError('NotSupportedError', `${op}: a ${a.name} key is imported as ${secretFormats(a.name)}, not "${format}"`);
      const list = checkUsages(a.name, 'secret', usages, op, true);
      if ((a.name === 'PBKDF2' || a.name === 'HKDF') && extractable) throw cryptoError('SyntaxError', `${op}: ${a.name} keys are not extractable`);
      if (a.name === 'HMAC') needs(a, 'hash', op);
      const shown = secretAlgorithm(a, bytes.length * 8, op);
      if (format === 'jwk' && keyData.alg !== undefined && keyData.alg !== JWK_ALG[a.name](shown)) {
        throw cryptoError('DataError', `${op}: the JWK's alg "${keyData.alg}" is not ${JWK_ALG[a.name](shown)}`);
      }
      return newKey('secret', Boolean(extractable), shown, nonEmpty(list, 'secret', op), bytes);
    }
    namedCurve(a, op);
    if (a.name.startsWith('RSA')) needs(a, 'hash', op);
    const args = Object.assign({ op: 'import', format: String(format) }, hostAlg(a));
    let parts = [];
    if (format === 'jwk' && KTY[a.name]) {
      checkJwk(keyData, KTY[a.name], a, extractable, usages);
      args.jwk = keyData;
    } else if (pairFormats(a.name).includes(format)) {
      if (format === 'raw-public') args.format = 'raw';
      parts = [bufferSource(keyData, 'keyData')];
    } else if (KEY_FORMATS.includes(format)) {
      throw cryptoError('NotSupportedError', `${op}: a ${a.name} key is not imported as "${format}"`);
    } else throw new TypeError(`${op}: unknown key format "${format}"`);
    // A private key's usages are checked before its data is read.
    const list = Array.from(usages);
    if (format === 'pkcs8' || format === 'raw-seed' || (format === 'jwk' && keyData.d !== undefined)) checkUsages(a.name, 'private', list, op, true);
    else if (format !== 'jwk') checkUsages(a.name, 'public', list, op);
    const { value, data } = subtleCall(args, parts);
    const shown = pairAlgorithm(a, value);
    const jwkAlg = JWK_ALG[a.name] && JWK_ALG[a.name](shown);
    if (format === 'jwk' && keyData.alg !== undefined && jwkAlg && keyData.alg !== jwkAlg && !(a.name.startsWith('Ed') && keyData.alg === 'EdDSA')) {
      throw cryptoError('DataError', `${op}: the JWK's alg "${keyData.alg}" is not ${jwkAlg}`);
    }
    return newKey(value.kind, Boolean(extractable), shown, checkUsages(a.name, value.kind, list, op), data);
  }
  // The formats a private or public key of `name` is imported and
  // exported in ("jwk" is checked apart).
  function pairFormats(name) {
    if (KEMS.includes(name)) return ['raw-public', 'spki', 'pkcs8', 'raw-seed'];
    return name.startsWith('RSA') ? ['spki', 'pkcs8'] : ['raw', 'raw-public', 'spki', 'pkcs8'];
  }
  function secretFormats(name) {
    if (name === 'PBKDF2' || name === 'HKDF') return '"raw" or "raw-secret"';
    return DRAFT_SECRETS.includes(name) ? '"raw-secret" or "jwk"' : '"raw", "raw-secret" or "jwk"';
  }
  function checkJwk(jwk, kty, a, extractable, usages) {
    if (jwk === null || typeof jwk !== 'object') throw new TypeError('importKey: a "jwk" key is a JsonWebKey object');
    if (jwk.kty !== kty) throw cryptoError('DataError', `importKey: a ${a.name} JWK has kty "${kty}", not "${jwk.kty}"`);
    if (jwk.ext === false && extractable) throw cryptoError('DataError', 'importKey: the JWK says ext: false, so the key cannot be extractable');
    const use = SIGNERS.includes(a.name) ? 'sig' : 'enc';
    if (jwk.use !== undefined && Array.from(usages).length > 0 && jwk.use !== use) throw cryptoError('DataError', `importKey: a ${a.name} JWK's use is "${use}", not "${jwk.use}"`);
    if (jwk.key_ops !== undefined && Array.from(usages).some((u) => !jwk.key_ops.includes(u))) {
      throw cryptoError('DataError', `importKey: the JWK's key_ops (${jwk.key_ops}) do not allow ${Array.from(usages)}`);
    }
  }

  async function exportKey(format, key) {
    return exportBytes(format, key);
  }
  // The key as `format` gives it: an ArrayBuffer, or a JWK object.
  function exportBytes(format, key) {
    const k = branded(keyState, key);
    if (!KEY_FORMATS.includes(format)) throw new TypeError(`exportKey: unknown key format "${format}"`);
    if (!k.extractable) throw cryptoError('InvalidAccessError', 'exportKey: the key is not extractable');
    let jwk;
    const name = k.algorithm.name;
    if (k.type === 'secret') {
      if (format === 'raw-secret' || (format === 'raw' && !DRAFT_SECRETS.includes(name))) return k.material.slice().buffer;
      if (format !== 'jwk' || name === 'PBKDF2' || name === 'HKDF') {
        throw cryptoError('NotSupportedError', `exportKey: a ${name} key is exported as ${secretFormats(name)}, not "${format}"`);
      }
      jwk = { kty: 'oct', k: b64url(k.material) };
    } else {
      if (!(pairFormats(name).includes(format) || (format === 'jwk' && KTY[name]))) throw cryptoError('NotSupportedError', `exportKey: a ${name} key is not exported as "${format}"`);
      const hostFormat = format === 'raw-public' ? 'raw' : String(format);
      const { value, data } = subtleCall(Object.assign({ op: 'export', format: hostFormat, kind: k.type }, hostAlg(k.algorithm)), [k.material]);
      if (format !== 'jwk') return data.slice().buffer;
      // An OKP key's members in the order Node gives them.
      jwk = value.kty !== 'OKP' ? value : Object.assign({ crv: value.crv }, value.d === undefined ? {} : { d: value.d }, { x: value.x, kty: 'OKP' });
    }
    const alg = JWK_ALG[k.algorithm.name] && JWK_ALG[k.algorithm.name](k.algorithm);
    return Object.assign({ key_ops: k.usages.slice(), ext: true }, jwk, alg ? { alg } : {});
  }

  async function generateKey(algorithm, extractable, usages) {
    const op = 'generateKey';
    if (render === null) throw new TypeError(`${op}: a key made at the top level, which runs at build time, would be the same in every instance; make it in the handler`);
    const a = normalizeAlgorithm(algorithm, op);
    const kinds = USAGES[a.name];
    if (kinds.secret) {
      const list = checkUsages(a.name, 'secret', usages, op, true);
      const bits = keyBits(a, op);
      if (AES.includes(a.name) && !AES_BITS.includes(bits)) throw cryptoError('OperationError', `${op}: an AES key is 128, 192 or 256 bits, not ${bits}`);
      if (bits === 0) throw cryptoError('OperationError', `${op}: a ${a.name} key of 0 bits`);
      nonEmpty(list, 'secret', op);
      const { data } = subtleCall(Object.assign({ op: 'generate', length: bits }, hostAlg(a)), []);
      return newKey('secret', Boolean(extractable), secretAlgorithm(a, bits, op), list, data);
    }
    const [privateUsages, publicUsages] = pairUsages(a.name, usages, op);
    namedCurve(a, op);
    const args = Object.assign({ op: 'generate' }, hostAlg(a));
    if (a.name.startsWith('RSA')) {
      needs(a, 'hash', op);
      args.modulusLength = Number(needs(a, 'modulusLength', op));
      args.publicExponent = Array.from(bufferSource(needs(a, 'publicExponent', op), 'publicExponent'));
    }
    const { value, data } = subtleCall(args, []);
    nonEmpty(privateUsages, 'private', op);
    const shown = pairAlgorithm(a, value);
    const [n] = value.parts;
    return {
      privateKey: newKey('private', Boolean(extractable), shown, privateUsages, data.slice(0, n)),
      publicKey: newKey('public', true, shown, publicUsages, data.slice(n)),
    };
  }

  // The host's parameters of a signature: RSA-PSS's salt length, and the
  // hash of ECDSA (given per call) or of the key.
  function signArgs(a, k, op) {
    const args = hostAlg(k.algorithm);
    if (a.name === 'ECDSA') args.hash = normalizeAlgorithm({ name: 'ECDSA', hash: needs(a, 'hash', op) }, op).hash.name;
    if (a.name === 'RSA-PSS') args.saltLength = Number(needs(a, 'saltLength', op));
    if (a.name.startsWith('KMAC')) args.length = Number(needs(a, 'length', op));
    return args;
  }
  // The bytes a signature takes besides its data: Ed448's context, or
  // KMAC's customization.
  function signExtra(a) {
    const extra = a.name === 'Ed448' ? a.context : a.name.startsWith('KMAC') ? a.customization : undefined;
    return extra === undefined ? new Uint8Array(0) : bufferSource(extra, a.name === 'Ed448' ? 'context' : 'customization');
  }
  async function sign(algorithm, key, data) {
    const a = normalizeAlgorithm(algorithm, 'sign');
    const k = usable(key, 'sign', a.name, 'sign');
    return subtleCall(Object.assign({ op: 'sign' }, signArgs(a, k, 'sign')), [k.material, bufferSource(data, 'data'), signExtra(a)]).data.buffer;
  }
  async function verify(algorithm, key, signature, data) {
    const a = normalizeAlgorithm(algorithm, 'verify');
    const k = usable(key, 'verify', a.name, 'verify');
    return subtleCall(Object.assign({ op: 'verify' }, signArgs(a, k, 'verify')),
      [k.material, bufferSource(signature, 'signature'), bufferSource(data, 'data'), signExtra(a)]).value;
  }
  // Encrypts or decrypts `data` with `a` (normalized) and `key`, which must
  // allow `usage`: the AES modes and RSA-OAEP for encrypt and decrypt, and
  // AES-KW too for wrapKey and unwrapKey.
  function cipherCall(encrypt, a, key, data, usage) {
    const op = encrypt ? 'encrypt' : 'decrypt';
    const k = usable(key, usage, a.name, usage);
    const args = Object.assign({ op }, hostAlg(k.algorithm));
    let iv = new Uint8Array(0);
    let aad = new Uint8Array(0);
    if (['AES-GCM', 'AES-CBC', 'AES-OCB', 'ChaCha20-Poly1305'].includes(a.name)) iv = bufferSource(needs(a, 'iv', usage), 'iv');
    if (a.name === 'AES-GCM' || a.name === 'AES-OCB' || a.name === 'ChaCha20-Poly1305') {
      if (a.tagLength !== undefined) args.tagLength = Number(a.tagLength);
      if (a.additionalData !== undefined) aad = bufferSource(a.additionalData, 'additionalData');
    }
    if (a.name === 'AES-CTR') {
      iv = bufferSource(needs(a, 'counter', usage), 'counter');
      args.length = Number(needs(a, 'length', usage));
    }
    if (a.name === 'RSA-OAEP' && a.label !== undefined) aad = bufferSource(a.label, 'label');
    return subtleCall(args, [k.material, iv, aad, bufferSource(data, 'data')]).data;
  }
  async function encrypt(algorithm, key, data) { return cipherCall(true, normalizeAlgorithm(algorithm, 'encrypt'), key, data, 'encrypt').buffer; }
  async function decrypt(algorithm, key, data) { return cipherCall(false, normalizeAlgorithm(algorithm, 'decrypt'), key, data, 'decrypt').buffer; }

  async function wrapKey(format, key, wrappingKey, wrapAlgorithm) {
    const a = normalizeAlgorithm(wrapAlgorithm, 'wrapKey');
    usable(wrappingKey, 'wrapKey', a.name, 'wrapKey');
    const exported = exportBytes(format, key);
    const bytes = format === 'jwk' ? encoder().encode(JSON.stringify(exported)) : new Uint8Array(exported);
    return cipherCall(true, a, wrappingKey, bytes, 'wrapKey').buffer;
  }
  async function unwrapKey(format, wrappedKey, unwrappingKey, unwrapAlgorithm, unwrappedKeyAlgorithm, extractable, usages) {
    const a = normalizeAlgorithm(unwrapAlgorithm, 'unwrapKey');
    const keyAlgorithm = normalizeAlgorithm(unwrappedKeyAlgorithm, 'importKey');
    const bytes = cipherCall(false, a, unwrappingKey, wrappedKey, 'unwrapKey');
    let keyData = bytes;
    if (format === 'jwk') {
      try {
        keyData = JSON.parse(decoder().decode(bytes));
      } catch {
        throw cryptoError('DataError', 'unwrapKey: the unwrapped "jwk" key is not JSON');
      }
    }
    return importNormalized(format, keyData, keyAlgorithm, extractable, usages);
  }

  // The bits ECDH, X25519 or X448 agree on, of the private `k` and
  // `a.public`.
  function agreedBits(a, k, length, op) {
    const peer = a.public;
    const p = peer === undefined ? undefined : keyState.get(peer);
    if (p === undefined) throw new TypeError(`${op}: ${a.name} needs "public", a CryptoKey`);
    if (p.type !== 'public') throw cryptoError('InvalidAccessError', `${op}: "public" is a ${p.type} key, not a public one`);
    if (p.algorithm.name !== a.name || (p.algorithm.namedCurve || '') !== (k.algorithm.namedCurve || '')) {
      throw cryptoError('InvalidAccessError', `${op}: "public" is a ${p.algorithm.name} ${p.algorithm.namedCurve || ''} key, not one of this key's`);
    }
    const args = Object.assign({ op: 'agree' }, hostAlg(k.algorithm));
    if (length !== null && length !== undefined) args.bits = Number(length);
    return subtleCall(args, [k.material, p.material]).data;
  }
  function bitsOf(algorithm, key, length, op, usage) {
    const a = normalizeAlgorithm(algorithm, op);
    const k = usable(key, usage, a.name, op);
    if (AGREERS.includes(a.name)) return agreedBits(a, k, length, op);
    if (length === null || length === undefined) throw cryptoError('OperationError', `${op}: ${a.name} needs a length`);
    const args = { op: 'derive', alg: a.name, hash: needs(a, 'hash', op).name, length: Number(length) };
    if (a.name === 'PBKDF2') args.iterations = Number(needs(a, 'iterations', op));
    const info = a.name === 'HKDF' ? bufferSource(needs(a, 'info', op), 'info') : new Uint8Array(0);
    return subtleCall(args, [k.material, bufferSource(needs(a, 'salt', op), 'salt'), info]).data;
  }
  async function deriveBits(algorithm, key, length = null) {
    return bitsOf(algorithm, key, length, 'deriveBits', 'deriveBits').buffer;
  }
  async function deriveKey(algorithm, key, derivedKeyType, extractable, usages) {
    const d = normalizeAlgorithm(derivedKeyType, 'deriveKey', ALGORITHMS);
    if (!USAGES[d.name].secret || d.name === 'PBKDF2' || d.name === 'HKDF') throw cryptoError('NotSupportedError', `deriveKey: a ${d.name} key cannot be derived`);
    const bits = keyBits(d, 'deriveKey');
    if (d.name !== 'HMAC' && !AES_BITS.includes(bits)) throw cryptoError('OperationError', `deriveKey: an AES key is 128, 192 or 256 bits, not ${bits}`);
    const bytes = bitsOf(algorithm, key, bits, 'deriveKey', 'deriveKey');
    const list = checkUsages(d.name, 'secret', usages, 'deriveKey');
    return newKey('secret', Boolean(extractable), secretAlgorithm(d, bits, 'deriveKey'), list, bytes);
  }
  async function digest(algorithm, data) {
    if (algorithm === null || (typeof algorithm === 'object' && algorithm.name === undefined)) throw new TypeError('digest: the algorithm must be a name or an object with a name');
    const name = canonical(DIGESTS, typeof algorithm === 'string' ? algorithm : algorithm && algorithm.name, 'the hash');
    if (!name.startsWith('cSHAKE')) return subtleCall({ op: 'digest', hash: name }, [bufferSource(data, 'data')]).data.buffer;
    // cSHAKE: `length` bits of output, a function name and a customization.
    const a = typeof algorithm === 'string' ? { name } : algorithm;
    const part = (member) => (a[member] === undefined ? new Uint8Array(0) : bufferSource(a[member], member));
    const args = { op: 'digest', hash: name, length: Number(needs(a, 'length', 'digest')) };
    return subtleCall(args, [bufferSource(data, 'data'), part('functionName'), part('customization')]).data.buffer;
  }
  // ML-KEM: a new shared secret for a public key, and its ciphertext; and
  // the secret a private key finds in a ciphertext. A key of the secret is
  // imported as "raw-secret" by `sharedKeyAlgorithm`.
  function encapsulated(algorithm, key, op) {
    const a = normalizeAlgorithm(algorithm, op);
    const k = usable(key, op, a.name, op);
    const { data } = subtleCall(Object.assign({ op: 'encapsulate' }, hostAlg(k.algorithm)), [k.material]);
    return { sharedKey: data.slice(0, 32), ciphertext: data.slice(32).buffer };
  }
  function decapsulated(algorithm, key, ciphertext, op) {
    const a = normalizeAlgorithm(algorithm, op);
    const k = usable(key, op, a.name, op);
    return subtleCall(Object.assign({ op: 'decapsulate' }, hostAlg(k.algorithm)), [k.material, bufferSource(ciphertext, 'ciphertext')]).data;
  }
  function sharedKeyOf(bytes, sharedKeyAlgorithm, extractable, usages, op) {
    const a = normalizeAlgorithm(sharedKeyAlgorithm, op, ALGORITHMS);
    if (!USAGES[a.name].secret) throw cryptoError('NotSupportedError', `${op}: a ${a.name} key is not a secret key`);
    return importNormalized('raw-secret', bytes, a, extractable, usages);
  }
  async function encapsulateBits(algorithm, encapsulationKey) {
    const { sharedKey, ciphertext } = encapsulated(algorithm, encapsulationKey, 'encapsulateBits');
    return { sharedKey: sharedKey.buffer, ciphertext };
  }
  async function encapsulateKey(algorithm, encapsulationKey, sharedKeyAlgorithm, extractable, usages) {
    const { sharedKey, ciphertext } = encapsulated(algorithm, encapsulationKey, 'encapsulateKey');
    return { sharedKey: sharedKeyOf(sharedKey, sharedKeyAlgorithm, extractable, usages, 'encapsulateKey'), ciphertext };
  }
  async function decapsulateBits(algorithm, decapsulationKey, ciphertext) {
    return decapsulated(algorithm, decapsulationKey, ciphertext, 'decapsulateBits').buffer;
  }
  async function decapsulateKey(algorithm, decapsulationKey, ciphertext, sharedKeyAlgorithm, extractable, usages) {
    const bytes = decapsulated(algorithm, decapsulationKey, ciphertext, 'decapsulateKey');
    return sharedKeyOf(bytes, sharedKeyAlgorithm, extractable, usages, 'decapsulateKey');
  }
  // The public key of a private one, with `usages`.
  async function getPublicKey(key, usages) {
    const k = branded(keyState, key);
    if (k.type !== 'private') throw cryptoError(k.type === 'secret' ? 'NotSupportedError' : 'InvalidAccessError', `getPublicKey: the key is a ${k.type} key, not a private one`);
    const list = checkUsages(k.algorithm.name, 'public', usages, 'getPublicKey');
    const { data } = subtleCall(Object.assign({ op: 'public' }, hostAlg(k.algorithm)), [k.material]);
    return newKey('public', true, k.algorithm, list, data);
  }
  // SubtleCrypto.supports (the Modern Algorithms draft): whether `op` takes
  // `algorithm`, normalized, with the members its parameters need and a
  // key size the algorithm has; `length` is deriveBits' length.
  const RSA_MADE = ['modulusLength', 'publicExponent', 'hash'];
  const AES_MADE = ['length'];
  const NEEDED = {
    generateKey: { HMAC: ['hash'], 'RSASSA-PKCS1-v1_5': RSA_MADE, 'RSA-PSS': RSA_MADE, 'RSA-OAEP': RSA_MADE, ECDSA: ['namedCurve'], ECDH: ['namedCurve'], 'AES-CTR': AES_MADE, 'AES-CBC': AES_MADE, 'AES-GCM': AES_MADE, 'AES-KW': AES_MADE, 'AES-OCB': AES_MADE },
    importKey: { HMAC: ['hash'], 'RSASSA-PKCS1-v1_5': ['hash'], 'RSA-PSS': ['hash'], 'RSA-OAEP': ['hash'], ECDSA: ['namedCurve'], ECDH: ['namedCurve'] },
    sign: { ECDSA: ['hash'], 'RSA-PSS': ['saltLength'], KMAC128: ['length'], KMAC256: ['length'] },
    encrypt: { 'AES-GCM': ['iv'], 'AES-CBC': ['iv'], 'AES-CTR': ['counter', 'length'], 'AES-OCB': ['iv'], 'ChaCha20-Poly1305': ['iv'] },
    deriveBits: { ECDH: ['public'], X25519: ['public'], X448: ['public'], HKDF: ['hash', 'salt', 'info'], PBKDF2: ['hash', 'salt', 'iterations'] },
    digest: { cSHAKE128: ['length'], cSHAKE256: ['length'] },
  };
  Object.assign(NEEDED, { verify: NEEDED.sign, decrypt: NEEDED.encrypt, deriveKey: NEEDED.deriveBits });
  const SUPPORTS_LISTS = Object.assign({ importKey: ALGORITHMS, exportKey: ALGORITHMS, getPublicKey: ALGORITHMS, digest: DIGESTS }, OPERATIONS);
  function supports(op, algorithm, length) {
    if (!Object.prototype.hasOwnProperty.call(SUPPORTS_LISTS, op)) return false;
    let a;
    try {
      a = normalizeAlgorithm(algorithm, op, SUPPORTS_LISTS[op]);
    } catch {
      return false;
    }
    if (((NEEDED[op] || {})[a.name] || []).some((m) => a[m] === undefined)) return false;
    if (op === 'generateKey' && AES.includes(a.name) && !AES_BITS.includes(Number(a.length))) return false;
    if (op === 'generateKey' && (a.name === 'ECDSA' || a.name === 'ECDH') && !CURVES.includes(a.namedCurve)) return false;
    if (op === 'deriveBits' && (a.name === 'HKDF' || a.name === 'PBKDF2')) return length != null && Number(length) % 8 === 0;
    return true;
  }
  // Workers' extension: compares in time that depends on the length only.
  function timingSafeEqual(a, b) {
    const x = bufferSource(a, 'a');
    const y = bufferSource(b, 'b');
    if (x.length !== y.length) throw new TypeError('timingSafeEqual: the two buffers must have the same length');
    let diff = 0;
    for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
    return diff === 0;
  }
  let makingSubtle = false;
  class SubtleCryptoImpl {
    constructor() { if (!makingSubtle) throw new TypeError('Illegal constructor'); }
    get [Symbol.toStringTag]() { return 'SubtleCrypto'; }
  }
  Object.defineProperty(SubtleCryptoImpl, 'supports', { value: supports, writable: true, configurable: true, enumerable: true });
  for (const [name, fn] of Object.entries({ digest, importKey, exportKey, generateKey, sign, verify, encrypt, decrypt, deriveBits, deriveKey, wrapKey, unwrapKey, encapsulateKey, encapsulateBits, decapsulateKey, decapsulateBits, getPublicKey, timingSafeEqual })) {
    Object.defineProperty(SubtleCryptoImpl.prototype, name, { value: fn, writable: true, configurable: true, enumerable: true });
  }
  makingSubtle = true;
  const subtle = new SubtleCryptoImpl();
  makingSubtle = false;
  if (g.crypto && g.crypto.subtle === undefined) {
    // On `Crypto`'s prototype, as `workerd` has it.
    Object.defineProperty(Object.getPrototypeOf(g.crypto), 'subtle', { get() { return subtle; }, configurable: true, enumerable: true });
  }
  defineMissing('CryptoKey', CryptoKeyImpl);
  defineMissing('SubtleCrypto', SubtleCryptoImpl);

