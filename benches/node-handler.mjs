// Node serving a Workers-style handler (`export default { fetch(request,
// env) }`) with its own Request, Response and fetch (undici, pooled): the
// reference for benches/fetch.sh. One process, one event loop.
// Usage: PORT=... ENV_JSON='{"API": ...}' node benches/node-handler.mjs <handler.js>
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const mod = await import(pathToFileURL(process.argv[2]).href);
const env = JSON.parse(process.env.ENV_JSON || '{}');
for (const k of ['log', 'info', 'debug', 'warn', 'error']) console[k] = () => {};

createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers, body });
  const response = await mod.default.fetch(request, env, {});
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}).listen(Number(process.env.PORT), '127.0.0.1');
