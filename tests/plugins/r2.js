// An R2 bucket (`env.BUCKET`) through every method and option an app
// reaches for, with R2's limits; the same answer is expected from
// `wrangler dev` (Miniflare). `/suite` runs it on a bucket it empties
// first; `/put?key=K` stores the request's body and `/get?key=K` answers
// an object (a write through one replica is read through another);
// `/big?key=K&mib=N` writes N MiB from a stream and reads its digest back;
// `/start-upload?key=K` starts a multipart upload of one part and answers
// its id, `/resume?key=K&id=ID` adds a part to it.

async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return ['threw', e.name, e.message];
  }
}

const enc = (s) => new TextEncoder().encode(s);
const bytes = (b) => Array.from(new Uint8Array(b));
const textOf = async (o) => ((o = await o) === null ? null : o.text());
const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
// A stream of known length (R2 refuses others), written as it is read.
function streamOf(...parts) {
  const chunks = parts.map(enc);
  const { readable, writable } = new FixedLengthStream(chunks.reduce((n, c) => n + c.length, 0));
  const w = writable.getWriter();
  (async () => {
    for (const c of chunks) await w.write(c);
    await w.close();
  })();
  return readable;
}

// An object as the suite shows it: what is the same on every run, and the
// types of what is not (its version, its upload time).
function shown(o) {
  if (o === null || o === undefined) return o;
  const out = {
    class: o.constructor.name,
    key: o.key,
    size: o.size,
    etag: o.etag,
    httpEtag: o.httpEtag,
    version: [typeof o.version, o.version.length],
    uploaded: Object.prototype.toString.call(o.uploaded),
    httpMetadata: o.httpMetadata,
    customMetadata: o.customMetadata,
    checksums: o.checksums.toJSON(),
    range: o.range,
    storageClass: o.storageClass,
    hasBody: 'body' in o,
  };
  const h = new Headers();
  o.writeHttpMetadata(h);
  out.headers = [...h];
  return out;
}

