// A test handler that streams its body while it waits on its origin
// (the var ORIGIN): the first chunk at once, then one chunk after each
// answer from ORIGIN/wait (tests/all/streams.rs opens that gate).
// - /steps?n=N: N chunks, no-store; /kept?n=N: the same, cached 60 s;
// - /hang: one chunk, then waits on ORIGIN/never;
// - /burn?n=N&ms=M: N chunks, each made by M ms of busy CPU, the second on
//   each after an answer from ORIGIN/wait;
// - /big: 2 MiB in 64 KiB chunks, at once.
const enc = new TextEncoder();

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n') ?? '3');
    let i = 0;
    const pull = {
      '/steps': async (c) => {
        i += 1;
        if (i > n) return c.close();
        if (i > 1) await (await fetch(`${env.ORIGIN}/wait`)).text();
        c.enqueue(enc.encode(`<p>chunk ${i}</p>\n`));
      },
      '/hang': async (c) => {
        i += 1;
        if (i > 1) await fetch(`${env.ORIGIN}/never`);
        c.enqueue(enc.encode('<p>the only chunk</p>\n'));
      },
      '/burn': async (c) => {
        i += 1;
        if (i > n) return c.close();
        if (i > 1) await (await fetch(`${env.ORIGIN}/wait`)).text();
        const ms = Number(url.searchParams.get('ms'));
        const end = Date.now() + ms;
        while (Date.now() < end);
        c.enqueue(enc.encode(`<p>burst ${i}</p>\n`));
      },
      '/big': (c) => {
        i += 1;
        if (i > 32) return c.close();
        c.enqueue(new Uint8Array(64 << 10).fill(120));
      },
    };
    pull['/kept'] = pull['/steps'];
    const cache = url.pathname === '/kept' ? 'max-age=60' : 'no-store';
    return new Response(new ReadableStream({ pull: pull[url.pathname] }), {
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': cache },
    });
  },
};
