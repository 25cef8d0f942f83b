// crypto.subtle's algorithms of the Modern Algorithms draft (issue 34):
// SHA-3, cSHAKE, KMAC, AES-OCB and ChaCha20-Poly1305, with their
// "raw-secret" format; ML-KEM's encapsulation, getPublicKey and
// SubtleCrypto.supports. Node 20's Web Crypto has none of them, so
// tests/all/workers.rs compares this with subtle-drafts.node.mjs, which
// gives the same answers from Node's own hashes and ciphers (OpenSSL), and
// KMAC's from NIST SP 800-185's samples.
const s = crypto.subtle;
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const range = (from, n) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);
const bytes = (text) => new TextEncoder().encode(text);
const said = async (promise) => {
  try {
    await promise;
    return 'resolved';
  } catch (e) {
    return e.name;
  }
};

export async function render() {
  const out = { digest: {}, kmac: {}, ocb: {}, chacha: {}, kem: {} };
  const data = range(0, 200);
  for (const name of ['SHA3-256', 'SHA3-384', 'SHA3-512']) {
    out.digest[name] = [hex(await s.digest(name, bytes('abc'))), hex(await s.digest({ name }, data))];
  }
  // cSHAKE without a function name or customization is SHAKE.
  for (const name of ['cSHAKE128', 'cSHAKE256']) {
    out.digest[name] = [
      hex(await s.digest({ name, length: 256 }, data)),
      hex(await s.digest({ name, length: 1000 * 8 }, bytes('abc'))),
      hex(await s.digest({ name, length: 0 }, data)),
    ];
  }
  // NIST SP 800-185's KMAC samples: key 0x40..0x5f, data 0x00..0x03 or
  // 0x00..0xc7, "My Tagged Application" or no customization.
  const custom = bytes('My Tagged Application');
  for (const [name, n, customization, length] of [
    ['KMAC128', 4, undefined, 256], ['KMAC128', 4, custom, 256],
    ['KMAC256', 4, custom, 512], ['KMAC256', 200, custom, 512],
  ]) {
    const key = await s.importKey('raw-secret', range(0x40, 32), { name }, true, ['sign', 'verify']);
    const mac = await s.sign({ name, length, customization }, key, range(0, n));
    out.kmac[`${name} ${n} ${customization ? 'custom' : 'plain'}`] = [
      hex(mac),
      await s.verify({ name, length, customization }, key, mac, range(0, n)),
      await s.verify({ name, length, customization: bytes('other') }, key, mac, range(0, n)),
    ];
  }
  const kmacKey = await s.generateKey({ name: 'KMAC256' }, true, ['sign']);
  out.kmac.generated = [kmacKey.algorithm.length, (await s.exportKey('raw-secret', kmacKey)).byteLength];
  const aad = bytes('header');
  for (const bits of [128, 192, 256]) {
    for (const [ivLength, tagLength] of [[12, 128], [15, 96], [12, 64], [6, 128]]) {
      const key = await s.importKey('raw-secret', range(bits, bits / 8), 'AES-OCB', true, ['encrypt', 'decrypt']);
      const iv = range(7, ivLength);
      const sealed = await s.encrypt({ name: 'AES-OCB', iv, tagLength, additionalData: aad }, key, data);
      const opened = await s.decrypt({ name: 'AES-OCB', iv, tagLength, additionalData: aad }, key, sealed);
      const altered = new Uint8Array(sealed.slice(0));
      altered[3] ^= 1;
      out.ocb[`${bits} ${ivLength} ${tagLength}`] = [
        hex(sealed), hex(opened) === hex(data),
        await said(s.decrypt({ name: 'AES-OCB', iv, tagLength, additionalData: aad }, key, altered)),
      ];
    }
  }
  const chachaKey = await s.importKey('raw-secret', range(0x80, 32), 'ChaCha20-Poly1305', true, ['encrypt', 'decrypt']);
  for (const additionalData of [undefined, aad]) {
    const iv = range(0x20, 12);
    const sealed = await s.encrypt({ name: 'ChaCha20-Poly1305', iv, additionalData }, chachaKey, data);
    const opened = await s.decrypt({ name: 'ChaCha20-Poly1305', iv, additionalData }, chachaKey, sealed);
    out.chacha[additionalData ? 'aad' : 'plain'] = [
      hex(sealed), hex(opened) === hex(data),
      await said(s.decrypt({ name: 'ChaCha20-Poly1305', iv, additionalData: bytes('other') }, chachaKey, sealed)),
    ];
  }
  out.chacha.jwk = await s.exportKey('jwk', chachaKey);
  for (const name of ['ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024']) {
    const pair = await s.generateKey(name, true, ['encapsulateBits', 'encapsulateKey', 'decapsulateBits', 'decapsulateKey']);
    const { sharedKey, ciphertext } = await s.encapsulateBits(name, pair.publicKey);
    const found = await s.decapsulateBits({ name }, pair.privateKey, ciphertext);
    const altered = new Uint8Array(ciphertext.slice(0));
    altered[0] ^= 1;
    const seed = await s.exportKey('raw-seed', pair.privateKey);
    const again = await s.importKey('raw-seed', seed, name, true, ['decapsulateBits']);
    const pkcs8 = await s.exportKey('pkcs8', again);
    const fromPkcs8 = await s.importKey('pkcs8', pkcs8, name, true, ['decapsulateBits']);
    const spki = await s.exportKey('spki', pair.publicKey);
    const derived = await s.getPublicKey(fromPkcs8, ['encapsulateKey']);
    const sent = await s.encapsulateKey(name, derived, { name: 'AES-GCM', length: 256 }, false, ['encrypt']);
    const received = await s.decapsulateKey(name, pair.privateKey, sent.ciphertext, 'AES-GCM', false, ['decrypt']);
    const iv = new Uint8Array(12);
    const sealed = await s.encrypt({ name: 'AES-GCM', iv }, sent.sharedKey, data);
    out.kem[name] = [
      sharedKey.byteLength, ciphertext.byteLength, (await s.exportKey('raw-public', pair.publicKey)).byteLength,
      hex(found) === hex(sharedKey),
      hex(await s.decapsulateBits(name, pair.privateKey, altered)) !== hex(sharedKey),
      hex(pkcs8).endsWith(hex(seed)) && pkcs8.byteLength === 86,
      hex(await s.exportKey('spki', derived)) === hex(spki),
      hex(await s.decrypt({ name: 'AES-GCM', iv }, received, sealed)) === hex(data),
      derived.usages, await said(s.decapsulateBits(name, pair.privateKey, ciphertext.slice(1))),
    ];
  }
  const ec = await s.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify']);
  const ecPublic = await s.getPublicKey(ec.privateKey, ['verify']);
  out.kem.getPublicKey = [
    hex(await s.exportKey('spki', ecPublic)) === hex(await s.exportKey('spki', ec.publicKey)),
    await said(s.getPublicKey(ec.publicKey, ['verify'])),
    await said(s.getPublicKey(chachaKey, [])),
    await said(s.getPublicKey(ec.privateKey, ['encrypt'])),
  ];
  out.kem.supports = [
    SubtleCrypto.supports('generateKey', { name: 'AES-GCM', length: 256 }),
    SubtleCrypto.supports('generateKey', { name: 'AES-GCM', length: 100 }),
    SubtleCrypto.supports('encapsulateBits', 'ML-KEM-768'),
    SubtleCrypto.supports('sign', 'AES-GCM'),
    SubtleCrypto.supports('digest', 'SHA3-256'),
    SubtleCrypto.supports('deriveBits', { name: 'HKDF', hash: 'SHA-256', salt: data, info: data }, 256),
    SubtleCrypto.supports('GENERATEKEY', 'AES-GCM'),
  ];
  out.refused = {
    rawFormat: await said(s.importKey('raw', range(0, 32), 'ChaCha20-Poly1305', true, ['encrypt'])),
    shortKey: await said(s.importKey('raw-secret', range(0, 16), 'ChaCha20-Poly1305', true, ['encrypt'])),
    chachaIv: await said(s.encrypt({ name: 'ChaCha20-Poly1305', iv: range(0, 8) }, chachaKey, data)),
    ocbIv: await said(s.importKey('raw-secret', range(0, 16), 'AES-OCB', true, ['encrypt'])
      .then((k) => s.encrypt({ name: 'AES-OCB', iv: range(0, 16) }, k, data))),
    ocbTag: await said(s.importKey('raw-secret', range(0, 16), 'AES-OCB', true, ['encrypt'])
      .then((k) => s.encrypt({ name: 'AES-OCB', iv: range(0, 12), tagLength: 32 }, k, data))),
    kmacLength: await said(s.sign({ name: 'KMAC128' }, (await s.generateKey('KMAC128', false, ['sign'])), data)),
  };
  return JSON.stringify(out, null, 1);
}
