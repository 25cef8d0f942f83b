// `node:net`, as on `workerd`: a client `Socket` over Workers' `connect()`
// (wit/prelude/25_sockets.js), so it reaches only the addresses the tenant
// was granted (`tcp://HOST:PORT`); servers are not implemented there
// either. A socket connects as `"starttls"`, so that `tls.connect({
// socket })` can upgrade it later (what Postgres clients do after their
// SSLRequest). `isIP`, `isIPv4`, `isIPv6` and `_normalizeArgs` as Node's.
import { Duplex } from './stream.js';
import { Buffer } from './buffer.js';
import { codedError, invalidArgType, invalidArgValue, outOfRange, validateFunction } from './_errors.js';

// The prelude's `connect()`, looked up when a socket connects (not at the
// top level, so the module also loads where there is no prelude).
const workersConnect = (address, options) => globalThis.__ssr.sockets.connect(address, options);

const IPV4_PART = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4 = `(?:${IPV4_PART}\\.){3}${IPV4_PART}`;
const H16 = '[0-9a-fA-F]{1,4}';
const IPV6 = new RegExp('^(?:' + [
  `(?:${H16}:){7}(?:${H16}|:)`,
  `(?:${H16}:){6}(?:${IPV4}|:${H16}|:)`,
  `(?:${H16}:){5}(?::${IPV4}|(?::${H16}){1,2}|:)`,
  `(?:${H16}:){4}(?:(?::${H16}){0,1}:${IPV4}|(?::${H16}){1,3}|:)`,
  `(?:${H16}:){3}(?:(?::${H16}){0,2}:${IPV4}|(?::${H16}){1,4}|:)`,
  `(?:${H16}:){2}(?:(?::${H16}){0,3}:${IPV4}|(?::${H16}){1,5}|:)`,
  `(?:${H16}:){1}(?:(?::${H16}){0,4}:${IPV4}|(?::${H16}){1,6}|:)`,
  `(?::(?:(?::${H16}){0,5}:${IPV4}|(?::${H16}){1,7}|:))`,
].join('|') + ')(?:%[0-9a-zA-Z-.:]{1,})?$');
const IPV4_RE = new RegExp(`^${IPV4}$`);

export function isIPv4(input) {
  return IPV4_RE.test(String(input));
}

export function isIPv6(input) {
  return IPV6.test(String(input));
}

export function isIP(input) {
  if (isIPv4(input)) return 4;
  if (isIPv6(input)) return 6;
  return 0;
}

// Node's `net._normalizeArgs`: `[options, callback]` from `connect()`'s
// forms: `(options[, cb])`, `(path[, cb])`, `(port[, host][, cb])`.
export function _normalizeArgs(args) {
  let options = {};
  if (args.length === 0) return [options, null];
  const first = args[0];
  if (first !== null && typeof first === 'object') {
    options = first;
  } else if (typeof first === 'string' && Number.isNaN(Number(first)) && first !== '') {
    options.path = first;
  } else {
    options.port = first;
    if (args.length > 1 && typeof args[1] === 'string') options.host = args[1];
  }
  const cb = args[args.length - 1];
  return [options, typeof cb === 'function' ? cb : null];
}

// A port as a number (a string of digits too), or Node's error.
function portOf(port) {
  const n = typeof port === 'string' && port.trim() !== '' ? Number(port) : port;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw codedError(RangeError, 'ERR_SOCKET_BAD_PORT', `Port should be >= 0 and < 65536. Received ${typeof port === 'string' ? `type string ('${port}')` : `type ${typeof port} (${String(port)})`}.`);
  }
  return n;
}

// The event a socket's writes wait for: a TLS socket's handshake, or the
// connection.
const readyEvent = (socket) => (socket.encrypted ? 'secureConnect' : 'connect');

// "1.2.3.4:5" or "[::1]:5", as the host reports an address.
function splitAddress(text) {
  if (typeof text !== 'string') return [undefined, undefined];
  const colon = text.lastIndexOf(':');
  const host = text.slice(0, colon).replace(/^\[|\]$/g, '');
  return [host, Number(text.slice(colon + 1))];
}

