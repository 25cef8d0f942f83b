// hello: a plain template, no dependencies. Run: ssr build plugins/hello/render.js -o target/plugins/hello.wasm && ssr render target/plugins/hello.wasm '/greet?name=Ada'

const escape = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const ITEMS = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, title: `Item ${i + 1}`, price: ((i * 37) % 100) + 0.99 }));

/** @type {import('@ssr/types').Render} */
export function render(request) {
  const name = request.query.name ?? 'world';
  const rows = ITEMS.map((it) => `<li data-id="${it.id}">${escape(it.title)} <span>$${it.price.toFixed(2)}</span></li>`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Hello</title></head><body>` +
    `<h1>Hello, ${escape(name)}!</h1><p>${escape(request.method)} ${escape(request.path)} for tenant ${escape(request.tenant)}</p>` +
    `<ul>${rows}</ul></body></html>`;
}
