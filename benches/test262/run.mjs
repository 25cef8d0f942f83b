// One of test262's suites (`intl402`, `built-ins`, `language`, `annexB`)
// on ssr's two engines and on Node (driven by benches/test262.sh). Each
// test is one script: its harness files (assert.js and sta.js,
// doneprintHandle.js for an async test, and its `includes`), then the
// test, with "use strict" first for an `onlyStrict` one; a `raw` test is
// run as it is. Every runtime evaluates it the same way, by indirect eval
// in a new global, so the columns compare engines, not harnesses (a
// script's top-level `let` and `var` differ a little from an eval's; the
// comparison is fair as every column has that difference):
// - `ssr-wasm`, `ssr-v8`: POSTed to SSR_URL's tenant `t262-wasm` /
//   `t262-v8` by path (mode `fresh`: a new global per test), which
//   evaluates it (benches/test262/ssr-harness.js);
// - `node`: a new `vm` context per test in this process.
// The host hooks every runtime gives: `$262.global`, `$262.evalScript`
// (indirect eval), `$262.detachArrayBuffer`. Left out, each counted with
// its reason: module tests, Temporal (V8 14's alone here), and tests that
// need a host hook no ssr tenant has (a second realm, agents, IsHTMLDDA).
//
// Usage: node run.mjs TEST262_DIR SUITE OUT.json (env: RUNTIMES, SSR_URL,
// JOBS). Writes every result to OUT.json and prints the pass counts per
// directory.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';

const [root, suite, outFile] = process.argv.slice(2);
const runtimes = (process.env.RUNTIMES || 'ssr-wasm,ssr-v8,node').split(',');
const jobs = Number(process.env.JOBS || 2);
const LEFT_OUT_DIRS = { Temporal: "Temporal: V8 14 has it natively, QuickJS-ng and Node 20 not; not compared" };
const HOOKS = [
  [/\$262\.createRealm/, 'needs a second realm ($262.createRealm)'],
  [/\$262\.agent|atomicsHelper\.js|CanBlockIs/, 'needs agents ($262.agent)'],
  [/\$262\.(IsHTMLDDA|AbstractModuleSource)/, "needs a browser's or a module host's hook"],
];

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : e.name.endsWith('.js') && !e.name.includes('_FIXTURE') ? [p] : [];
  });
}

// The frontmatter's includes, flags and negative type.
function meta(source) {
  const m = /\/\*---([\s\S]*?)---\*\//.exec(source);
  const yaml = m ? m[1] : '';
  const list = (key) => {
    const inline = new RegExp(`^${key}:\\s*\\[([^\\]]*)\\]`, 'm').exec(yaml);
    if (inline) return inline[1].split(',').map((s) => s.trim()).filter(Boolean);
    const block = new RegExp(`^${key}:\\s*\\n((?:\\s+-\\s*.+\\n?)+)`, 'm').exec(yaml);
    return block ? block[1].split('\n').map((l) => l.replace(/^\s*-\s*/, '').trim()).filter(Boolean) : [];
  };
  const negative = /^negative:\s*\n(?:\s+\w+:.*\n)*?\s+type:\s*(\w+)/m.exec(yaml);
  return { includes: list('includes'), flags: list('flags'), features: list('features'), negative: negative ? negative[1] : null };
}

// A test's own unhandled rejection (tests of promises make some on
// purpose) is its business, never the runner's end.
process.on('unhandledRejection', () => {});

const harness = (name) => fs.readFileSync(path.join(root, 'harness', name), 'utf8');

function scriptOf(source, m) {
  if (m.flags.includes('raw')) return source;
  const files = ['assert.js', 'sta.js', ...(m.flags.includes('async') ? ['doneprintHandle.js'] : []), ...m.includes];
  const body = `${files.map(harness).join('\n')}\n${source}`;
  return m.flags.includes('onlyStrict') ? `"use strict";\n${body}` : body;
}

