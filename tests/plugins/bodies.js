// Bodies of Request and Response at the Fetch standard's edges (issue 34),
// compared byte for byte with Node's (tests/all/web_platform.rs): bodyUsed
// is "disturbed", not "locked"; a body read whole stays locked; formData()
// rejects with the body stream's own error; Response.error()'s headers are
// immutable; btoa and atob throw DOMExceptions; a body made from bytes
// or text is a byte stream that a BYOB reader reads into its own buffer;
// the Request constructor's checks and attributes, and a request made from
// another takes its body.
const named = (f) => {
  try {
    f();
    return 'no error';
  } catch (e) {
    return `${e.name} ${e instanceof DOMException}`;
  }
};
const rejected = (p) => p.then(() => 'resolved', (e) => `${e.name}: ${e.message}`);

// Where workerd is laxer than the standard and Node, and Workers apps rely
// on it (tests/all/web_platform.rs asserts these, on both engines).
async function workerd() {
  const forwarded = new Request('http://example.com/', { method: 'POST', body: new Response('forwarded').body });
  const withCredentials = new Request('http://user:pw@example.com/');
  return `stream body without duplex: ${await forwarded.text()}; credentials kept: ${withCredentials.url}`;
}

export async function render(request) {
  if (request.query?.part === 'workerd') return workerd();
  const out = {};
  const stream = new ReadableStream({ start(c) { c.enqueue(new Uint8Array([104, 105])); c.close(); } });
  const response = new Response(stream);
  const reader = stream.getReader();
  out.lockedIsNotUsed = response.bodyUsed;
  out.lockedIsUnusable = await rejected(response.text()).then((m) => m.split(':')[0]);
  reader.read();
  out.readIsUsed = response.bodyUsed;

  for (const source of ['string', 'stream']) {
    const body = source === 'string' ? 'text' : new ReadableStream({ start(c) { c.enqueue(new Uint8Array([120])); c.close(); } });
    const r = new Response(body);
    const text = await r.text();
    out[`${source}: read whole`] = [text, r.bodyUsed, r.body.locked, named(() => r.body.getReader())];
  }

  const failing = new ReadableStream({ start(c) { c.error(new RangeError('the stream broke')); } });
  out.formDataOfABrokenStream = await rejected(new Response(failing).formData());
  out.formDataUntyped = await rejected(new Response('a=1').formData()).then((m) => m.split(':')[0]);
  out.formDataEmptyMultipart = await rejected(new Response('', { headers: { 'content-type': 'multipart/form-data; boundary=x' } }).formData())
    .then((m) => m.split(':')[0]);
  const form = await new Response('a=1&b=2', { headers: { 'content-type': 'application/x-www-form-urlencoded' } }).formData();
  out.formData = [...form];

  // data: URLs are answered without a network.
  for (const url of ['data:,Hello%2C%20World%21', 'data:text/html;base64,PGI+aGk8L2I+', 'data:;charset=utf-8,%E2%82%AC', 'data:text/plain;base64,!!!', 'data:nocomma']) {
    try {
      const r = await fetch(url);
      out[url] = [r.status, r.statusText, r.headers.get('content-type'), await r.text(), named(() => r.headers.set('x', 'y'))];
    } catch (e) {
      out[url] = e.name;
    }
  }

  const byob = new Response('hello').body.getReader({ mode: 'byob' });
  const first = await byob.read(new Uint8Array(3));
  const rest = await byob.read(new Uint8Array(8));
  const end = await byob.read(new Uint8Array(8));
  out.byob = [Array.from(first.value), first.done, Array.from(rest.value), end.done, end.value.byteLength];
  const empty = await new Response(new Uint8Array(0)).body.getReader({ mode: 'byob' }).read(new Uint8Array(2));
  out.byobEmpty = [empty.done, empty.value.byteLength];
  const u = 'http://example.com/';
  out.requestRefusals = [
    named(() => new Request(u, { mode: 'navigate' })),
    named(() => new Request(u, { mode: 'bogus' })),
    named(() => new Request(u, { cache: 'bogus' })),
    named(() => new Request(u, { cache: 'only-if-cached' })),
    named(() => new Request(u, { mode: 'no-cors', method: 'PUT' })),
    named(() => new Request(u, { method: 'POST', body: 'x', duplex: 'full' })),
    named(() => new Request(u, { window: {} })),
    named(() => new Request(u, { referrerPolicy: 'bogus' })),
    named(() => new Request(u, { credentials: 'bogus' })),
    named(() => new Request(u, { method: 'GET', body: 'x' })),
  ];
  const init = { method: 'POST', body: 'moved', mode: 'same-origin', credentials: 'omit', cache: 'no-store', redirect: 'manual', referrerPolicy: 'origin', integrity: 'sha256-x', keepalive: true };
  const original = new Request(u, init);
  const copy = new Request(original);
  out.requestAttributes = ['mode', 'credentials', 'cache', 'redirect', 'referrer', 'referrerPolicy', 'integrity', 'keepalive', 'duplex', 'destination'].map((k) => `${k}=${copy[k]}`);
  out.requestMoved = [original.bodyUsed, await copy.text(), named(() => new Request(original))];
  const streamed = new Request(u, { method: 'POST', body: new Response('streamed').body, duplex: 'half' });
  const streamedCopy = new Request(streamed);
  out.requestMovedStream = [streamed.bodyUsed, await streamedCopy.text()];
  const cloned = new Request(u, { method: 'POST', body: 'twice' });
  const twin = cloned.clone();
  out.requestClone = [await cloned.text(), await twin.text(), cloned.bodyUsed, twin.bodyUsed];
  out.errorHeaders = named(() => Response.error().headers.append('x', 'y'));
  out.btoa = named(() => btoa('\u0100'));
  out.atob = named(() => atob('a'));
  return JSON.stringify(out, null, 1);
}
