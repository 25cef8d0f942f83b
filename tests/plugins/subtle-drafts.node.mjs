// What tests/plugins/subtle-drafts.js must give, from Node's node:crypto
// (OpenSSL's SHA-3, SHAKE, AES-OCB and ChaCha20-Poly1305) and NIST SP
// 800-185's KMAC samples, which Node does not compute; and ML-KEM's sizes
// (FIPS 203's table 3) and what its keys must do.
import crypto from 'node:crypto';

const hex = (b) => Buffer.from(b).toString('hex');
const range = (from, n) => Uint8Array.from({ length: n }, (_, i) => (from + i) & 0xff);
const out = { digest: {}, kmac: {}, ocb: {}, chacha: {}, kem: {} };
const data = range(0, 200);
const hash = (name, input, outputLength) => crypto.createHash(name, outputLength === undefined ? {} : { outputLength }).update(input).digest();
for (const bits of [256, 384, 512]) {
  out.digest[`SHA3-${bits}`] = [hex(hash(`sha3-${bits}`, 'abc')), hex(hash(`sha3-${bits}`, data))];
}
for (const bits of [128, 256]) {
  out.digest[`cSHAKE${bits}`] = [hex(hash(`shake${bits}`, data, 32)), hex(hash(`shake${bits}`, 'abc', 1000)), ''];
}
out.kmac = {
  'KMAC128 4 plain': ['e5780b0d3ea6f7d3a429c5706aa43a00fadbd7d49628839e3187243f456ee14e', true, false],
  'KMAC128 4 custom': ['3b1fba963cd8b0b59e8c1a6d71888b7143651af8ba0a7070c0979e2811324aa5', true, false],
  'KMAC256 4 custom': ['20c570c31346f703c9ac36c61c03cb64c3970d0cfc787e9b79599d273a68d2f7f69d4cc3de9d104a351689f27cf6f5951f0103f33f4f24871024d9c27773a8dd', true, false],
  'KMAC256 200 custom': ['b58618f71f92e1d56c1b8c55ddd7cd188b97b4ca4d99831eb2699a837da2e4d970fbacfde50033aea585f1a2708510c32d07880801bd182898fe476876fc8965', true, false],
  generated: [256, 32],
};
const aad = Buffer.from('header');
const seal = (cipher, key, iv, tagLength, additional) => {
  const c = crypto.createCipheriv(cipher, key, iv, { authTagLength: tagLength / 8 });
  if (additional) c.setAAD(additional);
  return hex(Buffer.concat([c.update(data), c.final(), c.getAuthTag()]));
};
for (const bits of [128, 192, 256]) {
  for (const [ivLength, tagLength] of [[12, 128], [15, 96], [12, 64], [6, 128]]) {
    out.ocb[`${bits} ${ivLength} ${tagLength}`] = [
      seal(`aes-${bits}-ocb`, range(bits, bits / 8), range(7, ivLength), tagLength, aad), true, 'OperationError',
    ];
  }
}
for (const additional of [undefined, aad]) {
  out.chacha[additional ? 'aad' : 'plain'] = [
    seal('chacha20-poly1305', range(0x80, 32), range(0x20, 12), 128, additional), true, 'OperationError',
  ];
}
out.chacha.jwk = { key_ops: ['encrypt', 'decrypt'], ext: true, kty: 'oct', k: Buffer.from(range(0x80, 32)).toString('base64url'), alg: 'C20P' };
for (const [name, ciphertext, publicKey] of [['ML-KEM-512', 768, 800], ['ML-KEM-768', 1088, 1184], ['ML-KEM-1024', 1568, 1568]]) {
  out.kem[name] = [32, ciphertext, publicKey, true, true, true, true, true, ['encapsulateKey'], 'OperationError'];
}
out.kem.getPublicKey = [true, 'InvalidAccessError', 'NotSupportedError', 'SyntaxError'];
out.kem.supports = [true, false, true, false, true, true, false];
out.refused = {
  rawFormat: 'NotSupportedError',
  shortKey: 'DataError',
  chachaIv: 'OperationError',
  ocbIv: 'OperationError',
  ocbTag: 'OperationError',
  kmacLength: 'TypeError',
};
console.log(JSON.stringify(out, null, 1));