async function suite(b) {
  const out = {};
  const all = await b.list();
  if (all.objects.length) await b.delete(all.objects.map((o) => o.key));

  out.absent = [await b.head('absent'), await b.get('absent')];
  const put = await b.put('text', 'hello R2');
  out.put = shown(put);
  const got = await b.get('text');
  out.get = [shown(got), await got.text(), got.bodyUsed];
  out.bodies = [
    await b.get('text').then((o) => o.arrayBuffer()).then(bytes),
    await b.get('text').then((o) => new Response(o.body).text()),
    await b.get('text').then((o) => o.blob()).then((x) => [x.size, x.type]),
    await b.get('text').then((o) => o.json()).catch((e) => e.name),
  ];
  out.head = shown(await b.head('text'));

  await b.put('buffer', new Uint8Array([0, 1, 254, 255]).buffer);
  await b.put('view', new Uint8Array([5, 6, 7]));
  await b.put('stream', streamOf('from ', 'a stream'));
  await b.put('response', new Response('a response body').body);
  out.unknownLength = await attempt(() => b.put('unknown', new ReadableStream({ start(c) { c.enqueue(enc('x')); c.close(); } })));
  await b.put('blob', new Blob(['a blob']));
  await b.put('empty', '');
  await b.put('null', null);
  out.types = [
    bytes(await (await b.get('buffer')).arrayBuffer()),
    bytes(await (await b.get('view')).arrayBuffer()),
    await textOf(b.get('stream')),
    await textOf(b.get('response')),
    await textOf(b.get('blob')),
    [(await b.head('empty')).size, await textOf(b.get('empty'))],
    [(await b.head('null')).size, await textOf(b.get('null'))],
  ];

  const httpMetadata = {
    contentType: 'text/plain; charset=utf-8',
    contentLanguage: 'en',
    contentDisposition: 'attachment; filename="a.txt"',
    contentEncoding: 'identity',
    cacheControl: 'max-age=60',
    cacheExpiry: new Date(2000000000000),
  };
  const meta = await b.put('meta', 'with metadata', { httpMetadata, customMetadata: { owner: 'ann', n: '1' } });
  out.metadata = [shown(meta), shown(await b.head('meta'))];
  const fromHeaders = new Headers({ 'content-type': 'image/png', 'cache-control': 'no-cache', 'x-other': 'ignored' });
  out.metadataFromHeaders = shown(await b.put('headers', 'h', { httpMetadata: fromHeaders }));

  const md5 = await crypto.subtle.digest('MD5', enc('checked'));
  const sha1 = await crypto.subtle.digest('SHA-1', enc('checked'));
  const sha256 = await crypto.subtle.digest('SHA-256', enc('checked'));
  out.checksums = [
    shown(await b.put('md5', 'checked', { md5 })),
    shown(await b.put('md5hex', 'checked', { md5: hex(md5) })),
    shown(await b.put('sha1', 'checked', { sha1 })),
    shown(await b.put('sha256', 'checked', { sha256: hex(sha256) })),
    await attempt(() => b.put('bad', 'checked', { md5: sha1.slice(0, 16) })),
    await attempt(() => b.put('bad', 'checked', { sha256: new Uint8Array(32) })),
    await attempt(() => b.put('bad', 'checked', { md5, sha1 })),
    await attempt(() => b.put('bad', 'checked', { md5: 'not hex' })),
    await b.head('bad'),
  ];

  const body = 'abcdefghijklmnopqrstuvwxyz';
  await b.put('range', body);
  const ranged = async (r) => {
    const o = await b.get('range', { range: r });
    return [await o.text(), o.range];
  };
  out.ranges = [
    await ranged({ offset: 3, length: 4 }),
    await ranged({ offset: 20 }),
    await ranged({ length: 5 }),
    await ranged({ suffix: 3 }),
    await ranged({ suffix: 100 }),
    await ranged({ offset: 24, length: 10 }),
    await ranged(new Headers({ range: 'bytes=2-5' })),
    await ranged(new Headers({ range: 'bytes=-4' })),
    await ranged(new Headers({ range: 'bytes=23-' })),
    await attempt(() => ranged({ offset: 27 })),
    await attempt(() => ranged({ offset: 2, length: 0 })),
    await attempt(() => ranged({ suffix: 0 })),
    await attempt(() => ranged({ offset: -1 })),
    await attempt(() => ranged(new Headers({ range: 'bytes=40-50' }))),
    await attempt(() => ranged(new Headers({ range: 'bytes=0-1,3-4' }))),
    await attempt(() => ranged({ offset: 1, length: 2, suffix: 3 })),
  ];

  const etag = (await b.head('range')).etag;
  const past = new Date(Date.now() - 3600e3);
  const future = new Date(Date.now() + 3600e3);
  const cond = (onlyIf) =>
    attempt(async () => {
      const o = await b.get('range', { onlyIf });
      return o === null ? null : ['body' in o, 'body' in o ? await o.text() : o.key];
    });
  out.conditions = [
    await cond({ etagMatches: etag }),
    await cond({ etagMatches: 'other' }),
    await cond({ etagMatches: `"${etag}"` }),
    await cond({ etagMatches: '*' }),
    await cond({ etagDoesNotMatch: etag }),
    await cond({ etagDoesNotMatch: 'other' }),
    await cond({ uploadedAfter: past }),
    await cond({ uploadedAfter: future }),
    await cond({ uploadedBefore: past }),
    await cond({ uploadedBefore: future }),
    await cond(new Headers({ 'if-none-match': `"${etag}"` })),
    await cond(new Headers({ 'if-match': `"${etag}"` })),
    await cond(new Headers({ 'if-match': '"other"' })),
    await b.get('absent', { onlyIf: { etagMatches: etag } }),
  ];
  out.conditionalPuts = [
    shown(await b.put('range', 'replaced', { onlyIf: { etagMatches: etag } })),
    await b.put('range', 'not replaced', { onlyIf: { etagMatches: etag } }),
    await b.put('created', 'new', { onlyIf: { etagDoesNotMatch: '*' } }).then((o) => o.key),
    await b.put('created', 'again', { onlyIf: { etagDoesNotMatch: '*' } }),
    await textOf(b.get('range')),
    await textOf(b.get('created')),
  ];

  await b.delete('view');
  await b.delete('never-there');
  await b.delete(['buffer', 'blob', 'also-never-there']);
  out.deleted = [await b.head('view'), await b.head('buffer'), await b.head('blob'), await b.delete('x')];

  const all2 = await b.list();
  if (all2.objects.length) await b.delete(all2.objects.map((o) => o.key));
  for (const k of ['a/1', 'a/2', 'a/b/3', 'a/b/4', 'a/c/5', 'b/1', 'z', 'Z', '~', 'é']) {
    await b.put(k, k, k === 'a/2' ? { customMetadata: { tag: '2' }, httpMetadata: { contentType: 'text/x' } } : undefined);
  }
  const names = (l) => l.objects.map((o) => o.key);
  const listed = await b.list();
  out.list = [names(listed), listed.truncated, listed.cursor, listed.delimitedPrefixes];
  out.listObject = shown(listed.objects.find((o) => o.key === 'a/2'));
  const withMeta = await b.list({ prefix: 'a/2', include: ['httpMetadata', 'customMetadata'] });
  out.listInclude = [withMeta.objects[0].httpMetadata, withMeta.objects[0].customMetadata];
  const delimited = await b.list({ prefix: 'a/', delimiter: '/' });
  out.delimited = [names(delimited), delimited.delimitedPrefixes, delimited.truncated];
  out.startAfter = names(await b.list({ startAfter: 'a/c/5' }));
  const pages = [];
  let cursor;
  do {
    const page = await b.list({ prefix: 'a/', limit: 2, cursor });
    pages.push([names(page), page.truncated, typeof page.cursor]);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  out.pages = pages;
  const delimitedPages = [];
  cursor = undefined;
  do {
    const page = await b.list({ delimiter: '/', limit: 2, cursor });
    delimitedPages.push([names(page), page.delimitedPrefixes, page.truncated]);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  out.delimitedPages = delimitedPages;
  out.listNone = await b.list({ prefix: 'nothing/' });

  // Multipart: every part but the last is at least 5 MiB, and all of the
  // same size.
  const part = new Uint8Array(5 * 1024 * 1024).fill(97);
  const upload = await b.createMultipartUpload('multi', { httpMetadata: { contentType: 'text/plain' }, customMetadata: { parts: '3' } });
  out.multipartUpload = [upload.constructor.name, upload.key, typeof upload.uploadId, Object.getOwnPropertyNames(Object.getPrototypeOf(upload)).sort()];
  const p1 = await upload.uploadPart(1, part);
  const p2 = await upload.uploadPart(2, new Response(part.map((x, i) => (i % 2 ? 98 : 99))).body);
  const resumed = b.resumeMultipartUpload('multi', upload.uploadId);
  const p3 = await resumed.uploadPart(3, 'and the third');
  out.parts = [p1, p2, p3].map((p) => [p.partNumber, typeof p.etag, Object.keys(p)]);
  out.partsNotOnList = names(await b.list({ prefix: 'multi' }));
  out.outOfOrder = await attempt(() => upload.complete([p1, p3, p2]));
  out.completed = shown(await upload.complete([p2, p1, p3]));
  const whole = await b.get('multi');
  const text = await whole.text();
  out.multipart = [text.length, text.slice(5 * 1024 * 1024 - 3, 5 * 1024 * 1024 + 3), text.slice(10 * 1024 * 1024 - 3)];
  out.multipartRange = await textOf(b.get('multi', { range: { offset: 10 * 1024 * 1024 - 2, length: 10 } }));
  out.completeAgain = await attempt(() => upload.complete([p1, p2, p3]));
  const small = await b.createMultipartUpload('small');
  const s1 = await small.uploadPart(1, 'tiny');
  const s2 = await small.uploadPart(2, 'tiny too');
  out.multipartRefused = [
    await attempt(() => small.complete([s1, s2])),
    await attempt(() => small.complete([{ partNumber: 1, etag: 'wrong' }])),
    await attempt(() => small.uploadPart(0, 'x')),
    await attempt(() => small.uploadPart(10001, 'x')),
    await attempt(() => b.resumeMultipartUpload('small', 'no-such-upload').uploadPart(1, 'x')),
    await attempt(() => b.resumeMultipartUpload('small', 'no-such-upload').complete([])),
  ];
  await small.abort();
  out.aborted = [
    await attempt(() => small.uploadPart(3, 'late')),
    await attempt(() => small.complete([s1])),
    await attempt(() => small.abort()),
    await b.head('small'),
  ];
  const single = await b.createMultipartUpload('single');
  out.singlePart = shown(await single.complete([await single.uploadPart(1, 'just one')]));

  out.refused = [
    await attempt(() => b.put('x'.repeat(1025), 'v')),
    await attempt(() => b.get('x'.repeat(1025))),
    await attempt(() => b.head('x'.repeat(1025))),
    await attempt(() => b.put('m', 'v', { customMetadata: { big: 'x'.repeat(8192) } })),
    await attempt(() => b.list({ limit: 1001 })),
    await attempt(() => b.list({ limit: 0 })),
    await attempt(() => b.list({ include: ['nope'] })),
    await attempt(() => b.put('n', 42).then((o) => o.size)),
    await attempt(() => b.put('o', { a: 1 }).then((o) => o.size)),
    await attempt(() => b.get('range', { range: 'bytes=0-1' })),
    await attempt(() => b.put('', 'empty key').then((o) => o.key)),
    await attempt(() => b.createMultipartUpload('x'.repeat(1025))),
  ];
  out.afterRefused = [await b.head('m'), await textOf(b.get('n'))];
  out.shape = [
    Object.prototype.toString.call(b),
    Object.getOwnPropertyNames(Object.getPrototypeOf(b)).sort(),
    b.constructor.name,
    Object.getOwnPropertyNames(Object.getPrototypeOf(got)).sort(),
    Object.getOwnPropertyNames(Object.getPrototypeOf(Object.getPrototypeOf(got))).sort(),
  ];
  return out;
}

// Never kept by a page cache: every answer reads the bucket as it is.
const fresh = { 'cache-control': 'no-store' };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const key = url.searchParams.get('key');
    if (url.pathname === '/suite') return Response.json(await suite(env.BUCKET), { headers: fresh });
    if (url.pathname === '/put') {
      const o = await env.BUCKET.put(key, request.body, { httpMetadata: request.headers });
      return new Response(`${o.size} ${o.etag}\n`, { headers: fresh });
    }
    if (url.pathname === '/get') {
      const o = await env.BUCKET.get(key, { range: request.headers, onlyIf: request.headers });
      if (o === null) return new Response('absent\n', { status: 404, headers: fresh });
      const headers = new Headers(fresh);
      o.writeHttpMetadata(headers);
      headers.set('etag', o.httpEtag);
      if (!('body' in o)) return new Response(null, { status: 304, headers });
      return new Response(o.body, { status: request.headers.has("range") ? 206 : 200, headers });
    }
    // An outage's view: what a get or a put answers, or the error it threw.
    if (url.pathname === '/try-get') {
      const got = await env.BUCKET.get(key).then((o) => (o === null ? 'absent' : o.text()), (e) => `${e.name}: ${e.message}`);
      return new Response(`${got}\n`, { headers: fresh });
    }
    if (url.pathname === '/try-put') {
      const put = await env.BUCKET.put(key, url.searchParams.get('value')).then((o) => `${o.size}`, (e) => `${e.name}: ${e.message}`);
      return new Response(`${put}\n`, { headers: fresh });
    }
    if (url.pathname === '/big') {
      const mib = Number(url.searchParams.get('mib'));
      const { readable, writable } = new FixedLengthStream(mib * 1024 * 1024);
      const w = writable.getWriter();
      const chunk = new Uint8Array(1024 * 1024).fill(120);
      (async () => {
        for (let i = 0; i < mib; i++) await w.write(chunk.slice());
        await w.close();
      })().catch(() => {});
      const o = await env.BUCKET.put(key, readable).catch((e) => e);
      if (o instanceof Error) return new Response(`${o.message}\n`, { status: 507, headers: fresh });
      const digest = new crypto.DigestStream('SHA-256');
      await (await env.BUCKET.get(key)).body.pipeTo(digest);
      return new Response(`${o.size} ${hex(await digest.digest)}\n`, { headers: fresh });
    }
    if (url.pathname === '/start-upload') {
      const upload = await env.BUCKET.createMultipartUpload(key);
      await upload.uploadPart(1, 'the first part');
      return new Response(upload.uploadId, { headers: fresh });
    }
    if (url.pathname === '/resume') {
      const upload = env.BUCKET.resumeMultipartUpload(key, url.searchParams.get('id'));
      const part = await upload.uploadPart(2, 'the second').then(() => 'added', (e) => e.message);
      return new Response(part, { headers: fresh });
    }
    return new Response('not found\n', { status: 404, headers: fresh });
  },
};
