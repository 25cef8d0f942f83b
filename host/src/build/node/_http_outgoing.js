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
