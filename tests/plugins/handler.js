// A renderer in the Workers form: `export default { fetch(request, env,
// ctx) }` returning a Response. Each path exercises one part of the Fetch
// API the prelude gives both engines.
const page = (title, body, init = {}) =>
  new Response(`<!doctype html><title>${title}</title>${body}`, {
    ...init,
    headers: { 'content-type': 'text/html; charset=utf-8', ...(init.headers || {}) },
  });

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    switch (url.pathname) {
      case '/':
        return page('home', `<p>${request.method} ${url.pathname}${url.search}</p>`);
      case '/form':
        if (request.method !== 'POST') {
          return page('form', '<form method="post"><input name="name"><button>go</button></form>');
        }
        {
          const form = await request.formData();
          const name = form.get('name');
          return new Response(null, {
            status: 303,
            headers: { location: `/thanks?name=${encodeURIComponent(name)}` },
          });
        }
      case '/thanks':
        return page('thanks', `<p>thanks, ${url.searchParams.get('name')}</p>`);
      case '/echo': {
        const text = await request.text();
        let again;
        try {
          await request.text();
        } catch (e) {
          again = `${e.name}: ${e.message}`;
        }
        return Response.json({
          method: request.method,
          url: request.url,
          type: request.headers.get('content-type'),
          length: text.length,
          text,
          again,
          used: request.bodyUsed,
          prefix: request.headers.get('x-forwarded-prefix'),
        });
      }
      case '/json': {
        const data = await request.json();
        return Response.json({ got: data, sum: data.a + data.b }, { status: 201 });
      }
      case '/bytes': {
        const body = new Uint8Array(await request.arrayBuffer());
        const out = new Uint8Array(256);
        for (let i = 0; i < 256; i++) out[i] = 255 - i;
        return new Response(out, {
          headers: { 'content-type': 'application/octet-stream', 'x-in': String(body.length) },
        });
      }
      case '/digest': {
        // Read as a stream, piece by piece, as an upload handler does.
        const reader = request.body.getReader();
        const pieces = [];
        let bytes = 0;
        let chunks = 0;
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            pieces.push(value);
            bytes += value.byteLength;
            chunks++;
          }
        } catch (e) {
          return Response.json({ bytes, failed: `${e.name}: ${e.message}` }, { status: 422 });
        }
        const all = new Uint8Array(bytes);
        let at = 0;
        for (const p of pieces) { all.set(p, at); at += p.byteLength; }
        const sha = new Uint8Array(await crypto.subtle.digest('SHA-256', all));
        const hex = Array.from(sha, (b) => b.toString(16).padStart(2, '0')).join('');
        return Response.json({ bytes, chunks: chunks > 1 ? 'many' : chunks, sha256: hex });
      }
      case '/env':
        return Response.json({ keys: Object.keys(env).sort(), api: env.API, frozen: Object.isFrozen(env) });
      case '/secret':
        console.log(`token is ${env.TOKEN}`);
        if (url.searchParams.has('throw')) throw new Error(`bad token ${env.TOKEN}`);
        return new Response(`length ${env.TOKEN.length}`);
      case '/cached':
        return new Response('cached for a minute', { headers: { 'cache-control': 'public, max-age=60' } });
      case '/private':
        return new Response(`private ${Math.random()}`, { headers: { 'cache-control': 'private' } });
      case '/redirect':
        return Response.redirect(new URL('/thanks?name=r', request.url), 302);
      case '/headers': {
        const h = new Headers([['B', '2'], ['a', '1']]);
        h.append('a', '3');
        h.append('set-cookie', 'x=1');
        h.append('set-cookie', 'y=2');
        const blob = new Blob(['ab', new Uint8Array([99])], { type: 'Text/Plain' });
        const fd = new FormData();
        fd.append('k', 'v');
        fd.append('f', blob, 'f.txt');
        const sent = new Request('http://api.test/x', { method: 'post', body: fd });
        const back = await sent.formData();
        return Response.json({
          entries: [...h],
          get: h.get('A'),
          cookies: h.getSetCookie(),
          blob: [blob.size, blob.type, await blob.slice(1).text()],
          form: [back.get('k'), back.get('f').name, await back.get('f').text(), sent.method],
          ctx: typeof ctx.waitUntil,
          status: (() => { try { new Response('x', { status: 99 }); } catch (e) { return e.name; } })(),
        });
      }
      default:
        return page('not found', '<p>no such page</p>', { status: 404 });
    }
  },
};
