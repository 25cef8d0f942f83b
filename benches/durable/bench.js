// Durable Objects inside a render (benches/durable.sh): N calls in a row
// to one object, answering the mean per call in microseconds. The same
// module runs on ssr (with wrangler.jsonc) and on workerd.
import { DurableObject } from 'cloudflare:workers';

export class Counter extends DurableObject {
  // A read and a write of its storage.
  async increment() {
    const n = ((await this.ctx.storage.get('n')) ?? 0) + 1;
    await this.ctx.storage.put('n', n);
    return n;
  }
  // Nothing: the call's own cost.
  ping() {
    return 1;
  }
  // `n` inserts and a count, by SQL, in one call: the storage, and one
  // call's cost spread over them (workerd's clock stands still inside the
  // object: the caller times it).
  inserts(n) {
    const sql = this.ctx.storage.sql;
    sql.exec('CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, v TEXT)');
    for (let i = 0; i < n; i++) sql.exec('INSERT INTO rows (v) VALUES (?)', `row ${i}`);
    return sql.exec('SELECT count(*) AS n FROM rows').one().n;
  }
  fetch() {
    return new Response('ok');
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n') || 100);
    const stub = env.COUNTER.getByName(url.searchParams.get('name') || 'bench');
    // The clock moves across I/O on workerd, and always on ssr.
    const started = Date.now();
    switch (url.pathname) {
      case '/ping':
        for (let i = 0; i < n; i++) await stub.ping();
        break;
      case '/increment':
        for (let i = 0; i < n; i++) await stub.increment();
        break;
      case '/fetch':
        for (let i = 0; i < n; i++) await (await stub.fetch('https://do/')).text();
        break;
      case '/inserts':
        await stub.inserts(n);
        break;
      default:
        return new Response('not found\n', { status: 404 });
    }
    return new Response(`${((Date.now() - started) * 1000) / n}\n`);
  },
};
