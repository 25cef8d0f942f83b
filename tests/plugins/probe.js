// A test renderer for what the second security probe (issue 32) found. The
// path picks the attack; tests/all/probe.rs says what each must not do.
const enc = new TextEncoder();

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const q = url.searchParams;
    switch (url.pathname) {
      // Streams its head, then reads the visitor's cookie (as a Suspense
      // boundary does once its data is there) and greets them: after a
      // timer (`?late=timer`; the render outlasts the head's sending), or
      // as soon as the body is pulled (`?late=pull`; it may end before the
      // host has read the head).
      case '/stream-cookie': {
        const greet = (c) => {
          const who = request.headers.get('cookie') || 'nobody';
          c.enqueue(enc.encode(`<p>hello ${who} ${Math.random()}</p>`));
          c.close();
        };
        let pulled = false;
        const body = q.get('late') === 'pull'
          ? new ReadableStream({
            pull(c) {
              if (pulled) return greet(c);
              pulled = true;
              c.enqueue(enc.encode('<h1>shop</h1>'));
            },
          })
          : new ReadableStream({
            async start(c) {
              c.enqueue(enc.encode('<h1>shop</h1>'));
              await new Promise((ok) => setTimeout(ok, 5));
              greet(c);
            },
          });
        return new Response(body, { headers: { 'content-type': 'text/html' } });
      }
      // `n` requests of `url` at once, each read whole: the bytes that came
      // back, and the first error.
      case '/parallel': {
        const n = Number(q.get('n') || 1);
        const all = await Promise.allSettled(
          Array.from({ length: n }, () => fetch(q.get('url')).then((r) => r.arrayBuffer())),
        );
        const bytes = all.reduce((sum, r) => sum + (r.status === 'fulfilled' ? r.value.byteLength : 0), 0);
        const failed = all.find((r) => r.status === 'rejected');
        return new Response(`${bytes} bytes; ${failed ? `${failed.reason.name}: ${failed.reason.message}` : 'no error'}`, {
          headers: { 'cache-control': 'no-store' },
        });
      }
      // `n` requests of `url` fired and never awaited.
      case '/fire': {
        const n = Number(q.get('n') || 1);
        for (let i = 0; i < n; i++) fetch(q.get('url')).catch(() => {});
        return new Response(`fired ${n}`, { headers: { 'cache-control': 'no-store' } });
      }
      // One request of `url`, and what it rejected with.
      case '/get': {
        try {
          const r = await fetch(q.get('url'));
          return new Response(`${r.status} ${await r.text()}`, { headers: { 'cache-control': 'no-store' } });
        } catch (e) {
          return new Response(`${e.name}: ${e.message}`, { headers: { 'cache-control': 'no-store' } });
        }
      }
      // The secret KEY in each way a careless site writes it.
      case '/leak': {
        const how = q.get('how');
        if (how === 'json') console.log(JSON.stringify({ key: env.KEY }));
        if (how === 'object') console.log('config', { key: env.KEY });
        if (how === 'throw') throw env.KEY;
        if (how === 'throw-object') throw { key: env.KEY };
        return new Response('logged', { headers: { 'cache-control': 'no-store' } });
      }
      // The request body's length.
      case '/upload':
        return new Response(`got ${(await request.arrayBuffer()).byteLength} bytes`);
      // `kib` KiB, whole or streamed in 64 KiB chunks, never kept.
      case '/big':
        return new Response('x'.repeat(Number(q.get('kib')) * 1024), { headers: { 'cache-control': 'no-store' } });
      case '/stream-big': {
        const chunk = enc.encode('y'.repeat(64 * 1024));
        let left = Number(q.get('kib')) / 64;
        const body = new ReadableStream({
          pull(c) {
            if (left-- > 0) c.enqueue(chunk);
            else c.close();
          },
        });
        return new Response(body, { headers: { 'cache-control': 'no-store' } });
      }
      default:
        return new Response('not found', { status: 404 });
    }
  },
};
