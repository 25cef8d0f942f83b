// `node:querystring` as `ssr build` resolves it (build/bundle.rs): Node's
// legacy query-string codec (`+` is a space, repeated keys make arrays).
import { codedError } from './_errors.js';
import { Buffer } from './buffer.js';

// Node escapes as `encodeURIComponent` does, but for a string that is not
// well formed: there a surrogate takes the next code unit as its pair,
// whatever that is (`'\uD801t'` is U+10474), and only one at the end is
// `URIError [ERR_INVALID_URI]: URI malformed`.
export function escape(str) {
  // An object by String(); anything else as `+ ''` (a symbol throws).
  const text = typeof str === 'string' ? str : typeof str === 'object' ? String(str) : `${str}`;
  try {
    return encodeURIComponent(text);
  } catch (_) {
    // Not well formed: Node's pairing, a code unit at a time.
  }
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c >= 0xe000) {
      out += encodeURIComponent(text[i]);
      continue;
    }
    i++;
    if (i >= text.length) throw codedError(URIError, 'ERR_INVALID_URI', 'URI malformed');
    out += encodeURIComponent(String.fromCodePoint(0x10000 + (((c & 0x3ff) << 10) | (text.charCodeAt(i) & 0x3ff))));
  }
  return out;
}

// Invalid percent-escapes stay as they are, byte by byte, as Node's do.
export function unescape(str) {
  try {
    return decodeURIComponent(str);
  } catch (_) {
    return str.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
      const bytes = run.match(/%[0-9a-fA-F]{2}/g).map((h) => parseInt(h.slice(1), 16));
      return new TextDecoder().decode(new Uint8Array(bytes));
    });
  }
}

// The bytes a query string's text stands for, as Node's: `%XX` is a byte,
// `+` a space where asked, any other character its code unit's low byte.
export function unescapeBuffer(s, decodeSpaces) {
  const text = String(s);
  const out = Buffer.alloc(text.length);
  let n = 0;
  const hex = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 43 && decodeSpaces) {
      out[n++] = 32;
    } else if (c === 37 && i + 2 < text.length && hex(text.charCodeAt(i + 1)) >= 0 && hex(text.charCodeAt(i + 2)) >= 0) {
      out[n++] = hex(text.charCodeAt(i + 1)) * 16 + hex(text.charCodeAt(i + 2));
      i += 2;
    } else {
      out[n++] = c & 0xff;
    }
  }
  return out.subarray(0, n);
}

function stringifyPrimitive(v) {
  if (typeof v === 'string') return v;
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return '';
}

export function stringify(obj, sep, eq, options) {
  // As Node: an empty or null separator is the default one.
  sep = sep || '&';
  eq = eq || '=';
  const enc = (options && options.encodeURIComponent) || escape;
  if (obj === null || typeof obj !== 'object') return '';
  const out = [];
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    const k = enc(stringifyPrimitive(key)) + eq;
    if (Array.isArray(v)) {
      for (const item of v) out.push(k + enc(stringifyPrimitive(item)));
    } else {
      out.push(k + enc(stringifyPrimitive(v)));
    }
  }
  return out.join(sep);
}

export function parse(qs, sep = '&', eq = '=', options) {
  const out = Object.create(null);
  if (typeof qs !== 'string' || qs.length === 0) return out;
  sep = sep || '&';
  eq = eq || '=';
  const maxKeys = options && typeof options.maxKeys === 'number' ? options.maxKeys : 1000;
  const dec = (options && options.decodeURIComponent) || unescape;
  let pairs = qs.split(sep);
  if (maxKeys > 0) pairs = pairs.slice(0, maxKeys);
  for (const pair of pairs) {
    if (pair === '') continue;
    const at = pair.indexOf(eq);
    const rawKey = at === -1 ? pair : pair.slice(0, at);
    const rawValue = at === -1 ? '' : pair.slice(at + eq.length);
    const decode = (s) => {
      const plain = s.replace(/\+/g, ' ');
      try {
        return dec(plain);
      } catch (_) {
        return unescape(plain);
      }
    };
    const key = decode(rawKey);
    const value = decode(rawValue);
    if (!(key in out)) out[key] = value;
    else if (Array.isArray(out[key])) out[key].push(value);
    else out[key] = [out[key], value];
  }
  return out;
}

export const decode = parse;
export const encode = stringify;
export default { escape, unescape, unescapeBuffer, stringify, parse, decode, encode };
