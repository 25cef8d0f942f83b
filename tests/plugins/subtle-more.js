// crypto.subtle's second set of algorithms (issue 34): AES-CTR, AES-KW,
// 192-bit AES, AES-GCM's other tag and iv lengths, RSA-OAEP, ECDH, X25519,
// P-521 and wrapKey/unwrapKey, with fixed keys so that the output is
// deterministic, compared byte for byte with Node's own Web Crypto
// (tests/all/workers.rs). The keys were made by Node's generateKey for
// this test.
const KEYS = {
 "p521": {
  "kty": "EC",
  "crv": "P-521",
  "x": "AIssYiEEet-CzYUkKOhxTGOb9CifUVbuC-WMDCZXOUXpLb9PPfr3V19wwQCvCejVOJtBK-5yEIKTI3OKTqm4GMrn",
  "y": "ADl3jR45p2rjEt0GAgQ9tB-Z_FiCy9ELrQjD8jIxhQTLWekqlczxn8WKu99HnOTsn-xMTQ4WMUNqB_r98C0TDgDd",
  "d": "AJPV5AAppAGw8r8-IGWX8JfXGpqDYlotXgTSqFW4siIpNpLXQicqMTZxQMFaD2zNMxEbigaS1cCCf9t1P3drHGDT"
 },
 "p521Sig": "013648354a1acf040d71f120501438c2368276aa97999da4a92fa1340b0410bd4039f398d74a43a19a51be04aba966ea85163bde8de213a8d44a514a7827955d2c4700a11d5f7b46c0467fb3c16a2de2ec2d66c01c7e4212e8f50920e92f6558686cda08a823579906e210fde8830e326c967ef6e1a3ba4424b16fa2bcd5b535dd45111c",
 "ecdhP-256": {
  "kty": "EC",
  "crv": "P-256",
  "x": "WUJQvSvfrwiyvoM6bV-fjCLxGYDfnWYAisTNqGEok54",
  "y": "9sbrPk2jpgR-CW2W3U_fGx4isxJ2Df_ZVc9ufLC1SjU",
  "d": "eqVGFhxYC4fruMEwS78VyWc0mIiohkDjCLSyCG54ZaY"
 },
 "ecdhP-384": {
  "kty": "EC",
  "crv": "P-384",
  "x": "iRDBRM7lp1YV4gimot8z0Q81dkTG2Jx2srzWSivbIoxSZvI1ru9yLPv_o7DtJlFr",
  "y": "jebYnVOb9bg-r3jQAzAbSeekrAMeOlvQS7MOVnIXh8_xY8R8P_0AN0BPgNxfX3v4",
  "d": "YLrDcz2O6YAV9GtqRli36UrH1RS6empuPRsePobH__619IqLHsvVKGQzBujJdpzP"
 },
 "ecdhP-521": {
  "kty": "EC",
  "crv": "P-521",
  "x": "AfsZkD_9aZMyodyn5bXAb8iBKcrQV9YccF7njeVpUFtCJLd6AcifQdyOx5QOOpvQEU0y56NTPLvrBbcrluzg7A8h",
  "y": "Af1I7wlCgDmSiqw8ln1zAIWRjorES47ZcKcDt2dVCWEIqBLedukN2akFnQfemdwQXKBLEr6s6G6OHDyreoQJCQIu",
  "d": "AB9_G9h3fz2xPtSE6htLqg415SI32j2P4GkMMZzHYkqGji-xttVsCeP7Fq9FmCierK6wwq8KxtAFin6AFlpBmggO"
 },
 "x1": {
  "kty": "OKP",
  "crv": "X25519",
  "x": "zss9ICpLg7bMerBBKAPIFP5VnMce_sNcBqj_b2PlcmM",
  "d": "sKZiK5XT1gPcAa60qut92ZQRyTIFIWS7ZGAomtMZikU"
 },
 "x2": {
  "kty": "OKP",
  "crv": "X25519",
  "x": "ZcBlovqXS9UbYkg6w-F0Nm7ZTzkgaQMxhqHl2l0t7m8",
  "d": "2Er__fDONhTLXaDdMVs2BKPoiNpLD0dfaW1PmaRKFXI"
 }
};
// The 1024-bit RSA key of tests/plugins/subtle.js.
const RSA = {
  kty: 'RSA',
  n: '4Gmfi8ee-L8RlKkQAXygO7ZqeqCP1T24m8I-Jg6OjLU-w-b8aFmoFN8AmuBmZK2KdA7x31OnP8mDCFUcqoD43SbKmEYn3O6-P54Q1YoEIfUPSHL8woRqVV_JSbk6bAfDV_dLLTefX_jFCo2hHtQ9Q0lWzYevRX9FQGlNlzxxK8E',
  e: 'AQAB',
  d: 'ett4fEb6EkZQcqmn2JiJBIfWfXH_rIeQ1L0f1yfrBL-JMCj6EIrdCSgZJbEqfX3Aqc8wvcoHa1WABgTKn9Hh6_KKdYFC5fY9NsnljHp1BlpfYDs_JYom4K5kxGfiyEsikIdmrZ4mXY6eAlueUVUvq1SNvEtogz-8sMXaiRFaac0',
  p: '7_azYEk1gRpcVAxTdrD-DcGY1dUR0TnUW5n3cnghuTdx7XTa7PtKflcAyPehUffl77OGrp2j1yTL6dwWWGTQMw',
  q: '72jf4krMjRrNFXyU-BuhbaqUobRcMJXzsItJezb9lXEYLU3kJfsgglwqOKUz0jg7fhcsU2Tvpg7bNfMglQYQOw',
  dp: 'F1iBCxUUR4MxCFxKonmFvgDfxa39FcXyixbnpBNb9JEYXGnKAtRP4wrD4Ml2wGrFzBRDPinIDt5dmFr5MZBdUQ',
  dq: 'y-fc15WxhnTPO3-yOWb_JLJmiRtecZslxLW9Tg5WCNQcLWnr6VVsKNtqsngyHNf8A7ak8BpF6n84wUhj9ckGRQ',
  qi: 'xzqJ3LHQRp6uMiJY8PNWWLJetH6v-L9pijRIACojHk_lEYFHXYtiRyy3m6SmawOodvjq5ZhACdxY2vWdM7eCQg',
};

