// `node:util` as `ssr build` resolves it (build/bundle.rs): promisify,
// format, inspect, types and the rest frameworks reach for.
//
// `inspect` lays values out as Node's does for what a log line usually
// holds: quoting, nesting (`depth` 2), `[Circular *1]`, one line when it
// fits in 80 columns and at most three levels nest, else two spaces of
// indentation per level. It does not group long arrays of numbers into
// columns, and it has no colors.
import { Buffer } from './buffer.js';
import { codedError, groupDigits, invalidArgType, invalidArgValue, outOfRange, validateFunction, validateString } from './_errors.js';
import { isDeepStrictEqual } from './_comparisons.js';
import { MIMEParams, MIMEType } from './_mime.js';

const inspectCustom = Symbol.for('nodejs.util.inspect.custom');
const promisifyCustom = Symbol.for('nodejs.util.promisify.custom');

// ------------------------------------------------------------------ types
const tag = (v) => Object.prototype.toString.call(v).slice(8, -1);
export { default as types } from './util-types.js';
import types from './util-types.js';

// --------------------------------------------------------------- inspect
const DEFAULTS = { depth: 2, breakLength: 80, maxArrayLength: 100, maxStringLength: 10000, compact: 3, sorted: false, showHidden: false, colors: false, getters: false, customInspect: true, numericSeparator: false };

function quote(s) {
  const q = !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes('`') && !s.includes('${') ? '`' : "'";
  const escaped = s.replace(/[\x00-\x1f\x7f\\]|'/g, (c) => {
    if (c === q) return `\\${c}`;
    if (c === "'") return c;
    const named = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\\': '\\\\' }[c];
    return named || `\\x${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`;
  });
  return q + escaped + q;
}

function key(k) {
  if (typeof k === 'symbol') return `[${k.toString()}]`;
  return /^[a-zA-Z_$][a-zA-Z_$0-9]*$/.test(k) ? k : quote(k);
}

