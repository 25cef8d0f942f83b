//! `EventSource`: the HTML standard's client of server-sent events, as
//! `workerd` has it. `new EventSource(url, { fetcher })` fetches `url`
//! (through the tenant's `fetch` and its grant, or through `fetcher.fetch`
//! where one is given) with `Accept: text/event-stream`, parses the body
//! as an event stream and dispatches `open`, `message` (or the event's own
//! type) and `error`; it reconnects, with `Last-Event-ID`, when the server
//! ends a stream, after the `retry:` time clamped to 1-10 s as `workerd`
//! clamps it (2 s until one is given). `EventSource.from(stream)` is
//! `workerd`'s extension: the events of a `ReadableStream` of bytes, with
//! no reconnection. A status that is not 2xx or a content type that is
//! not `text/event-stream` closes it, with `workerd`'s messages.
//! Each event is dispatched as its bytes arrive (a fetched body streams).
//! One departure: a CR LF split between two chunks is one line end, as
//! the standard says (`workerd` reads two).
//!
//! Defines: EventSource
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/event-source.js
  // ------------------------------------------------------------ EventSource
  const eventSourceState = new WeakMap();
  const sourceOf = (t) => branded(eventSourceState, t);
  const CONNECTING = 0;
  const OPEN = 1;
  const CLOSED = 2;
  // The time between reconnections, as `workerd` bounds it.
  const RETRY_DEFAULT_MS = 2000;
  const RETRY_MIN_MS = 1000;
  const RETRY_MAX_MS = 10000;

  class EventSourceImpl extends EventTargetImpl {
    constructor(url, init = undefined) {
      super();
      if (url === makingEventSource) {
        eventSourceState.set(this, sourceFields(null, null));
        return;
      }
      if (init !== undefined && init !== null && init.withCredentials) {
        throw new DOMEx('The init.withCredentials option is not supported. It must be false or undefined.', 'NotSupportedError');
      }
      let parsed;
      try {
        parsed = new URLImpl(String(url));
      } catch {
        throw new DOMEx(`Cannot open an EventSource to '${String(url)}'. The URL is invalid.`, 'SyntaxError');
      }
      const fetcher = init === undefined || init === null ? undefined : init.fetcher;
      eventSourceState.set(this, sourceFields(parsed.href, fetcher));
      startEventSource(this);
    }
    static from(stream) {
      if (!(stream instanceof ReadableStreamImpl)) throw new TypeError("Failed to execute 'from' on 'EventSource': parameter 1 is not of type 'JsReadableStream'.");
      if (stream.locked) throw new TypeError('This ReadableStream is locked.');
      if (stream._disturbed) throw new TypeError('This ReadableStream has already been read from.');
      const source = new EventSourceImpl(makingEventSource);
      runEventSource(source, stream, false);
      return source;
    }
    get url() { return sourceOf(this).url ?? ''; }
    get withCredentials() { sourceOf(this); return false; }
    get readyState() { return sourceOf(this).readyState; }
    close() {
      const s = sourceOf(this);
      if (s.readyState === CLOSED) return;
      s.readyState = CLOSED;
      s.controller.abort();
      if (s.timer !== 0) timers.delete(s.timer);
      s.timer = 0;
    }
    [Symbol.dispose]() { this.close(); }
  }
  const makingEventSource = {};
  for (const name of ['onopen', 'onmessage', 'onerror']) {
    Object.defineProperty(EventSourceImpl.prototype, name, {
      get() { return sourceOf(this).handlers[name]; },
      set(fn) { sourceOf(this).handlers[name] = typeof fn === 'function' || (fn !== null && typeof fn === 'object') ? fn : null; },
      enumerable: true, configurable: true,
    });
  }
  for (const [name, value] of [['CONNECTING', CONNECTING], ['OPEN', OPEN], ['CLOSED', CLOSED]]) {
    Object.defineProperty(EventSourceImpl, name, { value, enumerable: true });
    Object.defineProperty(EventSourceImpl.prototype, name, { value, enumerable: true });
  }
  Object.defineProperty(EventSourceImpl.prototype, Symbol.toStringTag, { value: 'EventSource', configurable: true });

  function sourceFields(url, fetcher) {
    return {
      url, fetcher, readyState: CONNECTING, lastEventId: '', retryMs: RETRY_DEFAULT_MS,
      controller: new AbortControllerImpl(), timer: 0, hadNoBody: false,
      handlers: { onopen: null, onmessage: null, onerror: null },
    };
  }

  // An `error` event; the source is closed, or connecting again when
  // `reconnecting`.
  function eventSourceError(source, error, reconnecting) {
    const s = sourceOf(source);
    if (s.readyState === CLOSED) return;
    s.controller.abort(error);
    s.readyState = reconnecting ? CONNECTING : CLOSED;
    source.dispatchEvent(new ErrorEventImpl('error', { error, message: error instanceof Error ? error.message : String(error) }));
  }

  function startEventSource(source) {
    const s = sourceOf(source);
    if (s.readyState === CLOSED) return;
    const headers = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (s.lastEventId !== '') headers['last-event-id'] = s.lastEventId;
    const init = { headers, signal: s.controller.signal };
    const fetching = new Promise((resolve) => resolve(s.fetcher !== undefined && s.fetcher !== null ? s.fetcher.fetch(s.url, init) : fetchImpl(s.url, init)));
    const refuse = (message) => eventSourceError(source, new DOMEx(message, 'AbortError'), false);
    upon(fetching, (response) => {
      if (s.readyState === CLOSED) return;
      if (!response.ok) return refuse(`The response status code was ${response.status}.`);
      const type = response.headers.get('content-type');
      if (type === null) return refuse('No content type header was present in the response.');
      if (type.split(';')[0].trim().toLowerCase() !== 'text/event-stream') return refuse(`The content type '${type}' is invalid.`);
      if (response.redirected && response.url !== '') s.url = response.url;
      if (response.body === null) {
        // No body once is taken as a disconnection; twice, as a server
        // that will never send one.
        if (s.hadNoBody) return eventSourceError(source, new Error('The server provided no content.'), false);
        s.hadNoBody = true;
        eventSourceError(source, new Error('The server provided no content. Will try reconnecting.'), true);
        return reconnectEventSource(source);
      }
      runEventSource(source, response.body, true);
    }, (e) => eventSourceError(source, e, false));
  }

  function reconnectEventSource(source) {
    const s = sourceOf(source);
    s.readyState = CONNECTING;
    s.controller = new AbortControllerImpl();
    s.timer = addTimer(() => {
      s.timer = 0;
      startEventSource(source);
    }, s.retryMs, [], false);
  }

  // Reads `stream` to its end, dispatching its events; then, where
  // `reconnecting`, connects again.
  function runEventSource(source, stream, reconnecting) {
    const s = sourceOf(source);
    if (s.readyState === CLOSED) return;
    s.readyState = OPEN;
    source.dispatchEvent(new EventImpl('open'));
    const reader = stream.getReader();
    const parse = eventStreamParser(source);
    const stopOnAbort = () => reader.cancel().catch(() => {});
    s.controller.signal.addEventListener('abort', stopOnAbort, { once: true });
    const next = () => upon(reader.read(), ({ value, done }) => {
      if (s.readyState === CLOSED) return undefined;
      if (done) {
        eventSourceError(source, new Error('The server disconnected.'), reconnecting);
        if (reconnecting) reconnectEventSource(source);
        return undefined;
      }
      parse(value);
      return next();
    }, (e) => eventSourceError(source, e, false));
    next();
  }

  // The event stream format (HTML, "Interpreting an event stream"): lines
  // end in CR LF, LF or CR; a blank line dispatches the event the lines
  // before it built. A leading byte-order mark is skipped (the decoder
  // does it).
  function eventStreamParser(source) {
    const s = sourceOf(source);
    const decoder = new TextDecoderImpl();
    let kept = '';
    let afterCR = false;
    let data = null;
    let type = '';
    const field = (line) => {
      if (line === '') {
        if (data !== null && data.length > 0) {
          const joined = data.join('\n');
          if (joined !== '') {
            const origin = s.url === null ? '' : new URLImpl(s.url).origin;
            source.dispatchEvent(new MessageEventImpl(type === '' ? 'message' : type, { data: joined, lastEventId: s.lastEventId, origin }));
          }
        }
        data = null;
        type = '';
        return;
      }
      if (line[0] === ':') return;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value[0] === ' ') value = value.slice(1);
      if (data === null) data = [];
      if (name === 'data') data.push(value);
      else if (name === 'event') type = value;
      else if (name === 'id') s.lastEventId = value;
      else if (name === 'retry' && /^[0-9]+$/.test(value)) s.retryMs = Math.min(Math.max(Number(value), RETRY_MIN_MS), RETRY_MAX_MS);
    };
    return (bytes) => {
      let text = decoder.decode(bytes, { stream: true });
      if (afterCR && text[0] === '\n') text = text.slice(1);
      afterCR = false;
      let start = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c !== '\n' && c !== '\r') continue;
        const line = kept + text.slice(start, i);
        kept = '';
        if (c === '\r') {
          if (i + 1 === text.length) afterCR = true;
          else if (text[i + 1] === '\n') i++;
        }
        start = i + 1;
        field(line);
        if (s.readyState === CLOSED) return;
      }
      kept += text.slice(start);
    };
  }
  defineMissing('EventSource', EventSourceImpl);
