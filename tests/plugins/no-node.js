// What a renderer sees of its engine's process: the V8 engine's isolates
// live in Node's `node`, and nothing of Node may reach them. The Wasm engine
// (QuickJS) never had Node, so each answer here must be the same on both.
import fs from 'node:fs';
import process from 'node:process';

// What an expression gives: its value, or the error it throws.
function probe(f) {
  try {
    const v = f();
    return typeof v === 'function' ? 'function' : JSON.stringify(v) ?? String(v);
  } catch (e) {
    return `throws ${e?.constructor?.name}`;
  }
}

export default {
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/globals') {
      return new Response(Object.getOwnPropertyNames(globalThis).sort().join('\n'));
    }
    const answers = {
      require: typeof globalThis.require,
      module: typeof module,
      exports: typeof exports,
      dirname: typeof __dirname,
      // Node's own `process` has `binding`, `dlopen` and its real pid.
      binding: probe(() => process.binding('fs')),
      dlopen: typeof process.dlopen,
      globalProcessIsModules: globalThis.process === process,
      pidIsOne: process.pid === 1,
      // Node's file system is not the renderer's: only the virtual one.
      hostname: probe(() => fs.readFileSync('/etc/hostname', 'utf8')),
      passwd: fs.existsSync('/etc/passwd'),
      root: probe(() => fs.readdirSync('/').sort()),
      // Node's internal bindings and loaders.
      internalBinding: typeof internalBinding,
      primordials: typeof primordials,
      importMeta: typeof import.meta.resolve,
    };
    return Response.json(answers);
  },
};
