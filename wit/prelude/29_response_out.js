//! A fetch handler's `Response` to the host: its ttl, a streamed body, and an
//! error's renderer-only stack.
//!
//! Defines: none
//! Host calls: response-head, response-write
//! Rust: host/src/web/stream.rs
//! WPT: none
//! Test plugin: tests/plugins/handler.js
  // A fetch handler's `Cache-Control` as the host's ttl: shared caches
  // never keep `private`, `no-store` or `no-cache` responses; `s-maxage`
  // wins over `max-age`; otherwise the host's default.
  function ttlOf(cacheControl) {
    if (cacheControl === null) return -1;
    const d = cacheControl.toLowerCase().split(',').map((x) => x.trim().replace(/\s*=\s*/, '='));
    if (d.some((x) => /^(private|no-store|no-cache)(=|$)/.test(x))) return -2;
    const age = d.find((x) => x.startsWith('s-maxage=')) || d.find((x) => x.startsWith('max-age='));
    const n = age ? Number(age.split('=')[1].replace(/"/g, '')) : NaN;
    return Number.isInteger(n) && n >= 0 ? Math.min(n, 0xffffffff) : -1;
  }

  // A fetch handler's Response, normalized.
  function fromResponse(out) {
    if (out._type === 'error') throw new BadResult('fetch() returned Response.error(); return a Response with a status from 200 to 599');
    if (out._used || streamUsed(out._body)) throw new BadResult("fetch() returned a Response whose body was already read; return a new one, or the Response's clone()");
    const body = out._body === null || out._body instanceof ReadableStreamImpl ? '' : out._body;
    return { status: out._status, headers: out._headers._list.map((p) => [p[0], p[1]]), body, ttl: ttlOf(out._headers.get('cache-control')), vary: [] };
  }

  // A body the engine takes: a string, or a Uint8Array.
  function bodyOf(body) {
    if (typeof body === 'string' || body instanceof Uint8Array) return body;
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return bytesOf(body);
    throw new BadResult(`render() returned an object whose body is ${kindOf(body)}; body must be a string or bytes (a Uint8Array)`);
  }

  // A streamed body: read a turn later, whole into `res` if it never makes
  // the render wait; otherwise the head to the host (`calls::RESPONSE_HEAD`),
  // then each chunk as the stream gives it (`RESPONSE_WRITE`), and `res`
  // with an empty body once the stream ends. A host that takes bodies whole
  // (`ssr render`) gets it read whole into `res`.
  // A normalized response without its body: what `response-head` takes.
  function headOf(res) {
    return { status: res.status, headers: res.headers, ttl: res.ttl, vary: res.vary };
  }

  function sendStream(stream, res) {
    const what = `${handlerName}()`;
    // The body is first read a timer turn later, as workerd reads it once
    // its event loop comes round: work the app scheduled for "now"
    // (React's flush of ready Suspense boundaries) goes into the first
    // chunk, so a streamed page comes out as on workerd
    // (tests/all/apps.rs compares them byte for byte). It costs about 3% of
    // a streamed Hono page's req/s on Wasm and nothing measurable on V8
    // (wrk, alternating with a build without it; issue 33's note).
    // A stream whose source closed it already can give nothing more, so
    // it is read at once: the turn cost a streamed page 23 us on Wasm
    // (`ssr render --repeat`, a page awaiting a timer against one that
    // does not).
    const c = stream._controller;
    const whole = c instanceof ReadableStreamDefaultController && c._closeRequested;
    const turn = whole ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, 0));
    // What the stream gives before a read must wait goes to the host with
    // the response, whole, as a string body does; only a stream that makes
    // the render wait sends its head then (`onWait`), what it gave so far,
    // and each chunk as it comes. Three calls fewer for a page rendered to a
    // stream at once (Hono's JSX renderer), and one write to the client.
    // A write the host answers `true` to has left the client more than a
    // window behind: the next chunk is read once it caught up.
    const early = [];
    const onWait = () => {
      headSent = host('response-head', headOf(res)).value;
      if (headSent) for (const chunk of early.splice(0)) host('response-write', null, chunk);
    };
    const each = (chunk) => {
      if (!headSent) {
        early.push(chunk);
        return undefined;
      }
      return host('response-write', null, chunk).value === true ? hostOp('response-write', 'drained') : undefined;
    };
    return turn.then(() => eachChunk(stream, what, BadResult, each, onWait)).then(() => {
      if (!headSent) res.body = concat(early);
      return res;
    });
  }

  function normalize(out) {
    if (typeof out === 'string') {
      return { status: 200, headers: [['content-type', 'text/html; charset=utf-8']], body: out, ttl: -1, vary: [] };
    }
    if (out instanceof ResponseImpl) return fromResponse(out);
    if (out === null || typeof out !== 'object' || Array.isArray(out)) {
      throw new BadResult(`${handlerName}() returned ${kindOf(out)}; ${handlerName === 'fetch' ? 'return a Response' : 'return an HTML string or { status, headers, body }'}`);
    }
    const body = out.body instanceof ReadableStreamImpl ? '' : bodyOf(out.body);
    const status = out.status === undefined ? 200 : out.status;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new BadResult(`render() returned status ${JSON.stringify(status)}; use an integer from 200 to 599`);
    }
    const headers = normalizeHeaders(out.headers);
    if (!headers.some(([k]) => k === 'content-type')) headers.push(['content-type', 'text/html; charset=utf-8']);
    const vary = Array.isArray(out.vary) ? out.vary.map((v) => String(v).toLowerCase()) : [];
    return { status, headers, body, ttl: normalizeCache(out.cache), vary };
  }

  // The renderer's frames only: the driver's own frames (this file) and the
  // engine's native frames below them say nothing to the site's author.
  // V8 starts a stack with the "Name: message" lines, QuickJS with the
  // first frame: keep from the first frame, so both engines say the same.
  function userStack(stack) {
    let lines = String(stack || '').split('\n');
    const first = lines.findIndex((l) => /^\s+at /.test(l));
    if (first > 0) lines = lines.slice(first);
    const cut = lines.findIndex((l) => l.includes('ssr:prelude'));
    return (cut < 0 ? lines : lines.slice(0, cut)).join('\n').trimEnd();
  }

  function describe(reason) {
    if (reason instanceof BadResult) return { kind: 'bad-result', message: reason.message, stack: '' };
    if (reason instanceof Error) {
      return { kind: 'exception', message: `${reason.name}: ${reason.message}`, stack: userStack(reason.stack) };
    }
    return { kind: 'exception', message: `Uncaught ${inspect(reason, 1, [])}`, stack: '' };
  }

