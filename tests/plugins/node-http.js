// `node:http`'s client over the tenant's fetch (issue 56): `?url=` is
// fetched with `http.get`, or POSTed to with `http.request` at `/post`, or
// got with `?path=` as `options.path` at `/path`; the answer says what
// came back, or the error.
import http from 'node:http';
import { request as httpsRequest } from 'https';
import { Buffer } from 'node:buffer';

function call(start) {
  return new Promise((resolve) => {
    const req = start((res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(`${res.statusCode} ${res.statusMessage} ${res.headers['content-type']} ${Buffer.concat(chunks).toString()}`));
    });
    req.on('error', (e) => resolve(`${e.name}: ${e.message}`));
    return req;
  });
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const target = url.searchParams.get('url');
    let out;
    if (url.pathname === '/post') {
      out = await call((cb) => {
        const u = new URL(target);
        const req = http.request({ hostname: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'x-token': 'node' } }, cb);
        req.write('from ');
        req.end('http.request');
        return req;
      });
    } else if (url.pathname === '/path') {
      try {
        out = await call((cb) => http.get(target, { path: url.searchParams.get('path') }, cb));
      } catch (e) {
        out = `${e.code}: ${e.message}`;
      }
    } else if (url.pathname === '/https') {
      out = await call((cb) => httpsRequest(target, cb).end());
    } else {
      out = await call((cb) => http.get(target, cb));
    }
    return new Response(out);
  },
};
