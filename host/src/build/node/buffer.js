// `node:buffer` as `ssr build` resolves it (build/bundle.rs): Node's
// Buffer, a Uint8Array with Node's encodings and methods, written over the
// engine's typed arrays (the prelude's TextEncoder/TextDecoder for UTF-8).
// Its memory is the tenant's: a Buffer larger than the tenant's limit fails
// as any allocation does (a RangeError on both engines).

import { outOfRange, validateInteger } from './_errors.js';

// As on workerd.
export const kMaxLength = 2 ** 31 - 1;
export const kStringMaxLength = 2 ** 29 - 24;
export const constants = Object.freeze({ MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength });
export const INSPECT_MAX_BYTES = 50;
const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

// ------------------------------------------------------------- encodings
const ENCODINGS = {
  utf8: 'utf8', 'utf-8': 'utf8',
  ucs2: 'utf16le', 'ucs-2': 'utf16le', utf16le: 'utf16le', 'utf-16le': 'utf16le',
  latin1: 'latin1', binary: 'latin1',
  base64: 'base64', base64url: 'base64url',
  hex: 'hex', ascii: 'ascii',
};

function unknownEncoding(enc) {
  const err = new TypeError(`Unknown encoding: ${enc}`);
  err.code = 'ERR_UNKNOWN_ENCODING';
  return err;
}

// As Node's methods take an encoding argument: undefined is UTF-8, and
// anything else must name an encoding.
function strictEncodingOf(enc) {
  if (enc === undefined) return 'utf8';
  const found = ENCODINGS[`${enc}`.toLowerCase()];
  if (found === undefined) throw unknownEncoding(enc);
  return found;
}

function encodingOf(enc) {
  if (enc === undefined || enc === null || enc === '') return 'utf8';
  const found = ENCODINGS[String(enc).toLowerCase()];
  if (found === undefined) throw unknownEncoding(enc);
  return found;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
// Both alphabets decode (Node's decoder takes either); anything else is skipped.
const B64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  B64_VALUE[B64.charCodeAt(i)] = i;
  B64_VALUE[B64URL.charCodeAt(i)] = i;
}

function base64Encode(bytes, url) {
  const abc = url ? B64URL : B64;
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += abc[n >> 18] + abc[(n >> 12) & 63] + abc[(n >> 6) & 63] + abc[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += abc[n >> 18] + abc[(n >> 12) & 63] + (url ? '' : '==');
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += abc[n >> 18] + abc[(n >> 12) & 63] + abc[(n >> 6) & 63] + (url ? '' : '=');
  }
  return out;
}

function base64Decode(str) {
  const out = new Uint8Array(Math.ceil((str.length * 3) / 4));
  let n = 0;
  let bits = 0;
  let len = 0;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c === 61) break; // '=' ends the data
    const v = c < 128 ? B64_VALUE[c] : -1;
    if (v < 0) continue;
    n = (n << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[len++] = (n >> bits) & 255;
    }
  }
  return out.subarray(0, len);
}

function hexDecode(str) {
  const out = new Uint8Array(str.length >>> 1);
  let i = 0;
  for (; i < out.length; i++) {
    const pair = str.slice(2 * i, 2 * i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) break;
    out[i] = parseInt(pair, 16);
  }
  return out.subarray(0, i);
}

function latin1Encode(str) {
  const out = new Uint8Array(str.length);
  for (let i = 0; i < str.length; i++) out[i] = str.charCodeAt(i);
  return out;
}

function utf16Encode(str) {
  const out = new Uint8Array(str.length * 2);
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    out[2 * i] = c & 255;
    out[2 * i + 1] = c >> 8;
  }
  return out;
}

function encode(str, enc) {
  switch (enc) {
    case 'utf8': return utf8Encoder.encode(str);
    case 'utf16le': return utf16Encode(str);
    case 'latin1':
    case 'ascii': return latin1Encode(str);
    case 'base64':
    case 'base64url': return base64Decode(str);
    case 'hex': return hexDecode(str);
  }
  throw new TypeError(`Unknown encoding: ${enc}`);
}

// Chunks keep String.fromCharCode's argument count bounded.
function fromCodes(bytes, mask) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const part = bytes.subarray(i, i + 8192);
    out += String.fromCharCode.apply(null, mask === 255 ? part : part.map((b) => b & mask));
  }
  return out;
}

