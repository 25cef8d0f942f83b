// A Workers KV namespace (`env.KV`) through every method and option an
// app reaches for, with Cloudflare's limits; the same answer is expected
// from `wrangler dev` (Miniflare). `/suite` runs it on a namespace it
// empties first; `/put?key=K&value=V` and `/get?key=K` read and write
// one key (a write through one replica is read through another);
// `/try-get?key=K` answers a failed read's error.
const FAR = 2000000000; // 2033-05-18, an expiration that stays in the future

async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return ['threw', e.name, e.message];
  }
}

const bytes = (b) => Array.from(new Uint8Array(b));
const entries = (m) => (m instanceof Map ? ['Map', [...m]] : m);

async function suite(kv) {
  const out = {};
  for (const { name } of (await kv.list()).keys) await kv.delete(name);

  out.absent = [await kv.get('absent'), await kv.getWithMetadata('absent'), await kv.get('absent', 'json')];
  await kv.put('text', 'hello KV');
  out.text = [
    await kv.get('text'),
    await kv.get('text', 'text'),
    await kv.get('text', { type: 'text', cacheTtl: 60 }),
    bytes(await kv.get('text', 'arrayBuffer')),
    await new Response(await kv.get('text', { type: 'stream' })).text(),
    // The message is the engine's own JSON.parse's.
    await kv.get('text', 'json').catch((e) => e.name),
  ];
  await kv.put('json', JSON.stringify({ a: [1, 2], b: 'x' }));
  out.json = [await kv.get('json', 'json'), await kv.get('json', { type: 'json' })];
  await kv.put('buffer', new Uint8Array([0, 1, 254, 255]).buffer);
  await kv.put('view', new Uint8Array([5, 6, 7]));
  const stream = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode('from '));
      c.enqueue(new TextEncoder().encode('a stream'));
      c.close();
    },
  });
  await kv.put('stream', stream);
  out.binary = [bytes(await kv.get('buffer', 'arrayBuffer')), bytes(await kv.get('view', 'arrayBuffer')), await kv.get('stream')];
  await kv.put('meta', 'with metadata', { metadata: { owner: 'ann', n: 1 }, expiration: FAR });
  out.metadata = [await kv.getWithMetadata('meta'), await kv.getWithMetadata('meta', 'json').catch((e) => e.name), await kv.getWithMetadata('text', { type: 'arrayBuffer' }).then((r) => [bytes(r.value), r.metadata])];
  await kv.put('text', 'replaced');
  out.replaced = await kv.getWithMetadata('text');
  await kv.put('meta', 'metadata dropped');
  out.metadataDropped = await kv.getWithMetadata('meta');
  await kv.put('ttl', 'expires', { expirationTtl: 3600 });
  const ttl = (await kv.list({ prefix: 'ttl' })).keys[0];
  out.ttl = [ttl.name, Math.abs(ttl.expiration - Math.floor(Date.now() / 1000) - 3600) <= 5];

  out.bulk = [
    entries(await kv.get(['text', 'json', 'absent'])),
    entries(await kv.get(['json'], 'json')),
    entries(await kv.get(['json', 'text'], { type: 'text' })),
    entries(await kv.getWithMetadata(['meta', 'text'])),
    await attempt(() => kv.get(Array.from({ length: 101 }, (_, i) => `k${i}`))),
    await attempt(() => kv.get(['text'], 'arrayBuffer')),
    await attempt(() => kv.get(['text', 'json'], 'json')),
  ];

  await kv.delete('view');
  await kv.delete('never-there');
  out.deleted = [await kv.get('view'), await kv.delete('buffer')];

  for (const k of ['a/1', 'a/2', 'a/3', 'b/1', 'é', 'z', 'Z', '~']) await kv.put(k, k, { metadata: k === 'a/2' ? { tag: 2 } : undefined });
  const all = await kv.list();
  out.list = [all.keys.map((k) => k.name), all.list_complete, all.cursor, all.cacheStatus];
  out.listMeta = (await kv.list({ prefix: 'a/' })).keys;
  const pages = [];
  let cursor;
  do {
    const page = await kv.list({ prefix: 'a/', limit: 2, cursor });
    pages.push([page.keys.map((k) => k.name), page.list_complete, typeof page.cursor]);
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  out.pages = pages;
  out.listNone = await kv.list({ prefix: 'nothing/' });

  out.refused = [
    await attempt(() => kv.put('x'.repeat(513), 'v')),
    await attempt(() => kv.put('é'.repeat(257), 'v')),
    await attempt(() => kv.get('x'.repeat(513))),
    await attempt(() => kv.put('', 'v')),
    await attempt(() => kv.get('')),
    await attempt(() => kv.put('.', 'v')),
    await attempt(() => kv.put('..', 'v')),
    await attempt(() => kv.put('m', 'v', { metadata: { big: 'x'.repeat(1024) } })),
    await attempt(() => kv.put('t', 'v', { expirationTtl: 59 })),
    await attempt(() => kv.put('t', 'v', { expirationTtl: 'soon' })),
    await attempt(() => kv.put('t', 'v', { expiration: 1000 })),
    await attempt(() => kv.get('t', 'nope')),
    await attempt(() => kv.get('text', 'nope')),
    await attempt(() => kv.get('text', { type: 'nope' })),
    await attempt(() => kv.put('t', 'v', { metadata: { f() {} } })),
    await attempt(() => kv.put('t', 'v', { metadata: 'plain' })),
    await attempt(() => kv.get('t', { cacheTtl: 10 })),
    await attempt(() => kv.list({ limit: 1001 })),
    await attempt(() => kv.list({ limit: 0 }).then((l) => [l.keys.length, l.list_complete])),
    await attempt(() => kv.list({ cursor: 'not a cursor' })),
    await attempt(() => kv.put('v', 'x'.repeat(25 * 1024 * 1024 + 1))),
    await attempt(() => kv.put('n', 42)),
    await attempt(() => kv.delete('x'.repeat(513))),
  ];
  out.afterRefused = [await kv.get('m'), await kv.getWithMetadata('t'), await kv.get('v'), await kv.get('n')];
  out.shape = [
    Object.prototype.toString.call(kv),
    Object.getOwnPropertyNames(Object.getPrototypeOf(kv)).sort(),
    kv.constructor.name,
  ];
  return out;
}

