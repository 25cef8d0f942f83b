// Web-platform edges (issue 34) that WPT found the prelude getting wrong:
// URL, URLSearchParams and structuredClone, each answer printed, compared
// byte for byte with Node 20 (tests/all/web_platform.rs). Node's URL is
// Ada, a WHATWG implementation of its own, so agreeing with it is agreeing
// with the standard for these inputs.
const URLS = [
  ['http://f:b/c', 'http://example.org/foo/bar'],
  ['http://f: /c', 'http://example.org/foo/bar'],
  ['\t\nhttp://exa\tmple.com/a\nb?c\t#d\n', undefined],
  ['ssh://example.com/foo/bar.git', undefined],
  ['git+ssh://user:pa%20ss@Example.com:22/x/../y', undefined],
  ['HTTP://EXAMPLE.com:80/./a/%2e%2E/b?q=1#h', undefined],
  ['//other.test/p?x', 'https://base.test/a/b'],
  ['../../../../c', 'http://h.test/a/b/'],
  ['http://[::1]:8080/', undefined],
  ['http://[0:0:0:0:0:ffff:7f00:1]/', undefined],
  ['http://0x7f.1/', undefined],
  ['http://2130706433/', undefined],
  ['http://1.2.3.4.5/', undefined],
  ['http://münchen.de/straße?ü=ö#ä', undefined],
  ['http://xn--mnchen-3ya.de/', undefined],
  ['http://a b/', undefined],
  ['http://ex%41mple.com/', undefined],
  ['mailto:Someone@Example.com', undefined],
  ['data:text/plain,hi there', undefined],
  ['blob:https://a.test/uuid', undefined],
  ['file:///C:/x/../y', undefined],
  ['file://host/share/f', undefined],
  ['non-spec:/.//p', undefined],
  ['javascript:alert(1)', undefined],
  ['https://a.test:443/', undefined],
  ['ws://a.test:80/', undefined],
  ['http://a.test:65536/', undefined],
  ['?q', 'http://a.test/p?old#frag'],
  ['#only', 'http://a.test/p?old#frag'],
  ['', 'http://a.test/p?old#frag'],
  ['\ud800', 'http://a.test/'],
  ['x', 'not a base'],
  ['http://user@/', undefined],
];
const ATTRS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
const shown = (u) => (u === null ? null : Object.fromEntries(ATTRS.map((k) => [k, u[k]])));

function parsing() {
  return URLS.map(([input, base]) => ({
    input,
    base,
    canParse: URL.canParse(input, base),
    parsed: shown(URL.parse(input, base)),
  }));
}

// Each setter, with a value it takes and one it must ignore.
function setters() {
  const out = [];
  const cases = [
    ['protocol', 'https', 'a b'],
    ['protocol', 'ftp:', 'file'],
    ['username', 'us er', ''],
    ['password', 'p@ss', ''],
    ['host', 'new.test:81', 'bad host'],
    ['hostname', 'Other.TEST', 'a/b'],
    ['port', '8080', '99999'],
    ['port', '', 'abc'],
    ['pathname', '/a b/../c', 'x?y'],
    ['search', 'a=1 2&b', ''],
    ['hash', 'frag ment', ''],
  ];
  for (const [field, good, bad] of cases) {
    const u = new URL('http://user:pw@a.test:1234/p/q?s=1#h');
    u[field] = good;
    const afterGood = u.href;
    u[field] = bad;
    out.push([field, afterGood, u.href]);
  }
  const opaque = new URL('mailto:a@b.test');
  opaque.pathname = 'c@d.test';
  opaque.host = 'ignored.test';
  out.push(['opaque', opaque.href]);
  let threw = null;
  try {
    new URL('http://a.test/').href = 'not a url';
  } catch (e) {
    threw = e instanceof TypeError;
  }
  out.push(['href throws', threw]);
  return out;
}