// What Node refuses among `connect()`'s options, as it refuses them.
function checkConnectOptions(options) {
  for (const key of ['objectMode', 'readableObjectMode', 'writableObjectMode']) {
    if (options[key]) throw invalidArgValue(`options.${key}`, options[key], 'is not supported');
  }
  if (options.localAddress !== undefined && isIP(options.localAddress) === 0) {
    throw codedError(TypeError, 'ERR_INVALID_IP_ADDRESS', `Invalid IP address: ${options.localAddress}`);
  }
  if (options.localPort !== undefined && typeof options.localPort !== 'number') {
    throw invalidArgType('options.localPort', 'of type number', options.localPort);
  }
  if (options.autoSelectFamily !== undefined && typeof options.autoSelectFamily !== 'boolean') {
    throw invalidArgType('options.autoSelectFamily', 'of type boolean', options.autoSelectFamily);
  }
  const attempt = options.autoSelectFamilyAttemptTimeout;
  if (attempt !== undefined && (!Number.isInteger(attempt) || attempt < 1)) {
    throw outOfRange('options.autoSelectFamilyAttemptTimeout', '>= 1', attempt);
  }
}

export function Socket(options) {
  if (!(this instanceof Socket)) return new Socket(options);
  const o = options === undefined ? {} : options;
  if (o === null || typeof o !== 'object') throw invalidArgType('options', 'of type object', o);
  if (o.fd !== undefined) throw codedError(Error, 'ERR_OPTION_NOT_IMPLEMENTED', 'The options.fd option is not implemented');
  Duplex.call(this, {
    allowHalfOpen: Boolean(o.allowHalfOpen),
    readable: o.readable,
    writable: o.writable,
    decodeStrings: false,
    signal: o.signal,
    // `close` is emitted here, with whether an error ended the socket.
    emitClose: false,
  });
  this.allowHalfOpen = Boolean(o.allowHalfOpen);
  this.on('end', onReadableStreamEnd);
  this.connecting = false;
  this._handle = null;
  this._reader = null;
  this._writer = null;
  this._reading = false;
  this._upgraded = false;
  this._host = null;
  this._bytesRead = 0;
  this._bytesWritten = 0;
  // Bytes of writes held until the connection opens.
  this._pendingBytes = 0;
  this._idle = 0;
  this._idleTimer = null;
  // Callbacks of writes made while connecting.
  this._waiting = [];
  this.remoteAddress = undefined;
  this.remotePort = undefined;
  this.remoteFamily = undefined;
  this.localAddress = undefined;
  this.localPort = undefined;
  this.encrypted = false;
  // `onread`: reads go into this buffer (or one the function gives) and
  // to the callback, instead of `data` events, as Node's.
  const onread = o.onread;
  this._onread = onread !== null && typeof onread === 'object' && typeof onread.callback === 'function'
    && (onread.buffer instanceof Uint8Array || typeof onread.buffer === 'function') ? onread : null;
  // An open socket handed over (`tls.connect({ socket })`'s own).
  if (o.handle !== undefined) this._adopt(o.handle, o.host);
}
Object.setPrototypeOf(Socket.prototype, Duplex.prototype);
Object.setPrototypeOf(Socket, Duplex);

// The peer ended: without `allowHalfOpen`, writing is over too (the
// stream ends its side), and a write after it fails as Node's does.
function onReadableStreamEnd() {
  if (!this.allowHalfOpen) this.write = writeAfterFIN;
}

function writeAfterFIN(chunk, encoding, cb) {
  if (!this.writableEnded) return Duplex.prototype.write.call(this, chunk, encoding, cb);
  const callback = typeof encoding === 'function' ? encoding : cb;
  const e = codedError(Error, 'EPIPE', 'This socket has been ended by the other party');
  queueMicrotask(() => {
    if (typeof callback === 'function') callback(e);
  });
  this.destroy(e);
  return false;
}

