// A Worker bound to itself (`env.SELF`: its own name in `services`), as
// OpenNext's WORKER_SELF_REFERENCE is. `/call` sends a POST through the
// binding to `/hello` and answers what came back; `/deep?n=N` calls
// itself N levels down; `/shape` answers what the binding is; `/rpc`
// calls the methods of its `Counter` entrypoint (`env.COUNTER`) by RPC,
// with values structured clone carries, and the errors RPC gives;
// `/entrypoint` sends a request to that entrypoint's own `fetch`;
// `/state?mark=M` sets a module variable and answers what a request and an
// RPC call to the app itself see of it (on workerd, the caller's isolate's).
import { WorkerEntrypoint } from 'cloudflare:workers';

let marked = null;
// What `scheduled` was called with, by `env.SELF.scheduled()` (`/scheduled`).
const scheduledSeen = [];

export class Counter extends WorkerEntrypoint {
  async fetch(request) {
    return new Response(`the counter's fetch: ${request.method} ${new URL(request.url).pathname} ${this.env.GREETING}`);
  }
  add(a, b) {
    return a + b;
  }
  async echo(value) {
    await new Promise((r) => setTimeout(r, 1));
    return value;
  }
  greeting() {
    return `${this.env.GREETING} from ${this.constructor.name}`;
  }
  fail() {
    throw new RangeError('out of range on purpose');
  }
  marked() {
    return `rpc saw ${marked}`;
  }
  get label() {
    return `the counter of ${this.env.GREETING}`;
  }
  get broken() {
    throw new SyntaxError('a getter that throws');
  }
}

class Base extends WorkerEntrypoint {
  inherited() {
    return 'from the base class';
  }
}
export class Child extends Base {}

async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return ['threw', e.name, e.message];
  }
}

// A value as the suite shows it: its type and content, in JSON.
function shown(v) {
  if (v instanceof Map) return ['Map', [...v].map(([k, x]) => [shown(k), shown(x)])];
  if (v instanceof Set) return ['Set', [...v].map(shown)];
  if (v instanceof Date) return ['Date', v.toISOString()];
  if (v instanceof RegExp) return ['RegExp', String(v)];
  if (v instanceof ArrayBuffer) return ['ArrayBuffer', [...new Uint8Array(v)]];
  if (ArrayBuffer.isView(v)) return [v.constructor.name, [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)]];
  if (v instanceof Error) return [v.constructor.name, v.name, v.message];
  if (typeof v === 'bigint') return ['bigint', String(v)];
  if (typeof v === 'number' && !Number.isFinite(v)) return ['number', String(v)];
  if (Object.is(v, -0)) return ['-0'];
  if (v === undefined) return ['undefined'];
  if (Array.isArray(v)) return v.map(shown);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shown(x)]));
  return v;
}

async function rpc(env) {
  const shared = { n: 1 };
  const value = {
    text: 'é',
    list: [1, 'two', null, true],
    date: new Date(0),
    re: /a+b/gi,
    map: new Map([[1, 'one'], ['k', { deep: [1] }]]),
    set: new Set(['a', 2]),
    bytes: new Uint8Array([0, 1, 255]),
    floats: new Float64Array([1.5, -2]),
    buffer: new Uint8Array([7, 8]).buffer,
    big: 12345678901234567890n,
    nan: NaN,
    inf: -Infinity,
    negZero: -0,
    missing: undefined,
    error: new TypeError('carried'),
    a: shared,
    b: shared,
  };
  const echoed = await env.COUNTER.echo(value);
  return {
    add: await env.COUNTER.add(2, 3),
    echo: shown(echoed),
    shared: echoed.a === echoed.b,
    greeting: await env.COUNTER.greeting(),
    inherited: await env.CHILD.inherited(),
    fail: await attempt(() => env.COUNTER.fail()),
    failClass: await env.COUNTER.fail().catch((e) => e instanceof RangeError),
    nope: await attempt(() => env.COUNTER.nope()),
    notEntrypoint: await attempt(() => env.SELF.add(1, 2)),
    property: await env.COUNTER.label,
    propertyThrows: await attempt(async () => await env.COUNTER.broken),
    propertyMissing: await attempt(async () => shown(await env.COUNTER.nothing)),
    then: typeof env.COUNTER.then,
    awaited: Object.prototype.toString.call(await env.COUNTER),
  };
}

export default {
  scheduled(controller) {
    scheduledSeen.push([controller.cron, controller.scheduledTime]);
    if (controller.cron === 'throw') throw new Error('on purpose');
  },
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
    if (url.pathname === '/rpc') return Response.json(await rpc(env));
    if (url.pathname === '/entrypoint') {
      const r = await env.COUNTER.fetch('https://counter.internal/count', { method: 'PUT' });
      return new Response(`${r.status} ${await r.text()}`);
    }
    if (url.pathname === '/state') {
      marked = url.searchParams.get('mark');
      const r = await env.SELF.fetch('https://self.internal/marked');
      return new Response(`${await r.text()}, ${await env.COUNTER.marked()}`);
    }
    if (url.pathname === '/scheduled') {
      const ran = await env.SELF.scheduled({ cron: '0 0 * * *', scheduledTime: new Date(5000) });
      const threw = await env.SELF.scheduled({ cron: 'throw', scheduledTime: 6000 });
      return Response.json([typeof env.SELF.scheduled, ran, threw, scheduledSeen.splice(0)]);
    }
    if (url.pathname === '/marked') return new Response(`fetch saw ${marked}`);
    if (url.pathname === '/shape') {
      return Response.json([Object.prototype.toString.call(env.SELF), typeof env.SELF.fetch, Object.keys(env).sort()]);
    }
    return new Response('not found\n', { status: 404 });
  },
};