function params() {
  const u = new URL('http://a.test/p?b=2&a=1&a=%zz&c=%E2%82%AC+x');
  const p = u.searchParams;
  const seen = [...p];
  p.append('d', 'é &=');
  p.sort();
  const sorted = u.href;
  p.delete('a', '1');
  p.set('b', '3');
  const edited = [u.search, p.size, p.get('a'), p.getAll('b'), p.has('c'), p.has('a', 'x')];
  u.search = '?z=\ud800';
  const reparsed = [...p];
  const fromRecord = new URLSearchParams({ k: 'v', 'sp ace': '+' }).toString();
  const fromPairs = new URLSearchParams([['a', '1'], ['a', '2']]).toString();
  const fromString = new URLSearchParams('?%41=%4&&=x&y').toString();
  let badPair = null;
  try {
    new URLSearchParams([['a']]);
  } catch (e) {
    badPair = e instanceof TypeError;
  }
  // Deleting while iterating goes on from the same index, as the standard's
  // live iterator does.
  const live = new URLSearchParams('x=1&y=2&z=3');
  const visited = [];
  for (const [k] of live) {
    visited.push(k);
    if (k === 'x') live.delete('y');
  }
  return { seen, sorted, edited, reparsed, fromRecord, fromPairs, fromString, badPair, visited, json: JSON.stringify({ u }) };
}

function cloning(chain, rounds = 1) {
  const cyclic = { name: 'root' };
  cyclic.self = cyclic;
  const shared = [1];
  const clonedCycle = structuredClone({ cyclic, a: shared, b: shared });
  const errors = [Error, TypeError, RangeError, SyntaxError].map((C) => {
    const e = structuredClone(new C('boom', { cause: 'why' }));
    return [e.constructor.name, e.name, e.message, e.cause, Object.prototype.hasOwnProperty.call(e, 'cause')];
  });
  const wrappers = structuredClone([Object(1), Object('s'), Object(true), Object(2n)]).map((w) => [typeof w, Object.prototype.toString.call(w), String(w.valueOf())]);
  const bytes = new Uint8Array([1, 2, 3, 4]);
  const views = structuredClone({ whole: bytes, part: bytes.subarray(1, 3) });
  const sparse = structuredClone(Object.assign(new Array(4), { 2: 'x', extra: 'y' }));
  const refusals = [() => {}, Symbol('s'), new WeakMap(), Promise.resolve()].map((v) => {
    try {
      structuredClone(v);
      return 'cloned';
    } catch (e) {
      return [e.name, e.code];
    }
  });
  // A chain of `chain` objects: Node's own clone, recursive, stops near
  // 10,000; ssr's walks without recursion (tests/all/web_platform.rs).
  let head = null;
  for (let i = 0; i < chain; i++) head = { i, next: head };
  // `rounds` clones it again and again: enough of them meet any engine's
  // CPU limit, however fast its clone.
  let copy;
  for (let r = 0; r < rounds; r++) copy = structuredClone(head);
  let depth = 0;
  for (let n = copy; n !== null; n = n.next) depth++;
  return {
    cycle: clonedCycle.cyclic.self === clonedCycle.cyclic && clonedCycle.a === clonedCycle.b && clonedCycle.cyclic !== cyclic,
    errors,
    wrappers,
    views: [views.whole.buffer === views.part.buffer, Array.from(views.part), views.part.byteOffset],
    sparse: [sparse.length, 0 in sparse, sparse[2], sparse.extra],
    map: [...structuredClone(new Map([[{ k: 1 }, new Set([1, 2])]]))].map(([k, v]) => [k.k, [...v]]),
    date: structuredClone(new Date(86400000)).toISOString(),
    regexp: String(structuredClone(/a+b/giu)),
    refusals,
    depth,
  };
}

// A URL of 1 MiB parses, and one that does not says so in a short message.
function longUrl() {
  const path = 'a'.repeat(1 << 20);
  const parsed = new URL(`https://a.test/${path}?q`).pathname.length;
  let message = '';
  try {
    new URL(`https://a b/${path}`);
  } catch (e) {
    message = e.message;
  }
  return `${parsed} ${message.length < 300} ${message.slice(0, 24)}`;
}

// Bad input: a stream nobody reads. Writes that wait for room wait for
// ever (the render never settles); writes that do not wait queue until the
// tenant's memory runs out. Either way that render alone fails.
async function unread(wait) {
  const { writable } = new TransformStream();
  const writer = writable.getWriter();
  const chunk = new Uint8Array(1 << 20);
  for (;;) {
    const written = writer.write(chunk.slice());
    if (wait) await written;
  }
}

export function render(request) {
  if (request.query?.only === 'long-url') return longUrl();
  if (request.query?.only === 'unread') return unread(request.query.wait === '1');
  const chain = Number(request.query?.chain ?? 1000);
  const rounds = Number(request.query?.rounds ?? 1);
  if (request.query?.only === 'chain') return JSON.stringify(cloning(chain, rounds).depth);
  return JSON.stringify({ parsing: parsing(), setters: setters(), params: params(), cloning: cloning(chain) }, null, 1);
}