const s = crypto.subtle;
const bytes = (text) => new TextEncoder().encode(text);
const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (text) => Uint8Array.from(text.match(/../g), (h) => parseInt(h, 16));
const sorted = (value) => JSON.stringify(value, (k, v) =>
  v && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
    : ArrayBuffer.isView(v) ? Array.from(v) : v);
const shape = (key) => [key.type, key.extractable, sorted(key.algorithm), key.usages.slice().sort()];
const publicOf = ({ d, ...rest }) => rest;
async function failure(promise) {
  try {
    await promise;
    return 'resolved';
  } catch (e) {
    return e.name.replace('InvalidAccessException', 'InvalidAccessError');
  }
}

export async function render() {
  const out = {};
  const message = bytes('forty-eight bytes of a message to cipher, 48 b.');

  // AES-CTR, AES-CBC and AES-GCM with 128-, 192- and 256-bit keys.
  for (const length of [16, 24, 32]) {
    const raw = new Uint8Array(length).map((_, i) => i * 5 + 1);
    const counter = new Uint8Array(16).fill(0xff);
    const ctr = await s.importKey('raw', raw, 'AES-CTR', true, ['encrypt', 'decrypt']);
    const sealed = await s.encrypt({ name: 'AES-CTR', counter, length: 64 }, ctr, message);
    // A 4-bit counter wraps within the message's three blocks? No: 16
    // blocks fit; 2 bits (4 blocks) fit too; 1 bit does not.
    out[`aes-ctr ${length * 8}`] = [hex(sealed), hex(await s.encrypt({ name: 'AES-CTR', counter, length: 2 }, ctr, message)),
      new TextDecoder().decode(await s.decrypt({ name: 'AES-CTR', counter, length: 64 }, ctr, sealed)),
      await failure(s.encrypt({ name: 'AES-CTR', counter, length: 1 }, ctr, message)),
      await failure(s.encrypt({ name: 'AES-CTR', counter: new Uint8Array(8), length: 64 }, ctr, message)),
      shape(ctr), sorted(await s.exportKey('jwk', ctr))];
    const cbc = await s.importKey('raw', raw, 'AES-CBC', true, ['encrypt']);
    out[`aes-cbc ${length * 8}`] = [hex(await s.encrypt({ name: 'AES-CBC', iv: counter }, cbc, message)), sorted(await s.exportKey('jwk', cbc))];
    const gcm = await s.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
    for (const tagLength of [32, 64, 96, 104, 128]) {
      for (const iv of [new Uint8Array(12).fill(3), new Uint8Array(16).fill(4), new Uint8Array(32).fill(5)]) {
        const params = { name: 'AES-GCM', iv, additionalData: bytes('aad'), tagLength };
        const c = await s.encrypt(params, gcm, message);
        const altered = new Uint8Array(c.slice(0));
        altered[altered.length - 1] ^= 1;
        out[`aes-gcm ${length * 8} tag ${tagLength} iv ${iv.length}`] = [hex(c),
          new TextDecoder().decode(await s.decrypt(params, gcm, c)), await failure(s.decrypt(params, gcm, altered))];
      }
    }
    out[`aes-gcm ${length * 8} bad tag`] = await failure(s.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12), tagLength: 100 }, gcm, message));
  }

  // AES-KW: RFC 3394's first vector, and wrapKey/unwrapKey of an HMAC key.
  const kek = await s.importKey('raw', unhex('000102030405060708090a0b0c0d0e0f'), 'AES-KW', true, ['wrapKey', 'unwrapKey']);
  const payload = await s.importKey('raw', unhex('00112233445566778899aabbccddeeff'), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  const wrapped = await s.wrapKey('raw', payload, kek, 'AES-KW');
  const unwrapped = await s.unwrapKey('raw', wrapped, kek, 'AES-KW', { name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
  const altered = new Uint8Array(wrapped.slice(0));
  altered[0] ^= 1;
  out.aesKw = [hex(wrapped), shape(kek), sorted(await s.exportKey('jwk', kek)), shape(unwrapped), hex(await s.exportKey('raw', unwrapped)),
    await failure(s.unwrapKey('raw', altered, kek, 'AES-KW', { name: 'HMAC', hash: 'SHA-256' }, true, ['sign'])),
    await failure(s.encrypt('AES-KW', kek, message)),
    await failure(s.wrapKey('raw', await s.importKey('raw', new Uint8Array(12), { name: 'HMAC', hash: 'SHA-1' }, true, ['sign']), kek, 'AES-KW')),
    await failure(s.wrapKey('raw', await s.importKey('raw', new Uint8Array(16), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']), kek, 'AES-KW'))];
  // A JWK wrapped with AES-GCM comes back as the same key.
  const wrapper = await s.importKey('raw', new Uint8Array(32).fill(9), 'AES-GCM', false, ['wrapKey', 'unwrapKey']);
  const gcmParams = { name: 'AES-GCM', iv: new Uint8Array(12) };
  const wrappedJwk = await s.wrapKey('jwk', payload, wrapper, gcmParams);
  const back = await s.unwrapKey('jwk', wrappedJwk, wrapper, gcmParams, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  out.wrapJwk = [shape(back), hex(await s.exportKey('raw', back)),
    await failure(s.unwrapKey('jwk', await s.encrypt(gcmParams, await s.importKey('raw', new Uint8Array(32).fill(9), 'AES-GCM', false, ['encrypt']), bytes('not json')),
      wrapper, gcmParams, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']))];

  // RSA-OAEP: what one side encrypts the other decrypts, with and without
  // a label, for each hash.
  for (const hash of ['SHA-1', 'SHA-256', 'SHA-384']) {
    const alg = { name: 'RSA-OAEP', hash };
    const privateKey = await s.importKey('jwk', RSA, alg, true, ['decrypt', 'unwrapKey']);
    const publicKey = await s.importKey('jwk', publicOf(RSA), alg, true, ['encrypt', 'wrapKey']);
    const one = await s.encrypt({ name: 'RSA-OAEP' }, publicKey, bytes('short secret'));
    const two = await s.encrypt({ name: 'RSA-OAEP', label: bytes('a label') }, publicKey, bytes('short secret'));
    out[`rsa-oaep ${hash}`] = [new TextDecoder().decode(await s.decrypt({ name: 'RSA-OAEP' }, privateKey, one)),
      new TextDecoder().decode(await s.decrypt({ name: 'RSA-OAEP', label: bytes('a label') }, privateKey, two)),
      await failure(s.decrypt({ name: 'RSA-OAEP', label: bytes('another') }, privateKey, two)),
      one.byteLength, hex(one) === hex(await s.encrypt({ name: 'RSA-OAEP' }, publicKey, bytes('short secret'))),
      shape(privateKey), shape(publicKey), sorted(await s.exportKey('jwk', publicKey)).length];
  }
  const oaepPublic = await s.importKey('spki', await s.exportKey('spki', await s.importKey('jwk', publicOf(RSA), { name: 'RSA-OAEP', hash: 'SHA-256' }, true, ['encrypt'])),
    { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['wrapKey']);
  const oaepPrivate = await s.importKey('jwk', RSA, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['unwrapKey']);
  const viaOaep = await s.unwrapKey('raw', await s.wrapKey('raw', payload, oaepPublic, { name: 'RSA-OAEP' }), oaepPrivate, { name: 'RSA-OAEP' },
    { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  out.oaepWrap = hex(await s.exportKey('raw', viaOaep));

  // ECDH on each curve, both ways, whole and cut to a length.
  for (const curve of ['P-256', 'P-384', 'P-521']) {
    const alg = { name: 'ECDH', namedCurve: curve };
    const mine = await s.importKey('jwk', KEYS[`ecdh${curve}`], alg, true, ['deriveBits', 'deriveKey']);
    const theirs = await s.importKey('jwk', publicOf(KEYS.p521.crv === curve ? KEYS.p521 : KEYS[`ecdh${curve}`]), alg, true, []);
    const whole = await s.deriveBits({ name: 'ECDH', public: theirs }, mine);
    const key = await s.deriveKey({ name: 'ECDH', public: theirs }, mine, { name: 'AES-GCM', length: 256 }, true, ['encrypt']);
    out[`ecdh ${curve}`] = [hex(whole), hex(await s.deriveBits({ name: 'ECDH', public: theirs }, mine, 100)),
      hex(await s.deriveBits({ name: 'ECDH', public: theirs }, mine, 0)),
      await failure(s.deriveBits({ name: 'ECDH', public: theirs }, mine, whole.byteLength * 8 + 8)),
      await failure(s.deriveBits({ name: 'ECDH', public: mine }, mine)),
      hex(await s.exportKey('raw', key)), shape(mine), shape(theirs), hex(await s.exportKey('raw', theirs)),
      hex(await s.exportKey('spki', theirs)), sorted(await s.exportKey('jwk', mine))];
  }

  // X25519: both sides agree; RFC 7748's small-order point is refused.
  const x1 = await s.importKey('jwk', KEYS.x1, 'X25519', true, ['deriveBits']);
  const x2 = await s.importKey('jwk', KEYS.x2, { name: 'X25519' }, true, ['deriveBits']);
  const x1Public = await s.importKey('raw', await s.exportKey('raw', await s.importKey('jwk', publicOf(KEYS.x1), 'X25519', true, [])), 'X25519', true, []);
  const x2Public = await s.importKey('spki', await s.exportKey('spki', await s.importKey('jwk', publicOf(KEYS.x2), 'X25519', true, [])), 'X25519', true, []);
  const zero = await s.importKey('raw', new Uint8Array(32), 'X25519', true, []);
  out.x25519 = [hex(await s.deriveBits({ name: 'X25519', public: x2Public }, x1, 256)),
    hex(await s.deriveBits({ name: 'X25519', public: x1Public }, x2, 256)),
    hex(await s.deriveBits({ name: 'X25519', public: x1Public }, x2, 12)),
    await failure(s.deriveBits({ name: 'X25519', public: zero }, x1, 256)),
    hex(await s.exportKey('pkcs8', x1)), hex(await s.exportKey('spki', x2Public)), sorted(await s.exportKey('jwk', x1)),
    shape(x1), shape(x2Public)];

  // ECDSA P-521: Node's signature verifies, and so does ours.
  const p521Alg = { name: 'ECDSA', namedCurve: 'P-521' };
  const p521Private = await s.importKey('jwk', KEYS.p521, p521Alg, true, ['sign']);
  const p521Public = await s.importKey('jwk', publicOf(KEYS.p521), p521Alg, true, ['verify']);
  const p521Ours = await s.sign({ name: 'ECDSA', hash: 'SHA-256' }, p521Private, bytes('hello'));
  out.p521 = [await s.verify({ name: 'ECDSA', hash: 'SHA-512' }, p521Public, unhex(KEYS.p521Sig), bytes('hello')),
    await s.verify({ name: 'ECDSA', hash: 'SHA-256' }, p521Public, p521Ours, bytes('hello')),
    await s.verify({ name: 'ECDSA', hash: 'SHA-256' }, p521Public, p521Ours, bytes('hellO')),
    p521Ours.byteLength, hex(await s.exportKey('raw', p521Public)), hex(await s.exportKey('spki', p521Public)),
    sorted(await s.exportKey('jwk', p521Private))];
  // SHA-1 on P-384: a hash shorter than half the curve's field.
  const p384 = await s.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, false, ['sign', 'verify']);
  const sha1Sig = await s.sign({ name: 'ECDSA', hash: 'SHA-1' }, p384.privateKey, bytes('x'));
  out.p384Sha1 = await s.verify({ name: 'ECDSA', hash: 'SHA-1' }, p384.publicKey, sha1Sig, bytes('x'));

  // Generated keys of the new kinds: their shapes, and that they work.
  const pairs = [
    [{ name: 'ECDH', namedCurve: 'P-521' }, ['deriveBits', 'deriveKey']],
    [{ name: 'X25519' }, ['deriveBits']],
    [{ name: 'RSA-OAEP', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, ['encrypt', 'decrypt', 'wrapKey']],
  ];
  for (const [algorithm, usages] of pairs) {
    const pair = await s.generateKey(algorithm, true, usages);
    out[`generated ${algorithm.name}`] = [shape(pair.privateKey), shape(pair.publicKey)];
  }
  for (const algorithm of [{ name: 'AES-CTR', length: 192 }, { name: 'AES-KW', length: 256 }]) {
    out[`generated ${algorithm.name}`] = shape(await s.generateKey(algorithm, true, algorithm.name === 'AES-KW' ? ['wrapKey'] : ['encrypt']));
  }

  // Bad input: the error names the spec gives.
  out.errors = [
    await failure(s.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['sign'])),
    await failure(s.generateKey({ name: 'ECDH', namedCurve: 'P-192' }, true, ['deriveBits'])),
    await failure(s.generateKey({ name: 'AES-KW', length: 100 }, true, ['wrapKey'])),
    await failure(s.generateKey({ name: 'AES-CTR', length: 128 }, true, ['sign'])),
    await failure(s.importKey('raw', new Uint8Array(31), 'X25519', true, [])),
    await failure(s.importKey('raw', new Uint8Array(32), 'X25519', true, ['deriveBits'])),
    await failure(s.encrypt({ name: 'ECDH' }, x1, message)),
    await failure(s.sign('AES-CTR', x1, message)),
    await failure(s.deriveBits({ name: 'X25519', public: x1 }, x1, 256)),
    await failure(s.deriveBits({ name: 'ECDH', public: x2Public }, x1, 256)),
  ];
  return JSON.stringify(out, null, 1);
}
