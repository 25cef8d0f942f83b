// `node:_http_server`: Node's HTTP server, as workerd has it (with
// `nodejs_compat`, from 2025-09-01): a `Server` listens on no socket.
// `listen(port)` enters it among this instance's servers (`_serving.js`;
// port 0 or none: a free one), and `cloudflare:node`'s
// `httpServerHandler` answers the Worker's requests by it: each request an
// `IncomingMessage` (its body read from the request's as the server reads
// it; `req.cloudflare` has the handler's `env`, `ctx` and `cf`), and a
// `ServerResponse` whose head, when sent, is the `Response`'s, and whose
// writes are its body, streamed as they come (a write waits while the
// client is slow: the stream's backpressure).
import { EventEmitter } from './events.js';
import { Buffer } from './buffer.js';
import { codedError, invalidArgType, outOfRange, validateInteger } from './_errors.js';
import { IncomingMessage } from './_http_incoming.js';
import { OutgoingMessage } from './_http_outgoing.js';
import { listening } from './_serving.js';

// Statuses whose response has no body.
const NO_BODY = new Set([101, 204, 205, 304]);

export function ServerResponse(req, options) {
  OutgoingMessage.call(this, options);
  this.req = req;
  this.statusCode = 200;
  // workerd's, where Node's would be the status's text.
  this.statusMessage = 'unknown';
  this.sendDate = true;
  this.finished = false;
  // The Response, once the head is sent; `_answer` awaits it (a response
  // an app makes itself is awaited by nobody: its failure is no uncaught
  // rejection).
  this._head = Promise.withResolvers();
  this._head.promise.catch(() => {});
  // The body's stream, once the head is sent, and a write waiting for the
  // stream to want more.
  this._controller = null;
  this._waiting = null;
  this._skipBody = req?.method === 'HEAD';
}
Object.setPrototypeOf(ServerResponse.prototype, OutgoingMessage.prototype);
Object.setPrototypeOf(ServerResponse, OutgoingMessage);

ServerResponse.prototype.writeHead = function (statusCode, reason, headers) {
  if (this.headersSent) throw codedError(Error, 'ERR_HTTP_HEADERS_SENT', 'Cannot write headers after they are sent to the client');
  statusCode |= 0;
  if (statusCode < 100 || statusCode > 999) {
    throw codedError(RangeError, 'ERR_HTTP_INVALID_STATUS_CODE', `Invalid status code: ${statusCode}`);
  }
  if (typeof reason !== 'string') {
    headers = reason;
    reason = undefined;
  }
  this.statusCode = statusCode;
  if (reason !== undefined) this.statusMessage = reason;
  if (Array.isArray(headers)) {
    // `[name, value, name, value...]`, or `[[name, value]...]`.
    const pairs = Array.isArray(headers[0]) ? headers : Array.from({ length: headers.length >> 1 }, (_, i) => [headers[2 * i], headers[2 * i + 1]]);
    for (const [name, value] of pairs) this.appendHeader(name, value);
  } else if (headers) {
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
  }
  this._sendHead();
  return this;
};

ServerResponse.prototype.flushHeaders = function () {
  this._sendHead();
};

ServerResponse.prototype.writeContinue = function (cb) {
  if (cb) queueMicrotask(cb);
};
ServerResponse.prototype.writeProcessing = function (cb) {
  if (cb) queueMicrotask(cb);
};
ServerResponse.prototype.writeEarlyHints = function (hints, cb) {
  if (cb) queueMicrotask(cb);
};
ServerResponse.prototype.assignSocket = function (socket) {
  this.socket = socket;
};
ServerResponse.prototype.detachSocket = function () {
  this.socket = null;
};

// Sends the head: the `Response` the handler answers, its body a stream
// that the writes fill.
ServerResponse.prototype._sendHead = function () {
  if (this.headersSent) return;
  this.headersSent = true;
  const headers = this._headersOut();
  // What Node's head says of the connection and the body's framing, as
  // workerd's Response carries them.
  if (!headers.has('connection')) headers.set('connection', 'keep-alive');
  const hasBody = !NO_BODY.has(this.statusCode) && !this._skipBody;
  if (hasBody && !headers.has('content-length') && !headers.has('transfer-encoding')) headers.set('transfer-encoding', 'chunked');
  // A body longer than the Content-Length it gave is cut there, as on
  // workerd (a shorter one ends where it ends).
  const length = headers.get('content-length');
  this._bodyLeft = hasBody && length !== null && /^\d+$/.test(length) ? Number(length) : Infinity;
  let body = null;
  if (hasBody) {
    body = new ReadableStream({
      start: (controller) => {
        this._controller = controller;
      },
      pull: () => this._wake(),
      cancel: (reason) => {
        this._controller = null;
        this._wake();
        this.destroy(reason instanceof Error ? reason : undefined);
      },
    }, { highWaterMark: this.writableHighWaterMark });
  }
  const response = new Response(body, { status: this.statusCode, statusText: this.statusMessage, headers });
  this._head.resolve(response);
};

