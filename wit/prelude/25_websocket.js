//! `WebSocketPair` and `WebSocket`, as `workerd` has them: a pair is two
//! connected ends, each a `WebSocket` that must `accept()` before it sends
//! or hears anything. What one end sends reaches the other as a `message`
//! event, a task later, held until that end accepts: text as text, bytes
//! as a `Blob` (or an `ArrayBuffer` under `binaryType = 'arraybuffer'`),
//! anything else as its string. `close(code, reason)` runs the closing
//! handshake: the other end answers it at once, and each end gets a
//! `close` event (1005 where no code was given). Not yet (issue 59): the
//! host answering a `Response` of status 101 with a `webSocket`, and the
//! client, `new WebSocket(url)`, which is refused with a clear error once
//! its arguments pass `workerd`'s checks.
//!
//! Defines: WebSocketPair, WebSocket
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/websocket-pair.js
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
          held: [], attachment: undefined,
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
      void protocols;
      throw new DOMEx(`WebSocket Constructor: ssr does not open WebSocket connections yet (${parsed.href}): see docs/compatibility.md`, 'NotSupportedError');
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
      if (s.closeSent) throw new TypeError("Can't call WebSocket send() after close().");
      if (!s.accepted) throw mustAccept();
      let frame;
      if (typeof data === 'string') frame = { text: data };
      else if (data instanceof ArrayBuffer) frame = { bytes: new Uint8Array(data.slice(0)) };
      else if (ArrayBuffer.isView(data)) frame = { bytes: new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
      else frame = { text: String(data) };
      arrive(s.peer, frame);
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
      arrive(s.peer, { close: true, code: code ?? 1005, reason: text });
    }
    serializeAttachment(value) { socketOf(this).attachment = structuredCloneImpl(value); }
    deserializeAttachment() {
      const a = socketOf(this).attachment;
      return a === undefined ? null : structuredCloneImpl(a);
    }
    get readyState() { return socketOf(this).readyState; }
    get url() { socketOf(this); return null; }
    get protocol() { socketOf(this); return ''; }
    get extensions() { socketOf(this); return ''; }
    get bufferedAmount() { socketOf(this); return 0; }
    get binaryType() { return socketOf(this).binaryType; }
    set binaryType(v) {
      if (v === 'blob' || v === 'arraybuffer') socketOf(this).binaryType = v;
    }
  }
  const mustAccept = () => new TypeError('You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages.');
  // A frame reaches `socket`: held until it accepts, then delivered.
  function arrive(socket, frame) {
    const s = socketOf(socket);
    if (s.accepted) deliver(socket, frame);
    else s.held.push(frame);
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
          arrive(s.peer, { close: true, code: frame.code, reason: frame.reason });
        }
        s.readyState = WS_CLOSED;
        socket.dispatchEvent(new CloseEventImpl('close', { code: frame.code, reason: frame.reason, wasClean: true }));
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
