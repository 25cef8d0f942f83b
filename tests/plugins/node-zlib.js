// `node:zlib` (issue 56): round trips in each format and way (sync,
// callback, stream), and a bomb POSTed to `/bomb` (`?stream=1`: through
// `createGunzip`), which must meet the tenant's memory limit or
// `maxOutputLength`, never the server's.
import zlib from 'node:zlib';
import { gzipSync, gunzipSync, crc32, createGunzip, createGzip } from 'zlib';
import { pipeline, Readable, Writable } from 'node:stream';
import { Buffer } from 'node:buffer';
import { promisify } from 'node:util';

async function roundTrips() {
  const text = 'hello zlib '.repeat(100);
  const out = [];
  for (const [c, d] of [['gzipSync', 'gunzipSync'], ['deflateSync', 'inflateSync'], ['deflateRawSync', 'inflateRawSync'], ['gzipSync', 'unzipSync'], ['deflateSync', 'unzipSync']]) {
    const packed = zlib[c](text, { level: 9 });
    out.push(`${c}/${d}: ${zlib[d](packed).toString() === text} ${packed.length < text.length}`);
  }
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
    out.push(`maxOutputLength: ${e.code}`);
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
    if (url.searchParams.get('stream')) {
      let total = 0;
      await new Promise((ok, fail) => pipeline(Readable.from([bomb]), createGunzip(), new Writable({
        write(c, e, cb) {
          total += c.length;
          // Held, as an app that buffers what it reads would.
          (globalThis.held ??= []).push(c);
          cb();
        },
      }), (e) => (e ? fail(e) : ok())));
      return new Response(`inflated ${total}`);
    }
    return new Response(`inflated ${gunzipSync(bomb).length}`);
  },
};
