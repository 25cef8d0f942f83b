// env.ASSETS as Workers apps use it (issue 33): every request the host's
// own asset serving did not answer is passed to the binding, and what it
// answered is said (tests/all/assets.rs).
export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname.endsWith('/has')) {
      return new Response(JSON.stringify(['ASSETS' in env, typeof env.ASSETS?.fetch]));
    }
    const r = await env.ASSETS.fetch(request);
    const said = r.status === 200 ? `${r.headers.get('content-type')} ${await r.text()}` : `${r.status} ${r.headers.get('location')}`;
    return new Response(said, { headers: { 'cache-control': 'no-store' } });
  },
};
