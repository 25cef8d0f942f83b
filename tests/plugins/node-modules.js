// The Node modules frameworks import (issue 34, part 3), under their `node:`
// names and their bare ones: what each gives must equal what Node gives
// (tests/all/node_modules.rs renders this on both engines and on Node).
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { Buffer } from 'node:buffer';
import { createHash, createHmac, timingSafeEqual, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import EventEmitter, { once } from 'node:events';
import path from 'node:path';
import { posix } from 'path';
import querystring from 'node:querystring';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath, pathToFileURL, parse as parseUrl, format as formatUrl } from 'node:url';
import util from 'util';
import process from 'node:process';
import * as timers from 'node:timers';
import { setTimeout as sleep, setImmediate as immediate, setInterval as every } from 'timers/promises';
import * as types from 'node:util/types';
import { Readable, Writable, Duplex, Transform, PassThrough, pipeline, finished } from 'node:stream';
import { pipeline as pipelinePromise } from 'stream/promises';
import { text as streamText } from 'node:stream/consumers';
import { inherits } from 'node:util';
import { createRequire, isBuiltin } from 'node:module';

const als = new AsyncLocalStorage();
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

// The store follows each request through awaits, timers, microtasks and
// promise callbacks, and two interleaved runs never see each other's.
async function visit(id, log) {
  await null;
  log.push(`${id} after await: ${als.getStore().id}`);
  await tick();
  log.push(`${id} after timer: ${als.getStore().id}`);
  await new Promise((resolve) => queueMicrotask(() => {
    log.push(`${id} in microtask: ${als.getStore().id}`);
    resolve();
  }));
  await Promise.resolve().then(() => log.push(`${id} in then: ${als.getStore().id}`));
  for await (const n of (async function* () { yield 1; await tick(); yield 2; })()) {
    log.push(`${id} in for await ${n}: ${als.getStore().id}`);
  }
  return als.getStore().id;
}

async function asyncContext() {
  const log = [];
  log.push(`outside: ${als.getStore()}`);
  const results = await Promise.all([
    als.run({ id: 'a' }, () => visit('a', log)),
    als.run({ id: 'b' }, () => visit('b', log)),
  ]);
  log.push(`results: ${results.join(',')}, after: ${als.getStore()}`);
  const inner = als.run({ id: 'outer' }, () => als.run({ id: 'inner' }, () => als.getStore().id));
  const exited = als.run({ id: 'x' }, () => als.exit(() => als.getStore()));
  const bound = als.run({ id: 'bound' }, () => AsyncLocalStorage.bind(() => als.getStore().id));
  const snapshot = als.run({ id: 'snap' }, () => AsyncLocalStorage.snapshot());
  const resource = als.run({ id: 'res' }, () => new AsyncResource('thing'));
  log.push(`nested: ${inner}, exit: ${exited}, bind: ${bound()}, snapshot: ${snapshot(() => als.getStore().id)}, resource: ${resource.runInAsyncScope(() => als.getStore().id)}`);
  const other = new AsyncLocalStorage();
  log.push(`two stores: ${als.run(1, () => other.run(2, () => `${als.getStore()}+${other.getStore()}`))}`);
  return log;
}

function buffers() {
  const b = Buffer.from('héllo wörld €𝄞');
  const n = Buffer.alloc(12);
  n.writeUInt32BE(0xdeadbeef, 0);
  n.writeInt16LE(-2, 4);
  n.writeDoubleBE(Math.PI, 4);
  return [
    b.toString('hex'), b.toString('base64'), b.toString('base64url'), b.toString('latin1'),
    Buffer.from(b.toString('base64'), 'base64').equals(b), Buffer.byteLength('€𝄞'), Buffer.from('aGk', 'base64').toString(),
    Buffer.from('zz0a1', 'hex').length, b.slice(1, 3).toString('hex'), b.indexOf('w'), b.includes('€'),
    Buffer.concat([Buffer.from('ab'), Buffer.from([99])]).toString(), Buffer.compare(Buffer.from('a'), Buffer.from('b')),
    n.toString('hex'), n.readUInt32LE(0), n.readDoubleBE(4), Buffer.isBuffer(b), b instanceof Uint8Array,
    JSON.stringify(Buffer.from([1, 2])), Buffer.from('ünï', 'latin1').toString('latin1'), Buffer.from('hi', 'utf16le').toString('hex'),
    Buffer.alloc(5, 'ab').toString(), (() => { try { Buffer.from('x', 'nope'); return 'no error'; } catch (e) { return e.message; } })(),
  ].map(String);
}