function decode(bytes, enc) {
  switch (enc) {
    case 'utf8': return utf8Decoder.decode(bytes);
    case 'latin1': return fromCodes(bytes, 255);
    case 'ascii': return fromCodes(bytes, 127);
    case 'base64': return base64Encode(bytes, false);
    case 'base64url': return base64Encode(bytes, true);
    case 'hex': {
      let out = '';
      for (let i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
      return out;
    }
    case 'utf16le': {
      const units = new Uint16Array(bytes.length >>> 1);
      for (let i = 0; i < units.length; i++) units[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
      let out = '';
      for (let i = 0; i < units.length; i += 8192) out += String.fromCharCode.apply(null, units.subarray(i, i + 8192));
      return out;
    }
  }
  throw new TypeError(`Unknown encoding: ${enc}`);
}

// ---------------------------------------------------------------- Buffer
class FastBuffer extends Uint8Array {}

function typeName(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'object') return `an instance of ${v.constructor ? v.constructor.name : 'Object'}`;
  return `type ${typeof v} (${String(v)})`;
}

function invalidArg(name, expected, v) {
  const err = new TypeError(`The "${name}" argument must be ${expected}. Received ${typeName(v)}`);
  err.code = 'ERR_INVALID_ARG_TYPE';
  return err;
}

function checkSize(size) {
  if (typeof size !== 'number') throw invalidArg('size', 'of type number', size);
  if (!(size >= 0 && size <= kMaxLength)) {
    const err = new RangeError(`The value of "size" is out of range. It must be >= 0 && <= ${kMaxLength}. Received ${size}`);
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
}

// Callable with or without `new`, as Node's (deprecated) Buffer() is; a
// typed array's species (subarray, map, filter) calls it with a buffer.
export function Buffer(arg, encodingOrOffset, length) {
  if (new.target !== undefined && (arg instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && arg instanceof SharedArrayBuffer))) {
    return new FastBuffer(arg, encodingOrOffset, length);
  }
  if (typeof arg === 'number') {
    if (typeof encodingOrOffset === 'string') throw invalidArg('string', 'of type string', arg);
    return Buffer.alloc(arg);
  }
  return Buffer.from(arg, encodingOrOffset, length);
}
FastBuffer.prototype.constructor = Buffer;
Buffer.prototype = FastBuffer.prototype;
Object.setPrototypeOf(Buffer, Uint8Array);
// Named as Node's, whatever a bundler renamed it to (esbuild makes it
// `Buffer2` where a bundle has another `Buffer`).
Object.defineProperty(Buffer, 'name', { value: 'Buffer' });
Buffer.poolSize = 8192;

function wrap(bytes) {
  return new FastBuffer(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

Buffer.from = function from(value, encodingOrOffset, length) {
  if (typeof value === 'string') return wrap(encode(value, encodingOf(encodingOrOffset)));
  if (typeof value === 'object' && value !== null) {
    if (value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) {
      const offset = encodingOrOffset === undefined ? 0 : Number(encodingOrOffset) || 0;
      if (offset > value.byteLength) {
        const err = new RangeError('"offset" is outside of buffer bounds');
        err.code = 'ERR_BUFFER_OUT_OF_BOUNDS';
        throw err;
      }
      const len = length === undefined ? value.byteLength - offset : Number(length) || 0;
      if (offset + len > value.byteLength) {
        const err = new RangeError('"length" is outside of buffer bounds');
        err.code = 'ERR_BUFFER_OUT_OF_BOUNDS';
        throw err;
      }
      return new FastBuffer(value, offset, len);
    }
    if (ArrayBuffer.isView(value)) {
      const src = value instanceof Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      if (!(value instanceof Uint8Array) && !(value instanceof DataView)) {
        // Node copies a typed array element by element (each truncated to a byte).
        return wrap(Uint8Array.from(value, (x) => Number(x) & 255));
      }
      return wrap(src.slice());
    }
    const prim = typeof value[Symbol.toPrimitive] === 'function' ? value[Symbol.toPrimitive]('string') : value.valueOf();
    if (prim !== value && prim !== null && prim !== undefined && (typeof prim === 'string' || typeof prim === 'object')) {
      return Buffer.from(prim, encodingOrOffset, length);
    }
    const anyBuffer = (b) => b instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer);
    if (value.length !== undefined || anyBuffer(value.buffer)) {
      // Node's: an object whose length is not a number makes an empty Buffer.
      if (typeof value.length !== 'number' || !(value.length > 0)) return new FastBuffer(0);
      const n = Math.trunc(value.length);
      checkSize(n);
      return wrap(Uint8Array.from({ length: n }, (_, i) => Number(value[i]) & 255));
    }
    if (value.type === 'Buffer' && Array.isArray(value.data)) return Buffer.from(value.data);
  }
  throw invalidArg('first argument', 'of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object', value);
};

Buffer.alloc = function alloc(size, fill, encoding) {
  checkSize(size);
  const buf = new FastBuffer(size);
  if (typeof fill === 'string' && encoding !== undefined && typeof encoding !== 'string') {
    throw invalidArg('encoding', 'of type string', encoding);
  }
  if (fill !== undefined && fill !== 0 && size > 0) buf.fill(fill, 0, size, encoding);
  return buf;
};
Buffer.allocUnsafe = function allocUnsafe(size) {
  checkSize(size);
  return new FastBuffer(size);
};
Buffer.allocUnsafeSlow = Buffer.allocUnsafe;
Buffer.isBuffer = (b) => b instanceof Buffer;
Buffer.isEncoding = (enc) => typeof enc === 'string' && enc !== '' && ENCODINGS[enc.toLowerCase()] !== undefined;

Buffer.byteLength = function byteLength(value, encoding) {
  if (typeof value !== 'string') {
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && value instanceof SharedArrayBuffer)) {
      return value.byteLength;
    }
    throw invalidArg('string', 'of type string or an instance of Buffer or ArrayBuffer', value);
  }
  const enc = ENCODINGS[String(encoding).toLowerCase()] || 'utf8';
  switch (enc) {
    case 'utf8': {
      let n = 0;
      for (let i = 0; i < value.length; i++) {
        const c = value.charCodeAt(i);
        if (c < 0x80) n += 1;
        else if (c < 0x800) n += 2;
        else if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
          n += 4;
          i++;
        } else n += 3;
      }
      return n;
    }
    case 'utf16le': return value.length * 2;
    case 'latin1':
    case 'ascii': return value.length;
    case 'hex': return value.length >>> 1;
    default: {
      // base64 and base64url: Node counts from the length and the padding.
      let len = value.length;
      if (len > 0 && value.charCodeAt(len - 1) === 61) len--;
      if (len > 1 && value.charCodeAt(len - 1) === 61) len--;
      return (len * 3) >>> 2;
    }
  }
};