async function onSsr(engine, test) {
  try {
    const r = await fetch(`${process.env.SSR_URL}/t/t262-${engine}/`, {
      method: 'POST',
      body: JSON.stringify(test),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await r.text();
    try {
      return JSON.parse(text);
    } catch {
      return { status: 'FAIL', message: `${r.status}: ${text.slice(0, 300)}` };
    }
  } catch (e) {
    return { status: 'FAIL', message: String(e) };
  }
}

// $262 in a new context: its functions are the context's own.
const HOST = `(detach, print) => {
  globalThis.print = print;
  globalThis.$262 = { global: globalThis, evalScript: (s) => (0, eval)(s), detachArrayBuffer: (b) => { detach(b); return null; } };
}`;

async function onNode(test) {
  let done;
  const finished = new Promise((ok) => (done = ok));
  const context = vm.createContext({});
  vm.runInContext(HOST, context)((b) => structuredClone(b, { transfer: [b] }), (m) => done(String(m)));
  try {
    vm.runInContext(`$262.evalScript(${JSON.stringify(test.source)})`, context, { timeout: 10_000 });
  } catch (e) {
    const name = e && e.constructor && e.constructor.name;
    if (test.negative) return name === test.negative ? { status: 'PASS' } : { status: 'FAIL', message: `expected ${test.negative}, got ${name}` };
    return { status: 'FAIL', message: `${name}: ${e && e.message}` };
  }
  if (test.negative) return { status: 'FAIL', message: `expected ${test.negative}, nothing was thrown` };
  if (!test.async) return { status: 'PASS' };
  const said = await Promise.race([finished, new Promise((ok) => setTimeout(() => ok('timed out'), 10_000))]);
  return said === 'Test262:AsyncTestComplete' ? { status: 'PASS' } : { status: 'FAIL', message: said };
}

const runners = { 'ssr-wasm': (t) => onSsr('wasm', t), 'ssr-v8': (t) => onSsr('v8', t), node: onNode };

const base = path.join(root, 'test', suite);
const results = { runtimes, left_out: {}, files: {} };
const queue = [];
for (const file of walk(base)) {
  const rel = path.relative(base, file);
  const top = rel.split(path.sep)[0];
  const source = fs.readFileSync(file, 'utf8');
  const m = meta(source);
  const hook = HOOKS.find(([re]) => re.test(source) || m.includes.some((i) => re.test(i)) || m.flags.some((f) => re.test(f)));
  const why = LEFT_OUT_DIRS[top] || (m.flags.includes('module') ? 'a module test' : hook && hook[1]);
  if (why) {
    results.left_out[why] = (results.left_out[why] || 0) + 1;
    continue;
  }
  const test = { source: scriptOf(source, m), async: m.flags.includes('async'), negative: m.negative };
  results.files[rel] = { features: m.features };
  for (const rt of runtimes) queue.push([rel, rt, test]);
}
let done = 0;
async function worker() {
  for (;;) {
    const item = queue.shift();
    if (!item) return;
    const [rel, rt, test] = item;
    results.files[rel][rt] = await runners[rt](test);
    if (++done % 500 === 0) process.stderr.write(`test262: ${done} runs done, ${queue.length} to go\n`);
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
fs.writeFileSync(outFile, JSON.stringify(results));

// Pass counts by the directory under the suite (top-level files: `Intl`
// in intl402, `(top)` elsewhere).
const byDir = {};
for (const [rel, per] of Object.entries(results.files)) {
  const dir = rel.includes(path.sep) ? rel.split(path.sep)[0] : suite === 'intl402' ? 'Intl' : '(top)';
  const row = (byDir[dir] ??= { total: 0 });
  row.total += 1;
  for (const rt of runtimes) row[rt] = (row[rt] || 0) + (per[rt].status === 'PASS' ? 1 : 0);
}
const all = { total: 0 };
for (const row of Object.values(byDir)) for (const [k, v] of Object.entries(row)) all[k] = (all[k] || 0) + v;
byDir.all = all;
console.log(JSON.stringify({ byDir, left_out: results.left_out }));
