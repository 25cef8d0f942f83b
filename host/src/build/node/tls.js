// `node:tls`, as on `workerd`: a client `TLSSocket` over Workers'
// `connect()`: `tls.connect()` opens one in TLS (`secureTransport: "on"`),
// and `tls.connect({ socket })` upgrades an open `net.Socket` in place
// (`startTls()`), as Postgres and SMTP clients do. The host's rustls
// verifies the peer against the Mozilla roots and the name connected to
// (or `servername`); a custom `checkServerIdentity` is refused with
// `ERR_OPTION_NOT_IMPLEMENTED`, as `workerd` refuses it, since the peer's
// certificate never reaches the sandbox to check it by. Servers,
// `getCiphers` and the rest throw as on `workerd` (node.rs fills them).
import { Socket, isIP } from './net.js';
import { Buffer } from './buffer.js';
import { codedError, invalidArgType } from './_errors.js';

function checkIdentityOption(value) {
  if (value === undefined) return;
  if (typeof value !== 'function') throw invalidArgType('options.checkServerIdentity', 'of type function', value);
  throw codedError(Error, 'ERR_OPTION_NOT_IMPLEMENTED', 'The checkServerIdentity option is not implemented');
}

export function TLSSocket(socket, options) {
  if (!(this instanceof TLSSocket)) return new TLSSocket(socket, options);
  const o = options === undefined || options === null ? {} : options;
  checkIdentityOption(o.checkServerIdentity);
  Socket.call(this, { allowHalfOpen: socket instanceof Socket ? socket.allowHalfOpen : o.allowHalfOpen });
  this.encrypted = true;
  this.authorized = false;
  this.authorizationError = null;
  this.alpnProtocol = false;
  this.servername = o.servername === undefined ? null : String(o.servername);
  if (socket instanceof Socket) this._wrap(socket);
}
Object.setPrototypeOf(TLSSocket.prototype, Socket.prototype);
Object.setPrototypeOf(TLSSocket, Socket);

// Upgrades `socket`'s connection to TLS and takes it over; `socket` reads
// and writes no more.
TLSSocket.prototype._wrap = function (socket) {
  const upgrade = () => {
    const handle = socket._handle;
    if (handle === null || handle.secureTransport !== 'starttls') {
      this.destroy(codedError(Error, 'ERR_TLS_UPGRADE', 'The socket cannot be upgraded to TLS'));
      return;
    }
    const name = this.servername ?? socket._host;
    if (this.servername === null) this.servername = name;
    socket._upgraded = true;
    this._adopt(handle.startTls({ expectedServerHostname: name }), name);
  };
  if (socket.connecting || socket._handle === null) socket.once('connect', upgrade);
  else upgrade();
};

TLSSocket.prototype._connected = function () {
  if (this.servername === null) this.servername = this._host;
  this.authorized = true;
  this.emit('connect');
  this.emit('secure');
  this.emit('secureConnect');
  this.emit('ready');
};

TLSSocket.prototype.getProtocol = function () {
  return this.pending ? null : 'TLSv1.3';
};
TLSSocket.prototype.setServername = function (name) {
  if (typeof name !== 'string') throw invalidArgType('name', 'of type string', name);
  this.servername = name;
};
TLSSocket.prototype.getSession = function () {
  return undefined;
};
TLSSocket.prototype.isSessionReused = function () {
  return false;
};

// `connect(options[, cb])`, `connect(port[, host][, options][, cb])`.
export function connect(...args) {
  let options = {};
  let cb = typeof args[args.length - 1] === 'function' ? args.pop() : null;
  if (args[0] !== null && typeof args[0] === 'object') {
    options = { ...args[0] };
  } else {
    if (args[0] !== undefined) options.port = args[0];
    if (typeof args[1] === 'string') options.host = args[1];
    const more = args.find((a, i) => i > 0 && a !== null && typeof a === 'object');
    if (more !== undefined) options = { ...more, ...options };
  }
  checkIdentityOption(options.checkServerIdentity);
  if (options.servername === undefined && options.host !== undefined && isIP(options.host) === 0) options.servername = options.host;
  const socket = new TLSSocket(options.socket, options);
  if (cb !== null) socket.once('secureConnect', cb);
  if (options.socket === undefined) socket.connect({ port: options.port, host: options.host, timeout: options.timeout });
  return socket;
}