function bytesOf(v, name) {
  if (v instanceof Uint8Array) return v;
  throw invalidArg(name, 'an instance of Buffer or Uint8Array', v);
}

function compareBytes(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

Buffer.compare = (a, b) => compareBytes(bytesOf(a, 'buf1'), bytesOf(b, 'buf2'));

Buffer.concat = function concat(list, totalLength) {
  if (!Array.isArray(list)) throw invalidArg('list', 'an instance of Array', list);
  list.forEach((b, i) => bytesOf(b, `list[${i}]`));
  if (list.length === 0) return Buffer.alloc(0);
  const total = totalLength === undefined ? list.reduce((n, b) => n + b.length, 0) : totalLength >>> 0;
  const out = Buffer.alloc(total);
  let at = 0;
  for (const b of list) {
    if (at >= total) break;
    const part = b.length > total - at ? b.subarray(0, total - at) : b;
    out.set(part, at);
    at += part.length;
  }
  return out;
};

Buffer.copyBytesFrom = function copyBytesFrom(view, offset = 0, length) {
  if (!ArrayBuffer.isView(view)) throw invalidArg('view', 'an instance of TypedArray', view);
  const end = length === undefined ? view.length : offset + length;
  const part = view.subarray(offset, end);
  return wrap(new Uint8Array(part.buffer, part.byteOffset, part.byteLength).slice());
};

// ------------------------------------------------------------ prototype
const proto = Buffer.prototype;

function clampRange(len, start, end) {
  let s = start === undefined ? 0 : Math.trunc(Number(start)) || 0;
  let e = end === undefined ? len : Math.trunc(Number(end)) || 0;
  if (s < 0) s = 0;
  if (e > len) e = len;
  return [s, e];
}

proto.toString = function toString(encoding, start, end) {
  if (arguments.length === 0) return utf8Decoder.decode(this);
  // Node's order: the range (coerced as Node coerces it), then the encoding.
  const len = this.length;
  if (start <= 0) start = 0;
  else if (start >= len) return '';
  else start = Math.trunc(start) || 0;
  if (end === undefined || end > len) end = len;
  else end = Math.trunc(end) || 0;
  if (end <= start) return '';
  return decode(this.subarray(start, end), strictEncodingOf(encoding));
};
proto.toLocaleString = proto.toString;

// Node's deprecated views of a Buffer's memory; undefined on anything else
// (Buffer.prototype itself included).
for (const [name, get] of [['parent', (b) => b.buffer], ['offset', (b) => b.byteOffset]]) {
  Object.defineProperty(proto, name, {
    get() {
      return this instanceof Buffer ? get(this) : undefined;
    },
    enumerable: true,
    configurable: true,
  });
}

// `util.inspect` of a Buffer, as Node writes it: its first
// INSPECT_MAX_BYTES bytes in hex, then its own properties that are not
// indices (`inspect` is util's, which calls this).
proto[inspectCustom] = function (depth, ctx, inspect) {
  const shown = Math.min(INSPECT_MAX_BYTES, this.length);
  let str = Array.from(this.subarray(0, shown), (b) => b.toString(16).padStart(2, '0')).join(' ');
  const remaining = this.length - INSPECT_MAX_BYTES;
  if (remaining > 0) str += ` ... ${remaining} more byte${remaining > 1 ? 's' : ''}`;
  if (ctx && typeof inspect === 'function') {
    const keys = (ctx.showHidden ? Object.getOwnPropertyNames(this) : Object.keys(this)).filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
    if (keys.length > 0) {
      const extras = Object.create(null);
      for (const k of keys) extras[k] = this[k];
      // `[Object: null prototype] { a: 1 }` less its frame.
      if (this.length !== 0) str += ', ';
      str += inspect(extras, { ...ctx, breakLength: Infinity, compact: true }).slice(27, -2);
    }
  }
  return `<${this.constructor.name} ${str}>`;
};

proto.toJSON = function toJSON() {
  return { type: 'Buffer', data: Array.from(this) };
};

proto.equals = function equals(other) {
  return compareBytes(this, bytesOf(other, 'otherBuffer')) === 0;
};

proto.compare = function compare(target, targetStart, targetEnd, sourceStart, sourceEnd) {
  bytesOf(target, 'target');
  const bound = (value, name, fallback, max) => {
    if (value === undefined) return fallback;
    validateInteger(value, name, 0, max);
    return value;
  };
  targetStart = bound(targetStart, 'targetStart', 0, kMaxLength);
  targetEnd = bound(targetEnd, 'targetEnd', target.length, target.length);
  sourceStart = bound(sourceStart, 'sourceStart', 0, kMaxLength);
  sourceEnd = bound(sourceEnd, 'sourceEnd', this.length, this.length);
  if (sourceStart >= sourceEnd) return targetStart >= targetEnd ? 0 : -1;
  if (targetStart >= targetEnd) return 1;
  return compareBytes(this.subarray(sourceStart, sourceEnd), target.subarray(targetStart, targetEnd));
};

// Node's `toInteger`: a number in the safe range, floored; else `fallback`.
function integerOr(n, fallback) {
  n = +n;
  return !Number.isNaN(n) && n >= Number.MIN_SAFE_INTEGER && n <= Number.MAX_SAFE_INTEGER ? Math.floor(n) : fallback;
}

// Each bound undefined is its default; one given is made an integer, and a
// negative one is refused, as Node (and workerd) refuse it.
function copyBound(value, name, fallback, max = Infinity) {
  if (value === undefined) return fallback;
  const n = integerOr(value, 0);
  if (n < 0) throw outOfRange(name, '>= 0', n);
  if (n > max) throw outOfRange(name, `<= ${max}`, n);
  return n;
}

proto.copy = function copy(target, targetStart, sourceStart, sourceEnd) {
  bytesOf(target, 'target');
  targetStart = copyBound(targetStart, 'targetStart', 0);
  sourceStart = copyBound(sourceStart, 'sourceStart', 0, kMaxLength);
  sourceEnd = Math.min(this.length, copyBound(sourceEnd, 'sourceEnd', this.length));
  if (targetStart >= target.length || sourceStart >= sourceEnd) return 0;
  const n = Math.min(sourceEnd - sourceStart, target.length - targetStart);
  target.set(this.subarray(sourceStart, sourceStart + n), targetStart);
  return n;
};

// Node's slice is a view, as subarray is (not a copy, as Uint8Array's).
proto.slice = function slice(start, end) {
  return this.subarray(start, end);
};

// Node's per-encoding methods: `utf8Slice(start, end)` and
// `utf8Write(string, offset, length)`, for each encoding; the bounds are
// checked as the general ones check them.
for (const [name, enc] of [['utf8', 'utf8'], ['latin1', 'latin1'], ['ascii', 'ascii'], ['hex', 'hex'], ['base64', 'base64'], ['base64url', 'base64url'], ['ucs2', 'utf16le']]) {
  proto[`${name}Slice`] = function (start, end) {
    return proto.toString.call(this, enc, start, end);
  };
  proto[`${name}Write`] = function (string, offset, length) {
    return proto.write.call(this, string, offset ?? 0, length ?? this.length - (offset ?? 0), enc);
  };
}

proto.write = function write(string, offset, length, encoding) {
  if (typeof string !== 'string') throw invalidArg('argument', 'of type string', string);
  if (offset === undefined) {
    offset = 0;
  } else if (length === undefined && typeof offset === 'string') {
    encoding = offset;
    offset = 0;
  } else {
    validateInteger(offset, 'offset', 0, this.length);
    if (typeof length === 'string') {
      encoding = length;
      length = undefined;
    } else if (length !== undefined) {
      validateInteger(length, 'length', 0, this.length);
    }
  }
  const room = this.length - offset;
  length = length === undefined ? room : Math.min(room, length);
  const enc = strictEncodingOf(encoding);
  let bytes = encode(string, enc);
  if (bytes.length > length) {
    bytes = bytes.subarray(0, length);
    // A UTF-8 character that does not fit whole is not written at all.
    if (enc === 'utf8') {
      let end = length;
      let lead = end - 1;
      while (lead >= 0 && (bytes[lead] & 0xc0) === 0x80) lead--;
      if (lead >= 0) {
        const b = bytes[lead];
        const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
        if (lead + need > end) end = lead;
      }
      bytes = bytes.subarray(0, end);
    } else if (enc === 'utf16le') {
      bytes = bytes.subarray(0, length & ~1);
    }
  }
  this.set(bytes, offset);
  return bytes.length;
};

proto.fill = function fill(value, offset, end, encoding) {
  if (typeof value === 'string') {
    if (offset === undefined || typeof offset === 'string') {
      encoding = offset;
      offset = 0;
      end = this.length;
    } else if (typeof end === 'string') {
      encoding = end;
      end = this.length;
    }
    strictEncodingOf(encoding);
  }
  // The bounds as Node checks them: integers, `end` within the buffer.
  let s = 0;
  let e = this.length;
  if (offset !== undefined) {
    validateInteger(offset, 'offset', 0, kMaxLength);
    s = offset;
    if (end !== undefined) {
      validateInteger(end, 'end', 0, this.length);
      e = end;
    }
  }
  if (e <= s) return this;
  if (typeof value === 'number') {
    Uint8Array.prototype.fill.call(this, value & 255, s, e);
    return this;
  }
  if (typeof value === 'boolean') {
    Uint8Array.prototype.fill.call(this, Number(value), s, e);
    return this;
  }
  if (typeof value !== 'string' && !ArrayBuffer.isView(value)) {
    // Anything else is a byte, as Node's binding takes it.
    Uint8Array.prototype.fill.call(this, Number(value) & 255, s, e);
    return this;
  }
  const bytes = typeof value === 'string' ? encode(value, strictEncodingOf(encoding)) : bytesOf(value, 'value');
  if (bytes.length === 0) {
    if (typeof value === 'string' && value === '') {
      Uint8Array.prototype.fill.call(this, 0, s, e);
      return this;
    }
    const err = new TypeError(`The argument 'value' is invalid. Received '${value}'`);
    err.code = 'ERR_INVALID_ARG_VALUE';
    throw err;
  }
  for (let i = s; i < e; i++) this[i] = bytes[(i - s) % bytes.length];
  return this;
};

function needle(value, encoding) {
  if (typeof value === 'string') return encode(value, encodingOf(encoding));
  if (typeof value === 'number') return Uint8Array.of(value & 255);
  return bytesOf(value, 'value');
}

// Node's search: a string is encoded first; in UTF-16 both sides are
// read as 16-bit units, so a match starts at an even offset and a side of
// under two bytes matches nothing.
function search(buf, value, byteOffset, encoding, last) {
  if (typeof byteOffset === 'string') {
    encoding = byteOffset;
    byteOffset = undefined;
  }
  const pat = needle(value, encoding);
  let from = byteOffset === undefined || Number.isNaN(Number(byteOffset)) ? (last ? buf.length : 0) : Math.trunc(Number(byteOffset));
  if (from < 0) from += buf.length;
  if (pat.length === 0) return last ? Math.min(Math.max(from, 0), buf.length) : Math.min(Math.max(from, 0), buf.length);
  const wide = typeof value !== 'number' && encoding !== undefined && encodingOf(encoding) === 'utf16le';
  const step = wide ? 2 : 1;
  if (wide) {
    if (buf.length < 2 || pat.length < 2) return -1;
    from -= from % 2;
  }
  const patLength = wide ? pat.length - (pat.length % 2) : pat.length;
  const matchesAt = (i) => {
    let j = 0;
    while (j < patLength && buf[i + j] === pat[j]) j++;
    return j === patLength;
  };
  if (last) {
    let i = Math.min(from, buf.length - patLength);
    if (wide) i -= i % 2;
    for (; i >= 0; i -= step) if (matchesAt(i)) return i;
    return -1;
  }
  for (let i = Math.max(from, 0); i + patLength <= buf.length; i += step) if (matchesAt(i)) return i;
  return -1;
}
proto.indexOf = function indexOf(value, byteOffset, encoding) {
  return search(this, value, byteOffset, encoding, false);
};
proto.lastIndexOf = function lastIndexOf(value, byteOffset, encoding) {
  return search(this, value, byteOffset, encoding, true);
};
proto.includes = function includes(value, byteOffset, encoding) {
  return search(this, value, byteOffset, encoding, false) !== -1;
};

function swap(buf, size) {
  if (buf.length % size !== 0) {
    const err = new RangeError(`Buffer size must be a multiple of ${size * 8}-bits`);
    err.code = 'ERR_INVALID_BUFFER_SIZE';
    throw err;
  }
  for (let i = 0; i < buf.length; i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = buf[a];
      buf[a] = buf[b];
      buf[b] = t;
    }
  }
  return buf;
}
proto.swap16 = function swap16() { return swap(this, 2); };
proto.swap32 = function swap32() { return swap(this, 4); };
proto.swap64 = function swap64() { return swap(this, 8); };

