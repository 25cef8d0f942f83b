// `node:http`'s client, over the tenant's `fetch` (and so its grant of
// origins: a host outside it, or loopback, is refused as `fetch` refuses
// it): `request` and `get` give a `ClientRequest`, a Writable whose body
// is sent when it ends; its `response` event gives an `IncomingMessage`,
// a Readable of the response's body with Node's `statusCode`, `headers`
// and `rawHeaders`. `Agent` keeps nothing: connections are the host's.
// Its servers are `_http_server.js`'s, which answer the Worker's requests
// through `cloudflare:node`.
import { Buffer } from './buffer.js';
import { codedError, invalidArgType } from './_errors.js';
import { _checkIsHttpToken as isToken } from './_http_common.js';
import { IncomingMessage } from './_http_incoming.js';
import { OutgoingMessage, validateHeaderName, validateHeaderValue } from './_http_outgoing.js';
import { Server, ServerResponse } from './_http_server.js';

export class Agent {
  constructor(options) {
    this.options = { ...options };
    this.keepAlive = Boolean(options && options.keepAlive);
    this.maxSockets = (options && options.maxSockets) || Infinity;
    this.sockets = {};
    this.requests = {};
    this.freeSockets = {};
    this.defaultPort = 80;
    this.protocol = 'http:';
  }

  destroy() {}

  // Node's key of a connection pool: `host:port:localAddress`, and the
  // family when given.
  getName(options = {}) {
    let name = options.host || 'localhost';
    name += ':';
    if (options.port) name += options.port;
    name += ':';
    if (options.localAddress) name += options.localAddress;
    if (options.family === 4 || options.family === 6) name += `:${options.family}`;
    if (options.socketPath) name += `:${options.socketPath}`;
    return name;
  }
}

export const globalAgent = new Agent();


// A request target as `options.path` gives it: a path (with its query),
// sent to the host the request names. An absolute URL or a network path
// (`//host`, or one with backslashes, which the URL Standard reads as
// slashes) would name another host, and is refused, as on `workerd`; so
// are the characters Node refuses in a path.
function checkedPath(path) {
  path = String(path);
  if (/[^\u0021-\u00ff]/.test(path)) {
    throw codedError(TypeError, 'ERR_UNESCAPED_CHARACTERS', 'Request path contains unescaped characters');
  }
  if (/^[a-zA-Z][a-zA-Z\d+.-]*:/.test(path) || /^[/\\]{2}/.test(path)) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_VALUE', `The property 'options.path' must be a path, not an absolute URL or a network path. Received '${path}'`);
  }
  return path;
}

// The URL of `origin` (a URL) with `path` as its request target.
// Methods the Fetch standard forbids that an HTTP client may send; CONNECT
// (a tunnel) stays refused.
const FORBIDDEN = ['TRACE', 'TRACK'];
const targetUrl = (origin, path) => new URL(`${origin.origin}${path.startsWith('/') ? '' : '/'}${path}`);

// A URL as the options it stands for (Node's `urlToHttpOptions`).
function urlOptions(url) {
  const options = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    path: `${url.pathname}${url.search}`,
  };
  if (url.port !== '') options.port = Number(url.port);
  if (url.username || url.password) options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return options;
}

// The URL and options of `request(url?, options?, callback?)`: a URL's
// parts, each replaced by an option given after it, as Node merges them.
function requestTarget(defaultProtocol, args) {
  let options = {};
  let callback;
  for (const a of args) {
    if (typeof a === 'function') callback = a;
    else if (typeof a === 'string' || a instanceof URL) options = { ...options, ...urlOptions(new URL(a)) };
    else if (a && typeof a === 'object') options = { ...options, ...a };
  }
  const protocol = options.protocol || defaultProtocol;
  const host = options.hostname || (options.host ? String(options.host).replace(/:\d+$/, '') : 'localhost');
  const port = options.port || options.defaultPort || (options.agent && options.agent.defaultPort);
  let url = new URL(`${protocol}//${host.includes(':') ? `[${host}]` : host}${port ? `:${port}` : ''}/`);
  if (options.path !== undefined && options.path !== null && options.path !== '') url = targetUrl(url, checkedPath(options.path));
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw codedError(TypeError, 'ERR_INVALID_PROTOCOL', `Protocol "${url.protocol}" not supported. Expected "${defaultProtocol}"`);
  }
  return { url, options, callback };
}

/** The `IncomingMessage` of a `fetch` response. */
function responseMessage(response) {
  const res = new IncomingMessage(null);
  res.statusCode = response.status;
  res.statusMessage = response.statusText;
  res.url = response.url;
  for (const [k, v] of response.headers) {
    res.rawHeaders.push(k, v);
    res.headers[k] = k in res.headers ? (k === 'set-cookie' ? [].concat(res.headers[k], v) : `${res.headers[k]}, ${v}`) : k === 'set-cookie' ? [v] : v;
  }
  if (response.body) {
    res._reader = response.body.getReader();
  } else {
    res.complete = true;
    res.push(null);
  }
  return res;
}

