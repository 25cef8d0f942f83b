// `node:_http_incoming`: `IncomingMessage`, a Readable of an HTTP message
// with Node's `headers`, `rawHeaders` and the rest: a server's request
// (`_http_server.js`, or one an app makes, as Next.js through OpenNext
// does), or a client's response (`http.js` reads it from `fetch`).
import { Readable } from './stream.js';
import { Buffer } from './buffer.js';

// `new IncomingMessage(socket)`, as Node makes one: a server's request,
// whose body the server pushes (Next.js through OpenNext makes its own so),
// or a client's response read from `fetch` (`http.js`).
export function IncomingMessage(socket) {
  Readable.call(this);
  this.socket = socket;
  this.statusCode = null;
  this.statusMessage = null;
  this.method = null;
  this.url = '';
  this.httpVersion = '1.1';
  this.httpVersionMajor = 1;
  this.httpVersionMinor = 1;
  this.headers = {};
  this.rawHeaders = [];
  this.trailers = {};
  this.rawTrailers = [];
  this.complete = false;
  // Node's flags: the body not yet read (`_consuming`), thrown away
  // (`_dumped`) or paused by the server (`_paused`).
  this._consuming = false;
  this._dumped = false;
  this._paused = false;
  this._reader = null;
}
Object.setPrototypeOf(IncomingMessage.prototype, Readable.prototype);
Object.setPrototypeOf(IncomingMessage, Readable);

// `connection` is the old name of `socket`.
Object.defineProperty(IncomingMessage.prototype, 'connection', {
  configurable: true,
  get() {
    return this.socket;
  },
  set(v) {
    this.socket = v;
  },
});

// Headers that Node keeps the first of; `set-cookie` keeps them all, in
// an array; `cookie` joins with `; `, the rest with `, `.
const FIRST_WINS = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization',
  'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards',
  'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires']);

// Node's `_addHeaderLine(field, value, dest)`: one raw header into an
// object of headers, as `message.headers` is made.
IncomingMessage.prototype._addHeaderLine = function (field, value, dest) {
  const name = String(field).toLowerCase();
  if (name === 'set-cookie') {
    if (!Object.hasOwn(dest, name)) dest[name] = [value];
    else dest[name].push(value);
  } else if (!Object.hasOwn(dest, name)) {
    dest[name] = value;
  } else if (!FIRST_WINS.has(name)) {
    dest[name] += (name === 'cookie' ? '; ' : ', ') + value;
  }
};

IncomingMessage.prototype._addHeaderLines = function (headers, n) {
  if (!headers || !headers.length) return;
  for (let i = 0; i < n; i += 2) {
    this.rawHeaders.push(headers[i], headers[i + 1]);
    this._addHeaderLine(headers[i], headers[i + 1], this.headers);
  }
};

const READ_PIECE = 64 << 10;

IncomingMessage.prototype._read = function () {
  // A server's request, or a response without a body: what there is was
  // pushed.
  if (this._reader === null) return;
  this._consuming = true;
  this._reader.read().then(({ done, value }) => {
    if (done) {
      this.complete = true;
      this.push(null);
    } else {
      // In pieces of at most what one socket read brings Node (64 KiB),
      // as a body arrives there and on workerd, however it was sent.
      const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      for (let at = 0; at < bytes.length; at += READ_PIECE) this.push(bytes.subarray(at, at + READ_PIECE));
    }
  }, (e) => this.destroy(e));
};

IncomingMessage.prototype.setTimeout = function (ms, cb) {
  if (cb) this.once('timeout', cb);
  return this;
};
export default { IncomingMessage };