// ----------------------------------------------------- numbers in bytes
function view(buf) {
  return new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
}
function checkOffset(buf, offset, size) {
  if (offset === undefined) offset = 0;
  if (typeof offset !== 'number') throw invalidArg('offset', 'of type number', offset);
  if (Math.floor(offset) !== offset) throw outOfRange('offset', 'an integer', offset);
  if (offset < 0 || offset + size > buf.length) {
    const err = new RangeError(buf.length - size < 0
      ? 'Attempt to access memory outside buffer bounds'
      : `The value of "offset" is out of range. It must be >= 0 and <= ${buf.length - size}. Received ${offset}`);
    err.code = buf.length - size < 0 ? 'ERR_BUFFER_OUT_OF_BOUNDS' : 'ERR_OUT_OF_RANGE';
    throw err;
  }
  return offset;
}
// A value for `size` bytes: Node says a range of more than three bytes
// as a power of two.
function checkValue(value, min, max, size) {
  const ok = typeof value === 'bigint' ? value >= min && value <= max : value >= Number(min) && value <= Number(max);
  if (!ok) {
    const n = typeof min === 'bigint' ? 'n' : '';
    let range = `>= ${min}${n} and <= ${max}${n}`;
    if (size > 4) {
      range = min === 0 || min === 0n
        ? `>= 0${n} and < 2${n} ** ${size * 8}${n}`
        : `>= -(2${n} ** ${size * 8 - 1}${n}) and < 2 ** ${size * 8 - 1}${n}`;
    }
    throw outOfRange('value', range, value);
  }
}

