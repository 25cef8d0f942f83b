// `node:zlib` (issue 56): round trips in each format and way (sync,
// callback, stream), what workerd compressed read back, and a bomb POSTed
// to `/bomb?format=gzip|brotli|zstd` (`&stream=1`: through a decompressing
// stream), which must meet the tenant's memory limit or `maxOutputLength`,
// never the server's.
import zlib from 'node:zlib';
import { gzipSync, gunzipSync, crc32, createGunzip, createGzip } from 'zlib';
import { pipeline, Readable, Writable } from 'node:stream';
import { Buffer } from 'node:buffer';
import { promisify } from 'node:util';

async function roundTrips() {
  const text = 'hello zlib '.repeat(100);
  const out = [];
  for (const [c, d] of [['gzipSync', 'gunzipSync'], ['deflateSync', 'inflateSync'], ['deflateRawSync', 'inflateRawSync'], ['gzipSync', 'unzipSync'], ['deflateSync', 'unzipSync'], ['brotliCompressSync', 'brotliDecompressSync'], ['zstdCompressSync', 'zstdDecompressSync']]) {
    const packed = zlib[c](text, { level: 9 });
    out.push(`${c}/${d}: ${zlib[d](packed).toString() === text} ${packed.length < text.length}`);
  }
  const { constants: k } = zlib;
  const tuned = [
    zlib.brotliCompressSync(text, { params: { [k.BROTLI_PARAM_QUALITY]: 4, [k.BROTLI_PARAM_MODE]: k.BROTLI_MODE_TEXT, [k.BROTLI_PARAM_SIZE_HINT]: text.length } }),
    zlib.zstdCompressSync(text, { params: { [k.ZSTD_c_compressionLevel]: 19, [k.ZSTD_c_strategy]: k.ZSTD_btultra2, [k.ZSTD_c_checksumFlag]: 1 } }),
  ];
  out.push(`params: ${zlib.brotliDecompressSync(tuned[0]).toString() === text} ${zlib.zstdDecompressSync(tuned[1]).toString() === text}`);
  // What workerd 2026-11-17 gives for 'A' x 1000.
  const a = 'A'.repeat(1000);
  out.push(`workerd's: ${zlib.brotliDecompressSync(Buffer.from('1be703f82582a2b1402034', 'hex')).toString() === a} ${zlib.zstdDecompressSync(Buffer.from('28b52ffd60e8024d00001041410100e32b8005', 'hex')).toString() === a}`);
  for (const [c, d] of [['createBrotliCompress', 'createBrotliDecompress'], ['createZstdCompress', 'createZstdDecompress']]) {
    const parts = [];
    await new Promise((ok, fail) => pipeline(Readable.from([Buffer.from(text.slice(0, 300)), Buffer.from(text.slice(300))]), zlib[c](), zlib[d](),
      new Writable({ write(ch, e, cb) { parts.push(ch); cb(); } }), (e) => (e ? fail(e) : ok())));
    out.push(`${c}: ${Buffer.concat(parts).toString() === text}`);
  }
  out.push(`brotli callback: ${(await promisify(zlib.brotliDecompress)(await promisify(zlib.brotliCompress)('cb'))).toString()}`);
  for (const [name, fn] of [['brotli', () => zlib.brotliDecompressSync(Buffer.from('not brotli'))], ['zstd', () => zlib.zstdDecompressSync(Buffer.from('not zstd'))],
    ['zstd cut', () => zlib.zstdDecompressSync(zlib.zstdCompressSync(text).subarray(0, 10))], ['zstd param', () => zlib.zstdCompressSync('x', { params: { 9999: 1 } })],
    ['brotli param', () => zlib.brotliCompressSync('x', { params: { 9999: 1 } })]]) {
    try {
      fn();
      out.push(`${name}: no error`);
    } catch (e) {
      out.push(`${name}: ${e.name} ${e.message.split(':')[0]}`);
    }
  }
  const info = zlib.zstdCompressSync('x', { info: true });
  out.push(`info: ${Object.keys(info).sort()} ${info.engine instanceof zlib.ZstdCompress}`);
  out.push(`callback: ${(await promisify(zlib.gunzip)(await promisify(zlib.gzip)('cb'))).toString()}`);
  const chunks = [];
  await new Promise((ok, fail) => pipeline(Readable.from([Buffer.from(text.slice(0, 500)), Buffer.from(text.slice(500))]), createGzip(), createGunzip(),
    new Writable({ write(c, e, cb) { chunks.push(c); cb(); } }), (e) => (e ? fail(e) : ok())));
  out.push(`stream: ${Buffer.concat(chunks).toString() === text}`);
  try {
    gunzipSync(Buffer.from('not gzip at all'));
  } catch (e) {
    out.push(`bad data: ${e.code} ${e.errno}`);
  }
  try {
    zlib.inflateSync(zlib.deflateSync(Buffer.alloc(4096)), { maxOutputLength: 1024 });
  } catch (e) {
    out.push(`maxOutputLength: ${e.name} ${e.message}`);
  }
  out.push(`crc32: ${crc32('hello')} ${crc32('world', crc32('hello '))} ${crc32('hello world')}`);
  out.push(`sizes: ${gzipSync(Buffer.alloc(1 << 20)).length < 2048}`);
  return out.join('\n');
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname !== '/bomb') return new Response(await roundTrips());
    const bomb = new Uint8Array(await request.arrayBuffer());
    const format = url.searchParams.get('format') ?? 'gzip';
    const [sync, stream] = {
      gzip: [gunzipSync, createGunzip],
      brotli: [zlib.brotliDecompressSync, zlib.createBrotliDecompress],
      zstd: [zlib.zstdDecompressSync, zlib.createZstdDecompress],
    }[format];
    if (url.searchParams.get('stream')) {
      let total = 0;
      await new Promise((ok, fail) => pipeline(Readable.from([bomb]), stream(), new Writable({
        write(c, e, cb) {
          total += c.length;
          // Held, as an app that buffers what it reads would.
          (globalThis.held ??= []).push(c);
          cb();
        },
      }), (e) => (e ? fail(e) : ok())));
      return new Response(`inflated ${total}`);
    }
    return new Response(`inflated ${sync(bomb).length}`);
  },
};
