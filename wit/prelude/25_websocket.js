//! `WebSocketPair` and `WebSocket`, as `workerd` has them: a pair is two
//! connected ends, each a `WebSocket` that must `accept()` before it sends
//! or hears anything. What one end sends reaches the other as a `message`
//! event, a task later, held until that end accepts: text as text, bytes
//! as a `Blob` (or an `ArrayBuffer` under `binaryType = 'arraybuffer'`),
//! anything else as its string. `close(code, reason)` runs the closing
//! handshake: the other end answers it at once, and each end gets a
//! `close` event (1005 where no code was given). An end returned in a
//! `Response` of status 101 answers the client's request to upgrade: the
//! driver (`33_driver.js`) binds it to the host (`serveClient`), so what
//! its pair's other end sends goes to the client (`calls::WEBSOCKET`), and
//! what the client sends arrives there, until the client or the Worker
//! closes. A client end (`new WebSocket(url)`, and `fetch` with `Upgrade:
//! websocket`, whose response's `webSocket` must be accepted) is the
//! host's connection `remote`, to an origin the tenant was granted: what
//! it sends goes there, and what comes arrives at it.
//!
//! Defines: WebSocketPair, WebSocket
//! Host calls: object, websocket
//! Rust: host/src/web/websocket.rs, host/src/web/websocket_client.rs, host/src/http/websocket.rs
//! WPT: none
//! Test plugin: tests/plugins/websocket-pair.js, tests/plugins/websocket-server.js, tests/plugins/websocket-client.js
  // ---------------------------------------------------------- WebSocketPair
  const socketState = new WeakMap();
  const socketOf = (t) => branded(socketState, t);
  const WS_CONNECTING = 0;
  const WS_OPEN = 1;
  const WS_CLOSING = 2;
  const WS_CLOSED = 3;
  const makingPairEnd = {};

  class WebSocketImpl extends EventTargetImpl {
    constructor(url = undefined, protocols = undefined) {
      super();
      if (url === makingPairEnd) {
        socketState.set(this, {
          peer: null, accepted: false, readyState: WS_OPEN, binaryType: 'blob', closeSent: false,
          held: [], attachment: undefined, host: false, remote: null, url: null, protocol: '',
        });
        return;
      }
      if (typeof url !== 'string') throw new TypeError("Failed to construct 'WebSocket': constructor parameter 1 is not of type 'string'.");
      let parsed;
      try {
        parsed = new URLImpl(url);
      } catch {
        throw new DOMEx(`WebSocket Constructor: The url is invalid.`, 'SyntaxError');
      }
      if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') throw new DOMEx('WebSocket Constructor: The url scheme must be ws or wss.', 'SyntaxError');
      if (parsed.hash !== '') throw new DOMEx('WebSocket Constructor: The url fragment must be empty.', 'SyntaxError');
      const list = protocols === undefined ? [] : typeof protocols === 'string' ? [protocols] : Array.from(protocols, String);
      socketState.set(this, {
        peer: null, accepted: true, readyState: WS_CONNECTING, binaryType: 'blob', closeSent: false,
        held: [], attachment: undefined, host: false, remote: null, url: parsed.href, protocol: '',
      });
      const end = this;
      connectRemote(end, parsed.href, list, []).then((refused) => {
        if (refused !== undefined) throw refused;
        end.dispatchEvent(new EventImpl('open'));
      }).catch(() => {
        const st = socketOf(end);
        st.readyState = WS_CLOSED;
        end.dispatchEvent(new EventImpl('error'));
        end.dispatchEvent(new CloseEventImpl('close', { code: 1006, reason: '', wasClean: false }));
      });
    }
    accept() {
      const s = socketOf(this);
      if (s.accepted) return;
      s.accepted = true;
      const held = s.held;
      s.held = [];
      for (const frame of held) deliver(this, frame);
    }
    send(data) {
      const s = socketOf(this);
      if (s.readyState === WS_CONNECTING) throw new DOMEx("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
      if (s.closeSent) throw new TypeError("Can't call WebSocket send() after close().");
      if (!s.accepted) throw mustAccept();
      let frame;
      if (typeof data === 'string') frame = { text: data };
      else if (data instanceof ArrayBuffer) frame = { bytes: new Uint8Array(data.slice(0)) };
      else if (ArrayBuffer.isView(data)) frame = { bytes: new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
      else frame = { text: String(data) };
      outward(s, frame);
    }
    close(code = undefined, reason = undefined) {
      const s = socketOf(this);
      if (code !== undefined) {
        code = Number(code);
        if (!(code === 1000 || (code >= 3000 && code <= 4999))) throw new DOMEx(`Invalid WebSocket close code: ${code}.`, 'InvalidAccessError');
      }
      const text = reason === undefined ? '' : String(reason);
      if (new g.TextEncoder().encode(text).length > 123) throw new DOMEx('WebSocket close reason must not be longer than 123 bytes when UTF-8 encoded.', 'SyntaxError');
      if (!s.accepted) throw mustAccept();
      if (s.closeSent) return;
      s.closeSent = true;
      s.readyState = WS_CLOSING;
      outward(s, { close: true, code: code ?? 1005, reason: text });
    }
    serializeAttachment(value) {
      const s = socketOf(this);
      s.attachment = structuredCloneImpl(value);
      // A Durable Object's socket keeps it in the host, past eviction.
      if (s.hosted !== undefined) host('object', { op: 'wsAttach', socket: s.hosted, attachment: JSON.stringify(rpcEncode(value)) });
    }
    deserializeAttachment() {
      const a = socketOf(this).attachment;
      return a === undefined ? null : structuredCloneImpl(a);
    }
    get readyState() { return socketOf(this).readyState; }
    get url() { return socketOf(this).url; }
    get protocol() { return socketOf(this).protocol; }
    get extensions() { socketOf(this); return ''; }
    get bufferedAmount() { socketOf(this); return 0; }
    get binaryType() { return socketOf(this).binaryType; }
    set binaryType(v) {
      if (v === 'blob' || v === 'arraybuffer') socketOf(this).binaryType = v;
    }
  }
  const mustAccept = () => new TypeError('You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages.');
  // A frame reaches `socket`: held until it accepts, then delivered; to
  // an end bound to the host, sent to the client.
  function arrive(socket, frame) {
    const s = socketOf(socket);
    if (s.host) toHost(frame);
    else if (s.accepted) deliver(socket, frame);
    else s.held.push(frame);
  }
  // A frame sent from the end whose state is `s`: to its pair's other
  // end, or to the host's connection of a client end.
  function outward(s, frame) {
    if (s.hosted !== undefined) objectSocketSend(s.hosted, frame);
    else if (s.remote !== null) toHost(frame, s.remote);
    else arrive(s.peer, frame);
  }
  // A frame to the client of the request (`id` undefined) or to the
  // connection `id`.
  function toHost(frame, id) {
    if (frame.close) host('websocket', { op: 'close', code: frame.code, reason: frame.reason, id });
    else if (frame.bytes !== undefined) host('websocket', { op: 'send', text: false, id }, frame.bytes);
    else host('websocket', { op: 'send', text: true, id }, encoder().encode(frame.text));
  }
  // The peer's messages, read from the host (the request's client, `id`
  // undefined, or the connection `id`) and arrived at `to`, until its
  // close (after which `to`'s `close` event runs, a task later).
  function readFrom(id, to) {
    const next = () => hostOp('websocket', { op: 'read', id }).then(([answer, data]) => {
      if (answer.close) {
        arrive(to, { close: true, code: answer.code, reason: answer.reason, clean: answer.clean });
        return new Promise((resolve) => addTimer(resolve, 0, [], false));
      }
      arrive(to, answer.text ? { text: decoder().decode(data) } : { bytes: new Uint8Array(data) });
      return next();
    });
    return next();
  }
  // Opens the host's connection of the client end `end` to `url`: resolves
  // once open, then reads from it for as long as it is; or, when the server
  // answered something else than 101, with that answer as a Response.
  // `via`: the call that opens it, when not a connection to `url` (a
  // Durable Object's socket, `31_durable_objects.js`).
  function connectRemote(end, url, protocols, headers, via = () => hostOp('websocket', { op: 'connect', url, protocols, headers })) {
    const s = socketOf(end);
    return via().then(([answer, data]) => {
      if (answer.status !== undefined) {
        const r = new ResponseImpl(NULL_BODY.includes(answer.status) ? null : data, { status: 200 });
        r._status = answer.status;
        for (const [k, v] of answer.headers) r._headers._list.push([k, v]);
        r._headers._immutable = true;
        return r;
      }
      s.remote = answer.id;
      s.protocol = answer.protocol;
      s.readyState = WS_OPEN;
      s.reading = readFrom(s.remote, end);
    });
  }
  // `fetch` of a request that asks to upgrade: a Response of status 101
  // whose `webSocket` is the open connection's end, to be accepted.
  function fetchWebSocket(req) {
    const end = new WebSocketImpl(makingPairEnd);
    const s = socketOf(end);
    s.url = req._url.replace(/^http/, 'ws');
    const list = (req._headers.get('sec-websocket-protocol') || '').split(',').map((p) => p.trim()).filter((p) => p !== '');
    const headers = req._headers._list.map(([k, v]) => [k, v]);
    return connectRemote(end, s.url, list, headers).then((refused) => refused || new ResponseImpl(null, { status: 101, webSocket: end }));
  }
  // The end `end` of a Response of status 101, once its head went to the
  // client: what its pair's other end sent before goes now, and each
  // message of the client arrives there, until the client's close (after
  // which that end's `close` event runs, a task later).
  function serveClient(end) {
    const s = socketOf(end);
    s.host = true;
    for (const frame of s.held.splice(0)) toHost(frame);
    // An end of the host's connection (a Durable Object's socket): what
    // comes from it goes to the client (`arrive`), and the client's
    // messages go to it, until both closed.
    if (s.remote !== null) return Promise.all([relay(s.remote), s.reading]);
    return readFrom(undefined, s.peer);
  }
  // The client's messages to connection `id`, until the client's close.
  function relay(id) {
    const next = () => hostOp('websocket', { op: 'read' }).then(([answer, data]) => {
      if (answer.close) {
        toHost({ close: true, code: answer.code === 1006 ? 1005 : answer.code, reason: answer.reason }, id);
        return undefined;
      }
      toHost(answer.text ? { text: decoder().decode(data) } : { bytes: new Uint8Array(data) }, id);
      return next();
    });
    return next();
  }
  // A frame delivered to an end that accepted, as a task: a message, or
  // the other end's close (answered at once, then this end's event).
  function deliver(socket, frame) {
    addTimer(() => {
      const s = socketOf(socket);
      if (s.readyState === WS_CLOSED) return;
      if (frame.close) {
        if (!s.closeSent) {
          s.closeSent = true;
          outward(s, { close: true, code: frame.code, reason: frame.reason });
        }
        s.readyState = WS_CLOSED;
        socket.dispatchEvent(new CloseEventImpl('close', { code: frame.code, reason: frame.reason, wasClean: frame.clean !== false }));
        return;
      }
      let data = frame.text;
      if (frame.bytes !== undefined) data = s.binaryType === 'arraybuffer' ? frame.bytes.buffer : new BlobImpl([frame.bytes]);
      socket.dispatchEvent(new MessageEventImpl('message', { data }));
    }, 0, [], false);
  }
  // (`onmessage` and the others are plain properties, as on `workerd`:
  // dispatchEvent calls an `on<type>` that holds a function.)
  for (const [name, value] of [['CONNECTING', WS_CONNECTING], ['OPEN', WS_OPEN], ['CLOSING', WS_CLOSING], ['CLOSED', WS_CLOSED]]) {
    Object.defineProperty(WebSocketImpl, name, { value, enumerable: true });
    Object.defineProperty(WebSocketImpl.prototype, name, { value, enumerable: true });
    Object.defineProperty(WebSocketImpl.prototype, `READY_STATE_${name}`, { value, enumerable: true });
  }
  Object.defineProperty(WebSocketImpl, 'name', { value: 'WebSocket' });
  Object.defineProperty(WebSocketImpl.prototype, Symbol.toStringTag, { value: 'WebSocket', configurable: true });

  class WebSocketPairImpl {
    constructor() {
      const a = new WebSocketImpl(makingPairEnd);
      const b = new WebSocketImpl(makingPairEnd);
      socketOf(a).peer = b;
      socketOf(b).peer = a;
      Object.defineProperty(this, '0', { value: a, enumerable: true });
      Object.defineProperty(this, '1', { value: b, enumerable: true });
    }
  }
  Object.defineProperty(WebSocketPairImpl, 'name', { value: 'WebSocketPair' });
  Object.defineProperty(WebSocketPairImpl.prototype, Symbol.toStringTag, { value: 'WebSocketPair', configurable: true });
  defineMissing('WebSocket', WebSocketImpl);
  defineMissing('WebSocketPair', WebSocketPairImpl);