// What a host name and a peer certificate (in Node's object form) say of
// each other: nothing when they match, else an `ERR_TLS_CERT_ALTNAME_INVALID`
// error, by RFC 6125's rules as Node applies them.
export function checkServerIdentity(hostname, cert) {
  const host = unfqdn(String(hostname));
  const subject = cert && cert.subject;
  const altNames = cert && cert.subjectaltname;
  const dnsNames = [];
  const ips = [];
  if (altNames) {
    for (const name of splitAltNames(altNames)) {
      if (name.startsWith('DNS:')) dnsNames.push(name.slice(4));
      else if (name.startsWith('IP Address:')) ips.push(canonicalIP(name.slice(11)));
    }
  }
  let valid = false;
  let reason;
  if (isIP(host) !== 0) {
    valid = ips.includes(canonicalIP(host));
    if (!valid) reason = `IP: ${host} is not in the cert's list: ${ips.join(', ')}`;
  } else if (dnsNames.length > 0 || (subject && subject.CN)) {
    const parts = splitHost(host);
    const matches = (pattern) => hostMatches(parts, pattern);
    if (dnsNames.length > 0) {
      valid = dnsNames.some(matches);
      if (!valid) reason = `Host: ${host}. is not in the cert's altnames: ${altNames}`;
    } else {
      const cn = subject.CN;
      valid = Array.isArray(cn) ? cn.some(matches) : matches(cn);
      if (!valid) reason = `Host: ${host}. is not cert's CN: ${cn}`;
    }
  } else {
    reason = 'Cert does not contain a DNS name';
  }
  if (valid) return undefined;
  const e = codedError(Error, 'ERR_TLS_CERT_ALTNAME_INVALID', `Hostname/IP does not match certificate's altnames: ${reason}`);
  e.reason = reason;
  e.host = host;
  e.cert = cert;
  return e;
}

function unfqdn(host) {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function splitHost(host) {
  return unfqdn(host).replace(/[A-Z]+/g, (s) => s.toLowerCase()).split('.');
}

// `subjectaltname` is a list joined by ", "; a quoted entry may hold one.
function splitAltNames(text) {
  if (!text.includes('"')) return text.split(', ');
  const out = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      current += JSON.parse(text.slice(i, end + 1));
      i = end;
    } else if (text.startsWith(', ', i)) {
      out.push(current);
      current = '';
      i++;
    } else {
      current += text[i];
    }
  }
  out.push(current);
  return out;
}

// An address written one way only (IPv6 compressed and lowercase).
function canonicalIP(ip) {
  const text = ip.trim();
  if (isIP(text) !== 6) return text;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
}

function hostMatches(hostParts, pattern) {
  if (!pattern) return false;
  const parts = splitHost(String(pattern));
  if (hostParts.length !== parts.length || parts.includes('')) return false;
  if (parts.some((p) => /[^\u0021-\u007F]/u.test(p))) return false;
  for (let i = hostParts.length - 1; i > 0; i--) if (hostParts[i] !== parts[i]) return false;
  const [host, first] = [hostParts[0], parts[0]];
  const around = first.split('*');
  if (around.length === 1 || first.includes('xn--')) return host === first;
  if (around.length > 2 || parts.length <= 2) return false;
  const [prefix, suffix] = around;
  return prefix.length + suffix.length <= host.length && host.startsWith(prefix) && host.endsWith(suffix);
}

export function SecureContext(options) {
  if (!(this instanceof SecureContext)) return new SecureContext(options);
  this.context = {};
}

export function createSecureContext(options) {
  return new SecureContext(options);
}

// An ALPN list (`['h2', 'http/1.1']` or bytes) as its length-prefixed wire
// form, in `out.ALPNProtocols`.
export function convertALPNProtocols(protocols, out) {
  if (Array.isArray(protocols)) {
    const parts = protocols.map((p) => {
      const b = Buffer.from(String(p));
      if (b.length > 255) throw codedError(RangeError, 'ERR_OUT_OF_RANGE', `The byte length of the protocol at index ${protocols.indexOf(p)} exceeds the maximum length. It must be <= 255. Received ${b.length}`);
      return Buffer.concat([Buffer.from([b.length]), b]);
    });
    out.ALPNProtocols = Buffer.concat(parts);
  } else if (ArrayBuffer.isView(protocols)) {
    out.ALPNProtocols = Buffer.from(protocols.buffer.slice(protocols.byteOffset, protocols.byteOffset + protocols.byteLength));
  }
}

export default { TLSSocket, connect, checkServerIdentity, SecureContext, createSecureContext, convertALPNProtocols };
