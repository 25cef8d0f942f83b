// A handler written as apps built for Cloudflare Workers are (issue 33):
// `cloudflare:workers` imports, and a default export in
// `WorkerEntrypoint` class form.
import { env, WorkerEntrypoint, DurableObject, waitUntil } from 'cloudflare:workers';

// The top level runs at build time: no tenant, so no vars yet. It may
// await (esbuild's target keeps a top-level await; the build settles it).
const atTopLevel = Object.keys(env);
const settled = await new Promise((ok) => setTimeout(() => ok('at build time'), 5));

class Counter extends DurableObject {}

export default class extends WorkerEntrypoint {
  async fetch(request) {
    const url = new URL(request.url);
    let durable;
    try {
      new Counter();
      durable = 'made';
    } catch (e) {
      durable = `${e.name}: ${e.message}`;
    }
    let written;
    try {
      env.GREETING = 'changed';
      written = env.GREETING;
    } catch (e) {
      written = e.name;
    }
    const out = {
      path: url.pathname,
      atTopLevel,
      settled,
      live: env.GREETING,
      keys: Object.keys(env),
      has: 'GREETING' in env,
      mine: this.env.GREETING,
      ctx: typeof this.ctx.waitUntil,
      waitUntil: typeof waitUntil,
      written,
      durable,
    };
    return new Response(JSON.stringify(out), {
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    });
  }
}
