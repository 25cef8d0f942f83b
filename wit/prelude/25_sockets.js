//! Workers' `connect()` (`import { connect } from "cloudflare:sockets"`,
//! host/src/build/sockets.js): an outbound TCP socket, in clear, in TLS
//! (`secureTransport: "on"`) or upgraded later (`"starttls"` and
//! `startTls()`), as `workerd` has it: `readable` (a byte stream),
//! `writable`, `opened`, `closed`, `close()`, `upgraded`,
//! `secureTransport`. The host opens and drives the connection, only to
//! an address the tenant was granted (`tcp://HOST:PORT`); each read and
//! write is one host call, and what comes of it arrives through the
//! engine's wait (`arrived`), so a socket nobody reads reads nothing.
//! `node:net` and `node:tls` build on this.
//!
//! Defines: none
//! Host calls: socket
//! Rust: host/src/web/socket.rs
//! WPT: none
//! Test plugin: tests/plugins/sockets.js
  // ---------------------------------------------------------------- sockets
  // "host:port", "[v6]:port", or a SocketAddress `{ hostname, port }`.
  function socketAddress(address) {
    let hostname;
    let port;
    if (address !== null && typeof address === 'object') {
      hostname = String(address.hostname);
      port = address.port;
    } else {
      const text = String(address);
      const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:]*)$/.exec(text);
      if (m === null) throw new TypeError(`connect(): "${text}" is not an address; write "host:port"`);
      hostname = m[1] !== undefined ? m[1] : m[2];
      port = m[3] === '' ? NaN : Number(m[3]);
    }
    if (hostname === '') throw new TypeError('connect(): the address has no host name');
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new TypeError(`connect(): the port must be an integer from 0 to 65535, not ${String(port)}`);
    }
    return { hostname, port };
  }

  // One connection's state, shared by the socket and (after `startTls()`)
  // the socket that upgraded it: what the host's next event settles.
  class SocketLine {
    constructor(id) {
      this.id = id;
      this.socket = null;
      this.read = null;
      this.write = null;
    }
  }

  const socketEventKey = Symbol('socket event');

  class SocketImpl {
    #line;
    #opened;
    #closed;
    #readable;
    #writable;
    #readController = null;
    #writeController = null;
    #readDone = false;
    #writeDone = false;
    #ended = false;
    #finished = false;
    #secureTransport;
    #allowHalfOpen;
    #hostname;
    #upgraded;
    constructor(line, hostname, secureTransport, allowHalfOpen, upgraded) {
      this.#line = line;
      line.socket = this;
      this.#hostname = hostname;
      this.#secureTransport = secureTransport;
      this.#allowHalfOpen = allowHalfOpen;
      this.#upgraded = upgraded;
      this.#opened = Promise.withResolvers();
      this.#closed = Promise.withResolvers();
      // Handled here: a socket whose `opened` nobody awaits is no
      // unhandled rejection (as on `workerd`).
      this.#opened.promise.catch(() => {});
      this.#closed.promise.catch(() => {});
      this.#readable = new ReadableStreamImpl({
        type: 'bytes',
        start: (c) => {
          this.#readController = c;
        },
        pull: () => {
          if (this.#ended) return undefined;
          return new Promise((resolve, reject) => {
            line.read = { resolve, reject };
            host('socket', { op: 'read', id: line.id });
          });
        },
        cancel: () => {
          this.#readDone = true;
          this.#settleIfDone();
        },
      });
      this.#writable = new WritableStreamImpl({
        start: (c) => {
          this.#writeController = c;
        },
        write: (chunk) => {
          const bytes = identityBytes(chunk, 'The chunk written to a socket must be a string, an ArrayBuffer or an ArrayBufferView');
          if (this.#ended) throw new TypeError('The socket is closed');
          if (bytes.byteLength === 0) return undefined;
          return new Promise((resolve, reject) => {
            line.write = { resolve, reject };
            host('socket', { op: 'write', id: line.id }, bytes);
          });
        },
        close: () => {
          if (!this.#ended) host('socket', { op: 'shutdown', id: line.id });
          this.#writeDone = true;
          this.#settleIfDone();
        },
        abort: () => {
          this.#writeDone = true;
          this.#settleIfDone();
        },
      });
    }

    get readable() {
      return this.#readable;
    }
    get writable() {
      return this.#writable;
    }
    get opened() {
      return this.#opened.promise;
    }
    get closed() {
      return this.#closed.promise;
    }
    get upgraded() {
      return this.#upgraded;
    }
    get secureTransport() {
      return this.#secureTransport;
    }

    close() {
      this.#end(null);
      return this.#closed.promise;
    }

    startTls(options) {
      if (this.#secureTransport !== 'starttls') {
        throw new TypeError('startTls() can only be called on a socket made with secureTransport "starttls"');
      }
      if (this.#upgraded || this.#ended) throw new TypeError('startTls() can only be called once, on an open socket');
      this.#upgraded = true;
      const name = options !== undefined && options !== null && options.expectedServerHostname !== undefined
        ? String(options.expectedServerHostname)
        : this.#hostname;
      const line = this.#line;
      // This socket's streams end; the new one reads and writes in TLS.
      this.#detach();
      const next = new SocketImpl(line, name, 'on', this.#allowHalfOpen, true);
      host('socket', { op: 'tls', id: line.id, hostname: name });
      return next;
    }

    // An event of the host's (`socket.rs`) for this socket.
    [socketEventKey](v, data) {
      const line = this.#line;
      if (v.event === 'opened') {
        // The host's own address is not told (as on `workerd`, null).
        this.#opened.resolve({ remoteAddress: v.remote ?? null, localAddress: null });
      } else if (v.event === 'data') {
        const read = line.read;
        line.read = null;
        if (v.end) {
          this.#readDone = true;
          this.#ended = !this.#allowHalfOpen || this.#writeDone;
          try {
            this.#readController.close();
            if (this.#readController.byobRequest) this.#readController.byobRequest.respond(0);
          } catch {}
          if (read) read.resolve();
          if (!this.#allowHalfOpen && !this.#writeDone) {
            // As `workerd`: without `allowHalfOpen`, the end of the
            // peer's writing ends ours too.
            this.#writeDone = true;
            try {
              this.#writeController.error(new TypeError('The socket was closed by its peer'));
            } catch {}
          }
          this.#settleIfDone();
        } else {
          this.#readController.enqueue(new Uint8Array(data));
          if (read) read.resolve();
        }
      } else if (v.event === 'wrote') {
        const write = line.write;
        line.write = null;
        if (write) write.resolve();
      } else if (v.event === 'error') {
        this.#end(new Error(v.error));
      }
    }

    // Both sides are done: the connection closes, and `closed` resolves.
    #settleIfDone() {
      if (this.#readDone && this.#writeDone) this.#end(null);
    }

    // Closes the connection, after `error` (null: an orderly close).
    #end(error) {
      if (this.#finished) return;
      this.#finished = true;
      this.#ended = true;
      if (sockets.get(this.#line.id) === this.#line) {
        sockets.delete(this.#line.id);
        if (error === null) host('socket', { op: 'close', id: this.#line.id });
      }
      const line = this.#line;
      const reason = error ?? new TypeError('The socket is closed');
      for (const pending of [line.read, line.write]) if (pending) pending.reject(reason);
      line.read = null;
      line.write = null;
      if (!this.#readDone) {
        this.#readDone = true;
        try {
          if (error === null) this.#readController.close();
          else this.#readController.error(error);
        } catch {}
      }
      if (!this.#writeDone) {
        this.#writeDone = true;
        try {
          this.#writeController.error(reason);
        } catch {}
      }
      if (error === null) {
        this.#opened.reject(new TypeError('The socket was closed before it opened'));
        this.#closed.resolve();
      } else {
        this.#opened.reject(error);
        this.#closed.reject(error);
      }
    }

    // `startTls()` took the connection: this socket's streams end, and
    // its `closed` resolves; the connection stays open.
    #detach() {
      this.#finished = true;
      this.#ended = true;
      this.#readDone = true;
      this.#writeDone = true;
      try {
        this.#readController.close();
      } catch {}
      try {
        this.#writeController.error(new TypeError('The socket was upgraded to TLS; use the socket startTls() returned'));
      } catch {}
      this.#closed.resolve();
    }
  }

  // Workers' `connect(address, options)`.
  function connect(address, options) {
    const { hostname, port } = socketAddress(address);
    const o = options === undefined || options === null ? {} : options;
    const secureTransport = o.secureTransport === undefined ? 'off' : String(o.secureTransport);
    if (!['off', 'on', 'starttls'].includes(secureTransport)) {
      throw new TypeError(`connect(): secureTransport must be "off", "on" or "starttls", not "${secureTransport}"`);
    }
    let id = null;
    let refused = null;
    try {
      id = host('socket', { op: 'open', hostname, port, tls: secureTransport === 'on' }).value.id;
    } catch (e) {
      // Refused (an address not granted, too many open): as a connection
      // that failed, so that `opened` and `closed` reject with why.
      refused = e;
    }
    const line = new SocketLine(id);
    if (id !== null) sockets.set(id, line);
    const socket = new SocketImpl(line, hostname, secureTransport, Boolean(o.allowHalfOpen), false);
    if (refused !== null) socket[socketEventKey]({ event: 'error', error: refused.message });
    return socket;
  }

  // A socket's event, as the engine's wait brought it.
  function socketEvent(v, data) {
    const line = sockets.get(v.socket);
    if (line !== undefined && line.socket !== null) line.socket[socketEventKey](v, data);
  }
  const socketsModule = Object.freeze({ connect });
