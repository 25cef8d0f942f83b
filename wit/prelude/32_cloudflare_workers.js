//! What `import ... from "cloudflare:workers"` gives: a live `env`,
//! `WorkerEntrypoint`, `DurableObject`, `waitUntil`.
//!
//! Defines: none
//! Host calls: none
//! Rust: host/src/build/workers.js
//! WPT: none
//! Test plugin: tests/plugins/workers.js
  // What `import ... from "cloudflare:workers"` gives (host/src/build/
  // workers.js re-exports these). `env` is a read-only live view of the
  // tenant's vars and secrets: empty while the bundle's top level runs
  // (`ssr build` runs it, before any tenant exists; V8 runs it when an
  // isolate starts), their current values once a request is served.
  let serving = false;
  const liveEnv = new Proxy(Object.create(null), {
    get: (_, k) => (serving && typeof k === 'string' ? tenantEnv()[k] : undefined),
    has: (_, k) => serving && k in tenantEnv(),
    ownKeys: () => (serving ? Reflect.ownKeys(tenantEnv()) : []),
    getOwnPropertyDescriptor(_, k) {
      const d = serving ? Reflect.getOwnPropertyDescriptor(tenantEnv(), k) : undefined;
      return d && { value: d.value, writable: false, enumerable: true, configurable: true };
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
  // The base of a handler in class form: `export default class extends
  // WorkerEntrypoint { fetch(request) { ... this.env ... } }`.
  class WorkerEntrypoint {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }
  // The base of a Durable Object's class: `export class Room extends
  // DurableObject { ... this.ctx.storage ... }` (`31_durable_objects.js`).
  class DurableObject {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }
  const workers = Object.freeze({ env: liveEnv, WorkerEntrypoint, DurableObject, waitUntil: (p) => context.waitUntil(p) });

