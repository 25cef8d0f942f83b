//! The incoming request as the renderer sees it (its header reads recorded
//! for the cache key), `ctx.waitUntil()` and the work after the response.
//!
//! Defines: none
//! Host calls: request-body, response-end, response-head, response-write, wait-until
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/handler.js
  // The request headers a render reads become part of its cache key (the
  // host keys the page on their values): `headers` is a proxy that records
  // each name read, tested (`in`) or described, and that listing the names
  // (`Object.keys`, spread, `JSON.stringify`) reads them all ('*'). Names of
  // Object.prototype and the `toJSON`/`then` probes are not header reads
  // unless the request has such a header.
  const notHeaders = new Set(['toJSON', 'then', ...Object.getOwnPropertyNames(Object.prototype)]);
  function recordingHeaders(target, reads) {
    const note = (t, k) => {
      if (typeof k === 'string' && (own.call(t, k) || !notHeaders.has(k))) reads.add(k.toLowerCase());
    };
    return new Proxy(target, {
      get(t, k, r) { note(t, k); return Reflect.get(t, k, r); },
      has(t, k) { note(t, k); return Reflect.has(t, k); },
      getOwnPropertyDescriptor(t, k) { note(t, k); return Reflect.getOwnPropertyDescriptor(t, k); },
      ownKeys(t) { reads.add('*'); return Reflect.ownKeys(t); },
    });
  }

  const own = Object.prototype.hasOwnProperty;
  function shapeRequest(raw, reads) {
    const query = {};
    for (let i = 0; i < raw.query.length; i++) {
      const k = raw.query[i][0];
      if (!own.call(query, k)) query[k] = raw.query[i][1];
    }
    const headers = {};
    for (let i = 0; i < raw.headers.length; i++) {
      const name = raw.headers[i][0].toLowerCase();
      const v = raw.headers[i][1];
      headers[name] = own.call(headers, name) ? `${headers[name]}, ${v}` : v;
    }
    return { method: raw.method, url: raw.url, href: raw.href, base: raw.base, path: raw.path, query, headers: recordingHeaders(headers, reads), tenant: raw.tenant };
  }

  // The incoming request as a fetch handler's `Request`, made without
  // parsing again what the host parsed. A handler owns its URL space: under
  // path routing its URL is without the base (`/t/<id>`), which comes as
  // `x-forwarded-prefix` for the links it makes.
  // The incoming request, whose `signal` (made when first read) aborts
  // when its client goes away before the response is complete
  // (`fetch-wait` says so).
  let leaving = null;
  function incomingRequest(raw, reads) {
    const r = Object.create(RequestImpl.prototype);
    leaving = r;
    r._url = raw.href.slice(0, raw.href.length - raw.base.length - raw.url.length) + raw.url;
    r._method = raw.method;
    r._headers = new HeadersImpl();
    const list = r._headers._list;
    for (let i = 0; i < raw.headers.length; i++) list.push([raw.headers[i][0].toLowerCase(), raw.headers[i][1]]);
    if (raw.base !== '') list.push(['x-forwarded-prefix', raw.base]);
    r._headers._reads = reads;
    r._redirect = 'follow';
    // `cf`: an object, so that `request.cf.country` reads undefined rather
    // than throwing; ssr has none of Cloudflare's edge data, and gives no
    // client address here (workerd serve gives `clientIp`): an empty one.
    r._cf = {};
    const given = raw.body === undefined || raw.body === null ? null : raw.body;
    r._body = given !== null && host('request-body', 'more').value === true ? uploadedBody(given, r._headers.get('content-length')) : given;
    r._used = false;
    return r;
  }

  // A body that goes on past what came with the request: `first`, then
  // the host's pieces as the stream is pulled (`request-body`). With a
  // `Content-Length` its length is known, as `workerd`'s is (an R2 put
  // takes it).
  function uploadedBody(first, declared) {
    let more = true;
    const stream = new ReadableStreamImpl({
      type: 'bytes',
      start(c) { c.enqueue(first); },
      async pull(c) {
        if (!more) return;
        const [answer, bytes] = await hostOp('request-body', 'read');
        more = !answer.end;
        if (bytes.byteLength > 0) c.enqueue(bytes);
        if (!more) c.close();
      },
    });
    const length = declared === null ? NaN : Number(declared);
    if (Number.isSafeInteger(length)) knownLengths.set(stream, length);
    return stream;
  }

  // A fetch handler's third argument. The promises given to waitUntil()
  // are waited for after the response has gone (`afterResponse`), within
  // the render's CPU time and the request's wall-clock limit; at most
  // MAX_WAIT_UNTIL per request.
  const MAX_WAIT_UNTIL = 32;
  let afterwork = [];
  let given = 0;
  const context = Object.freeze({
    waitUntil(promise) {
      if (++given > MAX_WAIT_UNTIL) {
        hostLog(3, `ctx.waitUntil(): more than ${MAX_WAIT_UNTIL} promises in one request; this one is not waited for`);
        return;
      }
      afterwork.push(Promise.resolve(promise));
    },
    passThroughOnException() {},
  });
  // Whether this render's head went to the host as a stream's
  // (`sendStream`): its body is then sent, and only its end is left.
  let headSent = false;

  // The response goes first (its head and body to the host, which sends
  // them, then its end), then the render waits for its waitUntil() work,
  // telling the host how each promise settled. Without a client to stream
  // to (`ssr render`), the work is waited for before the response.
  function afterResponse(res) {
    if (!headSent) {
      const head = headOf(res);
      headSent = host('response-head', head).value;
      if (headSent) {
        const bytes = typeof res.body === 'string' ? encoder().encode(res.body) : res.body;
        if (bytes.length > 0) host('response-write', null, bytes);
        res.body = '';
      }
    }
    if (headSent) host('response-end', res.vary);
    // Work may give more work to wait for.
    const drain = () => {
      if (afterwork.length === 0) return res;
      const work = afterwork;
      afterwork = [];
      return Promise.allSettled(work).then((settled) => {
        for (const s of settled) {
          host('wait-until', { failed: s.status === 'fulfilled' ? null : describe(s.reason).message });
        }
        return drain();
      });
    };
    return drain();
  }