ServerResponse.prototype._wake = function () {
  const waiting = this._waiting;
  this._waiting = null;
  if (waiting !== null) waiting();
};

// A write before the head sends the head; a write into a stream that wants
// no more waits until it does.
ServerResponse.prototype._write = function (chunk, encoding, cb) {
  this._sendHead();
  const controller = this._controller;
  if (controller === null) {
    cb();
    return;
  }
  const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, Math.min(chunk.byteLength, this._bodyLeft));
  if (bytes.byteLength === 0) {
    cb();
    return;
  }
  this._bodyLeft -= bytes.byteLength;
  controller.enqueue(bytes.slice());
  if (controller.desiredSize > 0) cb();
  else this._waiting = cb;
};

// `end(data)` before the head: the body is all there, and its length is
// sent, as Node sends it (not for a HEAD request's, as on workerd).
ServerResponse.prototype.end = function (chunk, encoding, cb) {
  if (typeof chunk === 'function') {
    cb = chunk;
    chunk = undefined;
  } else if (typeof encoding === 'function') {
    cb = encoding;
    encoding = undefined;
  }
  if (chunk !== undefined && chunk !== null && typeof chunk !== 'string' && !(chunk instanceof Uint8Array)) {
    throw invalidArgType('chunk', 'of type string or an instance of Buffer or Uint8Array', chunk);
  }
  if (!this.headersSent && !this.writableEnded && !this.hasHeader('content-length') && !this.hasHeader('transfer-encoding')) {
    const length = chunk === undefined || chunk === null ? 0 : typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength;
    if (!NO_BODY.has(this.statusCode) && !this._skipBody) this.setHeader('Content-Length', length);
  }
  this.finished = true;
  return OutgoingMessage.prototype.end.call(this, chunk, encoding, cb);
};

ServerResponse.prototype._final = function (cb) {
  this._sendHead();
  if (this._controller !== null) this._controller.close();
  this._controller = null;
  cb();
  queueMicrotask(() => {
    this._writableState.closed = true;
    this.emit('close');
  });
};

// Destroyed before its head: the Worker's request fails now, not at its
// deadline.
ServerResponse.prototype._destroy = function (err, cb) {
  if (!this.headersSent) this._head.reject(err ?? new Error('the response was destroyed before its head was sent'));
  if (this._controller !== null) {
    try {
      this._controller.error(err ?? new Error('The response was destroyed'));
    } catch {}
    this._controller = null;
  }
  cb(err);
};

// The request's socket: what a server reads of its connection.
function socketOf(request, port) {
  return {
    remoteAddress: request.headers.get('cf-connecting-ip') ?? '127.0.0.1',
    // No connection reaches the app, so no peer's port: one of the
    // ephemeral range, as workerd gives; and TLS, if any, ended before it.
    remotePort: 49152 + Math.floor(Math.random() * 16384),
    remoteFamily: 'IPv4',
    localAddress: '127.0.0.1',
    localPort: port,
    encrypted: false,
    readable: true,
    writable: true,
    destroy() {},
    end() {},
    setTimeout() {
      return this;
    },
    setNoDelay() {
      return this;
    },
    setKeepAlive() {
      return this;
    },
    on() {
      return this;
    },
    once() {
      return this;
    },
    removeListener() {
      return this;
    },
  };
}

// A server's streams' default buffer, as Node's (64 KiB).
const HIGH_WATER_MARK = 65536;

export class Server extends EventEmitter {
  constructor(options, requestListener) {
    super();
    if (typeof options === 'function') {
      requestListener = options;
      options = {};
    } else if (options === null || options === undefined) {
      options = {};
    } else if (typeof options !== 'object' || Array.isArray(options)) {
      throw invalidArgType('options', 'of type object', options);
    }
    this.timeout = 0;
    this.maxHeadersCount = null;
    this.maxRequestsPerSocket = 0;
    this.requireHostHeader = options.requireHostHeader ?? false;
    this.joinDuplicateHeaders = options.joinDuplicateHeaders ?? false;
    storeHTTPOptions.call(this, options);
    if (options.highWaterMark !== undefined && typeof options.highWaterMark !== 'number') {
      throw invalidArgType('options.highWaterMark', 'of type number', options.highWaterMark);
    }
    this.highWaterMark = options.highWaterMark > 0 ? options.highWaterMark : HIGH_WATER_MARK;
    this._IncomingMessage = options.IncomingMessage ?? IncomingMessage;
    this._ServerResponse = options.ServerResponse ?? ServerResponse;
    this._port = null;
    if (requestListener) this.on('request', requestListener);
  }

