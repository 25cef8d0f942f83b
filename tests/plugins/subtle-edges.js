// crypto.subtle where ssr differs from Node or says more (issue 33):
// Workers' timingSafeEqual, a key generated at the top level (build time),
// and the messages bad input gets (tests/all/workers.rs).
const s = crypto.subtle;
const bytes = (text) => new TextEncoder().encode(text);
const said = async (promise) => {
  try {
    await promise;
    return 'resolved';
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};

const atTopLevel = await said(s.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']));

export async function render() {
  return JSON.stringify({
    atTopLevel,
    equal: s.timingSafeEqual(bytes('same'), bytes('same')),
    unequal: s.timingSafeEqual(bytes('same'), bytes('sane')),
    lengths: await said(Promise.resolve().then(() => s.timingSafeEqual(bytes('a'), bytes('ab')))),
    generated: (await s.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign'])).algorithm.length,
    badJwk: await said(s.importKey('jwk', { kty: 'RSA', n: 'AQAB' }, { name: 'RSA-PSS', hash: 'SHA-256' }, true, ['verify'])),
    badBase64: await said(s.importKey('jwk', { kty: 'oct', k: 'not base64!' }, { name: 'HMAC', hash: 'SHA-256' }, true, ['sign'])),
    badDer: await said(s.importKey('spki', bytes('not der'), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify'])),
    curve: await said(s.importKey('raw', new Uint8Array(65), { name: 'ECDSA', namedCurve: 'P-192' }, true, ['verify'])),
    iterations: await said(s.importKey('raw', bytes('pw'), 'PBKDF2', false, ['deriveBits'])
      .then((k) => s.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: bytes('s'), iterations: 5e6 }, k, 256))),
    // An even exponent: a prime search that would never end, in the host.
    evenExponent: await said(s.generateKey({ name: 'RSA-PSS', hash: 'SHA-256', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 0]) }, true, ['sign', 'verify'])),
    tag: await said(s.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt'])
      .then((k) => s.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12), tagLength: 100 }, k, bytes('x')))),
    iv: await said(s.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt'])
      .then((k) => s.encrypt({ name: 'AES-GCM', iv: new Uint8Array(8) }, k, bytes('x')))),
    label: await said(s.importKey('jwk', { kty: 'RSA', n: '4Gmfi8ee-L8RlKkQAXygO7ZqeqCP1T24m8I-Jg6OjLU-w-b8aFmoFN8AmuBmZK2KdA7x31OnP8mDCFUcqoD43SbKmEYn3O6-P54Q1YoEIfUPSHL8woRqVV_JSbk6bAfDV_dLLTefX_jFCo2hHtQ9Q0lWzYevRX9FQGlNlzxxK8E', e: 'AQAB' }, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt'])
      .then((k) => s.encrypt({ name: 'RSA-OAEP', label: new Uint8Array([0xff]) }, k, bytes('x')))),
  });
}
