// `node:string_decoder` as `ssr build` resolves it (build/bundle.rs):
// bytes to text across chunks, a character cut between two chunks kept
// until the rest arrives.
import { Buffer } from './buffer.js';

// A function, as Node's is: callable without `new`, or on an object to
// make it one (`StringDecoder.call(obj)`).
export function StringDecoder(encoding) {
  if (!new.target && (this === undefined || this === globalThis)) return new StringDecoder(encoding);
  // Buffer's names and errors (`Unknown encoding: x`).
  this.encoding = Buffer.from('', encoding) && normalize(encoding);
  // UTF-8 by the Encoding Standard's decoder (as V8's, U+FFFD for each
  // bad sequence); UTF-16LE by hand, as Node's: a lone surrogate comes out
  // as it is, and an odd last byte is dropped at the end.
  this._text = this.encoding === 'utf8' ? new TextDecoder('utf-8') : null;
  this._rest = new Uint8Array(0);
  this._high = '';
}

StringDecoder.prototype = {
  constructor: StringDecoder,
  write(buf) {
    if (typeof buf === 'string') return buf;
    const bytes = bytesOf(buf);
    if (this._text !== null) return this._text.decode(bytes, { stream: true });
    if (this.encoding === 'utf16le') return utf16(this, bytes);
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
    } else if (this.encoding === 'utf16le') {
      out += this._high;
      this._high = '';
      this._rest = new Uint8Array(0);
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

// Whole code units out; an odd byte and a high surrogate at the end are
// kept for the next write (the surrogate's low half may come there).
function utf16(d, bytes) {
  const all = concat(d._rest, bytes);
  const whole = all.length - (all.length % 2);
  d._rest = all.slice(whole);
  let text = d._high + Buffer.from(all.buffer, all.byteOffset, whole).toString('utf16le');
  d._high = '';
  const last = text.charCodeAt(text.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) {
    d._high = text.slice(-1);
    text = text.slice(0, -1);
  }
  return text;
}

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
