// The shop's JSON API, for the README's example: `node api.mjs PORT`, with
// the token it expects in SHOP_API_TOKEN. Products are fixed; orders live in
// memory. SHOP_API_DELAY_MS delays every answer (benches/fetch.sh).
import { createServer } from 'node:http';

const token = process.env.SHOP_API_TOKEN;
const delay = Number(process.env.SHOP_API_DELAY_MS || 0);
const products = [
  { id: 1, name: 'Desk lamp', price: 39 },
  { id: 2, name: 'Oak shelf', price: 120 },
];
const orders = [];

const server = createServer((req, res) => {
  const send = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'bad token' });
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => (delay ? setTimeout(answer, delay) : answer()));
  const answer = () => {
    const id = Number(req.url.split('/')[2]);
    if (req.method === 'GET' && req.url === '/products') return send(200, products);
    if (req.method === 'GET' && req.url.startsWith('/products/')) {
      const p = products.find((x) => x.id === id);
      return p ? send(200, p) : send(404, { error: 'no such product' });
    }
    if (req.method === 'POST' && req.url === '/orders') {
      const { product, quantity } = JSON.parse(body);
      const p = products.find((x) => x.id === product);
      if (!p) return send(404, { error: 'no such product' });
      const order = { id: orders.length + 1, name: p.name, quantity };
      orders.push(order);
      return send(201, order);
    }
    if (req.method === 'GET' && req.url.startsWith('/orders/')) {
      const o = orders.find((x) => x.id === id);
      return o ? send(200, o) : send(404, { error: 'no such order' });
    }
    return send(404, { error: 'not found' });
  };
});
server.listen(Number(process.argv[2] || 9000), '127.0.0.1', () => {
  console.log(`shop API on http://127.0.0.1:${server.address().port}`);
});
