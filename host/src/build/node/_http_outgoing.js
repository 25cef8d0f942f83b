// `node:_http_outgoing`: `OutgoingMessage`, what a server's response
// (`_http_server.js`) writes its head and body through, and Node's checks of
// a header's name and value.
import { Writable } from './stream.js';
import { codedError } from './_errors.js';
import { _checkIsHttpToken as isToken, _checkInvalidHeaderChar as hasInvalidChar } from './_http_common.js';

export function validateHeaderName(name) {
  if (!isToken(name)) {
    throw codedError(TypeError, 'ERR_INVALID_HTTP_TOKEN', `Header name must be a valid HTTP token ["${name}"]`);
  }
}

export function validateHeaderValue(name, value) {
  if (value === undefined) {
    throw codedError(TypeError, 'ERR_HTTP_INVALID_HEADER_VALUE', `Invalid value "${value}" for header "${name}"`);
  }
  if (hasInvalidChar(String(value))) {
    throw codedError(TypeError, 'ERR_INVALID_CHAR', `Invalid character in header content ["${name}"]`);
  }
}

// `new OutgoingMessage(options)`: a Writable with an HTTP message's head,
// set header by header until it is sent (`headersSent`), as Node's. A
// server's response (`_http_server.js`) and a client's request
// (`http.js`) are both one.
export function OutgoingMessage(options) {
  Writable.call(this, { autoDestroy: false, highWaterMark: options?.highWaterMark });
  this._headers = new Map();
  this.headersSent = false;
  this.sendDate = false;
  this.chunkedEncoding = false;
  this.useChunkedEncodingByDefault = true;
  this.shouldKeepAlive = true;
  this.socket = null;
  // Node's head as text, once made: a server's or client's own sets it;
  // `_send` sends it first.
  this._header = null;
  this._headerSent = false;
}
Object.setPrototypeOf(OutgoingMessage.prototype, Writable.prototype);
Object.setPrototypeOf(OutgoingMessage, Writable);

const headersSent = (action) => codedError(Error, 'ERR_HTTP_HEADERS_SENT', `Cannot ${action} headers after they are sent to the client`);

