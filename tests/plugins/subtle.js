// crypto.subtle as apps use it (issue 33): every algorithm ssr supports,
// with fixed keys so that the output is deterministic, compared byte for
// byte with Node's own Web Crypto (tests/all/workers.rs). The keys were
// made by Node's generateKey for this test.
const KEYS = {
 "ec": {
  "kty": "EC",
  "x": "SzAIJpUo7bUo_kpYP7uXdL59TPFgyTunq5pALVhjAuQ",
  "y": "m2h72iAwRaIIZnG2goR3AnvRQeQDLLGRYf5Oivhvv1k",
  "crv": "P-256",
  "d": "mC-duRoSlRUFiSXyU3UroFSVLwZYd_rJjuJURf52ab0"
 },
 "ecSig": "81fa0162401c00c526abd34435fc6398015a13ce8ba7f29c1ab7fe1f034bdf81aa7642437eba3bf34aa25f0a64b03dab09bd59b8bd018ba46c4a76c835a8c4b3",
 "rsa": {
  "kty": "RSA",
  "n": "4Gmfi8ee-L8RlKkQAXygO7ZqeqCP1T24m8I-Jg6OjLU-w-b8aFmoFN8AmuBmZK2KdA7x31OnP8mDCFUcqoD43SbKmEYn3O6-P54Q1YoEIfUPSHL8woRqVV_JSbk6bAfDV_dLLTefX_jFCo2hHtQ9Q0lWzYevRX9FQGlNlzxxK8E",
  "e": "AQAB",
  "d": "ett4fEb6EkZQcqmn2JiJBIfWfXH_rIeQ1L0f1yfrBL-JMCj6EIrdCSgZJbEqfX3Aqc8wvcoHa1WABgTKn9Hh6_KKdYFC5fY9NsnljHp1BlpfYDs_JYom4K5kxGfiyEsikIdmrZ4mXY6eAlueUVUvq1SNvEtogz-8sMXaiRFaac0",
  "p": "7_azYEk1gRpcVAxTdrD-DcGY1dUR0TnUW5n3cnghuTdx7XTa7PtKflcAyPehUffl77OGrp2j1yTL6dwWWGTQMw",
  "q": "72jf4krMjRrNFXyU-BuhbaqUobRcMJXzsItJezb9lXEYLU3kJfsgglwqOKUz0jg7fhcsU2Tvpg7bNfMglQYQOw",
  "dp": "F1iBCxUUR4MxCFxKonmFvgDfxa39FcXyixbnpBNb9JEYXGnKAtRP4wrD4Ml2wGrFzBRDPinIDt5dmFr5MZBdUQ",
  "dq": "y-fc15WxhnTPO3-yOWb_JLJmiRtecZslxLW9Tg5WCNQcLWnr6VVsKNtqsngyHNf8A7ak8BpF6n84wUhj9ckGRQ",
  "qi": "xzqJ3LHQRp6uMiJY8PNWWLJetH6v-L9pijRIACojHk_lEYFHXYtiRyy3m6SmawOodvjq5ZhACdxY2vWdM7eCQg"
 },
 "ed": {
  "crv": "Ed25519",
  "d": "T3fwvFeUgFSrFerYjpHhY7YSqEKUgmvv1EF5x4a4jeo",
  "x": "5bWQCfIVyOhEiT6fHOp02zlZoy1kV_FxCo1BkOq8BOA",
  "kty": "OKP"
 }
};

const s = crypto.subtle;
const bytes = (text) => new TextEncoder().encode(text);
const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
// A JWK or algorithm with its members in one order, so that the engines'
// member order does not matter.
const sorted = (value) => JSON.stringify(value, (k, v) =>
  v && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
    : ArrayBuffer.isView(v) ? Array.from(v) : v);
const shape = (key) => [key.type, key.extractable, sorted(key.algorithm), key.usages.slice().sort(), Object.prototype.toString.call(key)];
async function failure(promise) {
  try {
    await promise;
    return 'resolved';
  } catch (e) {
    // Node 20 names one error InvalidAccessException; the spec and
    // workerd say InvalidAccessError.
    return [e.name.replace('InvalidAccessException', 'InvalidAccessError'), e instanceof DOMException || e instanceof TypeError];
  }
}

