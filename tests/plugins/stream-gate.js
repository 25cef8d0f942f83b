// A test handler that streams its body while it waits on its origin
// (the var ORIGIN): the first chunk at once, then one chunk after each
// answer from ORIGIN/wait (tests/all/streams.rs opens that gate).
// - /steps?n=N: N chunks, no-store; /kept?n=N: the same, cached 60 s;
// - /hang: one chunk, then waits on ORIGIN/never;
// - /burn?n=N&work=K: N chunks, the first at once, each later one after an
//   answer from ORIGIN/wait and K steps of busy arithmetic (counted work,
//   so its CPU time does not depend on how loaded the machine is);
// - /big?mib=N: N MiB (2 unless given) in 64 KiB chunks, at once;
// - /proxy: ORIGIN/drip's response itself (server-sent events, the second
//   after the gate opens), streamed through as it arrives;
// - /events: ORIGIN/drip read by an `EventSource`, a chunk per event as
//   each arrives, ended after the second.
const enc = new TextEncoder();

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/proxy') return fetch(`${env.ORIGIN}/drip`);
    if (url.pathname === '/events') {
      const source = new EventSource(`${env.ORIGIN}/drip`);
      let seen = 0;
      const body = new ReadableStream({
        start(c) {
          source.onmessage = (e) => {
            c.enqueue(enc.encode(`<p>${e.data}</p>\n`));
            if (++seen === 2) {
              source.close();
              c.close();
            }
          };
          source.onerror = (e) => c.enqueue(enc.encode(`<p>error ${e.error.message}</p>\n`));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
    }
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
        if (i > 1) {
          await (await fetch(`${env.ORIGIN}/wait`)).text();
          let x = i;
          for (let k = Number(url.searchParams.get('work')); k > 0; k--) x = (x * 1103515245 + 12345) % 2147483648;
          if (x === -1) c.enqueue(enc.encode('never'));
        }
        c.enqueue(enc.encode(`<p>burst ${i}</p>\n`));
      },
      '/big': (c) => {
        i += 1;
        if (i > 16 * Number(url.searchParams.get('mib') || 2)) return c.close();
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
