// A test renderer for what the fourth security probe (issue 54) found. The
// path picks the case; tests/all/probe4.rs says what each must not do.
export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const q = url.searchParams;
    switch (url.pathname) {
      // As React Router does: a HEAD gets an empty body.
      case '/head':
        return new Response(request.method === 'HEAD' ? null : `the page, for a ${request.method}`, {
          headers: { 'content-type': 'text/html' },
        });
      // A page whose headers try to frame the response or its connection.
      case '/framing':
        return new Response('the hostile page', {
          headers: {
            'content-length': '0',
            'transfer-encoding': 'chunked',
            connection: 'close',
            'keep-alive': 'timeout=999',
            upgrade: 'h2c',
            'proxy-connection': 'keep-alive',
            trailer: 'x-forged',
          },
        });
      // A rejected `ctx.waitUntil()` whose message forges host log lines.
      case '/wait-until': {
        const forged = '\n2026-11-29T00:00:00.000000Z  INFO ssr: FORGED host line\u001b[31m';
        ctx.waitUntil(Promise.reject(new Error(forged + 'x'.repeat(Number(q.get('bytes') || 0)))));
        return new Response('ok');
      }
      // One chunk of `mib` MiB through a CompressionStream: one host call.
      case '/compress': {
        const chunk = new Uint8Array(Number(q.get('mib')) << 20).fill(97);
        const cs = new CompressionStream('gzip');
        const writer = cs.writable.getWriter();
        try {
          const [packed] = await Promise.all([
            new Response(cs.readable).arrayBuffer(),
            writer.write(chunk).then(() => writer.close()),
          ]);
          return new Response(`packed ${packed.byteLength}`);
        } catch (e) {
          return new Response(`threw: ${e.message}`);
        }
      }
      // A cached page whose query is what a visitor sent.
      case '/page':
        return new Response(`<p>page ${url.search.length}</p>`, {
          headers: { 'content-type': 'text/html' },
        });
      // The Cache API with a URL of `len` bytes.
      case '/cache-url': {
        const key = `https://x.test/${'k'.repeat(Number(q.get('len')))}`;
        const cache = caches.default;
        await cache.put(key, new Response('kept', { headers: { 'cache-control': 'max-age=60' } }));
        const found = await cache.match(key);
        return new Response(found ? await found.text() : 'not kept');
      }
      // RSA keys made one after another: seconds of host work.
      case '/rsa': {
        for (let i = 0; i < Number(q.get('n') || 1); i++) {
          await crypto.subtle.generateKey(
            { name: 'RSASSA-PKCS1-v1_5', modulusLength: 3072, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
            true,
            ['sign', 'verify'],
          );
        }
        return new Response('made');
      }
      // PBKDF2 at its most iterations: about a second of host work.
      case '/pbkdf2': {
        const key = await crypto.subtle.importKey('raw', new Uint8Array(16), 'PBKDF2', false, ['deriveBits']);
        await crypto.subtle.deriveBits(
          { name: 'PBKDF2', hash: 'SHA-512', salt: new Uint8Array(16), iterations: 1_000_000 },
          key,
          256,
        );
        return new Response('derived');
      }
      default:
        return new Response(`the page at ${url.pathname}`, {
          headers: { 'content-type': 'text/html' },
        });
    }
  },
};
