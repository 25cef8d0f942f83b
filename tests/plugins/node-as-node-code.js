// What code written for Node does with Node's modules, as Next.js through
// OpenNext does (issue 56): `require()` gets a module's default export,
// which it patches; `require('module')` is the `Module` function; `global`;
// `node:constants`' read-only properties;
// a server's own `IncomingMessage`; an async `_transform`; and a top-level
// `await` in a bundle that uses AsyncLocalStorage (lowered on the Wasm
// engine).
import timersDefault from 'node:timers';
import constants from 'node:constants';
import { AsyncLocalStorage } from 'node:async_hooks';
import { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';

const als = new AsyncLocalStorage();
const ready = await Promise.resolve().then(() => 'awaited at the top');

export default {
  async fetch() {
    const out = [];
    const timers = require('node:timers');
    out.push(`require gives the default export: ${timers === timersDefault}`);
    const original = timers.setImmediate;
    timers.setImmediate = function patched(...args) {
      return original(...args);
    };
    out.push(`patched: ${timers.setImmediate.name} ${timersDefault.setImmediate.name}`);
    timers.setImmediate = original;
    const Module = require('node:module');
    out.push(`module: ${typeof Module} ${typeof Module.prototype} ${typeof Module.createRequire}`);
    try {
      new Module();
    } catch (e) {
      out.push(`new Module: ${e.code}`);
    }
    out.push(`global: ${typeof global} ${global === globalThis}`);
    try {
      constants.O_RDONLY = 7;
      out.push(`constants: written ${constants.O_RDONLY}`);
    } catch (e) {
      out.push(`constants: read-only (${e.name})`);
    }
    out.push(ready);
    out.push(
      await als.run('kept', async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return `AsyncLocalStorage after awaits: ${als.getStore()}`;
      }),
    );
    const req = new IncomingMessage({ encrypted: true });
    req.method = 'POST';
    req.url = '/form';
    req.push('a body');
    req.push(null);
    let body = '';
    for await (const chunk of req) body += chunk;
    out.push(`incoming: ${req.method} ${req.url} ${body} ${req.statusCode}`);
    const upper = new Transform({
      async transform(chunk, encoding, callback) {
        callback(null, String(chunk).toUpperCase());
      },
    });
    let shouted = '';
    upper.on('data', (chunk) => (shouted += chunk));
    await new Promise((resolve, reject) => {
      upper.on('end', resolve);
      upper.on('error', reject);
      upper.write('quiet ');
      upper.end('words');
    });
    out.push(`async transform: ${shouted}`);
    return new Response(out.join('\n'));
  },
};