// At the top level, which ssr runs at build time: an import and a
// signature, as Astro does.
const topKey = await s.importKey('raw', bytes('top-level secret'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
const topSignature = hex(await s.sign('HMAC', topKey, bytes('built')));

export async function render() {
  const out = { topSignature, topKey: shape(topKey) };
  for (const h of ['SHA-1', 'SHA-256', 'sha-384', { name: 'SHA-512' }]) {
    out[`digest ${JSON.stringify(h)}`] = hex(await s.digest(h, bytes('abc')));
  }
  out.digestEmpty = hex(await s.digest('SHA-256', new ArrayBuffer(0)));

  // HMAC.
  for (const hash of ['SHA-1', 'SHA-256', 'SHA-512']) {
    const key = await s.importKey('raw', bytes('key'), { name: 'HMAC', hash }, true, ['sign', 'verify']);
    const mac = await s.sign('HMAC', key, bytes('message'));
    out[`hmac ${hash}`] = [hex(mac), await s.verify('HMAC', key, mac, bytes('message')),
      await s.verify('HMAC', key, mac, bytes('messagE')), shape(key), sorted(await s.exportKey('jwk', key))];
  }
  const jwkKey = await s.importKey('jwk', { kty: 'oct', k: 'c2VjcmV0', alg: 'HS256' }, { name: 'HMAC', hash: 'SHA-256' }, true, ['verify']);
  out.hmacJwk = [shape(jwkKey), hex(await s.exportKey('raw', jwkKey))];

  // AES-GCM and AES-CBC with fixed keys and ivs.
  const iv12 = new Uint8Array(12).map((_, i) => i);
  const iv16 = new Uint8Array(16).map((_, i) => 16 - i);
  for (const length of [16, 32]) {
    const raw = new Uint8Array(length).map((_, i) => i * 7);
    const gcm = await s.importKey('raw', raw, 'AES-GCM', true, ['encrypt', 'decrypt']);
    const sealed = await s.encrypt({ name: 'AES-GCM', iv: iv12, additionalData: bytes('aad') }, gcm, bytes('a secret message'));
    const opened = await s.decrypt({ name: 'AES-GCM', iv: iv12, additionalData: bytes('aad') }, gcm, sealed);
    const tampered = new Uint8Array(sealed);
    tampered[0] ^= 1;
    out[`aes-gcm ${length * 8}`] = [hex(sealed), new TextDecoder().decode(opened), shape(gcm), sorted(await s.exportKey('jwk', gcm)),
      await failure(s.decrypt({ name: 'AES-GCM', iv: iv12, additionalData: bytes('aad') }, gcm, tampered))];
    const cbc = await s.importKey('raw', raw, { name: 'AES-CBC' }, false, ['encrypt', 'decrypt']);
    const enc = await s.encrypt({ name: 'AES-CBC', iv: iv16 }, cbc, bytes('sixteen bytes!!! and more'));
    out[`aes-cbc ${length * 8}`] = [hex(enc), new TextDecoder().decode(await s.decrypt({ name: 'AES-CBC', iv: iv16 }, cbc, enc)),
      shape(cbc), await failure(s.exportKey('raw', cbc))];
  }

  // PBKDF2 and HKDF, and a key derived from each.
  const password = await s.importKey('raw', bytes('password'), 'PBKDF2', false, ['deriveBits', 'deriveKey']);
  out.pbkdf2 = hex(await s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: bytes('salt'), iterations: 1000 }, password, 256));
  const derived = await s.deriveKey({ name: 'PBKDF2', hash: 'SHA-1', salt: bytes('salt'), iterations: 10 }, password,
    { name: 'AES-GCM', length: 128 }, true, ['encrypt']);
  out.pbkdf2Key = [shape(derived), hex(await s.exportKey('raw', derived))];
  const ikm = await s.importKey('raw', bytes('input key material'), 'HKDF', false, ['deriveBits', 'deriveKey']);
  out.hkdf = hex(await s.deriveBits({ name: 'HKDF', hash: 'SHA-384', salt: bytes('salt'), info: bytes('info') }, ikm, 384));
  const hkdfKey = await s.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: bytes('x') }, ikm,
    { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  out.hkdfKey = [shape(hkdfKey), hex(await s.exportKey('raw', hkdfKey))];

  // Ed25519: deterministic signatures.
  const edPrivate = await s.importKey('jwk', KEYS.ed, 'Ed25519', true, ['sign']);
  const edPublic = await s.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: KEYS.ed.x }, { name: 'Ed25519' }, true, ['verify']);
  const edSig = await s.sign('Ed25519', edPrivate, bytes('hello'));
  out.ed25519 = [hex(edSig), await s.verify('Ed25519', edPublic, edSig, bytes('hello')), await s.verify('Ed25519', edPublic, edSig, bytes('hellO')),
    shape(edPrivate), shape(edPublic), hex(await s.exportKey('raw', edPublic)), hex(await s.exportKey('spki', edPublic)),
    hex(await s.exportKey('pkcs8', edPrivate)), sorted(await s.exportKey('jwk', edPrivate))];
  const edAgain = await s.importKey('pkcs8', await s.exportKey('pkcs8', edPrivate), 'Ed25519', false, ['sign']);
  out.ed25519Again = hex(await s.sign('Ed25519', edAgain, bytes('hello')));

  // ECDSA P-256: Node's signature verifies, ours verifies too.
  const ecPrivate = await s.importKey('jwk', KEYS.ec, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
  const ecPublic = await s.importKey('raw', await s.exportKey('raw', await s.importKey('jwk', { kty: 'EC', crv: 'P-256', x: KEYS.ec.x, y: KEYS.ec.y }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify'])),
    { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
  const nodeSig = Uint8Array.from(KEYS.ecSig.match(/../g), (h) => parseInt(h, 16));
  const ours = await s.sign({ name: 'ECDSA', hash: 'SHA-256' }, ecPrivate, bytes('hello'));
  out.ecdsa = [await s.verify({ name: 'ECDSA', hash: 'SHA-256' }, ecPublic, nodeSig, bytes('hello')),
    await s.verify({ name: 'ECDSA', hash: 'SHA-256' }, ecPublic, ours, bytes('hello')),
    await s.verify({ name: 'ECDSA', hash: 'SHA-384' }, ecPublic, ours, bytes('hello')),
    ours.byteLength, shape(ecPrivate), shape(ecPublic), hex(await s.exportKey('spki', ecPublic)),
    sorted(await s.exportKey('jwk', ecPrivate)), sorted(await s.exportKey('jwk', ecPublic))];
  const ecAgain = await s.importKey('pkcs8', await s.exportKey('pkcs8', ecPrivate), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
  out.ecdsaAgain = sorted(await s.exportKey('jwk', ecAgain));

  // RSA: PKCS #1 v1.5 signatures are deterministic; PSS ones verify.
  const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const rsaPrivate = await s.importKey('jwk', KEYS.rsa, rsa, true, ['sign']);
  const { d, p, q, dp, dq, qi, ...rsaPublicJwk } = KEYS.rsa;
  const rsaPublic = await s.importKey('jwk', rsaPublicJwk, rsa, true, ['verify']);
  const rsaSig = await s.sign(rsa, rsaPrivate, bytes('hello'));
  out.rsa = [hex(rsaSig), await s.verify(rsa, rsaPublic, rsaSig, bytes('hello')), await s.verify(rsa, rsaPublic, rsaSig, bytes('hellO')),
    shape(rsaPrivate), shape(rsaPublic), hex(await s.exportKey('spki', rsaPublic)), sorted(await s.exportKey('jwk', rsaPrivate))];
  const pss = { name: 'RSA-PSS', hash: 'SHA-384' };
  const pssPrivate = await s.importKey('pkcs8', await s.exportKey('pkcs8', rsaPrivate), pss, false, ['sign']);
  const pssPublic = await s.importKey('spki', await s.exportKey('spki', rsaPublic), pss, false, ['verify']);
  const pssSig = await s.sign({ name: 'RSA-PSS', saltLength: 32 }, pssPrivate, bytes('hello'));
  out.pss = [await s.verify({ name: 'RSA-PSS', saltLength: 32 }, pssPublic, pssSig, bytes('hello')),
    await s.verify({ name: 'RSA-PSS', saltLength: 32 }, pssPublic, pssSig, bytes('hellO')), shape(pssPublic)];

  // Generated keys: their shapes, and that they work.
  const hmacNew = await s.generateKey({ name: 'HMAC', hash: 'SHA-384' }, true, ['sign']);
  const aesNew = await s.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
  const round = await s.decrypt({ name: 'AES-GCM', iv: iv12 }, aesNew, await s.encrypt({ name: 'AES-GCM', iv: iv12 }, aesNew, bytes('round trip')));
  out.generated = [shape(hmacNew), (await s.exportKey('raw', hmacNew)).byteLength, shape(aesNew), new TextDecoder().decode(round)];
  for (const algorithm of [{ name: 'ECDSA', namedCurve: 'P-384' }, { name: 'Ed25519' },
    { name: 'RSA-PSS', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }]) {
    const pair = await s.generateKey(algorithm, false, ['sign', 'verify']);
    const params = { name: algorithm.name, hash: 'SHA-256', saltLength: 20 };
    const sig = await s.sign(params, pair.privateKey, bytes('x'));
    out[`generated ${algorithm.name}`] = [shape(pair.privateKey), shape(pair.publicKey), await s.verify(params, pair.publicKey, sig, bytes('x'))];
  }

  // Bad input: the error names the spec gives.
  const aes = await s.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt']);
  out.errors = [
    await failure(s.digest('MD4', bytes('x'))),
    await failure(s.importKey('raw', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, true, [])),
    await failure(s.importKey('raw', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, true, ['encrypt'])),
    await failure(s.importKey('raw', bytes('k'), 'FOO', true, ['sign'])),
    await failure(s.importKey('raw', new Uint8Array(10), 'AES-GCM', true, ['encrypt'])),
    await failure(s.importKey('raw', bytes('pw'), 'PBKDF2', true, ['deriveBits'])),
    await failure(s.importKey('jwk', { kty: 'EC', crv: 'P-256', x: 'AAA', y: 'BB' }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify'])),
    await failure(s.importKey('pkcs8', bytes('not a key'), 'Ed25519', true, ['sign'])),
    await failure(s.importKey('jwk', { kty: 'oct', k: 'c2VjcmV0', ext: false }, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign'])),
    await failure(s.sign('HMAC', aes, bytes('x'))),
    await failure(s.exportKey('raw', aes)),
    await failure(s.exportKey('raw', password)),
    await failure(s.decrypt({ name: 'AES-GCM', iv: iv12 }, aes, new Uint8Array(20))),
  ];
  out.classes = [typeof CryptoKey, typeof SubtleCrypto, Object.prototype.toString.call(s), await failure(Promise.resolve().then(() => new CryptoKey()))];
  return JSON.stringify(out, null, 1);
}
