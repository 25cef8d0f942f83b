// The Piscina baseline (benches/run.sh): fastify with fastify-piscina, a pool
// of worker threads (as many as ssr's render workers) rendering the same
// React bundle that ssr serves, one render per request (no cache).
// Usage: node benches/piscina/server.mjs <react bundle.mjs> <port> <threads>
import Fastify from 'fastify';
import fastifyPiscina from 'fastify-piscina';
import { pathToFileURL } from 'node:url';

const [bundle, port, threads] = process.argv.slice(2);
const app = Fastify({ logger: false });
app.register(fastifyPiscina, {
  filename: new URL('./worker.mjs', import.meta.url).href,
  minThreads: Number(threads),
  maxThreads: Number(threads),
  workerData: { bundle: pathToFileURL(bundle).href },
});
app.get('/*', async (req, reply) => {
  const [path, qs = ''] = req.url.split('?');
  const query = {};
  for (const [k, v] of new URLSearchParams(qs)) if (!(k in query)) query[k] = v;
  const html = await app.runTask({ method: 'GET', url: req.url, path, query, headers: req.headers, tenant: 'piscina' });
  reply.type('text/html; charset=utf-8').send(html);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.error(`piscina baseline listening on http://127.0.0.1:${port} with ${threads} threads`);
