// A test handler whose response bodies are streams that go wrong: one
// enqueues a string instead of bytes, one errors halfway, one never ends.
const enc = new TextEncoder();

function body(path) {
  return new ReadableStream({
    start(c) {
      c.enqueue(enc.encode('<p>first</p>'));
      if (path === '/strings') c.enqueue('<p>a string</p>');
      if (path === '/halfway') setTimeout(() => c.error(new RangeError('the data source broke halfway')), 5);
      if (path === '/ok') c.close();
      // '/forever': never closes.
    },
  });
}

export default {
  fetch(request) {
    const path = new URL(request.url).pathname;
    return new Response(body(path), { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
  },
};