Object.defineProperties(Socket.prototype, {
  bytesRead: { get() { return this._bytesRead; }, configurable: true },
  // As Node counts it: what went to the connection, what waits for it to
  // open, and what the stream still buffers.
  bytesWritten: {
    get() {
      // (Undefined on the prototype itself, as Node's.)
      if (this._bytesWritten === undefined) return undefined;
      const buffered = (this.writableBuffer ?? []).reduce((n, { chunk, encoding }) => n + (typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.length), 0);
      return this._bytesWritten + this._pendingBytes + buffered;
    },
    configurable: true,
  },
  pending: { get() { return this._handle === null || this.connecting; }, configurable: true },
  readyState: {
    get() {
      if (this.connecting) return 'opening';
      if (this.readable && this.writable) return 'open';
      if (this.readable) return 'readOnly';
      if (this.writable) return 'writeOnly';
      return 'closed';
    },
    configurable: true,
  },
  timeout: { get() { return this._idle; }, configurable: true },
  // Node's old name.
  _connecting: { get() { return this.connecting; }, configurable: true },
  bufferSize: { get() { return this._handle !== null ? this.writableLength : undefined; }, configurable: true },
});

Socket.prototype.connect = function (...args) {
  const [options, cb] = Array.isArray(args[0]) && args.length === 1 ? args[0] : _normalizeArgs(args);
  if (this.connecting) throw codedError(Error, 'ERR_SOCKET_CONNECTING', 'Socket is already connecting');
  checkConnectOptions(options);
  if (Object.prototype.hasOwnProperty.call(this, 'write')) delete this.write;
  // A socket that closed connects again, as a new one.
  if (this.destroyed) {
    this._handle = null;
    this._reader = null;
    this._writer = null;
    this._reading = false;
    this._undestroy();
  }
  if (options.path !== undefined) throw invalidArgValue('path', options.path, 'is not supported');
  if (options.port === undefined) throw codedError(TypeError, 'ERR_MISSING_ARGS', 'The "options" or "port" or "path" argument must be specified');
  if (typeof options.port !== 'number' && typeof options.port !== 'string') throw invalidArgType('options.port', 'of type number or string', options.port);
  const port = portOf(options.port);
  const host = options.host === undefined || options.host === null ? 'localhost' : String(options.host);
  if (cb !== null) this.once(readyEvent(this), cb);
  if (options.timeout !== undefined) this.setTimeout(options.timeout);
  this.connecting = true;
  this._host = host;
  const open = (address) => this._adopt(workersConnect({ hostname: address, port }, {
    secureTransport: this.encrypted ? 'on' : 'starttls',
    allowHalfOpen: true,
  }), host);
  // A custom `lookup` names the address (a granted one: the host checks
  // the address connected to, not the name).
  if (options.lookup !== undefined && isIP(host) === 0) {
    validateFunction(options.lookup, 'options.lookup');
    const dns = { family: options.family ?? 0, hints: options.hints ?? 0 };
    options.lookup(host, dns, (error, address, family) => {
      if (this.destroyed) return;
      this.emit('lookup', error, address, family, host);
      if (error) this.destroy(error);
      else open(address);
    });
    return this;
  }
  open(host);
  return this;
};

// Takes `handle` (a Workers socket) as this socket's connection.
Socket.prototype._adopt = function (handle, host) {
  this._handle = handle;
  this._host = host === undefined ? this._host : host;
  this.connecting = true;
  handle.opened.then((info) => {
    if (this._handle !== handle || this.destroyed) return;
    this.connecting = false;
    [this.remoteAddress, this.remotePort] = splitAddress(info.remoteAddress);
    this.remoteFamily = isIPv6(this.remoteAddress) ? 'IPv6' : 'IPv4';
    // As `workerd`: the host's own address stays the host's.
    this.localAddress = '0.0.0.0';
    this.localPort = 0;
    this._touch();
    this._connected();
    if (this.readableFlowing !== false && this._readableState && this._readableState.length === 0) this._read();
  }, (error) => {
    if (this._handle !== handle || this.destroyed) return;
    this.connecting = false;
    this.destroy(error);
  });
};

// The connection opened: `connect` and `ready` (a TLS socket says more).
Socket.prototype._connected = function () {
  this.emit('connect');
  this.emit('ready');
};

Socket.prototype._write = function (chunk, encoding, cb) {
  this._writev([{ chunk, encoding }], cb);
};