function fnBase(fn) {
  const src = Function.prototype.toString.call(fn);
  const name = fn.name;
  if (src.startsWith('class') && /^class[\s{]/.test(src)) {
    const ext = /^class\s*[^{]*?\bextends\s+([\w$.]+)/.exec(src);
    return `[class ${name || '(anonymous)'}${ext ? ` extends ${ext[1]}` : ''}]`;
  }
  const kind = tag(fn) === 'Function' ? 'Function' : tag(fn);
  return `[${kind}${name ? `: ${name}` : ' (anonymous)'}]`;
}

function primitive(v, ctx) {
  switch (typeof v) {
    case 'string': {
      const cut = v.length > ctx.maxStringLength ? v.slice(0, ctx.maxStringLength) : v;
      const more = v.length - cut.length;
      return quote(cut) + (more > 0 ? `... ${more} more character${more > 1 ? 's' : ''}` : '');
    }
    case 'number': return formatNumber(v, ctx.numericSeparator);
    case 'bigint': return formatBigInt(v, ctx.numericSeparator);
    case 'symbol': return v.toString();
    case 'undefined': return 'undefined';
    case 'boolean': return String(v);
    default: return v === null ? 'null' : undefined;
  }
}

function ctorName(v) {
  let proto = Object.getPrototypeOf(v);
  while (proto !== null) {
    const d = Object.getOwnPropertyDescriptor(proto, 'constructor');
    if (d && typeof d.value === 'function' && d.value.name !== '') return d.value.name;
    proto = Object.getPrototypeOf(proto);
  }
  return null;
}

function prefix(v, fallback, size) {
  const name = ctorName(v);
  const t = v[Symbol.toStringTag];
  const tagPart = typeof t === 'string' && t !== '' && t !== name ? ` [${t}]` : '';
  const sizePart = size === undefined ? '' : `(${size})`;
  if (name === null) return `[${fallback}${sizePart}: null prototype]${tagPart} `;
  if (name === fallback && sizePart === '' && tagPart === '') return fallback === 'Object' || fallback === 'Array' ? '' : `${name} `;
  return `${name}${sizePart}${tagPart} `;
}

function formatValue(v, ctx, depth) {
  const p = primitive(v, ctx);
  if (p !== undefined) return { text: p, nest: -1 };
  if (ctx.customInspect && v !== null && typeof v[inspectCustom] === 'function' && v[inspectCustom] !== inspect) {
    const out = v[inspectCustom](ctx.depth - depth, Object.assign({}, ctx, { stylize: (s) => s }), inspect);
    if (out !== v) return typeof out === 'string' ? { text: out, nest: -1 } : formatValue(out, ctx, depth);
  }
  if (ctx.seen.includes(v)) {
    if (!ctx.circular.has(v)) ctx.circular.set(v, ctx.circular.size + 1);
    return { text: `[Circular *${ctx.circular.get(v)}]`, nest: -1 };
  }
  return formatObject(v, ctx, depth);
}

// Whether `proto` is a built-in's prototype (`Object.prototype`,
// `Map.prototype`...): its properties are not shown as an instance's.
function isBuiltinPrototype(proto) {
  const d = Object.getOwnPropertyDescriptor(proto, 'constructor');
  const ctor = d && d.value;
  return typeof ctor !== 'function' || (ctor.name !== '' && globalThis[ctor.name] === ctor);
}

// One property as Node shows it: its value, or for an accessor `[Getter]`,
// `[Setter]` or `[Getter/Setter]`, with the getter's value where the
// `getters` option asks (`true`, `'get'` for getters alone, `'set'` for
// those with a setter). `holder` has the property (an instance's
// prototype for a hidden one); a getter runs on `v`.
function property(v, k, name, child, ctx, holder = v) {
  const d = Object.getOwnPropertyDescriptor(holder, k);
  if (d === undefined || !('get' in d || 'set' in d)) {
    const step = ctx.compact === true ? 3 : 2;
    const text = child(d === undefined ? v[k] : d.value, step);
    // Under `compact: true`, a value wider than a line starts on the next.
    if (ctx.compact === true && text.replace(/\n/g, '').length > ctx.breakLength) return `${name}:\n${' '.repeat(ctx.lvl + step)}${text}`;
    return `${name}: ${text}`;
  }
  const kind = d.get && d.set ? 'Getter/Setter' : d.get ? 'Getter' : 'Setter';
  const run = d.get && (ctx.getters === true || (ctx.getters === 'get' && !d.set) || (ctx.getters === 'set' && d.set));
  if (!run) return `${name}: [${kind}]`;
  let value;
  try {
    value = d.get.call(v);
  } catch (e) {
    return `${name}: [${kind}: <Inspection threw (${e && e.message})>]`;
  }
  if (value !== null && (typeof value === 'object' || typeof value === 'function')) return `${name}: [${kind}] ${child(value)}`;
  return `${name}: [${kind}: ${child(value)}]`;
}

function formatObject(v, ctx, depth) {
  let base = '';
  let braces = ['{', '}'];
  let entries = [];
  let keys = Object.keys(v);
  let isArrayLike = false;
  if (typeof v === 'function') {
    base = fnBase(v);
    keys = keys.filter((k) => k !== 'prototype');
    if (keys.length === 0) return { text: base, nest: 0 };
  } else if (Array.isArray(v)) {
    isArrayLike = true;
    braces = [`${prefix(v, 'Array', v.length === 0 ? undefined : undefined)}[`, ']'];
    keys = keys.filter((k) => !/^(0|[1-9][0-9]*)$/.test(k) || Number(k) >= v.length);
  } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    isArrayLike = true;
    braces = [`${prefix(v, v[Symbol.toStringTag], v.length)}[`, ']'];
    keys = keys.filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
  } else if (v instanceof Map) {
    braces = [`${prefix(v, 'Map', v.size)}{`, '}'];
  } else if (v instanceof Set) {
    braces = [`${prefix(v, 'Set', v.size)}{`, '}'];
  } else if (v instanceof Date) {
    base = Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
    if (keys.length === 0) return { text: base, nest: 0 };
  } else if (v instanceof RegExp) {
    base = RegExp.prototype.toString.call(v);
    if (keys.length === 0) return { text: base, nest: 0 };
  } else if (v instanceof Error) {
    base = typeof v.stack === 'string' && v.stack.includes(v.message) ? v.stack : `${v.name}: ${v.message}${typeof v.stack === 'string' && v.stack !== '' ? `\n${v.stack.replace(/\n$/, '')}` : ''}`;
    if (base === `${v.name}: ` || base === '') base = `[${v.name}]`;
    // Nested, its lines start where the property's value does, as Node's.
    if (ctx.lvl > 0) base = base.replace(/\n/g, `\n${' '.repeat(ctx.lvl)}`);
    keys = keys.filter((k) => k !== 'stack' && k !== 'message');
    if (v.cause !== undefined && !keys.includes('cause')) keys.push('cause');
    if (keys.length === 0) return { text: base, nest: 0 };
  } else if (v instanceof Promise) {
    braces = ['Promise {', '}'];
    entries.push('<pending>');
  } else if (v instanceof WeakMap || v instanceof WeakSet) {
    return { text: `${ctorName(v)} { <items unknown> }`, nest: 0 };
  } else if (v instanceof ArrayBuffer) {
    const bytes = new Uint8Array(v);
    const hex = Array.from(bytes.subarray(0, 50), (b) => b.toString(16).padStart(2, '0')).join(' ');
    entries.push(`[Uint8Contents]: <${hex}${bytes.length > 50 ? ` ... ${bytes.length - 50} more bytes` : ''}>`, `byteLength: ${v.byteLength}`);
    braces = ['ArrayBuffer {', '}'];
  } else if (v instanceof Number || v instanceof String || v instanceof Boolean) {
    const inner = primitive(v.valueOf(), ctx);
    base = `[${v instanceof Number ? 'Number' : v instanceof String ? 'String' : 'Boolean'}: ${inner}]`;
    if (v instanceof String) keys = keys.filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
    if (keys.length === 0) return { text: base, nest: 0 };
  } else {
    const p = prefix(v, 'Object');
    braces = [`${p}{`, '}'];
  }
  if (depth > ctx.depth) {
    const name = ctorName(v) || 'Object';
    return { text: Array.isArray(v) ? '[Array]' : `[${name}]`, nest: -1 };
  }
  ctx.seen.push(v);
  // How many levels of objects nest below this one (0: none).
  let nest = 0;
  // A nested value, formatted where it will stand: `step` columns in
  // (Node's indentation: 2 a level, 3 for a property's value under
  // `compact: true`).
  const child = (x, step = 2) => {
    ctx.lvl += step;
    const r = formatValue(x, ctx, depth + 1);
    ctx.lvl -= step;
    nest = Math.max(nest, r.nest + 1);
    return r.text;
  };
  if (Array.isArray(v) || (isArrayLike && !(v instanceof ArrayBuffer))) {
    const shown = Math.min(v.length, ctx.maxArrayLength);
    let holes = 0;
    const flushHoles = () => {
      if (holes > 0) entries.push(`<${holes} empty item${holes > 1 ? 's' : ''}>`);
      holes = 0;
    };
    for (let i = 0; i < shown; i++) {
      if (Array.isArray(v) && !Object.prototype.hasOwnProperty.call(v, i)) {
        holes++;
        continue;
      }
      flushHoles();
      entries.push(Array.isArray(v) ? child(v[i]) : primitive(v[i], ctx));
    }
    flushHoles();
    if (ctx.showHidden && Array.isArray(v)) keys.unshift('[length]');
    if (v.length > shown) entries.push(`... ${v.length - shown} more item${v.length - shown > 1 ? 's' : ''}`);
  } else if (v instanceof Map) {
    for (const [k, x] of v) entries.push(`${child(k)} => ${child(x)}`);
  } else if (v instanceof Set) {
    for (const x of v) entries.push(child(x));
  }
  for (const k of keys) entries.push(k === '[length]' ? `[length]: ${v.length}` : property(v, k, key(k), child, ctx));
  for (const s of Object.getOwnPropertySymbols(v)) {
    const hidden = !Object.prototype.propertyIsEnumerable.call(v, s);
    if (!hidden || ctx.showHidden) entries.push(property(v, s, hidden ? `[${key(s)}]` : key(s), child, ctx));
  }
  if (ctx.showHidden && typeof v === 'object' && !isArrayLike) {
    // Non-enumerable own properties, then those a class instance's
    // prototypes add (not a built-in's), each in brackets, as Node shows.
    const shownKeys = new Set(keys);
    for (const k of Object.getOwnPropertyNames(v)) {
      if (!shownKeys.has(k) && !Object.prototype.propertyIsEnumerable.call(v, k) && !(v instanceof Error && (k === 'stack' || k === 'message'))) {
        shownKeys.add(k);
        entries.push(property(v, k, `[${key(k)}]`, child, ctx));
      }
    }
    for (let proto = Object.getPrototypeOf(v); proto !== null && !isBuiltinPrototype(proto); proto = Object.getPrototypeOf(proto)) {
      for (const k of Object.getOwnPropertyNames(proto)) {
        if (k === 'constructor' || shownKeys.has(k)) continue;
        shownKeys.add(k);
        entries.push(property(v, k, `[${key(k)}]`, child, ctx, proto));
      }
    }
  }
  ctx.seen.pop();
  if (ctx.sorted) entries.sort(typeof ctx.sorted === 'function' ? ctx.sorted : undefined);
  if (ctx.circular.has(v)) {
    const ref = `<ref *${ctx.circular.get(v)}> `;
    if (base !== '') base = ref + base;
    else braces[0] = ref + braces[0];
  }
  const head = base === '' ? braces[0] : `${base} ${braces[0]}`;
  if (entries.length === 0) {
    return { text: base !== '' && braces[0] === '{' ? base : `${head}${braces[1]}`, nest };
  }
  const indent = ' '.repeat(ctx.lvl);
  const oneLine = `${head} ${entries.join(', ')} ${braces[1]}`;
  const width = entries.reduce((n, e) => n + e.length, entries.length) + head.length + indent.length + 10;
  if (ctx.compact === true) {
    // Node's `compact: true`: the base inside the braces; one line when
    // the entries fit, else each on a line of its own, the first beside
    // a one-character brace.
    const total = entries.reduce((n, e) => n + e.length, entries.length);
    const inner = base === '' ? '' : ` ${base}`;
    if (2 * entries.length <= ctx.breakLength && total <= ctx.breakLength && !base.includes('\n')) return { text: `${braces[0]}${inner} ${entries.join(', ')} ${braces[1]}`, nest };
    const first = base === '' && braces[0].length === 1 ? ' ' : `${inner}\n${indent}  `;
    return { text: `${braces[0]}${first}${entries.join(`,\n${indent}  `)} ${braces[1]}`, nest };
  }
  if (nest < ctx.compact && width <= ctx.breakLength && !oneLine.includes('\n')) return { text: oneLine, nest };
  return { text: `${head}\n${indent}  ${entries.join(`,\n${indent}  `)}\n${indent}${braces[1]}`, nest };
}

export function inspect(value, opts) {
  const ctx = Object.assign({}, DEFAULTS, inspect.defaultOptions);
  if (typeof opts === 'boolean') ctx.showHidden = opts;
  else if (opts !== null && typeof opts === 'object') Object.assign(ctx, opts);
  if (arguments.length > 2 && arguments[2] !== undefined) ctx.depth = arguments[2];
  if (ctx.depth === null) ctx.depth = Infinity;
  ctx.seen = [];
  ctx.circular = new Map();
  ctx.lvl = 0;
  return formatValue(value, ctx, 0).text;
}
inspect.custom = inspectCustom;
inspect.defaultOptions = {};

// ---------------------------------------------------------------- format
function formatWith(opts, args) {
  const first = args[0];
  const separated = !!((opts && opts.numericSeparator) ?? inspect.defaultOptions.numericSeparator);
  let out = '';
  let next = 1;
  if (typeof first === 'string') {
    if (args.length === 1) return first;
    let last = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const c = first[i + 1];
      if (c === '%') {
        out += first.slice(last, i) + '%';
        last = i + 2;
        i++;
        continue;
      }
      if (next >= args.length || !'sdifjoOc'.includes(c)) continue;
      const a = args[next];
      let piece;
      switch (c) {
        case 's':
          if (typeof a === 'bigint') piece = formatBigInt(a, separated);
          else if (typeof a === 'number') piece = formatNumber(a, separated);
          else if (typeof a === 'object' && a !== null && hasBuiltInToString(a)) piece = inspect(a, Object.assign({}, opts, { depth: 0, compact: 3 }));
          else piece = String(a);
          break;
        case 'd':
          piece = typeof a === 'bigint' ? formatBigInt(a, separated) : typeof a === 'symbol' ? 'NaN' : formatNumber(Number(a), separated);
          break;
        case 'i':
          piece = typeof a === 'bigint' ? formatBigInt(a, separated) : typeof a === 'symbol' ? 'NaN' : formatNumber(parseInt(a), separated);
          break;
        case 'f':
          piece = typeof a === 'symbol' ? 'NaN' : formatNumber(parseFloat(a), separated);
          break;
        case 'j':
          try {
            piece = JSON.stringify(a);
          } catch (_) {
            piece = '[Circular]';
          }
          break;
        case 'o':
          piece = inspect(a, Object.assign({}, opts, { showHidden: true, depth: 4 }));
          break;
        case 'O':
          piece = inspect(a, opts);
          break;
        case 'c':
          piece = '';
          break;
      }
      out += first.slice(last, i) + piece;
      last = i + 2;
      next++;
      i++;
    }
    out += first.slice(last);
  } else {
    next = 0;
  }
  for (; next < args.length; next++) {
    const a = args[next];
    out += (out === '' && next === 0 ? '' : ' ') + (typeof a === 'string' ? a : inspect(a, opts));
  }
  return out;
}
// A number as inspect writes it; with `numericSeparator`, its digits in
// groups of three joined by `_`, from the point outwards (not one written
// with an exponent, nor NaN or an infinity).
function formatNumber(n, separated = false) {
  if (Object.is(n, -0)) return '-0';
  const text = String(n);
  if (!separated || !Number.isFinite(n) || text.includes('e')) return text;
  const [whole, fraction] = text.split('.');
  return fraction === undefined ? groupDigits(whole) : `${groupDigits(whole)}.${fraction.replace(/\d{3}(?=\d)/g, '$&_')}`;
}