export function ClientRequest(...args) {
  const defaultProtocol = this && this._defaultProtocol ? this._defaultProtocol : 'http:';
  const { url, options, callback } = requestTarget(defaultProtocol, args);
  const method = options.method === undefined || options.method === null || options.method === '' ? 'GET' : options.method;
  if (!isToken(method)) throw codedError(TypeError, 'ERR_INVALID_HTTP_TOKEN', `Method must be a valid HTTP token ["${method}"]`);
  const headers = options.headers || {};
  if (!Array.isArray(headers)) {
    for (const [k, v] of Object.entries(headers)) {
      if (k.toLowerCase() === 'host' && typeof v !== 'string') throw invalidArgType('options.headers.host', 'of type string', v);
    }
  }
  // Finishing the request body does not end the request: the response
  // is still to come.
  OutgoingMessage.call(this);
  this.method = method.toUpperCase();
  this.path = url.pathname + url.search;
  this.host = url.hostname;
  this.protocol = url.protocol;
  this.aborted = false;
  this.reusedSocket = false;
  this._url = url;
  this._chunks = [];
  this._controller = new AbortController();
  this._timeout = null;
  if (Array.isArray(headers)) {
    // Raw pairs, `[name, value, name, value...]`: a repeated name sends
    // each of its values.
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const had = this.getHeader(headers[i]);
      this.setHeader(headers[i], had === undefined ? headers[i + 1] : [].concat(had, headers[i + 1]));
    }
  } else {
    for (const [k, v] of Object.entries(headers)) this.setHeader(k, v);
  }
  if (options.auth && !this._headers.has('authorization')) {
    this.setHeader('Authorization', `Basic ${Buffer.from(options.auth).toString('base64')}`);
  }
  if (options.signal) options.signal.addEventListener('abort', () => this.destroy(options.signal.reason), { once: true });
  if (options.timeout) this.setTimeout(options.timeout);
  if (callback) this.once('response', callback);
}
Object.setPrototypeOf(ClientRequest.prototype, OutgoingMessage.prototype);
Object.setPrototypeOf(ClientRequest, OutgoingMessage);

ClientRequest.prototype.setNoDelay = function () {};
ClientRequest.prototype.setSocketKeepAlive = function () {};
ClientRequest.prototype.setTimeout = function (ms, cb) {
  if (cb) this.once('timeout', cb);
  clearTimeout(this._timeout);
  this._timeout = ms > 0 ? setTimeout(() => this.emit('timeout'), ms) : null;
  return this;
};
ClientRequest.prototype.abort = function () {
  this.aborted = true;
  this.destroy();
};

ClientRequest.prototype._write = function (chunk, encoding, cb) {
  this._chunks.push(chunk);
  cb();
};

// The request goes when its body is complete.
ClientRequest.prototype._final = function (cb) {
  const headers = this._headersOut();
  const body = this._chunks.length > 0 && this.method !== 'GET' && this.method !== 'HEAD' ? Buffer.concat(this._chunks) : undefined;
  this._chunks = [];
  let url;
  try {
    // `path` is public and may have changed since the request was made.
    url = targetUrl(this._url, checkedPath(this.path));
  } catch (e) {
    cb(e);
    return;
  }
  this.headersSent = true;
  // Through the tenant's `fetch`; the methods it refuses (TRACE), as
  // workerd's client sends them.
  const init = { method: this.method, headers, body, redirect: 'manual', signal: this._controller.signal };
  const sent = FORBIDDEN.includes(this.method) ? globalThis.__ssr.node.fetchAs(this.method, url.href, { ...init, method: 'GET' }) : fetch(url.href, init);
  sent.then((response) => {
    clearTimeout(this._timeout);
    const res = responseMessage(response);
    res.req = this;
    this.res = res;
    if (this.listenerCount('response') > 0) this.emit('response', res);
    else res.resume();
    cb();
  }, (e) => {
    clearTimeout(this._timeout);
    cb(e);
  });
};

ClientRequest.prototype._destroy = function (err, cb) {
  clearTimeout(this._timeout);
  if (!this.res || !this.res.complete) this._controller.abort(err ?? undefined);
  if (this.res && err) this.res.destroy(err);
  cb(err);
};

export function request(...args) {
  return new ClientRequest(...args);
}

export function get(...args) {
  const req = request(...args);
  req.end();
  return req;
}

export const setMaxIdleHTTPParsers = (max) => {
  if (typeof max !== 'number') {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "max" argument must be of type number. Received ${typeof max}`);
  }
};

export function createServer(options, requestListener) {
  return new Server(options, requestListener);
}

export { IncomingMessage, OutgoingMessage, Server, ServerResponse, validateHeaderName, validateHeaderValue };
// The Workers globals, as workerd's `node:http` gives them.
export const CloseEvent = globalThis.CloseEvent;
export const MessageEvent = globalThis.MessageEvent;
export const WebSocket = globalThis.WebSocket;

export default { Agent, ClientRequest, CloseEvent, MessageEvent, WebSocket, IncomingMessage, OutgoingMessage, Server, ServerResponse, createServer, globalAgent, request, get, validateHeaderName, validateHeaderValue, setMaxIdleHTTPParsers };
