// test262 as an ssr plugin (benches/test262.sh): a POST's body is
// `{source, async, negative}`, one test with its harness files joined
// before it by run.mjs, evaluated in the global scope as a script is
// (indirect eval, as run.mjs evaluates it on Node). Registered with mode
// `fresh`: each test gets a new instance, so a new global. The answer:
// `{status: "PASS"|"FAIL", message}`.
const pass = { status: 'PASS' };
const fail = (message) => ({ status: 'FAIL', message });

export default {
  async fetch(request) {
    const { source, async, negative } = await request.json();
    let done;
    const finished = new Promise((ok) => (done = ok));
    // doneprintHandle.js reports an async test's end through `print`;
    // `$262` holds the host hooks run.mjs gives every runtime.
    globalThis.print = (message) => done(String(message));
    globalThis.$262 = {
      global: globalThis,
      evalScript: (s) => (0, eval)(s),
      detachArrayBuffer: (b) => {
        structuredClone(b, { transfer: [b] });
        return null;
      },
    };
    try {
      $262.evalScript(source);
    } catch (e) {
      const name = e && e.constructor && e.constructor.name;
      if (negative) return Response.json(name === negative ? pass : fail(`expected ${negative}, got ${name}: ${e && e.message}`));
      return Response.json(fail(`${name}: ${e && e.message}`));
    }
    if (negative) return Response.json(fail(`expected ${negative}, nothing was thrown`));
    if (!async) return Response.json(pass);
    const said = await finished;
    return Response.json(said === 'Test262:AsyncTestComplete' ? pass : fail(said));
  },
};
