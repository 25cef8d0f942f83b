// benches/bindings.sh's Worker: `/?op=OP&n=N` makes N calls of one kind in
// a row in one render and answers the mean per call in microseconds (the
// clocks advance across each call's wait, as on workerd).
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const op = url.searchParams.get('op');
    const n = Number(url.searchParams.get('n') || 1000);
    const fresh = { 'cache-control': 'no-store' };
    const kib1 = 'x'.repeat(1024);
    const mib1 = new Uint8Array(1 << 20).fill(120);
    if (op === 'setup-r2') {
      await env.R2.put('kib', kib1);
      await env.R2.put('mib', mib1);
      return new Response('ok\n', { headers: fresh });
    }
    if (op === 'setup') {
      await env.KV.put('k', 'v'.repeat(100));
      // D1 is on one server only: across replicas, KV alone is measured.
      if (url.searchParams.get('d1') !== 'no') {
        await env.DB.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)');
        await env.DB.prepare('INSERT OR REPLACE INTO t (id, v) VALUES (1, ?)').bind('x'.repeat(100)).run();
      }
      return new Response('ok\n', { headers: fresh });
    }
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      if (op === 'kv-get') await env.KV.get('k');
      else if (op === 'kv-put') await env.KV.put(`p${i % 100}`, 'v');
      else if (op === 'd1-get') await env.DB.prepare('SELECT v FROM t WHERE id = ?').bind(1).first('v');
      else if (op === 'd1-insert') await env.DB.prepare('INSERT INTO t (v) VALUES (?)').bind('y').run();
      else if (op === 'r2-get-kib') await (await env.R2.get('kib')).arrayBuffer();
      else if (op === 'r2-get-mib') await (await env.R2.get('mib')).arrayBuffer();
      else if (op === 'r2-put-kib') await env.R2.put(`k${i % 100}`, kib1);
      else if (op === 'r2-put-mib') await env.R2.put(`m${i % 10}`, mib1);
      else return new Response(`no op ${op}\n`, { status: 400, headers: fresh });
    }
    const micros = ((performance.now() - started) * 1000) / n;
    return new Response(`${micros.toFixed(1)}\n`, { headers: fresh });
  },
};
