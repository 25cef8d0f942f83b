// node:crypto's key objects, signatures, ciphers, RSA encryption,
// Diffie-Hellman (finite-field and ECDH) and primes, as
// code written for Node uses them (tests/all/node_modules.rs compares the
// answer with workerd's). The two keys are this test's own, made with
// OpenSSL for it.
import { Buffer } from 'node:buffer';
import * as crypto from 'node:crypto';

const RSA = `-----BEGIN RSA PRIVATE KEY-----
MIIEogIBAAKCAQEAy0mVJlRCfAFeMxBKOI4Ra+Xcw812d3dnk03bWJZ9FgJ4l005
w6j6ScpVg2lBe/2FelmaMqACpvfQGN1jx9RnLj727xYT6kIT0IO8gpfS0ODUG9P2
SJgDeWPmwNOynMgHRhZMgKVnjYMFUtGy72Z5eG2kyxKdEWuKKDbcGXQwpz3WHecm
StIOznkh4rbCEvZD+5hoLKfwYNefh6M7f2OHLWblKdCBRclUtPst1jtJopWUCxZj
tOnk85y4rQHmu4MQ2ftJ7+Cyi8CRikHdN5ZRSH0++U+j0+f4Tzk/ZBWyHgZxwgMd
wqafGdecrM1ae+4XB0OSVIYE40ENT3j+YB3RhQIDAQABAoIBAAKgn4IF+z/n0ZK5
Sjk+PNQrCetsbJkUZ4cQ0lrZz3a8+vY4I2YJ5vndj50AuJlJFiHlXQ38W3QJlBx+
KS4WG5DRc7VP8mepdyoASeKwH3jZX9IpNUUeWwDzB+NWg8owTGxXGUBRLBzjvNHg
ctP9S3UBTKOVkdA6rtV+/PmnPvwFyVK3ge72L7o3v2NjGielWWN/OKi0EL9+r+30
+yNVRExRbyLpNtjUzaWM70HREewiUHqNc4NUkP9QQt8Q3pGNz2D5W+t5dwO83G6x
02qN7so62vv2HZnVcB1RZeitvgDopq0we8UEXrxdM4Y87EmPO0m9gC4yyvwkcUvc
apImtZECgYEA+v7ZhJTsL4RNZAilH+sncZELMdBiFcxbKMy2UryBBqaMNTFrVqea
dUM+PazMNlJ2iY3BC2RiyGm3tGCsU/WWq0dTjKVk91ZIrq9YZUtjOK5vNhXqqSfq
1LvYiNCdgH/6tX0sdP484ibKHeWoJ5X3iaRCkKCSTy6AdimRIq8X/c8CgYEAz1c3
vy/YkUeQ+hkZr/JrqronrL2hPAA/2NwYu2s0A1udt1mFC5q4Ohdw/lr1K4e3hfBY
LLsAprxJyhI2ZW0n7Ue13Gm6A8hb6i9tseSJ2JiFdukqBOBgmfa93B2BV53C+ybB
L07gdUl6ynmj44L6cOKfI1r523JDSwKs3ZBIhGsCgYBhyH99g3cwW966phOOh9Jq
EBPIaGKOE3tAPeCaAw5RRPlCj+o9bDZkkLni1TsJvr6ngC5A/e7uHSGQiEkavIbi
W3tVQ+o94cOXKoDJlcEmB+8Tpx4woHiAQF5vjraNpU5K/mUffxzBDlOXqi0Enww8
911ncucNKhSp9C+yz3wNSQKBgFeRj4LY00+weSOXvEiaSyzFCIKlaFZuCIkvk+Z8
BXCxne/VCCL5intGcTuL8OYcoL8Z3jOuGz1QYp3MiVrW+jj1w3I+2QhF88P5mgu6
6RkoeZ3aJhv/I+2Cz3cKoxj9EV9/Y7H2T0hZ61lefIBXTiylGe8VulcbcB5bF+VP
zcDXAoGAL8Iqq6r7PofO6pydyaMGqR1iqFDcWxCKya1M2oP/pT+tzGGw+HcMyCIU
rJ3df+fxwpow9HGJ/OaxpBORB26PJskg0cRyJvXOlSZ/51SPTk24Z4zFoa7JfHzF
H3krnpl/d6zq2GSbFLmdzAVQV1xinaVGPH2IrVb09DfqCDOh9rE=
-----END RSA PRIVATE KEY-----`;
const EC = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIExgGkC1nBPAqQfklLP9A4GWnqW8W6fXqVGd4e8Hbi1WoAoGCCqGSM49
AwEHoUQDQgAEVXaujqdu4aeI4HGbVn4vqVCcuy3lUvyW1YMC84wfBWn8Zenx6qa5
tMBjwGrLkgopjMNiSdREnftH2Hk4IOtZog==
-----END EC PRIVATE KEY-----`;

const sha = (b) => crypto.createHash('sha256').update(b).digest('hex').slice(0, 16);
const caught = (fn) => {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return `${e.name}${e.code ? ` ${e.code}` : ''}: ${e.message}`;
  }
};

// A JWK's members (workerd lists undefined ones too, and in another order
// than Node's).
const members = (jwk) => Object.keys(jwk).filter((k) => jwk[k] !== undefined).sort().join(',');

// A cipher fed in uneven pieces, then its decipher in others.
function roundTrip(alg, key, iv, text, aad) {
  const c = crypto.createCipheriv(alg, key, iv);
  if (aad) c.setAAD(aad);
  const parts = [];
  for (let at = 0, n = 1; at < text.length; at += n, n = n * 3 + 1) parts.push(c.update(text.subarray(at, at + n)));
  parts.push(c.final());
  const ct = Buffer.concat(parts);
  const tag = aad ? c.getAuthTag() : Buffer.alloc(0);
  const d = crypto.createDecipheriv(alg, key, iv);
  if (aad) {
    d.setAAD(aad);
    d.setAuthTag(tag);
  }
  const back = Buffer.concat([d.update(ct.subarray(0, 7)), d.update(ct.subarray(7)), d.final()]);
  return `${alg} ${ct.length} ${sha(ct)} ${tag.toString('hex')} ${back.equals(text)}`;
}

export default {
  async fetch() {
    const out = [];
    const rsa = crypto.createPrivateKey(RSA);
    const pub = crypto.createPublicKey(RSA);
    const d = rsa.asymmetricKeyDetails;
    out.push(`rsa: ${rsa.type} ${rsa.asymmetricKeyType} ${d.modulusLength} ${d.publicExponent} ${pub.type}`);
    const spki = pub.export({ type: 'spki', format: 'pem' });
    const pkcs8 = rsa.export({ type: 'pkcs8', format: 'der' });
    out.push(`exports: ${sha(spki)} ${sha(pub.export({ type: 'pkcs1', format: 'der' }))} ${sha(pkcs8)} ${rsa.export({ type: 'pkcs1', format: 'pem' }) === RSA + '\n'}`);
    out.push(`again: ${crypto.createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).equals(rsa)} ${crypto.createPublicKey(spki).equals(pub)}`);
    const jwk = rsa.export({ format: 'jwk' });
    out.push(`jwk: ${members(jwk)} ${crypto.createPrivateKey({ key: jwk, format: 'jwk' }).equals(rsa)}`);
    const locked = rsa.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'top secret' });
    out.push(`locked: ${locked.split('\n')[0]} ${crypto.createPrivateKey({ key: locked, passphrase: 'top secret' }).equals(rsa)} ${caught(() => crypto.createPrivateKey({ key: locked, passphrase: 'wrong' }))}`);

    const message = Buffer.from('a message to sign');
    const signature = crypto.sign('sha256', message, rsa);
    const signer = crypto.createSign('RSA-SHA256');
    signer.update('a message ');
    signer.end('to sign');
    out.push(`pkcs1 sign: ${sha(signature)} ${signer.sign(RSA, 'hex') === signature.toString('hex')} ${crypto.verify('sha256', message, pub, signature)} ${crypto.verify('sha256', Buffer.from('another'), pub, signature)}`);
    // Options with the key as text: workerd refuses a key object there
    // ("options.key" must be a string...), which Node and ssr take.
    const pss = crypto.sign('sha384', message, { key: RSA, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 });
    out.push(`pss: ${pss.length} ${crypto.verify('sha384', message, { key: spki, padding: 6, saltLength: 48 }, pss)} ${crypto.constants.RSA_PSS_SALTLEN_DIGEST}`);
    const sealed = crypto.publicEncrypt({ key: pub, oaepHash: 'sha256' }, Buffer.from('for the key holder'));
    out.push(`oaep: ${sealed.length} ${crypto.privateDecrypt({ key: rsa, oaepHash: 'sha256' }, sealed)}`);
    const pkcs1 = crypto.publicEncrypt({ key: pub, padding: 1 }, Buffer.from('old style'));
    out.push(`rsa pkcs1: ${crypto.privateDecrypt({ key: RSA, padding: 1 }, pkcs1)}`);
    const signed = crypto.privateEncrypt(rsa, Buffer.from('from the holder'));
    out.push(`private encrypt: ${sha(signed)} ${crypto.publicDecrypt(pub, signed)}`);

    const ec = crypto.createPrivateKey(EC);
    const ecPub = crypto.createPublicKey(ec);
    const ecJwk = ecPub.export({ format: 'jwk' });
    out.push(`ec: ${ec.asymmetricKeyType} ${ec.asymmetricKeyDetails.namedCurve} ${members(ecJwk)} ${ecJwk.crv} ${ec.export({ type: 'sec1', format: 'pem' }) === EC + '\n'}`);
    const der = crypto.sign('sha256', message, ec);
    const ecPkcs8 = ec.export({ type: 'pkcs8', format: 'pem' });
    const ecSpki = ecPub.export({ type: 'spki', format: 'pem' });
    const p1363 = crypto.sign('sha256', message, { key: ecPkcs8, dsaEncoding: 'ieee-p1363' });
    out.push(`ecdsa: ${der[0]} ${p1363.length} ${crypto.verify('sha256', message, ecPub, der)} ${crypto.verify('sha256', message, { key: ecSpki, dsaEncoding: 'ieee-p1363' }, p1363)} ${crypto.verify('sha256', message, ecPub, p1363)}`);

    const ed = crypto.generateKeyPairSync('ed25519');
    const edSig = crypto.sign(null, message, ed.privateKey);
    out.push(`ed25519: ${edSig.length} ${crypto.verify(null, message, ed.publicKey, edSig)} ${caught(() => crypto.createSign('sha256').update('x').sign(ed.privateKey))}`);
    // (RSA generation takes a varying time: web/crypto/node.rs's unit
    // tests and workerd's crypto_keys-test check it.)
    const pair = crypto.generateKeyPairSync('ec', { namedCurve: 'P-521', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    out.push(`generated: ${pair.publicKey.split('\n')[0]} ${pair.privateKey.split('\n')[0]} ${crypto.createPublicKey(pair.privateKey).asymmetricKeyDetails.namedCurve}`);

    const text = Buffer.from('Sixty-one bytes of text, to cross several AES blocks unevenly.');
    const key = Buffer.alloc(32, 7);
    const iv = Buffer.alloc(16, 9);
    for (const alg of ['aes-256-cbc', 'aes-256-ecb', 'aes-256-ctr', 'aes-256-ofb']) out.push(roundTrip(alg, key, alg.endsWith('ecb') ? null : iv, text));
    out.push(roundTrip('aes-128-gcm', key.subarray(0, 16), iv.subarray(0, 12), text, Buffer.from('header')));
    out.push(roundTrip('aes-256-gcm', key, iv, text, Buffer.from('header')));
    const chacha = crypto.createCipheriv('chacha20-poly1305', key, iv.subarray(0, 12), { authTagLength: 16 });
    chacha.setAAD(Buffer.from('header'));
    const cc = Buffer.concat([chacha.update(text), chacha.final()]);
    out.push(`chacha20-poly1305: ${sha(cc)} ${chacha.getAuthTag().toString('hex')}`);
    const tampered = crypto.createDecipheriv('aes-256-gcm', key, iv);
    tampered.setAuthTag(Buffer.alloc(16));
    tampered.update(text);
    out.push(`tampered: ${caught(() => tampered.final()).split(':')[0]}`);
    const unpadded = crypto.createDecipheriv('aes-256-cbc', key, iv);
    unpadded.update(Buffer.alloc(32));
    out.push(`bad padding: ${caught(() => unpadded.final()).split(':')[0]}`);

    out.push(`refused: ${[
      () => crypto.createPrivateKey('not a key'),
      () => crypto.createPublicKey(Buffer.alloc(3)),
      () => crypto.sign('sha256', message, pub),
      () => crypto.createCipheriv('aes-256-cbc', key.subarray(0, 5), iv),
      () => crypto.createCipheriv('aes-512-cbc', key, iv),
      () => crypto.generateKeyPairSync('rsa', { modulusLength: 100000 }),
      () => crypto.createHmac('sha256', rsa),
    ].map((f) => caught(f).split(':')[0]).join(', ')}`);
    const alice = crypto.createECDH('prime256v1');
    const bob = crypto.createECDH('prime256v1');
    alice.setPrivateKey(Buffer.alloc(32, 1));
    bob.generateKeys();
    const compressed = alice.getPublicKey('hex', 'compressed');
    out.push(`ecdh: ${sha(alice.getPublicKey())} ${compressed.slice(0, 2)} ${crypto.ECDH.convertKey(compressed, 'prime256v1', 'hex', 'hex') === alice.getPublicKey('hex')} ${alice.computeSecret(bob.getPublicKey()).equals(bob.computeSecret(alice.getPublicKey()))}`);
    const group = crypto.getDiffieHellman('modp14');
    const mine = crypto.createDiffieHellman(group.getPrime(), group.getGenerator());
    mine.setPrivateKey(Buffer.alloc(32, 3));
    const theirs = crypto.createDiffieHellmanGroup('modp14');
    theirs.generateKeys();
    const ours = mine.generateKeys();
    out.push(`dh: ${group.verifyError} ${sha(ours)} ${mine.computeSecret(theirs.getPublicKey()).equals(theirs.computeSecret(ours))} ${mine.computeSecret(Buffer.alloc(256, 5)).length} ${caught(() => mine.computeSecret(Buffer.from([1]))).split(':')[0]}`);
    const x1 = crypto.generateKeyPairSync('x25519');
    const x2 = crypto.generateKeyPairSync('x25519');
    const e1 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const e2 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const agree = (a, b) => crypto.diffieHellman({ privateKey: a.privateKey, publicKey: b.publicKey });
    out.push(`diffieHellman: ${agree(x1, x2).equals(agree(x2, x1))} ${agree(e1, e2).length} ${caught(() => agree(x1, e2)).split(':')[0]}`);
    const p64 = crypto.generatePrimeSync(64, { bigint: true });
    const safe = crypto.generatePrimeSync(32, { safe: true, bigint: true });
    out.push(`primes: ${crypto.checkPrimeSync(2n ** 127n - 1n)} ${crypto.checkPrimeSync(2n ** 128n + 1n)} ${crypto.checkPrimeSync(p64)} ${p64 >= 2n ** 63n} ${crypto.checkPrimeSync((safe - 1n) / 2n)} ${crypto.generatePrimeSync(24).byteLength}`);
    out.push(`refused again: ${[
      () => crypto.createECDH('nope'),
      () => crypto.getDiffieHellman('modp1'),
      () => crypto.generatePrimeSync(8193),
      () => crypto.createDiffieHellman(Buffer.from([4])),
      () => alice.computeSecret(Buffer.from([4, 1, 2])),
    ].map((f) => caught(f).split(':')[0]).join(', ')}`);
    out.push(`lists: ${crypto.getCiphers().includes('aes-256-gcm')} ${JSON.stringify(crypto.getCipherInfo('aes-192-ctr'))}`);
    out.push(`helpers: ${crypto.getFips()} ${JSON.stringify(crypto.secureHeapUsed())} ${crypto.pseudoRandomBytes(4).length} ${crypto.pseudoRandomBytes === crypto.randomBytes}`);
    return new Response(out.join('\n'));
  },
};