OutgoingMessage.prototype.setHeader = function (name, value) {
  if (this.headersSent) throw headersSent('set');
  validateHeaderName(name);
  validateHeaderValue(name, value);
  this._headers.set(name.toLowerCase(), [name, value]);
  return this;
};
// Another value of header `name`, after those it has.
OutgoingMessage.prototype.appendHeader = function (name, value) {
  if (this.headersSent) throw headersSent('append');
  validateHeaderName(name);
  validateHeaderValue(name, value);
  const had = this._headers.get(name.toLowerCase());
  this._headers.set(name.toLowerCase(), [had ? had[0] : name, had ? [].concat(had[1], value) : value]);
  return this;
};
// Every header of `headers` (a `Headers` or a `Map`), set.
OutgoingMessage.prototype.setHeaders = function (headers) {
  for (const [name, value] of headers) this.setHeader(name, value);
  return this;
};
OutgoingMessage.prototype.getHeader = function (name) {
  const h = this._headers.get(String(name).toLowerCase());
  return h ? h[1] : undefined;
};
OutgoingMessage.prototype.getHeaders = function () {
  const out = Object.create(null);
  for (const [k, [, v]] of this._headers) out[k] = v;
  return out;
};
OutgoingMessage.prototype.getHeaderNames = function () {
  return [...this._headers.keys()];
};
OutgoingMessage.prototype.getRawHeaderNames = function () {
  return [...this._headers.values()].map(([name]) => name);
};
OutgoingMessage.prototype.hasHeader = function (name) {
  return this._headers.has(String(name).toLowerCase());
};
OutgoingMessage.prototype.removeHeader = function (name) {
  if (this.headersSent) throw headersSent('remove');
  this._headers.delete(String(name).toLowerCase());
};
// The head as `Headers`, each value of a repeated header appended.
OutgoingMessage.prototype._headersOut = function () {
  const out = new Headers();
  for (const [, [name, value]] of this._headers) {
    for (const v of [].concat(value)) out.append(name, String(v));
  }
  return out;
};
OutgoingMessage.prototype.flushHeaders = function () {};
OutgoingMessage.prototype.addTrailers = function () {};
OutgoingMessage.prototype.setTimeout = function (ms, cb) {
  if (cb) this.once('timeout', cb);
  return this;
};
// Node's `writable`: true from the start, and still after `end()` (a
// legacy Node keeps, as its comment says, for error detection), until
// set otherwise.
const kWritable = Symbol('writable');
Object.defineProperty(OutgoingMessage.prototype, 'writable', {
  configurable: true,
  get() {
    return this[kWritable] ?? !this.destroyed;
  },
  set(v) {
    this[kWritable] = v;
  },
});
// As workerd's: the error it was destroyed with (`undefined` for none),
// `null` until then.
Object.defineProperty(OutgoingMessage.prototype, 'errored', {
  configurable: true,
  get() {
    return this._writableState?.errored ?? (this.destroyed ? undefined : null);
  },
});
// A message of no socket (a bare `OutgoingMessage`) keeps what is written,
// as Node buffers it until a socket is assigned: each write waits, so that
// `write()` says false past the high-water mark, and `outputSize` counts
// what is kept.
OutgoingMessage.prototype._write = function () {};
Object.defineProperty(OutgoingMessage.prototype, 'outputSize', {
  configurable: true,
  get() {
    return this.writableLength;
  },
});
// The headers as Node renders them into a head: name as set, to value;
// refused once the head is made.
OutgoingMessage.prototype._renderHeaders = function () {
  if (this._header) throw headersSent('render');
  const out = {};
  for (const [, [name, value]] of this._headers) out[name] = value;
  return out;
};
// `end()` again, as Node's: with data, a write after the end (its callback
// and an 'error' listener get ERR_STREAM_WRITE_AFTER_END); without, its
// callback gets ERR_STREAM_ALREADY_FINISHED; nothing once the message is
// closed or destroyed.
OutgoingMessage.prototype.end = function (chunk, encoding, cb) {
  if (!this.writableEnded) return Writable.prototype.end.call(this, chunk, encoding, cb);
  if (typeof chunk === 'function') {
    cb = chunk;
    chunk = undefined;
  } else if (typeof encoding === 'function') {
    cb = encoding;
  }
  if (this.destroyed || this.closed) return this;
  const data = chunk !== undefined && chunk !== null;
  const err = data
    ? codedError(Error, 'ERR_STREAM_WRITE_AFTER_END', 'write after end')
    : codedError(Error, 'ERR_STREAM_ALREADY_FINISHED', 'Cannot call end after a stream was finished');
  queueMicrotask(() => {
    if (typeof cb === 'function') cb(err);
    if (data && this.listenerCount('error') > 0) this.emit('error', err);
  });
  return this;
};
// Node's `_send`: the head first (`_header`, once), then `data`. A head
// that is a response's status line is announced as workerd does, by a
// `_headersSent` event of its status, text and headers.
OutgoingMessage.prototype._send = function (data, encoding, callback) {
  if (!this._headerSent && typeof this._header === 'string') {
    this._headerSent = true;
    const [line, ...fields] = this._header.split('\r\n');
    const status = /^HTTP\/\d(?:\.\d)? (\d{3})(?: (.*))?$/.exec(line);
    if (status !== null) {
      const headers = new Headers();
      for (const field of fields) {
        const colon = field.indexOf(':');
        if (colon > 0) headers.append(field.slice(0, colon).trim(), field.slice(colon + 1).trim());
      }
      this.emit('_headersSent', { statusCode: Number(status[1]), statusMessage: status[2] ?? '', headers });
    }
  }
  return this.write(data, encoding, callback);
};
Object.defineProperty(OutgoingMessage.prototype, 'connection', {
  configurable: true,
  get() {
    return this.socket;
  },
});

// Node's `uniqueHeaders` option: the names of headers sent once, joined,
// lower-cased; `null` for none.
export function parseUniqueHeadersOption(headers) {
  if (!Array.isArray(headers)) return null;
  return new Set(headers.map((h) => (Array.isArray(h) ? h.join(', ') : String(h)).toLowerCase()));
}

export const kUniqueHeaders = Symbol('kUniqueHeaders');
export const kHighWaterMark = Symbol('kHighWaterMark');

export default { OutgoingMessage, kHighWaterMark, kUniqueHeaders, parseUniqueHeadersOption, validateHeaderName, validateHeaderValue };
