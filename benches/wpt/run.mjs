// The Web Platform Tests' `.any.js` files on several runtimes (driven by
// benches/wpt.sh): each test is one classic script, the same on every
// runtime: prefix.js (a worker's `location` and `GLOBAL`), the harness,
// suffix.js (results out), its META scripts, the test, and the `install`
// event that ends a service worker's loading (`loaded`). The WPT tree is
// served over loopback HTTP at WPT_ORIGIN, so that tests fetching their
// data (`resources/*.json`) find it.
//
// Runtimes (RUNTIMES, comma-separated):
// - `ssr-wasm`, `ssr-v8`: POST the script to SSR_URL's tenant `wpt-wasm` /
//   `wpt-v8` by path (`/t/<id>/`; tenants in mode `fresh`: a new global
//   per test), which evaluates it (benches/wpt/ssr-harness.js);
// - `node`: a Node process per test, `vm.runInThisContext`;
// - `workerd`: a workerd process per test, the script as a service
//   worker's body run inside its first request (workerd allows no timers,
//   fetch or eval at a script's top level), with loopback reachable.
//
// Usage: node run.mjs WPT_DIR OUT.json DIR...  (env: RUNTIMES, SSR_URL,
// WORKERD, WPT_PORT, JOBS). Writes every result to OUT.json and prints
// the pass counts per directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [wptDir, outFile, ...dirs] = process.argv.slice(2);
const runtimes = (process.env.RUNTIMES || 'ssr-wasm,ssr-v8,node').split(',');
const port = Number(process.env.WPT_PORT || 18311);
const origin = `http://127.0.0.1:${port}`;
const jobs = Number(process.env.JOBS || 2);

// Why a test is left out, before it runs; null to run it.
function leftOut(meta, source) {
  const globals = meta.global.length ? meta.global.join(',') : 'window,dedicatedworker';
  if (!/worker|shadowrealm/.test(globals)) return `runs in a window only (global=${globals}): needs a DOM`;
  if (/\.py\b/.test(source)) return "needs the WPT server's Python handlers";
  if (/\bget-host-info\b|\bRemoteContext\b/.test(source)) return 'needs other origins of the WPT server';
  return null;
}

function parseMeta(source) {
  const meta = { script: [], global: [], variant: [] };
  for (const line of source.split('\n')) {
    const m = /^\/\/ META: *(\w+)=(.*)$/.exec(line.trim());
    if (!m) {
      if (line.trim() && !line.trim().startsWith('//')) break;
      continue;
    }
    if (m[1] === 'script') meta.script.push(m[2].trim());
    if (m[1] === 'global') meta.global.push(...m[2].split(',').map((g) => g.trim()));
    if (m[1] === 'variant') meta.variant.push(m[2].trim());
  }
  return meta;
}

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p, out);
    else if (entry.name.endsWith('.any.js')) out.push(p);
  }
  return out;
}

const read = (p) => fs.readFileSync(p, 'utf8');
const prefix = read(path.join(here, 'prefix.js'));
const suffix = read(path.join(here, 'suffix.js'));
const harness = read(path.join(wptDir, 'resources/testharness.js'));

// Evaluated last: the event that tells the harness every test is defined.
// Where the global object is a ServiceWorkerGlobalScope (ssr's engines and
// workerd, as a service worker's), testharness.js waits for `install`, which
// a service worker gets once its script has run; without it the harness
// never completes and each file waits for prefix.js's fallback timer. A
// runtime whose global is no EventTarget (Node) takes the shell harness,
// which needs nothing.
const loaded = "if (typeof dispatchEvent === 'function') dispatchEvent(new Event('install'));";

// The whole classic script for the test at `rel` (relative to the WPT root)
// in its `variant` (a query string its META names, or '': the test reads it
// from `location.search`, as common/subset-tests.js does).
function scriptOf(rel, variant, meta, source) {
  const url = `${origin}/${rel}${variant}`;
  const parts = [prefix.replace('__WPT_URL__', url), harness, suffix];
  for (const s of meta.script) {
    const file = s.startsWith('/') ? path.join(wptDir, s) : path.join(wptDir, path.dirname(rel), s);
    parts.push(read(file));
  }
  parts.push(source, loaded);
  return parts.join('\n;\n');
}


// The WPT tree over HTTP.
const types = { '.json': 'application/json', '.js': 'text/javascript', '.txt': 'text/plain', '.html': 'text/html', '.css': 'text/css', '.xml': 'application/xml', '.svg': 'image/svg+xml', '.png': 'image/png', '.wasm': 'application/wasm' };
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url, origin).pathname);
  const file = path.join(wptDir, rel);
  if (!file.startsWith(path.resolve(wptDir)) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream', 'access-control-allow-origin': '*' });
  fs.createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(port, '127.0.0.1', ok));

const failed = (message) => ({ harness: 'ERROR', message, tests: [] });

async function onSsr(engine, script) {
  const r = await fetch(`${process.env.SSR_URL}/t/wpt-${engine}/`, { method: 'POST', body: script });
  const text = await r.text();
  try {
    const out = JSON.parse(text);
    return Array.isArray(out.tests) ? out : failed(`${r.status}: ${text.slice(0, 300)}`);
  } catch {
    return failed(`${r.status}: ${text.slice(0, 300)}`);
  }
}

function run(cmd, args, opts, input) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A child that exits before reading it all closes the pipe.
    child.stdin.on('error', () => {});
    child.stdin.end(input ?? '');
  });
}

