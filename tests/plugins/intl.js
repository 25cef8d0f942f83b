// Intl on both engines (issue 34, part 2): the Wasm engine asks the host's
// V8, so every line must be the V8 engine's, byte for byte
// (tests/all/intl.rs). Nine locales, the common options of each
// constructor, and the built-ins' locale methods.
const LOCALES = ['en', 'en-GB', 'de', 'fr', 'es', 'ja', 'zh', 'ar', 'hi'];
const WHEN = Date.UTC(2024, 2, 5, 14, 7, 9, 120);
// Made by the module's top level, which `ssr build` runs.
const AT_BUILD = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

function matrix(l) {
  const dtf = (o) => new Intl.DateTimeFormat(l, { timeZone: 'UTC', ...o }).format(WHEN);
  const nf = (o, x = 1234567.891) => new Intl.NumberFormat(l, o).format(x);
  return [
    dtf({}), dtf({ dateStyle: 'full', timeStyle: 'long', timeZone: 'America/New_York' }),
    dtf({ dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Kolkata' }), dtf({ weekday: 'long', month: 'short', day: 'numeric' }),
    dtf({ hour: 'numeric', minute: '2-digit', hour12: false }), dtf({ year: 'numeric', month: 'long', era: 'short' }),
    dtf({ timeStyle: 'full', timeZone: 'Europe/Berlin' }), dtf({ month: 'narrow' }),
    new Intl.DateTimeFormat(l, { timeZone: 'UTC', dateStyle: 'medium' }).formatRange(WHEN, WHEN + 3 * 864e5),
    JSON.stringify(new Intl.DateTimeFormat(l, { timeZone: 'Australia/Sydney', timeStyle: 'short' }).formatToParts(WHEN)),
    JSON.stringify(new Intl.DateTimeFormat(l, { timeZone: 'UTC' }).resolvedOptions()),
    nf(), nf({ style: 'currency', currency: 'EUR' }), nf({ style: 'currency', currency: 'JPY', currencyDisplay: 'name' }),
    nf({ style: 'currency', currency: 'USD', currencySign: 'accounting' }, -42.5), nf({ style: 'percent', maximumFractionDigits: 1 }, 0.2567),
    nf({ notation: 'compact' }), nf({ notation: 'compact', compactDisplay: 'long' }), nf({ notation: 'scientific' }),
    nf({ style: 'unit', unit: 'kilometer-per-hour', unitDisplay: 'long' }, 50), nf({ style: 'unit', unit: 'megabyte' }, 1.5),
    nf({ minimumFractionDigits: 2, signDisplay: 'always' }, 3), nf({}, 12345678901234567890n),
    JSON.stringify(new Intl.NumberFormat(l, { style: 'currency', currency: 'GBP' }).formatToParts(-1234.5)),
    [0, 1, 2, 3, 5, 11, 21, 100].map((n) => new Intl.PluralRules(l).select(n)).join(','),
    [1, 2, 3, 4, 11, 22].map((n) => new Intl.PluralRules(l, { type: 'ordinal' }).select(n)).join(','),
    new Intl.RelativeTimeFormat(l, { numeric: 'auto' }).format(-1, 'day'), new Intl.RelativeTimeFormat(l).format(3, 'hours'),
    new Intl.RelativeTimeFormat(l, { style: 'short' }).format(-2, 'month'),
    new Intl.ListFormat(l).format(['a', 'b', 'c']), new Intl.ListFormat(l, { type: 'disjunction' }).format(['x', 'y']),
    new Intl.DisplayNames(l, { type: 'region' }).of('DE'), new Intl.DisplayNames(l, { type: 'language' }).of('fr-CA'),
    new Intl.DisplayNames(l, { type: 'currency' }).of('EUR'),
    ['zebra', 'Äpfel', 'apple', 'Zoo', 'éclair', 'Eagle', '10', '9'].sort(new Intl.Collator(l).compare).join(' '),
    ['a10', 'a9', 'A2'].sort(new Intl.Collator(l, { numeric: true, sensitivity: 'base' }).compare).join(' '),
    (1234.5).toLocaleString(l), (0.5).toLocaleString(l, { style: 'percent' }), (123n).toLocaleString(l),
    new Date(WHEN).toLocaleString(l, { timeZone: 'UTC' }), new Date(WHEN).toLocaleDateString(l, { timeZone: 'UTC' }),
    new Date(WHEN).toLocaleTimeString(l, { timeZone: 'UTC' }), 'résumé'.localeCompare('resume', l), 'i'.toLocaleUpperCase(l),
    [1234.5, new Date(NaN)].toLocaleString(l),
  ].join(' | ');
}

function others() {
  const words = [...new Intl.Segmenter('en', { granularity: 'word' }).segment('Hello, wide world!')];
  const graphemes = [...new Intl.Segmenter('en').segment('e\u0301👍🏽!')].map((s) => s.segment);
  const segments = new Intl.Segmenter('en', { granularity: 'sentence' }).segment('One. Two? Three!');
  const locale = new Intl.Locale('en-Latn-US', { calendar: 'gregory', hourCycle: 'h12' });
  return [
    AT_BUILD.format(WHEN),
    words.filter((s) => s.isWordLike).map((s) => `${s.segment}@${s.index}`).join(' '), graphemes.join('|'),
    JSON.stringify(segments.containing(6)), [...segments].length,
    locale.toString(), locale.baseName, locale.calendar, locale.hourCycle, locale.language, locale.region, locale.script,
    new Intl.Locale('zh').maximize().toString(), new Intl.Locale('en-Latn-US').minimize().toString(),
    Intl.getCanonicalLocales(['EN-us', 'zh-hant-tw']).join(), Intl.supportedValuesOf('currency').length > 100,
    Intl.DateTimeFormat.supportedLocalesOf(['de', 'tlh']).join(), Object.prototype.toString.call(new Intl.NumberFormat()),
    typeof Intl.DateTimeFormat().format, new Intl.NumberFormat('de').format === new Intl.NumberFormat('de').format,
    JSON.stringify(new Intl.PluralRules('ar').resolvedOptions().pluralCategories),
  ].join(' | ');
}

// Each bad input is the standard's error, named.
function bad() {
  const tries = {
    locale: () => new Intl.NumberFormat('en-US-u-nu-!!'),
    timeZone: () => new Intl.DateTimeFormat('en', { timeZone: 'Mars/Olympus_Mons' }),
    option: () => new Intl.PluralRules('en', { type: 'cardinalish' }),
    currency: () => new Intl.NumberFormat('en', { style: 'currency' }),
    date: () => new Intl.DateTimeFormat('en').format(NaN),
    list: () => new Intl.ListFormat('en').format([1, 2]),
    noNew: () => Intl.PluralRules('en'),
  };
  return Object.entries(tries).map(([name, f]) => {
    try {
      f();
      return `${name}: no error`;
    } catch (e) {
      return `${name}: ${e.constructor.name}`;
    }
  }).join('\n');
}

// Formatters made in a loop: the engine and the host keep a bounded number.
function loop(n, distinct) {
  const zones = Intl.supportedValuesOf('timeZone');
  let last = '';
  for (let i = 0; i < n; i++) {
    last = new Intl.DateTimeFormat('en', { timeZone: zones[i % distinct], timeStyle: 'short' }).format(WHEN);
  }
  return `${n} made, ${distinct} kinds, last ${last}`;
}

export function render(request) {
  const q = request.query;
  if (q.only === 'bad') return bad();
  if (q.only === 'loop') return loop(Number(q.n), Number(q.distinct));
  return [...LOCALES.map((l) => `${l}: ${matrix(l)}`), others(), bad()].join('\n');
}
