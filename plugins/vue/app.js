// vue: Vue 3 with an async setup(), rendered by vue/server-renderer (async).
// Run: ssr build plugins/vue/app.js -o target/plugins/vue.wasm && ssr render target/plugins/vue.wasm '/products?page=2'
import { createSSRApp, h, defineComponent } from 'vue';
import { renderToString } from 'vue/server-renderer';

const fetchProducts = (page) =>
  new Promise((resolve) =>
    setTimeout(() => resolve(Array.from({ length: 20 }, (_, i) => ({ id: page * 20 + i, name: `Product ${page * 20 + i}` }))), 5),
  );

const ProductList = defineComponent({
  props: { page: Number },
  async setup(props) {
    const products = await fetchProducts(props.page);
    return () => h('ul', products.map((p) => h('li', { key: p.id, 'data-id': p.id }, p.name)));
  },
});

/** @type {import('@ssr/types').Render} */
export async function render(request) {
  const page = Math.max(0, parseInt(request.query.page ?? '0', 10) || 0);
  const app = createSSRApp({
    render: () => h('main', [h('h1', `Products, page ${page}`), h(ProductList, { page })]),
  });
  const html = await renderToString(app);
  return `<!doctype html><html><body>${html}</body></html>`;
}
