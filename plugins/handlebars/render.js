// handlebars: a Handlebars template compiled once at build time (pre-initialization), rendered per request.
// Run: ssr build plugins/handlebars/render.js -o target/plugins/handlebars.wasm && ssr render target/plugins/handlebars.wasm '/?user=Ada'
import Handlebars from 'handlebars/dist/handlebars.js';

Handlebars.registerHelper('upper', (s) => String(s).toUpperCase());

const page = Handlebars.compile(`<!doctype html><html><body>
<h1>Hi {{upper user}}</h1>
<table>{{#each rows}}<tr class="{{#if @odd}}odd{{else}}even{{/if}}"><td>{{@index}}</td><td>{{name}}</td><td>{{{html}}}</td></tr>{{/each}}</table>
</body></html>`);

const rows = Array.from({ length: 30 }, (_, i) => ({ name: `Row <${i}>`, html: `<b>${i * i}</b>` }));

/** @type {import('@ssr/types').Render} */
export function render(request) {
  return page({ user: request.query.user ?? 'anonymous', rows });
}
