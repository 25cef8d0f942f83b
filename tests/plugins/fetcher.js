// Outbound fetch through the host (issue 17): each route fetches the URL in
// `?url=` and says what came back, or the error the promise rejected with.
async function describe(promise) {
  try {
    const r = await promise;
    const body = await r.text();
    return `${r.status} ${r.statusText} ${r.headers.get('content-type')} ${r.redirected ? 'redirected ' : ''}${body}`;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const target = url.searchParams.get('url');
    const n = Number(url.searchParams.get('n') || 1);
    let out;
    switch (url.pathname) {
      case '/get':
        out = await describe(fetch(target));
        break;
      case '/post':
        out = await describe(fetch(target, {
          method: 'POST',
          headers: { 'x-token': env.TOKEN || '', 'content-type': 'application/json' },
          body: JSON.stringify({ from: 'renderer' }),
        }));
        break;
      case '/immutable': {
        // A fetched response's headers are immutable; a copy's are not.
        const r = await fetch(target);
        let refused = 'changed';
        try {
          r.headers.set('x-added', 'no');
        } catch (e) {
          refused = e.name;
        }
        const copy = new Response(r.body, r);
        copy.headers.set('x-added', 'yes');
        out = `${refused} ${copy.headers.get('x-added')} ${await copy.text()}`;
        break;
      }
      case '/json': {
        const data = await (await fetch(target)).json();
        out = `json ${JSON.stringify(data)}`;
        break;
      }
      case '/many': {
        // `n` requests one after another: how many came back, and the
        // first error.
        let ok = 0;
        let first = null;
        for (let i = 0; i < n; i++) {
          try {
            await (await fetch(target)).text();
            ok++;
          } catch (e) {
            if (first === null) first = `${e.name}: ${e.message}`;
          }
        }
        out = `${ok} ok; ${first}`;
        break;
      }
      case '/parallel': {
        const all = await Promise.all(Array.from({ length: n }, () => describe(fetch(target))));
        out = all.join('\n');
        break;
      }
      case '/race': {
        // A timeout around a fetch, as sites write it.
        const ms = Number(url.searchParams.get('ms'));
        const timeout = new Promise((ok) => setTimeout(() => ok('timed out'), ms));
        out = await Promise.race([describe(fetch(target)), timeout]);
        break;
      }
      case '/after': {
        // Answers at once; then fetches `url` and `then`, one after the
        // other, as ctx.waitUntil() work, and fails a second piece of work.
        ctx.passThroughOnException();
        ctx.waitUntil(fetch(target).then((r) => r.text()).then(() => fetch(url.searchParams.get('then'))));
        ctx.waitUntil(Promise.reject(new Error('the work failed on purpose')));
        return new Response('answered before the work', { headers: { 'cache-control': 'no-store' } });
      }
      case '/beacon':
        // navigator.sendBeacon: true at once; the POST goes as waitUntil work.
        out = String(navigator.sendBeacon(target, url.searchParams.get('body')));
        break;
      case '/forever':
        // Work that can never end.
        ctx.waitUntil(new Promise(() => {}));
        return new Response('answered', { headers: { 'cache-control': 'no-store' } });
      case '/abort': {
        // A fetch given up after `ms` through its signal; then, if given,
        // a fetch of `then` keeps the render going.
        const signal = AbortSignal.timeout(Number(url.searchParams.get('ms')));
        out = await describe(fetch(target, { signal }));
        const then = url.searchParams.get('then');
        if (then) await (await fetch(then)).text();
        break;
      }
      case '/rewrite':
        // A streamed body through HTMLRewriter, passed on as it arrives.
        return new HTMLRewriter()
          .on('p', { element(e) { e.setAttribute('class', 'seen'); } })
          .transform(await fetch(target));
      case '/tee': {
        // A streamed body cloned: both copies whole and the same.
        const r = await fetch(target);
        const copy = r.clone();
        const [a, b] = await Promise.all([r.text(), copy.arrayBuffer()]);
        out = `${a.length} ${b.byteLength} ${a === new TextDecoder().decode(b)} ${a.slice(0, 20)}`;
        break;
      }
      case '/cancel': {
        // Reads the first chunk of a body that is still arriving, cancels
        // the rest; then a fetch of `then` keeps the render going.
        const reader = (await fetch(target)).body.getReader();
        const first = new TextDecoder().decode((await reader.read()).value);
        await reader.cancel();
        out = `${first}; then ${await (await fetch(url.searchParams.get('then'))).text()}`;
        break;
      }
      case '/leave': {
        // Waits on `url` (which never answers) with the incoming request's
        // signal: when the client goes away, that fetch is aborted, and the
        // render goes on to fetch `then`.
        out = await fetch(target, { signal: request.signal }).then(() => 'answered', (e) => e.name);
        await fetch(url.searchParams.get('then'));
        break;
      }
      default:
        return new Response('not found', { status: 404 });
    }
    return new Response(out, { headers: { 'cache-control': 'no-store' } });
  },
};
