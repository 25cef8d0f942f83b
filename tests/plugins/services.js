// A Worker bound to itself (`env.SELF`: its own name in `services`), as
// OpenNext's WORKER_SELF_REFERENCE is. `/call` sends a POST through the
// binding to `/hello` and answers what came back; `/deep?n=N` calls
// itself N levels down; `/shape` answers what the binding is.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/hello') {
      const said = `hello ${request.method} ${url.href} ${request.headers.get('x-test')} ${await request.text()}`;
      return new Response(said, { status: 201, headers: { 'x-from': 'callee' } });
    }
    if (url.pathname === '/call') {
      const init = { method: 'POST', headers: { 'x-test': 'yes' }, body: 'a body' };
      const r = await env.SELF.fetch(new Request('https://self.internal/hello?q=1', init));
      return new Response(`${r.status} ${r.statusText} ${r.headers.get('x-from')} ${await r.text()}`);
    }
    if (url.pathname === '/deep') {
      const n = Number(url.searchParams.get('n'));
      if (n === 0) return new Response('bottom');
      const r = await env.SELF.fetch(`https://self.internal/deep?n=${n - 1}`).catch((e) => new Response(`${e.name}: ${e.message}`));
      return new Response(`${n} > ${await r.text()}`);
    }
    if (url.pathname === '/shape') {
      return Response.json([Object.prototype.toString.call(env.SELF), typeof env.SELF.fetch, Object.keys(env)]);
    }
    return new Response('not found\n', { status: 404 });
  },
};
