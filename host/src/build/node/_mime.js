// `util.MIMEType` and `util.MIMEParams`: a MIME type as the MIME Sniffing
// standard parses and serializes it (type and subtype lowercased, each
// parameter's name lowercased and its first value kept), as `workerd` has
// them; as there, a `boundary` parameter is written after a space (the
// HTML standard's form bodies). A string that is not a MIME type, and a
// name or value that cannot be one, is `ERR_INVALID_MIME_SYNTAX`.

import { codedError } from './_errors.js';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const QUOTED_TOKEN = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;
const WHITESPACE = /[\t\n\r ]/;

function syntax(what, input, at) {
  return codedError(TypeError, 'ERR_INVALID_MIME_SYNTAX', `The MIME syntax for a ${what} in "${input}" is invalid${at === -1 ? '' : ` at ${at}`}`);
}

const trim = (s) => s.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');

// A quoted string's value from `at` (on its opening quote): [value, the
// index after it].
function quoted(input, at) {
  let value = '';
  let i = at + 1;
  while (i < input.length) {
    const c = input[i];
    if (c === '"') return [value, i + 1];
    if (c === '\\') {
      i++;
      if (i >= input.length) {
        value += '\\';
        break;
      }
    }
    value += input[i];
    i++;
  }
  return [value, i];
}

function parseParams(input, at, params) {
  let i = at;
  while (i < input.length) {
    i++; // the `;`
    while (i < input.length && WHITESPACE.test(input[i])) i++;
    let end = i;
    while (end < input.length && input[end] !== ';' && input[end] !== '=') end++;
    const name = input.slice(i, end).toLowerCase();
    i = end;
    if (i < input.length) {
      if (input[i] === ';') continue;
      i++; // the `=`
    }
    if (i >= input.length) break;
    let value;
    if (input[i] === '"') {
      [value, i] = quoted(input, i);
      while (i < input.length && input[i] !== ';') i++;
    } else {
      end = i;
      while (end < input.length && input[end] !== ';') end++;
      value = input.slice(i, end).replace(/[\t\n\r ]+$/, '');
      i = end;
      if (value === '') continue;
    }
    if (name !== '' && TOKEN.test(name) && QUOTED_TOKEN.test(value) && !params.has(name)) params.set(name, value);
  }
}

// A type or subtype that is set: a token, lowercased.
function token(v, what) {
  const t = `${v}`;
  if (!TOKEN.test(t)) throw syntax(what, t, -1);
  return t.toLowerCase();
}

function serialize(value) {
  if (value !== '' && TOKEN.test(value)) return value;
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

export class MIMEParams {
  #map = new Map();

  get(name) {
    const v = this.#map.get(`${name}`.toLowerCase());
    return v === undefined ? null : v;
  }
  has(name) {
    return this.#map.has(`${name}`.toLowerCase());
  }
  set(name, value) {
    const n = `${name}`;
    const v = `${value}`;
    if (!TOKEN.test(n)) throw syntax('parameter name', n, -1);
    if (!QUOTED_TOKEN.test(v)) throw syntax('parameter value', v, -1);
    this.#map.set(n.toLowerCase(), v);
  }
  delete(name) {
    this.#map.delete(`${name}`.toLowerCase());
  }
  entries() {
    return this.#map.entries();
  }
  keys() {
    return this.#map.keys();
  }
  values() {
    return this.#map.values();
  }
  [Symbol.iterator]() {
    return this.#map.entries();
  }
  toString() {
    return [...this.#map].map(([k, v]) => `${k === 'boundary' ? ' ' : ''}${k}=${serialize(v)}`).join(';');
  }
  toJSON() {
    return this.toString();
  }
}

export class MIMEType {
  #type;
  #subtype;
  #params = new MIMEParams();

  constructor(input) {
    const text = trim(`${input}`);
    const slash = text.indexOf('/');
    const type = slash === -1 ? text : text.slice(0, slash);
    if (slash === -1 || type === '' || !TOKEN.test(type)) throw syntax('type', text, slash === -1 ? text.length : 0);
    let end = slash + 1;
    while (end < text.length && text[end] !== ';') end++;
    const subtype = text.slice(slash + 1, end).replace(/[\t\n\r ]+$/, '');
    if (subtype === '' || !TOKEN.test(subtype)) throw syntax('subtype', text, slash + 1);
    this.#type = type.toLowerCase();
    this.#subtype = subtype.toLowerCase();
    const parsed = new Map();
    parseParams(text, end, parsed);
    for (const [k, v] of parsed) this.#params.set(k, v);
  }

  get type() {
    return this.#type;
  }
  set type(v) {
    this.#type = token(v, 'type');
  }
  get subtype() {
    return this.#subtype;
  }
  set subtype(v) {
    this.#subtype = token(v, 'subtype');
  }
  get essence() {
    return `${this.#type}/${this.#subtype}`;
  }
  get params() {
    return this.#params;
  }
  toString() {
    const params = this.#params.toString();
    return params === '' ? this.essence : `${this.essence};${params}`;
  }
  toJSON() {
    return this.toString();
  }
}