// Never kept by a page cache: every answer reads the namespace as it is.
const fresh = { 'cache-control': 'no-store' };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const key = url.searchParams.get('key');
    if (url.pathname === '/suite') return Response.json(await suite(env.KV), { headers: fresh });
    if (url.pathname === '/put') {
      await env.KV.put(key, url.searchParams.get('value'));
      return new Response('stored\n', { headers: fresh });
    }
    if (url.pathname === '/get') return new Response(`${await env.KV.get(key)}\n`, { headers: fresh });
    // A page cache's view of a page that reads KV: kept only for a TTL the
    // response sets (`/kept-get`), never under the host's default
    // (`/plain-get`), nor when the read comes after a streamed page's head
    // went out (`/late-get`).
    if (url.pathname === '/plain-get') return new Response(`${await env.KV.get(key)}\n`);
    if (url.pathname === '/kept-get') {
      return new Response(`${await env.KV.get(key)}\n`, { headers: { 'cache-control': 'max-age=60' } });
    }
    if (url.pathname === '/late-get') {
      const body = new ReadableStream({
        async start(c) {
          c.enqueue(new TextEncoder().encode('value: '));
          await new Promise((r) => setTimeout(r, 20));
          c.enqueue(new TextEncoder().encode(`${await env.KV.get(key)}\n`));
          c.close();
        },
      });
      return new Response(body);
    }
    if (url.pathname === '/try-get') {
      const got = await env.KV.get(key).catch((e) => `${e.name}: ${e.message}`);
      return new Response(`${got}\n`, { headers: fresh });
    }
    return new Response('not found\n', { status: 404, headers: fresh });
  },
};