const FIXED = [
  // name, size, DataView getter/setter, min, max
  ['UInt8', 1, 'Uint8', 0, 0xff],
  ['Int8', 1, 'Int8', -0x80, 0x7f],
  ['UInt16', 2, 'Uint16', 0, 0xffff],
  ['Int16', 2, 'Int16', -0x8000, 0x7fff],
  ['UInt32', 4, 'Uint32', 0, 0xffffffff],
  ['Int32', 4, 'Int32', -0x80000000, 0x7fffffff],
  ['Float', 4, 'Float32', -Infinity, Infinity],
  ['Double', 8, 'Float64', -Infinity, Infinity],
  ['BigUInt64', 8, 'BigUint64', 0n, 2n ** 64n - 1n],
  ['BigInt64', 8, 'BigInt64', -(2n ** 63n), 2n ** 63n - 1n],
];
for (const [name, size, dv, min, max] of FIXED) {
  const ends = size === 1 ? [['', false]] : [['LE', true], ['BE', false]];
  const float = name === 'Float' || name === 'Double';
  for (const [suffix, little] of ends) {
    const read = function (offset) {
      offset = checkOffset(this, offset, size);
      return view(this)[`get${dv}`](offset, little);
    };
    const write = function (value, offset) {
      offset = checkOffset(this, offset, size);
      if (typeof min === 'bigint') {
        if (typeof value !== 'bigint') throw new TypeError('Cannot mix BigInt and other types, use explicit conversions');
        checkValue(value, min, max, size);
      } else if (!float) {
        value = Number(value);
        checkValue(value, min, max, size);
      }
      view(this)[`set${dv}`](offset, float ? Number(value) : value, little);
      return offset + size;
    };
    for (const n of new Set([name, name.replace('UInt', 'Uint')])) {
      proto[`read${n}${suffix}`] = read;
      proto[`write${n}${suffix}`] = write;
    }
  }
}