const formatBigInt = (b, separated = false) => `${separated ? groupDigits(String(b)) : String(b)}n`;
// Whether `%s` shows an object by `inspect` (its `toString` is the one
// of a built-in class, or it has none) rather than by `String`, as Node
// decides: a `Symbol.toPrimitive` or a `toString` of the object's own, or
// of a class of the program's, is the program's way to show it.
function hasBuiltInToString(o) {
  if (typeof o[Symbol.toPrimitive] === 'function') return false;
  if (typeof o.toString !== 'function') return true;
  if (Object.prototype.hasOwnProperty.call(o, 'toString')) return false;
  let holder = o;
  do {
    holder = Object.getPrototypeOf(holder);
  } while (!Object.prototype.hasOwnProperty.call(holder, 'toString'));
  const d = Object.getOwnPropertyDescriptor(holder, 'constructor');
  return d !== undefined && typeof d.value === 'function' && isBuiltIn(d.value);
}

// A constructor of the engine's: one of the global classes, as it was
// when this module was made.
const builtIns = new Set(Object.getOwnPropertyNames(globalThis).filter((k) => /^[A-Z]/.test(k)).map((k) => globalThis[k]).filter((v) => typeof v === 'function'));
const isBuiltIn = (fn) => builtIns.has(fn);
export function format(...args) {
  return formatWith({}, args);
}
export function formatWithOptions(opts, ...args) {
  return formatWith(opts, args);
}