const nodeRunner = `
const vm = require('node:vm');
// An error a test leaves uncaught goes to the harness in a worker; here it
// would end the process before the results are out.
process.on('uncaughtException', () => {});
process.on('unhandledRejection', () => {});
let src = '';
process.stdin.on('data', (d) => (src += d));
process.stdin.on('end', async () => {
  // Written, then exit: process.exit() would cut a long write to a pipe.
  const out = (r) => process.stdout.write(JSON.stringify(r) + '\\n', () => process.exit(0));
  try { vm.runInThisContext(src); } catch (e) { out({ harness: 'ERROR', message: 'evaluating the test: ' + e, tests: [] }); return; }
  out(await globalThis.__wptResults);
});`;

async function onNode(script) {
  const { stdout, stderr } = await run(process.execPath, ['-e', nodeRunner], {}, script);
  try {
    return JSON.parse(stdout.trim().split('\n').pop());
  } catch {
    return failed(`node: ${stderr.slice(0, 300)}`);
  }
}

let workerdPort = port + 100;
async function onWorkerd(script) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wpt-workerd-'));
  const listen = workerdPort++;
  if (workerdPort > port + 900) workerdPort = port + 100;
  fs.writeFileSync(
    path.join(dir, 'test.js'),
    // workerd's global is a ServiceWorkerGlobalScope, for which the harness
    // waits for a client's messages: without those names it takes its
    // shell environment, as on the other runtimes.
    `function __wptRun() {\nfor (const n of ['ServiceWorkerGlobalScope', 'WorkerGlobalScope']) delete globalThis[n];\n${script}\n;return __wptResults;\n}\naddEventListener('fetch', (e) => e.respondWith(__wptRun().then((r) => new Response(JSON.stringify(r)))));\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .test), (name = "net", network = (allow = ["public", "private", "local"]))],
  sockets = [(name = "http", address = "127.0.0.1:${listen}", http = (), service = "main")],
);
const test :Workerd.Worker = (serviceWorkerScript = embed "test.js", compatibilityDate = "2026-11-01", compatibilityFlags = ["nodejs_compat"], globalOutbound = "net");
`,
  );
  const child = spawn(process.env.WORKERD, ['serve', 'config.capnp'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    for (let i = 0; i < 100; i++) {
      try {
        const r = await fetch(`http://127.0.0.1:${listen}/`, { signal: AbortSignal.timeout(30_000) });
        const text = await r.text();
        try {
          return JSON.parse(text);
        } catch {
          return failed(`workerd ${r.status}: ${text.slice(0, 200)} ${stderr.slice(0, 300)}`);
        }
      } catch (e) {
        if (child.exitCode !== null || e.name === 'TimeoutError') return failed(`workerd: ${stderr.slice(0, 300)}`);
        await new Promise((ok) => setTimeout(ok, 100));
      }
    }
    return failed('workerd did not start');
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const runners = {
  'ssr-wasm': (s) => onSsr('wasm', s),
  'ssr-v8': (s) => onSsr('v8', s),
  node: onNode,
  workerd: onWorkerd,
};

const tests = dirs.flatMap((d) => walk(path.join(wptDir, d)).map((f) => path.relative(wptDir, f)));
const results = { wpt: wptDir, runtimes, left_out: {}, files: {} };
const queue = [];
for (const rel of tests) {
  const source = read(path.join(wptDir, rel));
  const meta = parseMeta(source);
  const why = leftOut(meta, source);
  if (why) {
    results.left_out[rel] = why;
    continue;
  }
  // A file with variants is run once per variant, as WPT's own runner does
  // (each is a slice of its subtests), and each counts as a file.
  for (const variant of meta.variant.length ? meta.variant : ['']) {
    const key = rel + variant;
    let script;
    try {
      script = scriptOf(rel, variant, meta, source);
    } catch (e) {
      results.left_out[key] = `a META script is missing: ${e.message}`;
      continue;
    }
    results.files[key] = {};
    for (const rt of runtimes) queue.push([key, rt, script]);
  }
}
let done = 0;
async function worker() {
  for (;;) {
    const item = queue.shift();
    if (!item) return;
    const [rel, rt, script] = item;
    results.files[rel][rt] = await runners[rt](script).catch((e) => failed(String(e)));
    if (++done % 50 === 0) process.stderr.write(`wpt: ${done} runs done, ${queue.length} to go\n`);
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
server.close();
fs.writeFileSync(outFile, JSON.stringify(results));

// Pass counts per directory (the test's directory up to two levels): a
// file's subtests are those the runtime that ran the most of them saw, so
// a runtime that could not even start a file counts all of them as failed.
const byDir = {};
for (const [rel, per] of Object.entries(results.files)) {
  const parts = rel.split('/');
  const depth = { fetch: 3, html: 3, dom: 2 }[parts[0]] || 1;
  // Tentative tests (`.tentative.` in the name: a proposal, not yet the
  // standard) are counted apart, so that a standard's row is the standard.
  const dir = parts.slice(0, depth).join('/') + (/\.tentative\./.test(rel) ? ' (tentative)' : '');
  const total = Math.max(1, ...Object.values(per).map((r) => r.tests.length));
  const row = (byDir[dir] ??= { total: 0 });
  row.total += total;
  for (const rt of runtimes) row[rt] = (row[rt] || 0) + per[rt].tests.filter((t) => t.status === 'PASS').length;
}
const all = { total: 0 };
for (const row of Object.values(byDir)) for (const [k, v] of Object.entries(row)) all[k] = (all[k] || 0) + v;
byDir.all = all;
console.log(JSON.stringify(byDir));
