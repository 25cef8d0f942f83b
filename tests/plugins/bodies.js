// Bodies of Request and Response at the Fetch standard's edges (issue 34),
// compared byte for byte with Node's (tests/all/web_platform.rs): bodyUsed
// is "disturbed", not "locked"; a body read whole stays locked; formData()
// rejects with the body stream's own error; Response.error()'s headers are
// immutable; btoa and atob throw DOMExceptions.
const named = (f) => {
  try {
    f();
    return 'no error';
  } catch (e) {
    return `${e.name} ${e instanceof DOMException}`;
  }
};
const rejected = (p) => p.then(() => 'resolved', (e) => `${e.name}: ${e.message}`);

export async function render() {
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

  out.errorHeaders = named(() => Response.error().headers.append('x', 'y'));
  out.btoa = named(() => btoa('\u0100'));
  out.atob = named(() => atob('a'));
  return JSON.stringify(out, null, 1);
}
