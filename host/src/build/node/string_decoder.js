// `node:string_decoder` as `ssr build` resolves it (build/bundle.rs):
// bytes to text across chunks, a character cut between two chunks kept
// until the rest arrives.
import { Buffer } from './buffer.js';
import { codedError, invalidArgType } from './_errors.js';

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
  // A cut character whose lead the Encoding Standard refuses at once
  // (C0, C1, F5-F7) but Node's decoder holds: kept back from `_text` until
  // the bytes it needs come, or one that cannot follow it, so that its
  // replacement characters come out when Node's do.
  this._withheld = new Uint8Array(0);
  this._rest = new Uint8Array(0);
  this._need = 0;
  // Node's undocumented view of what is held between writes: a character
  // cut short (`lastChar`, up to 4 bytes), the bytes it still needs
  // (`lastNeed`) and its whole length (`lastTotal`), kept as Node keeps
  // them, in 7 bytes under a symbol; a write checks they are still there.
  this[kState] = Buffer.alloc(7);
  this[kState][6] = ENCODING_CODES[this.encoding] ?? 6;
}

const kState = Symbol('kNativeDecoder');

// After a write: the character still cut short at the end of what was
// decoded (`held`: its bytes so far), in the state's bytes.
function keep(d, held, need) {
  const state = d[kState];
  state.fill(0, 0, 4);
  state.set(held.subarray(0, 4), 0);
  state[4] = need;
  state[5] = held.length;
}

// The UTF-8 bytes a stream decoder holds at the end of `bytes`: a lead
// byte and the continuations after it, short of its length.
function cutUtf8(bytes) {
  for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 3; i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue;
    // Node's lengths by lead byte: F0-F7 four, E0-EF three, C0-DF two.
    const need = b >= 0xf8 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    const have = bytes.length - i;
    return have < need ? [bytes.subarray(i), need - have] : [new Uint8Array(0), 0];
  }
  return [new Uint8Array(0), 0];
}

function checkState(d) {
  if (d === null || typeof d !== 'object' || !(kState in d)) {
    throw codedError(TypeError, 'ERR_INVALID_THIS', 'Value of "this" must be of type StringDecoder');
  }
  const state = d[kState];
  if (!(state instanceof Uint8Array)) {
    throw new TypeError('The "decoder" state must be an instance of Buffer, TypedArray, or DataView');
  }
  if (state.length !== 7) throw new Error('Invalid StringDecoder');
  if (state[5] > 4) throw new Error('Buffered bytes cannot exceed 4');
  if (state[4] > 4) throw new Error('Missing bytes cannot exceed 4');
  if (state[6] > 7 || state[4] + state[5] > 4) throw new Error('Invalid StringDecoder state');
}

// Node's numbers for the encodings, kept in the state's last byte.
const ENCODING_CODES = { ascii: 0, utf8: 1, base64: 2, utf16le: 3, latin1: 4, hex: 5, base64url: 7 };

StringDecoder.prototype = {
  constructor: StringDecoder,
  get lastChar() {
    return this[kState].subarray(0, 4);
  },
  get lastNeed() {
    return this[kState][4];
  },
  get lastTotal() {
    return this[kState][4] + this[kState][5];
  },
  write(buf) {
    if (typeof buf === 'string') return buf;
    const bytes = bytesOf(buf);
    checkState(this);
    if (this._text !== null) {
      const state = this[kState];
      // (A character held is at most 3 bytes: the last 3 are enough.)
      const tail = bytes.length >= 3 ? bytes.subarray(bytes.length - 3) : concat(state.subarray(0, state[5]), bytes);
      const [held, need] = cutUtf8(tail);
      keep(this, held, need);
      let input = this._withheld.length > 0 ? concat(this._withheld, bytes) : bytes;
      this._withheld = new Uint8Array(0);
      // `held` ends `input` too: its lead, if one of these, was withheld.
      if (held.length > 0 && (held[0] <= 0xc1 || held[0] >= 0xf5)) {
        this._withheld = held.slice();
        input = input.subarray(0, input.length - held.length);
      }
      return this._text.decode(input, { stream: true });
    }
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
    keep(this, new Uint8Array(0), 0);
    if (this._text !== null) {
      // A withheld character ends the text as the whole text would: a
      // U+FFFD for its lead and each continuation after it, as workerd's
      // decoder (its own fuzz test compares with `Buffer#toString`).
      out += this._text.decode(this._withheld);
      this._withheld = new Uint8Array(0);
    } else if (this.encoding === 'utf16le') {
      out += units(this._rest);
      this._rest = new Uint8Array(0);
      this._need = 0;
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

// UTF-16LE as Node's decoder reads it: a character cut short is held
// (`_rest`) until the bytes it lacks (`_need`) come: an odd last byte
// lacks one; a high surrogate at the end of a write of whole units lacks
// the two of its low half (one that ends a write with an odd byte after
// it goes out as it is).
function utf16(d, bytes) {
  let out = '';
  let at = 0;
  while (d._need > 0 && at < bytes.length) {
    const take = Math.min(d._need, bytes.length - at);
    d._rest = concat(d._rest, bytes.subarray(at, at + take));
    d._need -= take;
    at += take;
    if (d._need > 0) return '';
    const held = units(d._rest);
    d._rest = new Uint8Array(0);
    const last = held.charCodeAt(held.length - 1);
    if (held.length === 1 && last >= 0xd800 && last <= 0xdbff) {
      // The odd byte completed a high surrogate: its low half is next.
      d._rest = Uint8Array.of(last & 0xff, last >> 8);
      d._need = 2;
      continue;
    }
    out += held;
  }
  let body = bytes.subarray(at);
  if (body.length % 2 === 1) {
    d._rest = body.slice(body.length - 1);
    d._need = 1;
    body = body.subarray(0, body.length - 1);
  } else if (body.length >= 2) {
    const last = body[body.length - 2] | (body[body.length - 1] << 8);
    if (last >= 0xd800 && last <= 0xdbff) {
      d._rest = body.slice(body.length - 2);
      d._need = 2;
      body = body.subarray(0, body.length - 2);
    }
  }
  return out + units(body);
}

const units = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length - (bytes.length % 2)).toString('utf16le');

function normalize(encoding) {
  const e = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
  return { 'utf-8': 'utf8', ucs2: 'utf16le', 'ucs-2': 'utf16le', 'utf-16le': 'utf16le', binary: 'latin1' }[e] || e;
}

function bytesOf(buf) {
  if (buf instanceof Uint8Array) return buf;
  if (ArrayBuffer.isView(buf)) return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  throw invalidArgType('buf', 'an instance of Buffer, TypedArray, or DataView', buf);
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export default { StringDecoder };