// ------------------------------------------------------ promises, misc.
export function promisify(original) {
  validateFunction(original, 'original');
  if (original[promisifyCustom] !== undefined) {
    // Its own promisified form, which promisifies to itself.
    const custom = original[promisifyCustom];
    validateFunction(custom, 'util.promisify.custom');
    return Object.defineProperty(custom, promisifyCustom, { value: custom, configurable: true });
  }
  function fn(...args) {
    return new Promise((resolve, reject) => {
      original.call(this, ...args, (err, ...values) => {
        if (err) reject(err);
        else resolve(values.length > 1 ? values : values[0]);
      });
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, promisifyCustom, { value: fn, configurable: true });
  return Object.defineProperties(fn, Object.getOwnPropertyDescriptors(original));
}
promisify.custom = promisifyCustom;

// `callbackify`, as Node's: the callback (bound to `this`) hears the
// outcome on a later tick; a falsy rejection arrives wrapped, with the
// value as `reason`. The function has the original's own properties, its
// `length` one more and its name `<name>Callbackified`.
export function callbackify(original) {
  validateFunction(original, 'original');
  function callbackified(...args) {
    const last = args.pop();
    validateFunction(last, 'last argument');
    const cb = last.bind(this);
    Reflect.apply(original, this, args).then(
      (v) => queueMicrotask(() => cb(null, v)),
      (err) => {
        let reason = err;
        if (!reason) {
          reason = codedError(Error, 'ERR_FALSY_VALUE_REJECTION', 'Promise was rejected with falsy value');
          reason.reason = err;
        }
        queueMicrotask(() => cb(reason));
      },
    );
  }
  const descriptors = Object.getOwnPropertyDescriptors(original);
  if (typeof descriptors.length.value === 'number') descriptors.length.value++;
  if (typeof descriptors.name.value === 'string') descriptors.name.value += 'Callbackified';
  Object.defineProperties(callbackified, descriptors);
  return callbackified;
}

export function inherits(ctor, superCtor) {
  if (ctor === undefined || ctor === null) throw invalidArgType('ctor', 'of type function', ctor);
  if (superCtor === undefined || superCtor === null) throw invalidArgType('superCtor', 'of type function', superCtor);
  if (superCtor.prototype === undefined) throw invalidArgType('superCtor.prototype', 'of type object', superCtor.prototype);
  Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

export function deprecate(fn, message) {
  let warned = false;
  return function (...args) {
    if (!warned) {
      warned = true;
      console.warn(`DeprecationWarning: ${message}`);
    }
    return new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args);
  };
}

// As `workerd`'s: every section is enabled (there is no NODE_DEBUG), and
// a message goes to `console.log` as `SECTION: message` and a newline;
// `cb` is given the logger on its first use.
export function debuglog(set, cb) {
  let first = true;
  const log = (...args) => {
    if (first) {
      first = false;
      if (typeof cb === 'function') cb(log);
    }
    console.log(`${String(set).toUpperCase()}: ${formatWithOptions({}, ...args)}\n`);
  };
  Object.defineProperty(log, 'enabled', { get: () => true, configurable: true, enumerable: true });
  return log;
}
export const debug = debuglog;

export { isDeepStrictEqual };

export function toUSVString(s) {
  return String(s).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

// ECMA-48's control sequences: CSI (ESC [ or 0x9B, parameters,
// intermediates, a final byte), OSC (ESC ] or 0x9D, up to BEL, ESC \ or
// 0x9C: a hyperlink's), and two-byte escapes.
const VT_CONTROL = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[@-Z\\-_]/g;

export function stripVTControlCharacters(s) {
  validateString(s, 'str');
  return s.replace(VT_CONTROL, '');
}

// `KEY=value` lines, as Node's `--env-file` reads them: `#` comments,
// `export ` before a key, values in '', "" (where `\n` is a newline) or
// `` that may span lines, unquoted values cut at `#` and trimmed; a later
// key wins.
export function parseEnv(content) {
  validateString(content, 'content');
  const text = content.replace(/\r\n?/g, '\n');
  const out = {};
  let i = 0;
  while (i < text.length) {
    let end = text.indexOf('\n', i);
    if (end === -1) end = text.length;
    const line = text.slice(i, end);
    const eq = line.indexOf('=');
    const bare = line.trim();
    if (bare === '' || bare.startsWith('#') || eq === -1) {
      i = end + 1;
      continue;
    }
    let key = line.slice(0, eq).trim();
    if (key.startsWith('export ')) key = key.slice(7).trim();
    const after = line.slice(eq + 1);
    const value = after.trimStart();
    const quote = value[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      const open = i + eq + 1 + (after.length - value.length) + 1;
      const close = text.indexOf(quote, open);
      if (close !== -1) {
        const quoted = text.slice(open, close);
        out[key] = quote === '"' ? quoted.replace(/\\n/g, '\n') : quoted;
        const next = text.indexOf('\n', close);
        i = next === -1 ? text.length : next + 1;
        continue;
      }
    }
    const hash = value.indexOf('#');
    out[key] = (hash === -1 ? value : value.slice(0, hash)).trim();
    i = end + 1;
  }
  return out;
}

// SGR codes (ECMA-48) by Node's style names: each one's on and off.
const STYLES = { reset: [0, 0], bold: [1, 22], dim: [2, 22], italic: [3, 23], underline: [4, 24], blink: [5, 25], inverse: [7, 27], hidden: [8, 28], strikethrough: [9, 29], doubleunderline: [21, 24], framed: [51, 54], overlined: [53, 55] };
['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'].forEach((color, n) => {
  const Bright = `${color[0].toUpperCase()}${color.slice(1)}`;
  STYLES[color] = [30 + n, 39];
  STYLES[`${color}Bright`] = [90 + n, 39];
  STYLES[`bg${Bright}`] = [40 + n, 49];
  STYLES[`bg${Bright}Bright`] = [100 + n, 49];
});
Object.assign(STYLES, { gray: STYLES.blackBright, grey: STYLES.blackBright, bgGray: STYLES.bgBlackBright, bgGrey: STYLES.bgBlackBright });

// `text` in the styles `format` names. Where the stream is checked (the
// default), a Worker's output is no terminal, so the text comes back plain,
// as Node gives it to a stream that is not a TTY.
export function styleText(format, text, { validateStream = true, stream } = {}) {
  const formats = Array.isArray(format) ? format : [format];
  for (const f of formats) {
    if (f !== 'none' && !Object.prototype.hasOwnProperty.call(STYLES, f)) {
      throw invalidArgValue('format', f, `must be one of: none, ${Object.keys(STYLES).join(', ')}`);
    }
  }
  validateString(text, 'text');
  if (validateStream) {
    if (stream !== undefined && (stream === null || typeof stream.write !== 'function')) {
      throw invalidArgType('stream', 'an instance of Stream', stream);
    }
    return text;
  }
  let left = '';
  let right = '';
  for (const f of formats) {
    if (f === 'none') continue;
    left += `\u001b[${STYLES[f][0]}m`;
    right = `\u001b[${STYLES[f][1]}m${right}`;
  }
  return `${left}${text}${right}`;
}

// Node's deprecated timestamped line: `26 Nov 13:41:04 - message`.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export function log(...args) {
  const d = new Date();
  const two = (n) => String(n).padStart(2, '0');
  const time = `${d.getDate()} ${MONTHS[d.getMonth()]} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  console.log('%s - %s', time, format(...args));
}

// Settles when `signal` aborts (at once if it has): `resource` is what the
// wait is for, which Node holds weakly.
export async function aborted(signal, resource) {
  if (!(signal instanceof AbortSignal)) throw invalidArgType('signal', 'an instance of AbortSignal', signal);
  if (resource === null || (typeof resource !== 'object' && typeof resource !== 'function')) {
    throw invalidArgType('resource', 'of type object', resource);
  }
  if (signal.aborted) return;
  await new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

// libuv's errors, as `workerd` (and Node) list them: name, number (its
// negative is the error code) and message.
const SYSTEM_ERRORS = (
  'E2BIG:7:argument list too long|EACCES:13:permission denied|EADDRINUSE:98:address already in use|' +
  'EADDRNOTAVAIL:99:address not available|EAFNOSUPPORT:97:address family not supported|' +
  'EAGAIN:11:resource temporarily unavailable|EAI_ADDRFAMILY:3000:address family not supported|' +
  'EAI_AGAIN:3001:temporary failure|EAI_BADFLAGS:3002:bad ai_flags value|' +
  'EAI_BADHINTS:3013:invalid value for hints|EAI_CANCELED:3003:request canceled|' +
  'EAI_FAIL:3004:permanent failure|EAI_FAMILY:3005:ai_family not supported|' +
  'EAI_MEMORY:3006:out of memory|EAI_NODATA:3007:no address|EAI_NONAME:3008:unknown node or service|' +
  'EAI_OVERFLOW:3009:argument buffer overflow|EAI_PROTOCOL:3014:resolved protocol is unknown|' +
  'EAI_SERVICE:3010:service not available for socket type|EAI_SOCKTYPE:3011:socket type not supported|' +
  'EALREADY:114:connection already in progress|EBADF:9:bad file descriptor|' +
  'EBUSY:16:resource busy or locked|ECANCELED:125:operation canceled|' +
  'ECHARSET:4080:invalid Unicode character|ECONNABORTED:103:software caused connection abort|' +
  'ECONNREFUSED:111:connection refused|ECONNRESET:104:connection reset by peer|' +
  'EDESTADDRREQ:89:destination address required|EEXIST:17:file already exists|' +
  'EFAULT:14:bad address in system call argument|EFBIG:27:file too large|' +
  'EHOSTUNREACH:113:host is unreachable|EINTR:4:interrupted system call|EINVAL:22:invalid argument|' +
  'EIO:5:i/o error|EISCONN:106:socket is already connected|EISDIR:21:illegal operation on a directory|' +
  'ELOOP:40:too many symbolic links encountered|EMFILE:24:too many open files|' +
  'EMSGSIZE:90:message too long|ENAMETOOLONG:36:name too long|ENETDOWN:100:network is down|' +
  'ENETUNREACH:101:network is unreachable|ENFILE:23:file table overflow|' +
  'ENOBUFS:105:no buffer space available|ENODEV:19:no such device|ENOENT:2:no such file or directory|' +
  'ENOMEM:12:not enough memory|ENONET:64:machine is not on the network|' +
  'ENOPROTOOPT:92:protocol not available|ENOSPC:28:no space left on device|' +
  'ENOSYS:38:function not implemented|ENOTCONN:107:socket is not connected|ENOTDIR:20:not a directory|' +
  'ENOTEMPTY:39:directory not empty|ENOTSOCK:88:socket operation on non-socket|' +
  'ENOTSUP:95:operation not supported on socket|EOVERFLOW:75:value too large for defined data type|' +
  'EPERM:1:operation not permitted|EPIPE:32:broken pipe|EPROTO:71:protocol error|' +
  'EPROTONOSUPPORT:93:protocol not supported|EPROTOTYPE:91:protocol wrong type for socket|' +
  'ERANGE:34:result too large|EROFS:30:read-only file system|' +
  'ESHUTDOWN:108:cannot send after transport endpoint shutdown|ESPIPE:29:invalid seek|' +
  'ESRCH:3:no such process|ETIMEDOUT:110:connection timed out|ETXTBSY:26:text file is busy|' +
  'EXDEV:18:cross-device link not permitted|UNKNOWN:4094:unknown error|EOF:4095:end of file|' +
  'ENXIO:6:no such device or address|EMLINK:31:too many links|EHOSTDOWN:112:host is down|' +
  'EREMOTEIO:121:remote I/O error|ENOTTY:25:inappropriate ioctl for device|' +
  'EFTYPE:4028:inappropriate file type or format|EILSEQ:84:illegal byte sequence|' +
  'ESOCKTNOSUPPORT:94:socket type not supported|ENODATA:61:no data available|' +
  'EUNATCH:49:protocol driver not attached|ENOEXEC:8:exec format error'
);
let systemErrors;
export function getSystemErrorMap() {
  systemErrors ??= new Map(SYSTEM_ERRORS.split('|').map((entry) => {
    const [name, number, message] = entry.split(':');
    return [-Number(number), [name, message]];
  }));
  return systemErrors;
}

function systemError(err) {
  if (typeof err !== 'number') throw invalidArgType('err', 'of type number', err);
  if (!(Number.isInteger(err) && err < 0)) throw outOfRange('err', 'a negative integer', err);
  return getSystemErrorMap().get(err);
}
export function getSystemErrorName(err) {
  return systemError(err)?.[0] ?? `Unknown system error ${err}`;
}
export function getSystemErrorMessage(err) {
  return systemError(err)?.[1] ?? `Unknown system error ${err}`;
}

// Linux's signal numbers, in the order Node's error message lists them.
const SIGNALS = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGIOT: 6, SIGBUS: 7, SIGFPE: 8, SIGKILL: 9,
  SIGUSR1: 10, SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGCHLD: 17, SIGSTKFLT: 16,
  SIGCONT: 18, SIGSTOP: 19, SIGTSTP: 20, SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24, SIGXFSZ: 25,
  SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28, SIGIO: 29, SIGPOLL: 29, SIGPWR: 30, SIGSYS: 31,
};
// The exit code of a process a signal ended: 128 + its number.
export function convertProcessSignalToExitCode(signalCode) {
  if (!Object.hasOwn(SIGNALS, signalCode)) {
    throw invalidArgValue('signalCode', signalCode, `must be one of: ${Object.keys(SIGNALS).map((k) => `'${k}'`).join(', ')}`);
  }
  return 128 + SIGNALS[signalCode];
}

// Nothing to trace: a Worker gets no signals (workerd checks nothing).
export function setTraceSigInt() {}

// Node's old `Object.assign` for own enumerable keys.
export function _extend(target, source) {
  if (source === null || typeof source !== 'object') return target;
  for (const key of Object.keys(source)) target[key] = source[key];
  return target;
}

// A Worker's abort controllers and signals cross no thread: they are
// transferable as they are.
export const transferableAbortController = () => new AbortController();
export function transferableAbortSignal(signal) {
  if (!(signal instanceof AbortSignal)) throw invalidArgType('signal', 'an instance of AbortSignal', signal);
  return signal;
}

// `util.diff(actual, expected)`: the shortest edit script between two
// strings (by character) or arrays, as Myers' algorithm finds it, in
// Node's form: [0, v] kept, [1, v] only in `actual`, [-1, v] only in
// `expected`.
export function diff(actual, expected) {
  if (actual === expected) return [];
  for (const [name, value] of [['actual', actual], ['expected', expected]]) {
    if (typeof value !== 'string' && !Array.isArray(value)) throw invalidArgType(name, 'of type string', value);
  }
  const n = actual.length;
  const m = expected.length;
  const max = n + m;
  // Per round d, the furthest x reached on each diagonal k (x - y).
  const frontier = new Int32Array(2 * max + 2);
  const rounds = [];
  search: for (let d = 0; d <= max; d++) {
    rounds.push(frontier.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && frontier[max + k - 1] < frontier[max + k + 1]);
      let x = down ? frontier[max + k + 1] : frontier[max + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && actual[x] === expected[y]) {
        x++;
        y++;
      }
      frontier[max + k] = x;
      if (x >= n && y >= m) break search;
    }
  }
  // Back from the end, round by round: the diagonal run, then the one
  // step that led to it.
  const out = [];
  let x = n;
  let y = m;
  for (let d = rounds.length - 1; d >= 0; d--) {
    const before = rounds[d];
    const k = x - y;
    const down = k === -d || (k !== d && before[max + k - 1] < before[max + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = before[max + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      out.push([0, actual[x]]);
    }
    if (d > 0) {
      if (x > prevX) out.push([1, actual[--x]]);
      else out.push([-1, expected[--y]]);
    }
  }
  return out.reverse();
}

// The calling frames (at most `frames`, 1-200), read off a stack trace:
// function, script, line and column. `getCallSite` is its older name.
export function getCallSites(frames, options) {
  return callSites(frames, options);
}
export function getCallSite(frames, options) {
  return callSites(frames, options);
}

function callSites(frames = 10, options) {
  if (typeof frames === 'object' && frames !== null && options === undefined) return callSites(10, frames);
  if (!(Number.isInteger(frames) && frames >= 1 && frames <= 200)) throw new Error('Frame count should be between 1 and 200 inclusive.');
  // The first two frames are this function and the exported one.
  const lines = (new Error().stack ?? '').split('\n').filter((line) => /^\s*at /.test(line)).slice(2, frames + 2);
  return lines.map((line) => {
    const m = /^\s*at (?:(.*?) \()?(.*?):(\d+):(\d+)\)?$/.exec(line) ?? /^\s*at (?:(.*?) \()?(.*?)\)?$/.exec(line);
    const [, functionName = '', scriptName = '', lineNumber = '0', column = '0'] = m ?? [];
    return { functionName: functionName === '<anonymous>' ? '' : functionName, scriptName, lineNumber: Number(lineNumber), columnNumber: Number(column), column: Number(column) };
  });
}

export const isArray = Array.isArray;
export const isBoolean = (v) => typeof v === 'boolean';
export const isBuffer = (v) => Buffer.isBuffer(v);
export const isFunction = (v) => typeof v === 'function';
export const isNull = (v) => v === null;
export const isNullOrUndefined = (v) => v === null || v === undefined;
export const isNumber = (v) => typeof v === 'number';
export const isObject = (v) => v !== null && typeof v === 'object';
export const isPrimitive = (v) => v === null || (typeof v !== 'object' && typeof v !== 'function');
export const isString = (v) => typeof v === 'string';
export const isSymbol = (v) => typeof v === 'symbol';
export const isUndefined = (v) => v === undefined;
export const isRegExp = types.isRegExp;
export const isDate = types.isDate;
export const isError = types.isNativeError;

export const TextEncoder = globalThis.TextEncoder;
export const TextDecoder = globalThis.TextDecoder;
export { MIMEParams, MIMEType };

export default {
  inspect, format, formatWithOptions, promisify, callbackify, inherits, deprecate, debuglog, debug, isDeepStrictEqual,
  toUSVString, stripVTControlCharacters, aborted, parseEnv, styleText, log, getSystemErrorName, getSystemErrorMap, getSystemErrorMessage,
  convertProcessSignalToExitCode, setTraceSigInt, _extend, transferableAbortController, transferableAbortSignal, diff, getCallSites, getCallSite, types, TextEncoder, TextDecoder, MIMEType, MIMEParams,
  isArray, isBoolean, isBuffer, isFunction, isNull, isNullOrUndefined, isNumber, isObject, isPrimitive, isString, isSymbol, isUndefined, isRegExp, isDate, isError,
};
