// A handler written as apps built for Cloudflare Workers are (issue 33):
// `cloudflare:workers` imports, and a default export in
// `WorkerEntrypoint` class form.
import { env, WorkerEntrypoint, DurableObject, waitUntil } from 'cloudflare:workers';

// The top level runs at build time: no tenant, so no vars yet.
const atTopLevel = Object.keys(env);

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
