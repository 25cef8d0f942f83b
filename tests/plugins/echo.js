// A test renderer that echoes what it was given, to compare the request
// mapping with Node's. It also reports Math.random drawn at build time and at
// render time, and exercises the prelude's web APIs.
const seedAtBuild = Math.random();

export function render(request) {
  const u = new URL(request.url, 'http://example.test');
  const web = {
    encoded: Array.from(new TextEncoder().encode('héllo €𝄞')),
    decoded: new TextDecoder().decode(new Uint8Array([226, 130, 172, 32, 240, 157, 132, 158])),
    btoa: btoa('hello, world'),
    atob: atob('aGVsbG8sIHdvcmxk'),
    clone: structuredClone({ a: [1, { b: 2 }], d: new Date(0).toISOString() }),
    url: { pathname: u.pathname, search: u.search, origin: u.origin, href: u.href },
    params: new URLSearchParams({ q: 'a b&c', x: 'é' }).toString(),
    resolved: new URL('../c/./d?x=1#h', 'https://Ex.ample:443/a/b/').href,
    perf: typeof performance.now(),
  };
  const body = request.path === '/random' ? { seedAtBuild, now: Math.random() } : { request, web };
  return {
    status: request.path === '/missing' ? 404 : 200,
    headers: { 'content-type': 'application/json', 'x-echo': request.method },
    body: JSON.stringify(body),
  };
}
