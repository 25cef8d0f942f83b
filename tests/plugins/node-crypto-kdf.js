// node:crypto's hashes as streams, HMACs, PBKDF2, HKDF, scrypt and secret
// KeyObjects, as code written for Node uses them (tests/all/node_modules.rs
// compares the answer with workerd's).
import { Buffer } from 'node:buffer';
import * as crypto from 'node:crypto';
import { PassThrough } from 'node:stream';

const hex = (b) => Buffer.from(b).toString('hex');
const caught = (fn) => {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return `${e.name} ${e.code ?? ''}`.trim();
  }
};
const called = (fn) => new Promise((resolve) => fn((err, out) => resolve(err ? `${err.name}` : hex(out))));

export default {
  async fetch() {
    const out = [];
    const piped = await new Promise((resolve) => {
      const h = crypto.createHash('sha256');
      new PassThrough().end('streamed').pipe(h).setEncoding('hex').on('data', resolve);
    });
    out.push(`piped: ${piped === crypto.hash('sha256', 'streamed')}`);
    const h = crypto.createHash('sha1').update('a');
    const copy = h.copy().update('b');
    out.push(`copy: ${h.digest('hex')} ${copy.digest('base64')} ${caught(() => h.digest())}`);
    const mac = crypto.createHmac('sha224', crypto.createSecretKey(Buffer.from('key')));
    out.push(`hmac: ${mac.update('data').digest('hex')} then '${mac.digest('hex')}' ${caught(() => mac.update('x'))}`);
    out.push(`pbkdf2: ${hex(crypto.pbkdf2Sync('password', 'salt', 1000, 20, 'sha512'))} ${await called((cb) => crypto.pbkdf2('password', 'salt', 1000, 20, 'md5', cb))}`);
    const key = crypto.createSecretKey('abcdef01020304', 'hex');
    out.push(`key: ${key.type} ${key.symmetricKeySize} ${JSON.stringify(key.export({ format: 'jwk' }))} ${key.equals(crypto.createSecretKey(key.export()))}`);
    out.push(`hkdf: ${hex(crypto.hkdfSync('sha256', key, 'hello', 'there', 20))} ${await called((cb) => crypto.hkdf('sha384', 'ikm', '', 'info', 16, cb))}`);
    out.push(`scrypt: ${hex(crypto.scryptSync('password', 'NaCl', 16, { N: 1024, r: 8, p: 16 }))} ${await called((cb) => crypto.scrypt('pass', 'salt', 8, { cost: 16, blockSize: 1, parallelization: 1 }, cb))}`);
    out.push(
      'refused: ' +
        [
          caught(() => crypto.pbkdf2Sync('p', 's', 0, 20, 'sha1')),
          caught(() => crypto.pbkdf2Sync('p', 's', 1, 20)),
          caught(() => crypto.pbkdf2Sync('p', 's', 1, 20, 'md55')),
          caught(() => crypto.pbkdf2Sync('p', 's', 1, 5101, 'sha1')),
          caught(() => crypto.hkdfSync('sha256', 'k', 's', Buffer.alloc(1025), 10)),
          caught(() => crypto.hkdfSync('sha512', 'k', '', '', 64 * 255 + 1)),
          caught(() => crypto.scryptSync('p', 's', 16, { N: 3 })),
          caught(() => crypto.scryptSync('p', 's', 64, { N: 1024, r: 1, p: 32768 })),
          caught(() => crypto.scryptSync('p', 's', 16, { N: 16, cost: 16 })),
          caught(() => crypto.createHash('nope')),
          caught(() => crypto.createHmac(null, 'k')),
          caught(() => crypto.randomInt(5, 5)),
          caught(() => crypto.webcrypto.getRandomValues.call(undefined, new Uint8Array(4))),
        ].join(', '),
    );
    const common = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'RSA-SHA256', 'ecdsa-with-SHA1'];
    out.push(`hashes: ${common.every((name) => crypto.getHashes().includes(name) && crypto.hkdfSync(name, 'k', '', '', 8).byteLength === 8)}`);
    return new Response(out.join('\n'));
  },
};