Socket.prototype._writev = function (chunks, cb) {
  if (this._handle === null && !this.connecting) {
    cb(codedError(Error, 'ERR_SOCKET_CLOSED', 'Socket is closed'));
    return;
  }
  const parts = chunks.map(({ chunk, encoding }) => (typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk));
  const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
  if (this.connecting) {
    this._pendingBytes += bytes.byteLength;
    const go = () => {
      this._pendingBytes -= bytes.byteLength;
      this._waiting = this._waiting.filter((w) => w !== cb);
      this._writev([{ chunk: bytes }], cb);
    };
    this._waiting.push(cb);
    this.once(readyEvent(this), go);
    return;
  }
  if (this._writer === null) this._writer = this._handle.writable.getWriter();
  this._bytesWritten += bytes.byteLength;
  this._writer.write(bytes).then(() => {
    this._touch();
    cb();
  }, (e) => cb(e));
};

Socket.prototype._final = function (cb) {
  if (this.connecting) {
    this.once(readyEvent(this), () => this._final(cb));
    return;
  }
  // Never connected: nothing to end.
  if (this._handle === null) {
    cb();
    return;
  }
  if (this._writer === null) this._writer = this._handle.writable.getWriter();
  this._writer.close().then(() => cb(), (e) => cb(e));
};

Socket.prototype._read = function () {
  if (this._reading || this._handle === null || this.connecting) return;
  this._reading = true;
  if (this._reader === null) this._reader = this._handle.readable.getReader();
  const reader = this._reader;
  const next = () => {
    reader.read().then(({ done, value }) => {
      if (this._reader !== reader || this._upgraded) return;
      if (done) {
        this._reading = false;
        this.push(null);
        // `end` comes though nothing reads (Node's does).
        this.read(0);
        return;
      }
      this._bytesRead += value.byteLength;
      this._touch();
      if (this._onread !== null) {
        if (this._readInto(value)) next();
        else this._reading = false;
        return;
      }
      if (this.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) next();
      else this._reading = false;
    }, (e) => {
      this._reading = false;
      if (this._reader === reader && !this._upgraded) this.destroy(e);
    });
  };
  next();
};

// `onread`'s delivery of `bytes`: false when its callback says to pause.
Socket.prototype._readInto = function (bytes) {
  let go = true;
  for (let at = 0; at < bytes.byteLength;) {
    const { buffer, callback } = this._onread;
    const into = typeof buffer === 'function' ? buffer() : buffer;
    const n = Math.min(into.byteLength, bytes.byteLength - at);
    into.set(bytes.subarray(at, at + n));
    at += n;
    if (callback.call(this, n, into) === false) go = false;
  }
  return go;
};

Socket.prototype._destroy = function (error, cb) {
  this._clearIdle();
  const handle = this._handle;
  // (A signal aborted already destroys it while it is being made.)
  if (handle != null && !this._upgraded) handle.close().catch(() => {});
  if (this.connecting) {
    for (const waiting of this._waiting.splice(0)) {
      waiting(codedError(Error, 'ERR_SOCKET_CLOSED_BEFORE_CONNECTION', 'Socket closed before the connection was established'));
    }
  }
  this.connecting = false;
  cb(error);
  // After the `error` event the stream emits on the next turn.
  queueMicrotask(() => queueMicrotask(() => this.emit('close', Boolean(error))));
};

// The idle timer: `timeout` after `ms` without a read or write.
Socket.prototype.setTimeout = function (ms, cb) {
  if (typeof ms !== 'number') throw invalidArgType('msecs', 'of type number', ms);
  if (!Number.isFinite(ms) || ms < 0) throw outOfRange('msecs', 'a non-negative finite number', ms);
  if (cb !== undefined) validateFunction(cb, 'callback');
  this._idle = ms;
  if (cb !== undefined) {
    if (ms === 0) this.off('timeout', cb);
    else this.once('timeout', cb);
  }
  this._touch();
  return this;
};

Socket.prototype._touch = function () {
  this._clearIdle();
  if (this._idle > 0 && !this.destroyed) {
    this._idleTimer = setTimeout(() => {
      this._idleTimer = null;
      this.emit('timeout');
    }, this._idle);
  }
};

Socket.prototype._clearIdle = function () {
  if (this._idleTimer != null) clearTimeout(this._idleTimer);
  this._idleTimer = null;
};

Socket.prototype.address = function () {
  if (this.localAddress === undefined) return {};
  return { address: this.localAddress, family: isIPv6(this.localAddress) ? 'IPv6' : 'IPv4', port: this.localPort };
};