async function emitters() {
  const log = [];
  const e = new EventEmitter();
  e.on('x', (v) => log.push(`on ${v}`));
  e.once('x', (v) => log.push(`once ${v}`));
  e.emit('x', 1);
  e.emit('x', 2);
  log.push(`count ${e.listenerCount('x')}`);
  setTimeout(() => e.emit('ready', 'go'), 1);
  const [arg] = await once(e, 'ready');
  log.push(`once() ${arg}`);
  try {
    e.emit('error', new Error('boom'));
  } catch (err) {
    log.push(`error ${err.message}`);
  }
  return log;
}

// Bad input: each must fail this render alone, at the tenant's memory limit.
const BAD = {
  // 1 GiB at once.
  buffer: () => `allocated ${Buffer.alloc(2 ** 30).length}`,
  // A store that grows across awaits until memory runs out.
  store: () => als.run([], async () => {
    for (;;) {
      als.getStore().push(new Uint8Array(16 << 20).fill(1));
      await null;
    }
  }),
};

// `node:timers` and `timers/promises`: Node's handles, order and aborts.
async function nodeTimers() {
  const log = [];
  // Each awaited in turn: the log's order is the code's, not the machine's.
  const cleared = timers.setTimeout(() => log.push('cleared ran'), 1);
  timers.clearTimeout(cleared);
  await new Promise((resolve) => {
    const t = timers.setTimeout((x) => {
      log.push(`timeout ${x}`);
      resolve();
    }, 5, 'arg');
    log.push(`handle: ${t.constructor.name} ${typeof t.ref} ${t.hasRef()} ${t.unref().hasRef()} ${typeof +t}`);
    // Held again: Node would leave an unreferenced timer behind.
    t.ref();
  });
  await new Promise((resolve) => {
    const im = timers.setImmediate(() => {
      log.push('immediate');
      resolve();
    });
    log.push(`immediate handle: ${typeof im.hasRef}`);
  });
  log.push(`sleep: ${await sleep(10, 'value')}`);
  log.push(`immediate promise: ${await immediate('now')}`);
  const ticks = [];
  for await (const v of every(3, 'tick')) {
    ticks.push(v);
    if (ticks.length === 3) break;
  }
  log.push(`interval: ${ticks.join(',')}`);
  const ac = new AbortController();
  const pending = sleep(10000, 'never', { signal: ac.signal });
  ac.abort(new Error('stop'));
  await pending.then(() => log.push('not aborted'), (e) => log.push(`aborted: ${e.name} ${e.code} ${e.cause.message}`));
  await sleep(1, null, {}).then(() => log.push('options object ok'));
  await sleep(1, null, { signal: 'no' }).catch((e) => log.push(`bad signal: ${e.name}`));
  log.push(`types: ${types.isPromise(pending)} ${types.isUint8Array(new Uint8Array(1))} ${types.isDate(new Date())} ${types.isMap(new Map())} ${types.isUint8Array([])}`);
  return log;
}

