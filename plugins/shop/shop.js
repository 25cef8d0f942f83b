// A shop front: product pages from the shop's JSON API, fetched through the
// host with a secret token, and an order form posted back to the API.
// Register it with the API's origin granted and its address and token in
// `env` (see the README's "A site that fetches its data"):
//   ssr tenant add shop shop.wasm --allow-fetch http://127.0.0.1:9000 --var API=http://127.0.0.1:9000
//   printf %s "$TOKEN" | ssr tenant secret put shop API_TOKEN
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title, body, init = {}) {
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head>` +
    `<body><h1>${escape(title)}</h1>${body}</body></html>`;
  return new Response(html, {
    status: init.status || 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': init.cache || 's-maxage=30' },
  });
}

// The API, with the secret token; a failure becomes a 502 page.
async function api(env, path, init = {}) {
  const res = await fetch(`${env.API}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${env.API_TOKEN}`, 'content-type': 'application/json' },
  });
  if (!res.ok) throw new Error(`the shop's API answered ${res.status} for ${path}`);
  return res.json();
}

/** @satisfies {import('@ssr/types').Handler} */
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const product = /^\/product\/(\d+)$/.exec(url.pathname);
    try {
      if (url.pathname === '/') {
        const products = await api(env, '/products');
        const items = products.map((p) => `<li><a href="product/${p.id}">${escape(p.name)}</a> ${p.price} EUR</li>`);
        return page('Shop', `<ul>${items.join('')}</ul>`);
      }
      if (product && request.method === 'POST') {
        const form = await request.formData();
        const quantity = Number(form.get('quantity')) || 1;
        const order = await api(env, '/orders', {
          method: 'POST',
          body: JSON.stringify({ product: Number(product[1]), quantity }),
        });
        return Response.redirect(new URL(`../ordered?id=${order.id}`, request.url), 303);
      }
      if (product) {
        const p = await api(env, `/products/${product[1]}`);
        return page(p.name, `<p>${p.price} EUR</p><form method="post">` +
          '<input name="quantity" type="number" value="1" min="1"><button>Order</button></form>');
      }
      if (url.pathname === '/ordered') {
        const order = await api(env, `/orders/${Number(url.searchParams.get('id'))}`);
        return page('Thank you', `<p>Order ${order.id}: ${order.quantity} x ${escape(order.name)}.</p>`, { cache: 'private' });
      }
      return page('Not found', '<p>No such page.</p>', { status: 404 });
    } catch (e) {
      console.error(`shop: ${e.message}`);
      return page('Unavailable', '<p>The shop cannot reach its catalogue right now.</p>', { status: 502, cache: 'no-store' });
    }
  },
};
