// Runs one of workerd's Node-compatibility test modules (a Workers module
// whose named exports are `{ test(ctrl, env, ctx) }` objects, imported here
// as `./test.js`) and answers each test's outcome as JSON:
// `{ name: "pass" | "fail: message" }`. A test that has not settled in 5 s
// fails as timed out, so one that never settles costs only itself.
// It answers `/__node_compat` (`?only=NAME`: that test alone); every other
// request, a test's own through a service binding to the worker itself,
// goes to the test module's default export, and so does a `scheduled` call.
// benches/node-compat.sh runs it on ssr's two engines and on workerd alike.
import * as tests from './test.js';
// Its classes (a `WorkerEntrypoint` a service binding names) are ours.
export * from './test.js';

export default {
  // A cron trigger's, or `Fetcher.scheduled()`'s: the test module's.
  async scheduled(controller, env, ctx) {
    if (typeof tests.default?.scheduled === 'function') await tests.default.scheduled(controller, env, ctx);
  },
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname !== '/__node_compat') {
      if (typeof tests.default?.fetch !== 'function') return new Response('no default export with fetch\n', { status: 404 });
      return tests.default.fetch(request, env, ctx);
    }
    const out = {};
    // The config's text bindings of fixture files, on ssr (compat.py).
    let texts = '';
    for (let i = 0; typeof env[`NODE_COMPAT_TEXTS_${i}`] === 'string'; i++) texts += env[`NODE_COMPAT_TEXTS_${i}`];
    if (texts !== '') env = { ...env, ...JSON.parse(texts) };
    // `?only=NAME`: that test alone (compat.py's fallback).
    const only = url.searchParams.get('only');
    for (const [name, t] of Object.entries(tests)) {
      if (t === null || typeof t !== 'object' || typeof t.test !== 'function') continue;
      if (only !== null && name !== only) continue;
      let timer;
      try {
        const timeout = new Promise((resolve, reject) => {
          timer = setTimeout(() => reject(new Error('timed out after 5 s')), 5000);
        });
        await Promise.race([t.test(undefined, env, ctx), timeout]);
        out[name] = 'pass';
      } catch (e) {
        let message;
        try {
          message = String((e && e.message) || e);
        } catch {
          message = 'an error that cannot be shown';
        }
        // The first lines: an assertion's diff follows its first line
        // (the report shows the first; the JSON keeps the rest to debug).
        out[name] = `fail: ${message.split('\n').slice(0, 12).join('\n').slice(0, 1200)}`;
      } finally {
        clearTimeout(timer);
      }
    }
    return new Response(JSON.stringify(out), { headers: { 'content-type': 'application/json' } });
  },
};