  // `listen(port?, host?, backlog?, callback?)` or `listen(options,
  // callback?)`: only the port and the callback mean anything here.
  listen(...args) {
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
    const first = args[0];
    let port = first !== null && typeof first === 'object' ? first.port : first;
    if (port === undefined || port === null) port = 0;
    const n = typeof port === 'string' && /^\d+$/.test(port) ? Number(port) : port;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65535) {
      throw codedError(RangeError, 'ERR_SOCKET_BAD_PORT', `options.port should be >= 0 and < 65536. Received ${typeof port}.`);
    }
    if (this._port !== null || listening.has(n)) {
      throw codedError(Error, 'ERR_SERVER_ALREADY_LISTEN', 'Listen method has been called more than once without closing.');
    }
    let chosen = n;
    while (chosen === 0 || listening.has(chosen)) chosen = 1024 + Math.floor(Math.random() * (65536 - 1024));
    this._port = chosen;
    listening.set(chosen, this);
    if (callback) this.once('listening', callback);
    queueMicrotask(() => this.emit('listening'));
    return this;
  }

  get listening() {
    return this._port !== null;
  }

  address() {
    return this._port === null ? null : { port: this._port, family: 'IPv4', address: '127.0.0.1' };
  }

  close(callback) {
    if (this._port !== null && listening.get(this._port) === this) listening.delete(this._port);
    this._port = null;
    if (typeof callback === 'function') this.once('close', callback);
    queueMicrotask(() => this.emit('close'));
    return this;
  }

  async [Symbol.asyncDispose]() {
    await new Promise((resolve) => this.close(resolve));
  }

  closeAllConnections() {}
  closeIdleConnections() {}

  getConnections(callback) {
    if (typeof callback === 'function') queueMicrotask(() => callback(null, 0));
    return this;
  }

  setTimeout(ms, callback) {
    if (typeof ms === 'function') {
      callback = ms;
    } else if (typeof ms === 'number') {
      this.timeout = ms;
    }
    if (typeof callback === 'function') this.once('timeout', callback);
    return this;
  }

  ref() {
    return this;
  }

  unref() {
    return this;
  }

  get maxConnections() {
    return Infinity;
  }

  get connections() {
    return 0;
  }

  // A Worker's request, answered by this server's `request` listeners.
  async _answer(request, env, ctx) {
    const socket = socketOf(request, this._port);
    const req = new this._IncomingMessage(socket);
    const url = new URL(request.url);
    req.url = url.pathname + url.search;
    req.method = request.method;
    // Each header line as it came (the prelude's Headers keep their list;
    // iterating would join repeated names), so that Node's rules for
    // repeated headers apply.
    const lines = Array.isArray(request.headers._list) ? request.headers._list : [...request.headers];
    const raw = [];
    for (const [name, value] of lines) raw.push(name, value);
    req._addHeaderLines(raw, raw.length);
    req.cloudflare = { env, ctx };
    if ('cf' in request) req.cloudflare.cf = request.cf;
    if (request.body !== null) {
      req._reader = request.body.getReader();
    } else {
      req.complete = true;
      req.push(null);
    }
    const res = new this._ServerResponse(req, { highWaterMark: this.highWaterMark });
    res.socket = socket;
    try {
      this.emit('connection', socket);
      this.emit('request', req, res);
    } catch (e) {
      res.destroy(e);
      throw e;
    }
    return res._head.promise;
  }
}

// Node's timeouts, stored on the server as its constructor does: the
// headers' at most the request's (60 s by default, or the request's
// if less).
export function storeHTTPOptions(options) {
  const given = (name, fallback) => {
    if (options?.[name] === undefined) return fallback;
    validateInteger(options[name], `options.${name}`, 0);
    return options[name];
  };
  this.requestTimeout = given('requestTimeout', 300000);
  this.headersTimeout = given('headersTimeout', Math.min(60000, this.requestTimeout || 60000));
  if (this.requestTimeout > 0 && this.headersTimeout > this.requestTimeout) {
    throw outOfRange('headersTimeout', '<= requestTimeout', this.headersTimeout);
  }
  this.keepAliveTimeout = given('keepAliveTimeout', 5000);
  this.connectionsCheckingInterval = given('connectionsCheckingInterval', 30000);
}

export function httpServerPreClose() {}
export function setupConnectionsTracking() {}

export default { Server, ServerResponse, storeHTTPOptions, httpServerPreClose, setupConnectionsTracking };
