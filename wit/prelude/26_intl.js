//! `Intl` where the engine has none (QuickJS): each call answered by the
//! host's V8.
//!
//! Defines: Intl
//! Host calls: intl
//! Rust: host/src/web/intl.rs
//! WPT: none (test262's intl402: benches/test262.sh)
//! Test plugin: tests/plugins/intl.js
  // -------------------------------------------------------------------- Intl
  // QuickJS has no Intl: the host answers each call with V8's own (the
  // capability `intl`, `calls::INTL`, host/src/web/intl.rs), so the
  // Wasm engine formats exactly as the V8 engine does, and the locale data
  // is never in a tenant. Each object keeps what made it (its locales and
  // options, as JSON) and its resolved options; the host keeps the
  // formatters. Where the engine has Intl (V8), none of this is defined.
  if (typeof g.Intl === 'undefined') {
    const intlState = new WeakMap();
    // The host's call: the object's key ({type, locales, options} as
    // JSON, which the host keeps its formatter by), the op, its arguments.
    const intlKey = (type, locales, options) => JSON.stringify({ type, locales, options });
    const intlCallKey = (key, op, args = []) => {
      const [ok, text] = hostCall('intl', `${key}\n${op}\n${JSON.stringify(args)}`);
      if (ok) return JSON.parse(text).ok;
      throw namedError(text);
    };
    const intlCall = (type, op, locales, options, args) => intlCallKey(intlKey(type, locales, options), op, args);
    // The resolved options of the last INTL_KEPT objects made, by key: a
    // component that makes `new Intl.NumberFormat('de')` on every render
    // asks the host once.
    const INTL_KEPT = 64;
    const intlKept = new Map();
    const intlResolved = (key) => {
      let resolved = intlKept.get(key);
      if (resolved === undefined) {
        resolved = intlCallKey(key, 'new');
        if (intlKept.size >= INTL_KEPT) intlKept.delete(intlKept.keys().next().value);
        intlKept.set(key, resolved);
      }
      return resolved;
    };
    const ownState = (self, type) => {
      const s = intlState.get(self);
      if (s === undefined || s.type !== type) throw new TypeError(`Method Intl.${type}.prototype method called on an incompatible receiver`);
      return s;
    };
    // Locales as JSON: tags, with an Intl.Locale as its tag.
    // An Intl.Locale's tag, read from its state (not through toString).
    const localeTag = (l) => {
      const s = intlState.get(l);
      return s !== undefined && s.type === 'Locale' ? s.tag : undefined;
    };
    // The standard's CanonicalizeLocaleList, but for the canonicalizing
    // (the host does that): tags, an Intl.Locale as its tag (its toString
    // is not called), only the indices an array-like has.
    const intlLocales = (locales) => {
      if (locales === undefined || typeof locales === 'string') return locales;
      if (locales === null) throw new TypeError('Cannot convert undefined or null to object');
      if (localeTag(locales) !== undefined) return localeTag(locales);
      const o = Object(locales);
      const length = Math.min(Math.max(Math.trunc(Number(o.length)) || 0, 0), 2 ** 32);
      const tags = [];
      for (let k = 0; k < length; k++) {
        if (!(k in o)) continue;
        const v = o[k];
        if (typeof v !== 'string' && (typeof v !== 'object' || v === null)) {
          throw new TypeError(`Language ID should be string or object, got ${typeof v}`);
        }
        tags.push(localeTag(v) ?? `${v}`);
      }
      return tags;
    };
    // The options a constructor reads, in the standard's order: each is
    // read once (a getter runs, and may throw), and travels as a primitive
    // (an object as its string, a symbol is the TypeError ToString gives).
    const DIGITS = ['minimumIntegerDigits', 'minimumFractionDigits', 'maximumFractionDigits', 'minimumSignificantDigits', 'maximumSignificantDigits', 'roundingIncrement', 'roundingMode', 'roundingPriority', 'trailingZeroDisplay'];
    const DATE_FIELDS = ['weekday', 'era', 'year', 'month', 'day', 'dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits', 'timeZoneName'];
    const OPTIONS = {
      Collator: ['usage', 'localeMatcher', 'collation', 'numeric', 'caseFirst', 'sensitivity', 'ignorePunctuation'],
      NumberFormat: ['localeMatcher', 'numberingSystem', 'style', 'currency', 'currencyDisplay', 'currencySign', 'unit', 'unitDisplay', 'notation', ...DIGITS, 'compactDisplay', 'useGrouping', 'signDisplay'],
      DateTimeFormat: ['localeMatcher', 'calendar', 'numberingSystem', 'hour12', 'hourCycle', 'timeZone', ...DATE_FIELDS, 'formatMatcher', 'dateStyle', 'timeStyle'],
      PluralRules: ['localeMatcher', 'type', ...DIGITS],
      RelativeTimeFormat: ['localeMatcher', 'numberingSystem', 'style', 'numeric'],
      ListFormat: ['localeMatcher', 'type', 'style'],
      Segmenter: ['localeMatcher', 'granularity'],
      DisplayNames: ['localeMatcher', 'style', 'type', 'fallback', 'languageDisplay'],
      Locale: ['language', 'script', 'region', 'calendar', 'collation', 'hourCycle', 'caseFirst', 'numeric', 'numberingSystem'],
      supportedLocalesOf: ['localeMatcher'],
    };
    // Constructors whose options must be an object (GetOptionsObject).
    const OPTIONS_OBJECT = new Set(['ListFormat', 'Segmenter', 'DisplayNames', 'Locale']);
    const intlOptions = (options, type) => {
      if (options === undefined) return undefined;
      if (options === null || (typeof options !== 'object' && typeof options !== 'function' && OPTIONS_OBJECT.has(type))) {
        throw new TypeError(`Intl.${type}: options must be an object`);
      }
      const o = Object(options);
      const out = Object.create(null);
      for (const k of OPTIONS[type] || []) {
        const v = o[k];
        if (v === undefined) continue;
        out[k] = typeof v === 'symbol' || (typeof v === 'object' && v !== null) || typeof v === 'function' ? `${v}` : v;
      }
      return out;
    };
    // A time value, or now; NaN is the standard's RangeError.
    const intlTime = (date) => {
      const t = date === undefined ? Date.now() : Number(date);
      if (!Number.isFinite(t)) throw new RangeError('Invalid time value');
      return t;
    };
    // A number as JSON: BigInts and non-finite numbers travel tagged.
    const intlNumber = (x) => {
      if (typeof x === 'bigint') return { $bigint: String(x) };
      if (typeof x === 'string') return x;
      const n = Number(x);
      return Number.isFinite(n) && !Object.is(n, -0) ? n : { $number: Object.is(n, -0) ? '-0' : String(n) };
    };
    // A constructor `type`: `methods` get the object's state and the call's
    // arguments; `bound` are getters of bound functions (`format`,
    // `compare`); `callable`: it may be called without `new`.
    function intlClass(type, { methods = {}, bound = {}, callable = false } = {}) {
      const C = function (locales, options) {
        if (new.target === undefined) {
          if (callable) return new C(locales, options);
          throw new TypeError(`Constructor Intl.${type} requires 'new'`);
        }
        const key = intlKey(type, intlLocales(locales), intlOptions(options, type));
        intlState.set(this, Object.assign(Object.create(null), { type, key, resolved: intlResolved(key) }));
      };
      Object.defineProperty(C, 'name', { value: type });
      const call = (s, op, args) => intlCallKey(s.key, op, args);
      const proto = {
        resolvedOptions() {
          return dataObject(ownState(this, type).resolved);
        },
      };
      // Methods and bound functions get the standard's lengths and names.
      const named = (f, name, length) => Object.defineProperties(f, { name: { value: name, configurable: true }, length: { value: length, configurable: true } });
      for (const [name, [fn, length]] of Object.entries(methods)) {
        proto[name] = named({ [name](...args) { return fn(ownState(this, type), call, ...args); } }[name], name, length);
      }
      for (const [name, [fn, length]] of Object.entries(bound)) {
        Object.defineProperty(proto, name, {
          configurable: true,
          get: named({ get() {
            const s = ownState(this, type);
            if (s[name] === undefined) s[name] = named((...args) => fn(s, call, ...args), '', length);
            return s[name];
          } }.get, `get ${name}`, 0),
        });
      }
      Object.defineProperty(proto, Symbol.toStringTag, { value: `Intl.${type}`, configurable: true });
      for (const k of Object.keys(proto)) Object.defineProperty(proto, k, { enumerable: false });
      Object.defineProperty(C, 'prototype', { value: proto, writable: false, enumerable: false, configurable: false });
      Object.defineProperty(proto, 'constructor', { value: C, writable: true, configurable: true });
      Object.defineProperty(C, 'length', { value: type === 'DisplayNames' ? 2 : 0, configurable: true });
      Object.defineProperty(C, 'supportedLocalesOf', {
        writable: true,
        configurable: true,
        value: named({ supportedLocalesOf(locales, options) {
          return intlCall(type, 'supportedLocalesOf', intlLocales(locales), intlOptions(options, 'supportedLocalesOf'));
        } }.supportedLocalesOf, 'supportedLocalesOf', 1),
      });
      return C;
    }
    const oneTime = (op) => (s, call, date) => call(s, op, [intlTime(date)]);
    const twoTimes = (op) => (s, call, start, end) => {
      if (start === undefined || end === undefined) throw new TypeError(`${op}: startDate and endDate are required`);
      return call(s, op, [intlTime(start), intlTime(end)]);
    };
    const numbers = (op) => (s, call, ...xs) => call(s, op, xs.map(intlNumber));
    // StringListFromIterable: an element that is not a string closes the
    // iterator and is a TypeError.
    const stringList = (list) => {
      if (list === undefined) return [];
      const out = [];
      const it = list[Symbol.iterator]();
      for (let step = it.next(); !step.done; step = it.next()) {
        if (typeof step.value !== 'string') {
          if (typeof it.return === 'function') it.return();
          throw new TypeError(`Iterable yielded ${typeof step.value} which is not a string`);
        }
        out.push(step.value);
      }
      return out;
    };
    const DateTimeFormat = intlClass('DateTimeFormat', {
      callable: true,
      bound: { format: [oneTime('format'), 1] },
      methods: { formatToParts: [oneTime('formatToParts'), 1], formatRange: [twoTimes('formatRange'), 2], formatRangeToParts: [twoTimes('formatRangeToParts'), 2] },
    });
    const NumberFormat = intlClass('NumberFormat', {
      callable: true,
      bound: { format: [numbers('format'), 1] },
      methods: { formatToParts: [numbers('formatToParts'), 1], formatRange: [numbers('formatRange'), 2], formatRangeToParts: [numbers('formatRangeToParts'), 2] },
    });
    const Collator = intlClass('Collator', {
      callable: true,
      bound: { compare: [(s, call, a, b) => call(s, 'compare', [`${a}`, `${b}`]), 2] },
    });
    const PluralRules = intlClass('PluralRules', {
      methods: { select: [numbers('select'), 1], selectRange: [numbers('selectRange'), 2] },
    });
    const RelativeTimeFormat = intlClass('RelativeTimeFormat', {
      methods: {
        format: [(s, call, value, unit) => call(s, 'format', [intlNumber(value), `${unit}`]), 2],
        formatToParts: [(s, call, value, unit) => call(s, 'formatToParts', [intlNumber(value), `${unit}`]), 2],
      },
    });
    const ListFormat = intlClass('ListFormat', {
      methods: {
        format: [(s, call, list) => call(s, 'format', [stringList(list)]), 1],
        formatToParts: [(s, call, list) => call(s, 'formatToParts', [stringList(list)]), 1],
      },
    });
    const DisplayNames = intlClass('DisplayNames', {
      methods: { of: [(s, call, code) => call(s, 'of', [`${code}`]), 1] },
    });
    // A text's segments: the host says where each starts.
    const Segmenter = intlClass('Segmenter', {
      methods: {
        segment: [function (s, call, input) {
          const text = `${input}`;
          const { starts, wordLike } = call(s, 'segment', [text]);
          const data = (i) => {
            const d = { segment: text.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : text.length), index: starts[i], input: text };
            return wordLike.length > 0 ? Object.defineProperty(d, 'isWordLike', { value: wordLike[i] === 1, writable: true, enumerable: true, configurable: true }) : d;
          };
          const segments = {
            containing(index) {
              if (!segmentsMade.has(this)) throw new TypeError('containing called on an incompatible receiver');
              const n = index === undefined ? 0 : Math.trunc(+index) || 0;
              if (n < 0 || n >= text.length) return undefined;
              let i = starts.length - 1;
              while (i > 0 && starts[i] > n) i--;
              return data(i);
            },
            *[Symbol.iterator]() {
              for (let i = 0; i < starts.length; i++) yield data(i);
            },
          };
          segmentsMade.add(segments);
          return segments;
        }, 1],
      },
    });
    const segmentsMade = new WeakSet();
    // A plain object with `from`'s properties, made without [[Set]] (a
    // setter on Object.prototype sees nothing).
    const dataObject = (from) => {
      const out = {};
      for (const [k, v] of Object.entries(from)) Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
      return out;
    };
    class IntlLocale {
      constructor(tag, options) {
        if (typeof tag !== 'string' && (typeof tag !== 'object' || tag === null)) {
          throw new TypeError('First argument to Intl.Locale constructor can\'t be empty or missing');
        }
        const given = localeTag(tag) ?? `${tag}`;
        const state = intlCall('Locale', 'new', undefined, intlOptions(options, 'Locale'), [given]);
        intlState.set(this, Object.assign(Object.create(null), state, { type: 'Locale' }));
      }
      maximize() { return new IntlLocale(ownState(this, 'Locale').maximal); }
      minimize() { return new IntlLocale(ownState(this, 'Locale').minimal); }
      toString() { return ownState(this, 'Locale').tag; }
    }
    Object.defineProperty(IntlLocale.prototype, Symbol.toStringTag, { value: 'Intl.Locale', configurable: true });
    Object.defineProperty(IntlLocale, 'length', { value: 1, configurable: true });
    for (const k of ['baseName', 'calendar', 'caseFirst', 'collation', 'hourCycle', 'language', 'numberingSystem', 'numeric', 'region', 'script', 'calendars', 'collations', 'hourCycles', 'numberingSystems', 'timeZones', 'textInfo', 'weekInfo']) {
      const get = { get() { return ownState(this, 'Locale')[k]; } }.get;
      Object.defineProperty(get, 'name', { value: `get ${k}`, configurable: true });
      Object.defineProperty(IntlLocale.prototype, k, { configurable: true, get });
    }
    Object.defineProperty(IntlLocale, 'name', { value: 'Locale' });
    const Intl = {
      DateTimeFormat, NumberFormat, Collator, PluralRules, RelativeTimeFormat, ListFormat, DisplayNames, Segmenter, Locale: IntlLocale,
      getCanonicalLocales: (locales) => intlCall('Intl', 'getCanonicalLocales', intlLocales(locales)),
      supportedValuesOf: (key) => intlCall('Intl', 'supportedValuesOf', undefined, undefined, [`${key}`]),
    };
    Object.defineProperty(Intl, Symbol.toStringTag, { value: 'Intl', configurable: true });
    for (const k of Object.keys(Intl)) Object.defineProperty(Intl, k, { enumerable: false });
    defineMissing('Intl', Intl);
    // The built-ins' locale methods go through it, as the standard says.
    // A built-in method: no prototype, the standard's length.
    const method = (proto, name, fn, length = 0) => Object.defineProperty(proto, name, {
      value: Object.defineProperties({ [name](...args) { return fn.apply(this, args); } }[name], { length: { value: length, configurable: true } }),
      writable: true,
      configurable: true,
      enumerable: false,
    });
    for (const op of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
      method(Date.prototype, op, function (locales, options) {
        const t = Date.prototype.getTime.call(this);
        return Number.isNaN(t) ? 'Invalid Date' : intlCall('Date', op, intlLocales(locales), intlOptions(options, 'DateTimeFormat'), [t]);
      });
    }
    method(Number.prototype, 'toLocaleString', function (locales, options) {
      return intlCall('Number', 'toLocaleString', intlLocales(locales), intlOptions(options, 'NumberFormat'), [intlNumber(Number.prototype.valueOf.call(this))]);
    });
    method(BigInt.prototype, 'toLocaleString', function (locales, options) {
      return intlCall('BigInt', 'toLocaleString', intlLocales(locales), intlOptions(options, 'NumberFormat'), [intlNumber(BigInt.prototype.valueOf.call(this))]);
    });
    method(String.prototype, 'localeCompare', function (that, locales, options) {
      if (this === undefined || this === null) throw new TypeError('String.prototype.localeCompare called on null or undefined');
      return intlCall('String', 'localeCompare', intlLocales(locales), intlOptions(options, 'Collator'), [String(this), String(that)]);
    }, 1);
    // ECMA-402 passes the locales and options on to each element.
    const listLocaleString = function (locales, options) {
      return Array.prototype.map.call(this, (e) => (e === undefined || e === null ? '' : Object(e).toLocaleString(locales, options))).join(',');
    };
    method(Array.prototype, 'toLocaleString', listLocaleString);
    method(Object.getPrototypeOf(Uint8Array.prototype), 'toLocaleString', listLocaleString);
    for (const op of ['toLocaleUpperCase', 'toLocaleLowerCase']) {
      method(String.prototype, op, function (locales) {
        if (this === undefined || this === null) throw new TypeError(`String.prototype.${op} called on null or undefined`);
        return intlCall('String', op, intlLocales(locales), undefined, [String(this)]);
      });
    }
  }

