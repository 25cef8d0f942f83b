// Durable Objects: a namespace's ids, a stub's fetch and RPC, an object's
// storage (key-value, SQL, transactions), its alarm and its memory
// between events. `/suite` answers the same JSON on ssr and on workerd
// (tests/all/objects.rs); the other paths drive one object at a time.
import { DurableObject } from 'cloudflare:workers';

// `['ok', value]` (an object's value as its kind alone), or `['threw',
// its class]`.
const threw = (f) => {
  const ok = (x) => ['ok', x !== null && typeof x === 'object' ? 'object' : x];
  try {
    const v = f();
    return v instanceof Promise ? v.then(ok, (e) => ['threw', e.name]) : ok(v);
  } catch (e) {
    return ['threw', e.name];
  }
};

export class Counter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.hits = 0;
    // Loaded before any event runs.
    ctx.blockConcurrencyWhile(async () => {
      this.loaded = (await ctx.storage.get('n')) ?? 0;
    });
  }
  async increment(by = 1) {
    const n = ((await this.ctx.storage.get('n')) ?? 0) + by;
    await this.ctx.storage.put('n', n);
    return n;
  }
  // In memory only: how many events this instance has seen.
  hit() {
    this.hits += 1;
    return { hits: this.hits, loaded: this.loaded };
  }
  get label() {
    return `counter ${this.ctx.id.name ?? '?'}`;
  }
  fail() {
    throw new RangeError('no such thing');
  }
  echo(value) {
    return value;
  }
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/throw') throw new Error('fetch threw');
    const body = request.method === 'POST' ? await request.text() : null;
    return Response.json(
      { path: url.pathname, method: request.method, body, header: request.headers.get('x-test'), named: this.ctx.id.name ?? null },
      { status: 201, headers: { 'x-object': 'counter' } },
    );
  }
  async alarm(info) {
    const fired = ((await this.ctx.storage.get('fired')) ?? []);
    fired.push(info.isRetry);
    await this.ctx.storage.put('fired', fired);
    if ((await this.ctx.storage.get('failOnce')) === true) {
      await this.ctx.storage.put('failOnce', false);
      throw new Error('the first run fails');
    }
  }
  async armAlarm(inMs, failOnce) {
    await this.ctx.storage.put('failOnce', failOnce);
    await this.ctx.storage.setAlarm(Date.now() + inMs);
    return (await this.ctx.storage.getAlarm()) !== null;
  }
  async fired() {
    return { fired: (await this.ctx.storage.get('fired')) ?? [], alarm: (await this.ctx.storage.getAlarm()) === null ? null : 'set' };
  }
}

export class Store extends DurableObject {
  async kv() {
    const s = this.ctx.storage;
    const out = {};
    await s.put('text', 'hello');
    await s.put({ a: 1, b: [1, 2, { c: true }], d: new Date(0), m: new Map([['k', 'v']]), u8: new Uint8Array([1, 2]) });
    out.get = await s.get('text');
    out.missing = await s.get('nope');
    const many = await s.get(['b', 'a', 'nope', 'text']);
    out.many = [many instanceof Map, [...many.keys()]];
    const m = await s.get('m');
    out.types = [(await s.get('d')) instanceof Date, m instanceof Map && m.get('k'), [...(await s.get('u8'))]];
    out.list = [...(await s.list()).keys()];
    out.listed = [...(await s.list({ prefix: 'a' })).keys(), [...(await s.list({ start: 'b', end: 'm' })).keys()], [...(await s.list({ reverse: true, limit: 2 })).keys()], [...(await s.list({ startAfter: 'b' })).keys()]];
    out.deleted = [await s.delete('a'), await s.delete('a'), await s.delete(['b', 'd', 'nope'])];
    out.after = [...(await s.list()).keys()];
    out.sync = [s.kv.get('text'), s.kv.put('k2', 2), s.kv.get('k2'), s.kv.delete('k2'), s.kv.get('k2')];
    out.bigKey = await threw(() => s.put('x'.repeat(2049), 1));
    return out;
  }
  sql() {
    const sql = this.ctx.storage.sql;
    const out = {};
    sql.exec('CREATE TABLE IF NOT EXISTS people (id INTEGER PRIMARY KEY, name TEXT, score REAL, pic BLOB)');
    sql.exec('INSERT INTO people (name, score, pic) VALUES (?, ?, ?)', 'ann', 1.5, new Uint8Array([7, 8]));
    sql.exec('INSERT INTO people (name, score, pic) VALUES (?, ?, ?)', 'bob', 2, null);
    const c = sql.exec('SELECT * FROM people ORDER BY id');
    out.columns = c.columnNames;
    const rows = c.toArray();
    out.rows = rows.map((r) => [r.id, r.name, r.score, r.pic === null ? null : [...new Uint8Array(r.pic)]]);
    out.read = typeof c.rowsRead;
    out.one = sql.exec('SELECT name FROM people WHERE id = ?', 2).one();
    out.raw = [...sql.exec('SELECT id, name FROM people ORDER BY id').raw()];
    const w = sql.exec('UPDATE people SET score = score + 1');
    w.toArray();
    out.written = w.rowsWritten;
    out.iterated = [];
    for (const r of sql.exec('SELECT name FROM people ORDER BY name DESC')) out.iterated.push(r.name);
    out.multi = sql.exec('CREATE TABLE IF NOT EXISTS t2 (x); INSERT INTO t2 VALUES (1); SELECT count(*) AS n FROM t2').toArray();
    out.errors = [
      threw(() => sql.exec('SELEC 1')),
      threw(() => sql.exec('SELECT * FROM missing')),
      threw(() => sql.exec('SELECT ?', 1, 2)),
      threw(() => sql.exec('SELECT 1').one() && sql.exec('SELECT 1 UNION SELECT 2').one()),
      threw(() => sql.exec('SELECT * FROM _cf_KV')),
      threw(() => sql.exec('BEGIN TRANSACTION')),
      threw(() => sql.exec('SELECT ?', true)),
    ];
    out.size = typeof sql.databaseSize;
    this.ctx.storage.transactionSync(() => sql.exec('INSERT INTO t2 VALUES (2)'));
    out.rolledBack = threw(() => this.ctx.storage.transactionSync(() => {
      sql.exec('INSERT INTO t2 VALUES (3)');
      throw new Error('undo');
    }));
    out.t2 = sql.exec('SELECT x FROM t2 ORDER BY x').toArray().map((r) => r.x);
    return out;
  }
  async transactions() {
    const s = this.ctx.storage;
    await s.put('tx', 1);
    await s.transaction(async (txn) => {
      await txn.put('tx', 2);
    });
    const kept = await s.get('tx');
    const undone = await threw(() => s.transaction(async (txn) => {
      await txn.put('tx', 3);
      throw new Error('no');
    }));
    const after = await s.get('tx');
    await s.transaction(async (txn) => {
      await txn.put('tx', 4);
      txn.rollback();
    });
    return { kept, undone, after, rolledBack: await s.get('tx') };
  }
  async clear() {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS gone (x)');
    await this.ctx.storage.put('k', 1);
    await this.ctx.storage.deleteAll();
    return {
      keys: [...(await this.ctx.storage.list()).keys()],
      tables: this.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%'").toArray(),
    };
  }
}