// `node:stream`: both modes, piping, back-pressure, transforms, errors,
// async iteration, the web adapters and old-style inheritance.
async function nodeStreams() {
  const log = [];
  const collect = () => {
    const chunks = [];
    const w = new Writable({ write(chunk, enc, cb) { chunks.push(chunk.toString()); cb(); } });
    w.chunks = chunks;
    return w;
  };
  // Flowing mode, and the order of the events.
  const events = [];
  const r = new Readable({ read() {} });
  r.on('data', (c) => events.push(`data ${c}`));
  r.on('end', () => events.push('end'));
  r.on('close', () => events.push('close'));
  r.push('a');
  r.push('b');
  r.push(null);
  await finished_(r);
  await new Promise((ok) => setTimeout(ok, 1));
  log.push(`flowing: ${events.join(', ')}`);
  // Paused mode: read() in `readable` events.
  const p = Readable.from(['x', 'y', 'z'], { objectMode: true });
  const got = [];
  p.on('readable', () => {
    let c;
    while ((c = p.read()) !== null) got.push(c);
  });
  await finished_(p);
  log.push(`paused: ${got.join('')}`);
  // A transform piped through, with a final flush.
  const upper = new Transform({
    transform(chunk, enc, cb) { cb(null, chunk.toString().toUpperCase()); },
    flush(cb) { this.push('!'); cb(); },
  });
  const sink = collect();
  await new Promise((ok, fail) => pipeline(Readable.from(['he', 'llo']), upper, sink, (e) => (e ? fail(e) : ok())));
  log.push(`pipeline: ${sink.chunks.join('')}`);
  // Back-pressure: write() says false past the high-water mark, then drain.
  const slow = new Writable({ highWaterMark: 4, write(chunk, enc, cb) { setTimeout(cb, 1); } });
  const first = slow.write('123');
  const second = slow.write('456');
  await new Promise((ok) => slow.once('drain', ok));
  log.push(`backpressure: ${first} ${second} drained ${slow.writableLength}`);
  // An error in the middle ends the pipeline with it, and destroys all.
  const bad = new Transform({ transform(chunk, enc, cb) { cb(new Error('bad chunk')); } });
  const source = Readable.from(['1', '2']);
  const err = await new Promise((ok) => pipeline(source, bad, collect(), ok));
  log.push(`error: ${err && err.message} destroyed ${source.destroyed} ${bad.destroyed}`);
  // Async iteration, stream/promises with a generator, consumers.
  const parts = [];
  for await (const c of Readable.from(['p', 'q'])) parts.push(c);
  log.push(`for await: ${parts.join('')}`);
  const out = collect();
  await pipelinePromise(Readable.from(['a', 'b']), async function* (src) { for await (const c of src) yield `${c}${c}`; }, out);
  log.push(`generator stage: ${out.chunks.join('')}`);
  log.push(`consumers: ${await streamText(Readable.from(['t', 'e', 'x', 't']))}`);
  // Web adapters both ways.
  const web = Readable.toWeb(Readable.from([Buffer.from('we'), Buffer.from('b')]));
  log.push(`toWeb: ${await new Response(web).text()}`);
  const back = Readable.fromWeb(new Response('from web').body);
  log.push(`fromWeb: ${await streamText(back)}`);
  // PassThrough, end(chunk, cb), a Duplex, and util.inherits over Readable.
  const pt = new PassThrough();
  pt.end('through');
  log.push(`passthrough: ${await streamText(pt)}`);
  const d = new Duplex({ read() { this.push('dup'); this.push(null); }, write(c, e, cb) { log.push(`duplex wrote ${c}`); cb(); } });
  d.write('in');
  log.push(`duplex read: ${await streamText(d)}`);
  function Counter() {
    Readable.call(this);
    this.n = 0;
  }
  inherits(Counter, Readable);
  Counter.prototype._read = function () {
    this.n += 1;
    this.push(this.n <= 3 ? String(this.n) : null);
  };
  log.push(`inherits: ${await streamText(new Counter())} ${new Counter() instanceof Readable}`);
  const w = new Writable({ write(c, e, cb) { cb(); } });
  w.end();
  w.write('late', (e) => log.push(`write after end: ${e.code}`));
  w.on('error', () => {});
  await new Promise((ok) => setTimeout(ok, 1));
  log.push(`states: ${r.readableEnded} ${sink.writableFinished} ${new PassThrough() instanceof Writable}`);
  return log;
}

const finished_ = (s) => new Promise((ok, fail) => finished(s, (e) => (e ? fail(e) : ok())));

