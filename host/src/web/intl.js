// The host's side of `Intl` for the Wasm engine (web/intl.rs): run in a
// service isolate of the server's own V8, which holds no tenant's code; it
// answers `intl(json)` with V8's own Intl, so the Wasm engine formats
// exactly as the V8 engine does, from the one copy of the locale data.
//
// A call is three lines: `{type, locales, options}` (JSON: what makes the
// object, and the key it is kept under), the op, and the op's arguments (a
// JSON array). Op "new" makes (and checks) the object and answers its
// resolved state; another calls that method of it. Made objects are kept,
// at most MAX_KEPT, by their first line, so a page that formats in a loop
// makes its formatter once and the line is parsed once. Dates arrive as
// their time values, BigInts as `{"$bigint": "digits"}`, NaN, the
// infinities and -0 as `{"$number": "NaN"}`. The answer is `{"ok": value}`,
// or `!Name: message` for an error the standard gives (a RangeError for a
// bad locale or time zone).
'use strict';
delete globalThis.__ssr_log;
delete globalThis.__ssr_host;
delete globalThis.__ssr_promise_hooks;

const MAX_KEPT = 512;
const kept = new Map();

const TYPES = {
  DateTimeFormat: ['format', 'formatToParts', 'formatRange', 'formatRangeToParts'],
  NumberFormat: ['format', 'formatToParts', 'formatRange', 'formatRangeToParts'],
  PluralRules: ['select', 'selectRange'],
  Collator: ['compare'],
  RelativeTimeFormat: ['format', 'formatToParts'],
  ListFormat: ['format', 'formatToParts'],
  Segmenter: ['segment'],
  DisplayNames: ['of'],
};

function revive(v) {
  if (v !== null && typeof v === 'object' && typeof v.$bigint === 'string') return BigInt(v.$bigint);
  if (v !== null && typeof v === 'object' && typeof v.$number === 'string') return Number(v.$number);
  return v;
}

// The object `key` ({type, locales, options}) makes, kept by `key`.
function made(key, spec) {
  let obj = kept.get(key);
  if (obj !== undefined) {
    kept.delete(key);
  } else {
    const { type, locales, options } = spec();
    obj = new Intl[type](locales, options);
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value);
  }
  kept.set(key, obj);
  return obj;
}

// A locale's state: what its getters give, and its forms.
function localeState(l) {
  const state = { tag: l.toString(), maximal: l.maximize().toString(), minimal: l.minimize().toString() };
  for (const k of ['baseName', 'calendar', 'caseFirst', 'collation', 'hourCycle', 'language', 'numberingSystem', 'numeric', 'region', 'script']) {
    state[k] = l[k];
  }
  for (const k of ['calendars', 'collations', 'hourCycles', 'numberingSystems', 'timeZones', 'textInfo', 'weekInfo']) {
    if (k in l) state[k] = l[k];
  }
  return state;
}

// Where each segment starts, and whether it is word-like (word granularity).
function segments(segmenter, text) {
  const starts = [];
  const wordLike = [];
  for (const s of segmenter.segment(text)) {
    starts.push(s.index);
    if (s.isWordLike !== undefined) wordLike.push(s.isWordLike ? 1 : 0);
  }
  return { starts, wordLike };
}

function answer(key, op, argsJson) {
  let parsed;
  const spec = () => parsed || (parsed = JSON.parse(key));
  const type = /^\{"type":"(\w+)"/.exec(key)?.[1];
  const args = JSON.parse(argsJson).map(revive);
  const { locales, options } = type in TYPES ? {} : spec();
  switch (type) {
    case 'Intl':
      if (op === 'getCanonicalLocales') return Intl.getCanonicalLocales(locales);
      if (op === 'supportedValuesOf') return Intl.supportedValuesOf(args[0]);
      break;
    case 'Locale':
      if (op === 'new') return localeState(new Intl.Locale(args[0], options));
      break;
    case 'Date': {
      const d = new Date(args[0]);
      if (op === 'toLocaleString' || op === 'toLocaleDateString' || op === 'toLocaleTimeString') return d[op](locales, options);
      break;
    }
    case 'Number':
      if (op === 'toLocaleString') return Number(args[0]).toLocaleString(locales, options);
      break;
    case 'BigInt':
      if (op === 'toLocaleString') return args[0].toLocaleString(locales, options);
      break;
    case 'String':
      if (op === 'localeCompare') return made(key, () => ({ type: 'Collator', locales, options })).compare(String(args[0]), String(args[1]));
      if (op === 'toLocaleUpperCase' || op === 'toLocaleLowerCase') return String(args[0])[op](locales);
      break;
    default: {
      const methods = TYPES[type];
      if (op === 'supportedLocalesOf') return Intl[type].supportedLocalesOf(spec().locales, spec().options);
      const obj = made(key, spec);
      if (op === 'new') return obj.resolvedOptions();
      if (op === 'segment') return segments(obj, String(args[0]));
      if (methods.includes(op) && typeof obj[op] === 'function') return obj[op](...args);
    }
  }
  throw new TypeError(`Intl: ${type}.${op} is not provided`);
}

globalThis.intl = (call) => {
  try {
    const [key, op, args] = call.split('\n');
    return JSON.stringify({ ok: answer(key, op, args) });
  } catch (e) {
    const name = e instanceof RangeError ? 'RangeError' : 'TypeError';
    return `!${name}: ${e && e.message}`;
  }
};
