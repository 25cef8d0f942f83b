// The Workers Cache API as apps use it (issue 33): a handler that puts,
// matches and deletes what the query says (tests/all/workers.rs).
// SvelteKit reads `caches.default` at its top level, which runs at build time.
const atTopLevel = typeof caches.default.match;

const said = async (promise) => {
  try {
    return await promise;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};

export default {
  async fetch(request) {
    const q = new URL(request.url).searchParams;
    const cache = q.get('cache') ? await caches.open(q.get('cache')) : caches.default;
    const key = new Request(`https://cache.test/${q.get('key') || 'k'}`, {
      headers: q.get('lang') ? { 'accept-language': q.get('lang') } : {},
      method: q.get('method') || 'GET',
    });
    let out;
    switch (q.get('op')) {
      case 'put': {
        const headers = { 'cache-control': q.get('cc') || 'max-age=60', 'x-mine': 'kept' };
        if (q.get('cookie')) headers['set-cookie'] = 'session=1';
        if (q.get('vary')) headers.vary = q.get('vary');
        const body = q.get('size') ? 'x'.repeat(Number(q.get('size'))) : `value of ${q.get('key')}`;
        const status = Number(q.get('status') || 200);
        out = await said(cache.put(key, new Response(body, { status, headers })).then(() => 'put'));
        break;
      }
      case 'match': {
        const hit = await cache.match(key);
        out = hit === undefined ? 'miss' : [hit.status, await hit.text(), hit.headers.get('x-mine'), hit.headers.get('cf-cache-status')];
        break;
      }
      case 'delete':
        out = await cache.delete(key);
        break;
      default:
        out = atTopLevel;
    }
    return new Response(JSON.stringify(out), { headers: { 'cache-control': 'no-store' } });
  },
};
