// A Worker whose service bindings reach another tenant (`svc-callee`,
// tests/plugins/services.js), which the operator must grant it
// (`allow_service`): `/rpc` calls its `Counter` entrypoint's methods,
// `/fetch` sends it a request.
async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/rpc') {
      return Response.json([await attempt(() => env.OTHER.add(2, 3)), await attempt(() => env.OTHER.greeting())]);
    }
    if (url.pathname === '/fetch') {
      const said = await attempt(async () => {
        const r = await env.OTHER_HTTP.fetch('https://other.internal/hello', { method: 'POST', body: 'x' });
        return `${r.status} ${await r.text()}`;
      });
      return new Response(said);
    }
    return new Response('not found\n', { status: 404 });
  },
};