async function suite(env) {
  const out = {};
  const ns = env.COUNTER;
  const a = ns.idFromName('a');
  const unique = ns.newUniqueId();
  out.ids = [
    a.toString().length,
    /^[0-9a-f]{64}$/.test(a.toString()),
    a.equals(ns.idFromName('a')),
    a.equals(ns.idFromName('b')),
    a.name,
    unique.name,
    unique.equals(ns.newUniqueId()),
    ns.idFromString(a.toString()).equals(a),
    threw(() => ns.idFromString('nope'))[0],
    threw(() => ns.get('nope'))[0],
    String(a) === a.toString(),
  ];
  const stub = ns.get(a);
  out.stub = [typeof stub.fetch, stub.id.equals(a), stub.name, typeof stub.increment, typeof stub.then];
  const r = await stub.fetch('https://do.example/path?q=1', { method: 'POST', body: 'sent', headers: { 'x-test': 'yes' } });
  out.fetch = [r.status, r.headers.get('x-object'), await r.json()];
  out.fetchThrew = await threw(() => stub.fetch('https://do.example/throw'));
  out.rpc = [await stub.increment(), await stub.increment(2), await stub.echo({ d: new Date(5), m: new Map([[1, 2]]), big: 10n, u: undefined }), await stub.label];
  out.rpc[2] = [out.rpc[2].d instanceof Date, out.rpc[2].m.get(1), typeof out.rpc[2].big, 'u' in out.rpc[2]];
  // An RPC call's promise is not a Promise on workerd: awaited inside one.
  out.rpcErrors = [await threw(async () => stub.fail()), await threw(async () => stub.nothing())];
  out.byName = await ns.getByName('a').increment(10);
  out.other = await ns.get(ns.idFromName('b')).increment();
  out.memory = [(await stub.hit()).hits, (await stub.hit()).hits, (await ns.get(ns.idFromName('b')).hit()).hits];
  const store = env.STORE.get(env.STORE.idFromName('suite'));
  out.kv = await store.kv();
  out.sql = await store.sql();
  out.transactions = await store.transactions();
  out.clear = await store.clear();
  return out;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const name = url.searchParams.get('name') || 'a';
    const stub = env.COUNTER.getByName(name);
    switch (url.pathname) {
      case '/suite':
        return Response.json(await suite(env));
      case '/increment':
        return new Response(`${await stub.increment()}\n`);
      case '/hit':
        return Response.json(await stub.hit());
      case '/alarm':
        return Response.json(await stub.armAlarm(Number(url.searchParams.get('in') || 100), url.searchParams.get('fail') === '1'));
      case '/fired':
        return Response.json(await stub.fired());
      case '/id':
        return new Response(env.COUNTER.idFromName(name).toString());
      case '/by-id':
        return new Response(`${await env.COUNTER.get(env.COUNTER.idFromString(url.searchParams.get('id'))).increment()}\n`);
      default:
        return new Response('not found\n', { status: 404 });
    }
  },
};