export async function render(request) {
  if (request.query.bad) return BAD[request.query.bad]();
  const decoder = new StringDecoder('utf8');
  const euro = Buffer.from('€');
  const hmac = createHmac('sha256', 'key').update('data').digest('hex');
  const sections = {
    asyncContext: await asyncContext(),
    buffers: buffers(),
    crypto: [
      createHash('sha256').update('abc').digest('hex'),
      createHash('md5').update('a').update(Buffer.from('bc')).digest('base64'),
      createHash('sha1').update('').digest('hex'),
      createHash('SHA512').update('x').digest().length,
      hmac,
      createHmac('md5', Buffer.from('k')).update('v').digest('hex'),
      createHash('sha224').update('abc').digest('hex'),
      createHmac('sha224', 'key').update('The quick brown fox').digest('base64'),
      timingSafeEqual(Buffer.from('abc'), Buffer.from('abc')),
      randomBytes(16).length,
      /^[0-9a-f-]{36}$/.test(randomUUID()),
      typeof webcrypto.subtle.digest,
      // The input is copied: reusing the buffer after update() changes nothing.
      (() => { const b = Buffer.from('abc'); const h = createHash('sha256').update(b); b.fill(0); return h.digest('hex'); })(),
      (() => { const h = createHash('sha1').update('a'); const c = h.copy(); c.update('b'); return `${h.digest('hex')} ${c.digest('hex')}`; })(),
    ].map(String),
    events: await emitters(),
    path: [
      path.join('/a/b', '../c', './d.txt'), path.resolve('/x', 'y', '..', 'z'), path.dirname('/a/b/c.js'),
      path.basename('/a/b/c.js', '.js'), path.extname('index.coffee.md'), path.relative('/data/a/b', '/data/c'),
      path.normalize('/foo/bar//baz/asdf/quux/..'), JSON.stringify(path.parse('/home/user/file.txt')), posix.sep,
    ],
    querystring: [
      JSON.stringify(querystring.parse('a=1&b=x+y&a=2&c=%E2%82%AC')),
      querystring.stringify({ q: 'a b&c', list: [1, 2], empty: '' }),
      querystring.escape(`${String.fromCharCode(0xd801)}test ŋ€😀`), querystring.escape({ toString: () => '(x)' }),
      ...[String.fromCharCode(0xdc00), Symbol('s')].map((v) => { try { return querystring.escape(v); } catch (e) { return `${e.name} ${e.code}`; } }),
    ],
    stringDecoder: [decoder.write(euro.subarray(0, 1)), decoder.write(euro.subarray(1)), decoder.end()].map((s) => JSON.stringify(s)),
    url: [
      fileURLToPath('file:///srv/a%20b.txt'), pathToFileURL('/srv/a b.txt').href,
      JSON.stringify(parseUrl('http://u@Host.com:81/p?q=1#h', true)), formatUrl({ protocol: 'https', hostname: 'x.com', pathname: '/y', query: { z: 1 } }),
    ],
    util: [
      util.format('%s=%d %j %o', 'n', 42, { a: [1] }, 'str'), util.inspect({ a: 1, nested: { deep: { deeper: { deepest: 1 } } }, list: [1, 'two'] }),
      util.inspect(new Map([['k', new Set([1])]])), util.types.isPromise(Promise.resolve()), util.isDeepStrictEqual({ a: [1] }, { a: [1] }),
      util.formatWithOptions({ numericSeparator: true }, '%d %s %i %f', 1234567.891234, -1234, 123123123n, 0.1234567),
      util.inspect([118059162071741130342, 1e21, -12, 1000.5, NaN], { numericSeparator: true }),
      await util.promisify((x, cb) => setTimeout(() => cb(null, x * 2), 1))(21),
    ].map(String),
    timers: await nodeTimers(),
    streams: await nodeStreams(),
    module: (() => {
      const require = createRequire('/srv/app.js');
      let missing;
      try {
        require('./local.js');
      } catch (e) {
        missing = e.code;
      }
      return [require('node:path').join('a', 'b'), require('events') === EventEmitter, isBuiltin('node:fs'), isBuiltin('left-pad'), missing,
        process.getBuiltinModule('node:path') === path].map(String);
    })(),
    process: [typeof process.nextTick, process.version.startsWith('v'), process.platform, typeof process.cwd()].map(String),
  };
  const only = request.query.only;
  const out = only ? { [only]: sections[only] } : sections;
  return Object.entries(out).map(([name, lines]) => `## ${name}\n${lines.join('\n')}`).join('\n');
}
