// `node:string_decoder` as `ssr build` resolves it (build/bundle.rs):
// bytes to text across chunks, a character cut between two chunks kept
// until the rest arrives.
import { Buffer } from './buffer.js';

// A function, as Node's is: callable without `new`.
export function StringDecoder(encoding) {
  if (!new.target) return new StringDecoder(encoding);
  // Buffer's names and errors (`Unknown encoding: x`).
  this.encoding = Buffer.from('', encoding) && normalize(encoding);
  this._text = this.encoding === 'utf8' || this.encoding === 'utf16le'
    ? new TextDecoder(this.encoding === 'utf8' ? 'utf-8' : 'utf-16le')
    : null;
  this._rest = new Uint8Array(0);
}

StringDecoder.prototype = {
  constructor: StringDecoder,
  write(buf) {
    if (typeof buf === 'string') return buf;
    const bytes = bytesOf(buf);
    if (this._text !== null) return this._text.decode(bytes, { stream: true });
    if (this.encoding === 'base64' || this.encoding === 'base64url') {
      const all = concat(this._rest, bytes);
      const whole = all.length - (all.length % 3);
      this._rest = all.slice(whole);
      return Buffer.from(all.buffer, all.byteOffset, whole).toString(this.encoding);
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(this.encoding);
  },
  end(buf) {
    let out = buf === undefined ? '' : this.write(buf);
    if (this._text !== null) {
      out += this._text.decode();
    } else if (this._rest.length > 0) {
      out += Buffer.from(this._rest).toString(this.encoding);
      this._rest = new Uint8Array(0);
    }
    return out;
  },
  text(buf, offset) {
    return this.write(bytesOf(buf).subarray(offset));
  },
};

function normalize(encoding) {
  const e = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
  return { 'utf-8': 'utf8', ucs2: 'utf16le', 'ucs-2': 'utf16le', 'utf-16le': 'utf16le', binary: 'latin1' }[e] || e;
}

function bytesOf(buf) {
  if (buf instanceof Uint8Array) return buf;
  if (ArrayBuffer.isView(buf)) return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  throw new TypeError(`The "buf" argument must be an instance of Buffer, TypedArray, or DataView. Received ${buf === null ? 'null' : typeof buf}`);
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export default { StringDecoder };
