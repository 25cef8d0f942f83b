// A `node:http` server as the Worker's fetch handler, through
// `cloudflare:node` (as Express-on-Workers apps run): requests with bodies
// and queries, a streamed answer, a status and reason of its own, repeated
// headers, HEAD, an empty answer, a response destroyed before its head,
// the handler's errors, and the server's
// listening state. `/` answers what each gave; every other path is the
// server's.
import http from 'node:http';
import { httpServerHandler, handleAsNodeRequest } from 'cloudflare:node';

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/echo') {
    let body = '';
    for await (const chunk of req) body += chunk;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, url: req.url, a: req.headers['x-a'], body, env: Object.keys(req.cloudflare.env).length }));
  } else if (url.pathname === '/stream') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 3; i++) {
      res.write(`part ${i};`);
      await new Promise((r) => setTimeout(r, 5));
    }
    res.end('end');
  } else if (url.pathname === '/status') {
    res.writeHead(418, 'Short and stout', { 'x-kind': 'teapot' });
    res.end('tea');
  } else if (url.pathname === '/multi') {
    res.setHeader('set-cookie', ['a=1', 'b=2']);
    res.appendHeader('x-list', 'one');
    res.appendHeader('x-list', 'two');
    res.end(`${res.getHeaderNames().join(',')} ${res.hasHeader('X-LIST')}`);
  } else if (url.pathname === '/head') {
    res.setHeader('x-head', 'yes');
    res.end('not sent');
  } else if (url.pathname === '/destroyed') {
    res.destroy(new Error('gone on purpose'));
  } else if (url.pathname === '/late') {
    res.end('done');
    let said;
    try {
      res.setHeader('x-late', '1');
    } catch (e) {
      said = e.code;
    }
    res.statusCode = 200;
    console.log(said);
  } else {
    res.statusCode = 404;
    res.end();
  }
});
server.listen(3000);
const handler = httpServerHandler(server);

async function call(path, init) {
  const r = await handler.fetch(new Request(`http://example.com${path}`, init), { A: 1 }, {});
  const headers = [...r.headers].map(([k, v]) => `${k}=${v}`).join(',');
  return `${path}: ${r.status} ${r.statusText} [${headers}] ${await r.text()}`;
}

async function caught(f) {
  try {
    await f();
    return 'no error';
  } catch (e) {
    return `${e.code ?? e.name}: ${e.message}`;
  }
}

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== '/') return handler.fetch(request, env, ctx);
    const out = [];
    out.push(await call('/echo?x=1', { method: 'POST', body: 'payload', headers: { 'x-a': '1' } }));
    out.push(await call('/stream'));
    out.push(await call('/status'));
    out.push(await call('/multi'));
    out.push(await call('/head', { method: 'HEAD' }));
    out.push(await call('/missing'));
    out.push(await caught(() => call('/destroyed')));
    out.push(await caught(() => httpServerHandler(null)));
    out.push(await caught(() => httpServerHandler({})));
    out.push(await caught(() => handleAsNodeRequest(1234, new Request('http://example.com/'))));
    out.push(await caught(() => server.listen(3001)));
    out.push(await caught(() => http.createServer().listen(70000)));
    out.push(await caught(() => http.createServer({ headersTimeout: 10, requestTimeout: 5 })));
    const other = http.createServer((req, res) => res.end('other'));
    await new Promise((resolve) => other.listen(0, resolve));
    const port = other.address().port;
    const r = await handleAsNodeRequest({ port }, new Request('http://example.com/'));
    out.push(`other: ${port > 0} ${other.listening} ${await r.text()}`);
    await new Promise((resolve) => other.close(resolve));
    out.push(`closed: ${other.listening} ${other.address()} ${await caught(() => handleAsNodeRequest(port, new Request('http://example.com/')))}`.replaceAll(String(port), 'PORT'));
    out.push(`server: ${server.listening} ${JSON.stringify(server.address())} ${server instanceof http.Server} ${typeof http.ServerResponse} ${new http.OutgoingMessage() instanceof http.OutgoingMessage}`);
    return new Response(out.join('\n'));
  },
};
