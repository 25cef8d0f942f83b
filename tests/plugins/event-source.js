// `EventSource` as `workerd` has it: streams served through a `fetcher`
// (on `workerd` a service binding to this worker, `self`; on ssr an object
// with a `fetch` that calls the same handlers), parsed, reconnected with
// `Last-Event-ID`, refused; `EventSource.from` on a stream cut in odd
// places; and `on<type>` handler properties on any `EventTarget`. The
// answer is compared with `workerd`'s in tests/all/workers.rs.
const SSE = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const counts = {};

function serve(request) {
  const url = new URL(request.url);
  const n = (counts[url.pathname] = (counts[url.pathname] ?? 0) + 1);
  const sse = (body, status = 200, headers = SSE) => new Response(body, { status, headers });
  switch (url.pathname) {
    case '/headers':
      return sse(`data: ${request.headers.get('accept')}|${request.headers.get('cache-control')}|${request.headers.get('last-event-id')}\n\n`);
    case '/reconnect':
      return n === 1
        ? sse('retry: 1000\nid: 7\ndata: first\n\n')
        : sse(`data: again ${request.headers.get('last-event-id')}\n\n`);
    case '/ids':
      return sse('id: 1\ndata: a\n\ndata: b\n\nid: \ndata: c\n\nid: 2\ndata: d\n\nid\ndata: e\n\n');
    case '/parse':
      return sse('data: one\r\ndata: two\r\n\r\n: comment\nfalsefield:msg\n\nData: x\n\ndata\n\ndata:  two spaces\rdata:tail\r\rdata: end\n\nunterminated: yes\ndata: never');
    case '/typed':
      return sse('event: test\ndata: first\n\nevent: other\ndata: second\n\ndata: plain\n\n');
    case '/status':
      return new Response('no', { status: 500 });
    case '/type':
      return sse('data: x\n\n', 200, { 'content-type': 'text/plain' });
    case '/untyped':
      return new Response('data: x\n\n', { headers: {} });
    case '/empty':
      return sse(null, 204);
    default:
      return new Response('not found', { status: 404 });
  }
}

const errorOf = (e) => (e === undefined ? null : [e.name, e.message]);

// Opens `path` and records every event until the source is closed (by
// the source itself, or after `max` messages), or 8 s pass.
function record(fetcher, path, max = 100) {
  return new Promise((resolve) => {
    const log = [];
    const source = new EventSource(`http://example.org${path}`, { fetcher });
    log.push(['state', source.readyState, source.url]);
    let messages = 0;
    const done = () => {
      clearTimeout(timer);
      source.close();
      log.push(['closed', source.readyState]);
      resolve(log);
    };
    const timer = setTimeout(() => {
      log.push('timed out');
      done();
    }, 8000);
    source.onopen = (e) => log.push(['open', e.type, source.readyState]);
    const onMessage = (e) => {
      log.push([e.type, e.data, e.lastEventId, e.origin, e instanceof MessageEvent]);
      if (++messages >= max) done();
    };
    source.onmessage = onMessage;
    source.ontest = onMessage;
    source.addEventListener('other', onMessage);
    source.onerror = (e) => {
      log.push(['error', source.readyState, e instanceof ErrorEvent, errorOf(e.error)]);
      if (source.readyState === EventSource.CLOSED) done();
    };
  });
}

function streamOf(chunks) {
  const enc = new TextEncoder();
  return new ReadableStream({
    async pull(c) {
      await scheduler.wait(1);
      const next = chunks.shift();
      if (next === undefined) c.close();
      else c.enqueue(typeof next === 'string' ? enc.encode(next) : next);
    },
  });
}

function fromStream(chunks) {
  return new Promise((resolve) => {
    const log = [];
    const source = EventSource.from(streamOf(chunks));
    log.push(['state', source.readyState, source.url]);
    source.onmessage = (e) => log.push([e.data, e.lastEventId]);
    source.onerror = (e) => {
      log.push(['error', source.readyState, errorOf(e.error)]);
      resolve(log);
    };
  });
}

function thrown(f) {
  try {
    f();
    return 'returned';
  } catch (e) {
    return [e.name, e.message];
  }
}

async function run(env) {
  const fetcher = env.self ?? { fetch: async (url, init) => serve(new Request(url, init)) };
  const out = {};
  out.headers = await record(fetcher, '/headers', 1);
  out.reconnect = await record(fetcher, '/reconnect', 2);
  out.ids = await record(fetcher, '/ids', 5);
  out.parse = await record(fetcher, '/parse', 3);
  out.typed = await record(fetcher, '/typed', 3);
  out.status = await record(fetcher, '/status');
  out.type = await record(fetcher, '/type');
  out.untyped = await record(fetcher, '/untyped');
  out.empty = await record(fetcher, '/empty');
  // Closed before its response came: no event at all.
  const early = new EventSource('http://example.org/headers', { fetcher });
  const seen = [];
  early.onopen = early.onmessage = early.onerror = (e) => seen.push(e.type);
  early.close();
  await scheduler.wait(100);
  out.closedAtOnce = [early.readyState, seen];
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('data: after bom\n\n')]);
  out.from = await fromStream([bom, 'data: spl', 'it\r\ndata: x\r', '\r', 'id: 3\n', 'data: é'.slice(0, 6), 'é\n\n', new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xc3]), new Uint8Array([0xa9, 0x0a, 0x0a])]);
  out.refused = [
    thrown(() => new EventSource('not a valid url')),
    thrown(() => new EventSource(123)),
    thrown(() => new EventSource('http://example.org/headers', { withCredentials: true })),
    thrown(() => new EventSource('http://example.org/headers', { fetcher, withCredentials: false }).close()),
    thrown(() => EventSource.from('text')),
  ];
  const locked = new ReadableStream();
  locked.getReader();
  out.refused.push(thrown(() => EventSource.from(locked)));
  const disposed = EventSource.from(new ReadableStream());
  const before = disposed.readyState;
  disposed[Symbol.dispose]();
  out.dispose = [before, disposed.readyState];
  out.shape = {
    constants: [EventSource.CONNECTING, EventSource.OPEN, EventSource.CLOSED, EventSource.prototype.CLOSED],
    proto: ['onopen', 'onmessage', 'onerror', 'close', 'readyState', 'url', 'withCredentials'].map((k) => k in EventSource.prototype),
    inherits: EventSource.prototype instanceof EventTarget,
    tag: Object.prototype.toString.call(disposed),
    handlers: [disposed.onopen, disposed.onmessage, disposed.withCredentials],
  };
  // `on<type>` on any EventTarget, before its listeners; an AbortSignal's
  // `onabort` once.
  const order = [];
  const target = new EventTarget();
  target.addEventListener('ping', () => order.push('listener'));
  target.onping = (e) => order.push(`onping ${e.type}`);
  target.onpong = 'not a function';
  target.dispatchEvent(new Event('ping'));
  target.dispatchEvent(new Event('pong'));
  const controller = new AbortController();
  controller.signal.onabort = () => order.push('onabort');
  controller.abort();
  out.onProperties = order;
  return out;
}

export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname !== '/') return serve(request);
    return new Response(JSON.stringify(await run(env)));
  },
};
