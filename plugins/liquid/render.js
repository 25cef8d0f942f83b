// liquid: LiquidJS, an async template engine, with a filter and a loop.
// Run: ssr build plugins/liquid/render.js -o target/plugins/liquid.wasm && ssr render target/plugins/liquid.wasm '/?title=Shop'
import { Liquid } from 'liquidjs';

const engine = new Liquid();
const tpl = engine.parse(`<!doctype html><html><body><h1>{{ title | capitalize }}</h1>
<ul>{% for p in products %}<li>{{ forloop.index }}. {{ p.name | escape }} - {{ p.price | times: 1.1 | round: 2 }}</li>{% endfor %}</ul>
<p>{{ products | size }} products, path {{ path }}</p></body></html>`);

const products = Array.from({ length: 25 }, (_, i) => ({ name: `Thing & ${i}`, price: i * 3 + 0.5 }));

/** @type {import('@ssr/types').Render} */
export async function render(request) {
  return engine.render(tpl, { title: request.query.title ?? 'catalog', products, path: request.path });
}
