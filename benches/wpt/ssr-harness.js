// The Web Platform Tests as an ssr plugin (benches/wpt.sh): a POST's body
// is one test as a classic script (prefix.js, testharness.js, suffix.js,
// the META scripts and the test, joined by the driver, run.mjs), evaluated
// in the global scope as a classic script is; the answer is the harness's
// results as JSON. Registered with mode `fresh`: each test gets a new
// instance, so a new global.
export default {
  async fetch(request) {
    const source = await request.text();
    try {
      (0, eval)(source);
    } catch (e) {
      return Response.json({ harness: 'ERROR', message: `evaluating the test: ${e && e.name}: ${e && e.message}`, tests: [] });
    }
    return Response.json(await globalThis.__wptResults);
  },
};