// Integers of 1 to 6 bytes.
function checkByteLength(byteLength) {
  if (!Number.isInteger(byteLength) || byteLength < 1 || byteLength > 6) {
    const err = new RangeError(`The value of "byteLength" is out of range. It must be >= 1 and <= 6. Received ${byteLength}`);
    err.code = 'ERR_OUT_OF_RANGE';
    throw err;
  }
}
function readVar(buf, offset, byteLength, little, signed) {
  if (offset === undefined) throw invalidArg('offset', 'of type number', offset);
  checkByteLength(byteLength);
  offset = checkOffset(buf, offset, byteLength);
  let n = 0;
  for (let i = 0; i < byteLength; i++) {
    n = n * 256 + buf[offset + (little ? byteLength - 1 - i : i)];
  }
  const top = 2 ** (8 * byteLength);
  return signed && n >= top / 2 ? n - top : n;
}
function writeVar(buf, value, offset, byteLength, little, signed) {
  if (offset === undefined) throw invalidArg('offset', 'of type number', offset);
  checkByteLength(byteLength);
  offset = checkOffset(buf, offset, byteLength);
  const top = 2 ** (8 * byteLength);
  value = Number(value);
  const [min, max] = signed ? [-top / 2, top / 2 - 1] : [0, top - 1];
  checkValue(value, min, max, byteLength);
  let n = value < 0 ? value + top : value;
  for (let i = 0; i < byteLength; i++) {
    buf[offset + (little ? i : byteLength - 1 - i)] = n % 256;
    n = Math.floor(n / 256);
  }
  return offset + byteLength;
}
for (const [suffix, little] of [['LE', true], ['BE', false]]) {
  for (const [names, signed] of [[['UInt', 'Uint'], false], [['Int'], true]]) {
    // One function under both spellings, as Node's (`readUIntLE === readUintLE`).
    const read = function (offset, byteLength) {
      return readVar(this, offset, byteLength, little, signed);
    };
    const write = function (value, offset, byteLength) {
      return writeVar(this, value, offset, byteLength, little, signed);
    };
    for (const name of names) {
      proto[`read${name}${suffix}`] = read;
      proto[`write${name}${suffix}`] = write;
    }
  }
}