const self = function () {
  return this;
};
Socket.prototype.setNoDelay = self;
Socket.prototype.setKeepAlive = self;
Socket.prototype.ref = self;
Socket.prototype.unref = self;
Socket.prototype.destroySoon = function () {
  if (this.writable) this.end();
  if (this.writableFinished) this.destroy();
  else this.once('finish', () => this.destroy());
};
Socket.prototype.resetAndDestroy = function () {
  if (this._handle === null) return this.destroy(codedError(Error, 'ERR_SOCKET_CLOSED', 'Socket is closed'));
  if (this.connecting) this.once('connect', () => this.destroy());
  else this.destroy();
  return this;
};

export const Stream = Socket;

export function connect(...args) {
  const [options, cb] = _normalizeArgs(args);
  return new Socket(options).connect([options, cb]);
}

export const createConnection = connect;

export function Server() {
  throw new Error('Server is not implemented');
}

export function createServer() {
  throw new Error('createServer() is not implemented');
}

// What workerd gives for a socket bound to no address: an ephemeral
// port on the unspecified IPv4 address, and -1 for its descriptor.
export class BoundSocket {
  address() {
    return { address: '0.0.0.0', family: 'IPv4', port: 49152 };
  }
  fd() {
    return -1;
  }
  close() {}
}

// An IP address as a number: an IPv4 one in 32 bits, an IPv6 one in 128
// (written any way the URL Standard reads, embedded IPv4 and zones too).
function addressValue(text, family) {
  if (family === 'ipv4') {
    if (!isIPv4(text)) return undefined;
    return text.split('.').reduce((n, part) => (n << 8n) + BigInt(part), 0n);
  }
  if (!isIPv6(text)) return undefined;
  const canonical = new URL(`http://[${text.split('%')[0]}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, undefined];
  const groups = (g) => (g ? g.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.reduce((n, g) => (n << 16n) + BigInt(parseInt(g, 16)), 0n);
}

function familyOf(family, name = 'family') {
  const f = typeof family === 'string' ? family.toLowerCase() : family;
  if (f !== 'ipv4' && f !== 'ipv6') throw invalidArgValue(name, family, "must be 'ipv4' or 'ipv6'");
  return f;
}

// Node's `net.SocketAddress`: an address, port, family and IPv6 flow label.
export class SocketAddress {
  #address;
  #port;
  #family;
  #flowlabel;

  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
    const family = familyOf(options.family ?? 'ipv4', 'options.family');
    const address = options.address ?? (family === 'ipv4' ? '127.0.0.1' : '::');
    if (typeof address !== 'string') throw invalidArgType('options.address', 'of type string', address);
    const port = portOf(options.port ?? 0);
    const flowlabel = options.flowlabel ?? 0;
    if (!Number.isInteger(flowlabel) || flowlabel < 0 || flowlabel > 0xffffffff) throw outOfRange('options.flowlabel', '>= 0 && <= 4294967295', flowlabel);
    if (addressValue(address, family) === undefined) throw codedError(Error, 'ERR_INVALID_ADDRESS', 'Invalid socket address');
    this.#address = address;
    this.#port = port;
    this.#family = family;
    this.#flowlabel = flowlabel;
  }

  get address() {
    return this.#address;
  }
  get port() {
    return this.#port;
  }
  get family() {
    return this.#family;
  }
  get flowlabel() {
    return this.#flowlabel;
  }

  toJSON() {
    return { address: this.#address, port: this.#port, family: this.#family, flowlabel: this.#flowlabel };
  }

  static isSocketAddress(value) {
    return value instanceof SocketAddress;
  }

  // `host:port` or `[v6]:port`; undefined when it is not one.
  static parse(input) {
    try {
      const url = new URL(`http://${input}`);
      const address = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      return new SocketAddress({ address, port: url.port === '' ? 0 : Number(url.port), family: isIPv6(address) ? 'ipv6' : 'ipv4' });
    } catch {
      return undefined;
    }
  }
}

// Node's `net.BlockList`: addresses, ranges and subnets to check an
// address against; an IPv4 rule also holds the IPv4-mapped IPv6 address.
export class BlockList {
  #rules = [];

  static isBlockList(value) {
    return value instanceof BlockList;
  }

