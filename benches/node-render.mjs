// Node's warm render time for a bundle, the reference for the V8 engine's
// "within 1.3x of node" target (benches/run.sh).
// Usage: node benches/node-render.mjs <bundle.mjs> <url>
// Renders for 3 s to warm up (JIT: preact on V8 10.2 takes over 1 s to reach
// its optimized code), then for 3 s, and prints the median and
// mean time per render in nanoseconds, as JSON. The request object is shaped
// as the prelude shapes it for the engines.
import { pathToFileURL } from 'node:url';

const [bundlePath, url] = process.argv.slice(2);
const mod = await import(pathToFileURL(bundlePath).href);
const render =
  typeof mod.render === 'function' ? mod.render
  : typeof mod.default === 'function' ? mod.default
  : mod.default.render.bind(mod.default);
const [path, qs = ''] = url.split('?');
const query = {};
for (const [k, v] of new URLSearchParams(qs)) if (!(k in query)) query[k] = v;
const request = { method: 'GET', url, href: `http://localhost${url}`, base: '', path, query, headers: {}, tenant: 'bench' };
for (const k of ['log', 'info', 'debug', 'warn', 'error']) console[k] = () => {};

// Ends with the body as UTF-8 bytes, as the engines hand it to the host (a
// server must do the same before writing it to a socket).
async function once() {
  const out = await render(request);
  return Buffer.from(typeof out === 'string' ? out : out.body, 'utf8').length;
}

const until = (ms) => performance.now() + ms;
for (const end = until(3000); performance.now() < end;) await once();
const times = [];
for (const end = until(3000); performance.now() < end;) {
  const t = process.hrtime.bigint();
  await once();
  times.push(Number(process.hrtime.bigint() - t));
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const mean = times.reduce((a, b) => a + b, 0) / times.length;
process.stdout.write(JSON.stringify({ median_ns: median, mean_ns: Math.round(mean), samples: times.length }) + '\n');
process.exit(0);
