// env.ASSETS as Workers apps use it (issue 33): `/via/<path>` asks the
// binding for `<path>` and says what it answered; `/env/<name>` says what
// `env.<name>` is or what touching it threw (tests/all/assets.rs).
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.endsWith('/has')) {
      return new Response(JSON.stringify(['ASSETS' in env, typeof env.ASSETS?.fetch]));
    }
    const named = url.pathname.match(/\/env\/(\w+)$/);
    if (named) {
      const [, name] = named;
      let said;
      try {
        const v = env[name];
        said = typeof v === 'string' ? v : typeof v?.get === 'function' ? 'a binding' : typeof v;
      } catch (e) {
        said = `threw: ${e.message}`;
      }
      return new Response(said, { headers: { 'cache-control': 'no-store' } });
    }
    const target = new URL(url.pathname.replace('/via/', '/') + url.search, url);
    const r = await (env.FILES ?? env.ASSETS).fetch(new Request(target, request));
    const kept = ['location', 'content-type', 'x-rule'].map((h) => r.headers.get(h)).filter((v) => v !== null);
    const said = `${r.status} ${kept.join(' ')} ${r.status === 200 || r.status === 404 ? await r.text() : ''}`.trim();
    return new Response(said, { headers: { 'cache-control': 'no-store' } });
  },
};