  #value(address, family, name) {
    if (address instanceof SocketAddress) return [address.family, addressValue(address.address, address.family), address.address];
    if (typeof address !== 'string') throw invalidArgType(name, 'of type string or an instance of SocketAddress', address);
    const f = familyOf(family);
    const value = addressValue(address, f);
    if (value === undefined) throw codedError(TypeError, 'ERR_INVALID_IP_ADDRESS', `Invalid ${f === 'ipv4' ? 'IPv4' : 'IPv6'} address`);
    return [f, value, address];
  }

  addAddress(address, family = 'ipv4') {
    const [f, value, text] = this.#value(address, family, 'address');
    this.#rules.unshift({ f, from: value, to: value, text: `Address: ${f === 'ipv4' ? 'IPv4' : 'IPv6'} ${text}` });
  }

  addRange(start, end, family = 'ipv4') {
    const [f, from, a] = this.#value(start, family, 'start');
    const [, to, b] = this.#value(end, family, 'end');
    if (from > to) throw invalidArgValue('start', start, 'must come before end');
    this.#rules.unshift({ f, from, to, text: `Range: ${f === 'ipv4' ? 'IPv4' : 'IPv6'} ${a}-${b}` });
  }

  addSubnet(network, prefix, family = 'ipv4') {
    const [f, value, text] = this.#value(network, family, 'network');
    const bits = f === 'ipv4' ? 32 : 128;
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) throw outOfRange('prefix', `>= 0 && <= ${bits}`, prefix);
    const host = (1n << BigInt(bits - prefix)) - 1n;
    this.#rules.unshift({ f, from: value & ~host, to: value | host, text: `Subnet: ${f === 'ipv4' ? 'IPv4' : 'IPv6'} ${text}/${prefix}` });
  }

  check(address, family = 'ipv4') {
    let f;
    let value;
    try {
      [f, value] = this.#value(address, family, 'address');
    } catch (e) {
      if (e.code === 'ERR_INVALID_IP_ADDRESS') return false;
      throw e;
    }
    // `::ffff:a.b.c.d` is also `a.b.c.d`.
    const mapped = f === 'ipv6' && value >> 32n === 0xffffn ? value & 0xffffffffn : undefined;
    return this.#rules.some((r) => (r.f === f && r.from <= value && value <= r.to)
      || (mapped !== undefined && r.f === 'ipv4' && r.from <= mapped && mapped <= r.to));
  }

  get rules() {
    return this.#rules.map((r) => r.text);
  }

  toJSON() {
    return this.rules;
  }

  // Rules as `rules` writes them.
  fromJSON(data) {
    const list = typeof data === 'string' ? JSON.parse(data) : data;
    if (!Array.isArray(list)) throw invalidArgValue('data', data, 'must be an array of rules');
    for (const rule of list.slice().reverse()) {
      const m = /^(Address|Range|Subnet): (IPv4|IPv6) (.+)$/.exec(String(rule));
      if (m === null) throw invalidArgValue('data', rule, 'is not a rule');
      const family = m[2].toLowerCase();
      if (m[1] === 'Address') this.addAddress(m[3], family);
      else if (m[1] === 'Range') this.addRange(...m[3].split('-'), family);
      else {
        const [network, prefix] = m[3].split('/');
        this.addSubnet(network, Number(prefix), family);
      }
    }
  }
}

let autoSelectFamily = true;
let autoSelectFamilyAttemptTimeout = 250;

export function getDefaultAutoSelectFamily() {
  return autoSelectFamily;
}

export function setDefaultAutoSelectFamily(value) {
  if (typeof value !== 'boolean') throw invalidArgType('value', 'of type boolean', value);
  autoSelectFamily = value;
}

export function getDefaultAutoSelectFamilyAttemptTimeout() {
  return autoSelectFamilyAttemptTimeout;
}

export function setDefaultAutoSelectFamilyAttemptTimeout(value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw outOfRange('value', '>= 1', value);
  autoSelectFamilyAttemptTimeout = n < 10 ? 10 : n;
}

export default {
  BlockList,
  BoundSocket,
  SocketAddress,
  Socket,
  Stream,
  connect,
  createConnection,
  Server,
  createServer,
  isIP,
  isIPv4,
  isIPv6,
  _normalizeArgs,
  getDefaultAutoSelectFamily,
  setDefaultAutoSelectFamily,
  getDefaultAutoSelectFamilyAttemptTimeout,
  setDefaultAutoSelectFamilyAttemptTimeout,
};