// ------------------------------------------------------------ the rest
export const SlowBuffer = Buffer.allocUnsafeSlow;

// The bytes of what isUtf8 and isAscii take: a typed array, a DataView or
// an ArrayBuffer, not detached.
function inputBytes(input) {
  const isBuffer = input instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer);
  if (!ArrayBuffer.isView(input) && !isBuffer) {
    throw invalidArg('input', 'an instance of ArrayBuffer, Buffer, or TypedArray', input);
  }
  const buffer = isBuffer ? input : input.buffer;
  if (buffer.detached) {
    const err = new Error('Cannot validate on a detached buffer');
    err.code = 'ERR_INVALID_STATE';
    throw err;
  }
  return isBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
}

export function isUtf8(input) {
  const bytes = inputBytes(input);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch (_) {
    return false;
  }
}
export function isAscii(input) {
  return inputBytes(input).every((b) => b < 128);
}
// `transcode` as `workerd`'s: between ASCII, Latin-1, UTF-16LE and UTF-8
// only; a character the target cannot hold becomes `?`; bytes that are
// not UTF-8 become U+FFFD, except on the way to UTF-16LE, where they are
// an error, as is UTF-16LE of an odd length. `workerd` refuses a result
// that could pass 128 MiB (the isolate's memory), said the same here.
const TRANSCODE_LIMIT = 134217728;
const MAX_CHAR_SIZE = { ascii: 1, latin1: 1, utf16le: 2, utf8: 3 };
export function transcode(source, fromEnc, toEnc) {
  if (!(source instanceof Uint8Array)) throw invalidArg('source', 'an instance of Buffer or Uint8Array', source);
  const from = encodingOf(fromEnc);
  const to = encodingOf(toEnc);
  if (!MAX_CHAR_SIZE[from] || !MAX_CHAR_SIZE[to]) throw new Error('Unable to transcode buffer due to unsupported encoding');
  if (source.length === 0) return Buffer.alloc(0);
  const tooLarge = (size, message) => {
    if (size > TRANSCODE_LIMIT) throw new Error(message);
  };
  let text;
  if (from === 'utf16le') {
    if (source.length % 2 !== 0) throw new Error('UTF-16le input size should be multiple of 2');
    const count = source.length / 2;
    if (to === 'utf8') {
      // The UTF-8 length first, from the units, before anything is made;
      // a lone surrogate has no UTF-8.
      let size = 0;
      for (let i = 0; i < count; i++) {
        const u = source[2 * i] | (source[2 * i + 1] << 8);
        if (u < 0x80) size += 1;
        else if (u < 0x800) size += 2;
        else if (u >= 0xd800 && u <= 0xdbff) {
          const next = i + 1 < count ? source[2 * i + 2] | (source[2 * i + 3] << 8) : 0;
          if (next < 0xdc00 || next > 0xdfff) throw new Error('Unable to transcode buffer');
          size += 4;
          i++;
        } else if (u >= 0xdc00 && u <= 0xdfff) throw new Error('Unable to transcode buffer');
        else size += 3;
      }
      tooLarge(size, 'Expected UTF-8 length is too large to transcode');
    } else {
      tooLarge(count * MAX_CHAR_SIZE[to], 'Buffer is too large to transcode');
    }
    text = decode(source, 'utf16le');
  } else if (to === 'utf16le') {
    if (from === 'utf8') {
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(source);
      } catch {
        throw new Error('Unable to transcode buffer');
      }
      tooLarge(text.length, 'Expected UTF-16le length is too large to transcode');
    } else {
      tooLarge(source.length * 2, 'Source buffer is too large to transcode');
      text = decode(source, 'latin1');
    }
  } else {
    tooLarge(source.length * MAX_CHAR_SIZE[to], 'Source buffer is too large to transcode');
    text = from === 'utf8' ? new TextDecoder('utf-8', { ignoreBOM: true }).decode(source)
      : from === 'ascii' ? decode(source, 'latin1').replace(/[\x80-\xff]/g, '\ufffd')
      : decode(source, 'latin1');
  }
  if (to === 'latin1' || to === 'ascii') {
    const top = to === 'latin1' ? 0xff : 0x7f;
    const out = [];
    for (const c of text) {
      const code = c.codePointAt(0);
      out.push(code <= top ? code : 0x3f);
    }
    return wrap(Uint8Array.from(out));
  }
  return Buffer.from(text, to);
}

export const atob = globalThis.atob;
export const btoa = globalThis.btoa;
export const Blob = globalThis.Blob;
export const File = globalThis.File;

export default { Buffer, SlowBuffer, kMaxLength, kStringMaxLength, constants, INSPECT_MAX_BYTES, isUtf8, isAscii, transcode, atob, btoa, Blob, File };
