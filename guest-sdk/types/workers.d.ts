// The names ssr provides beside the web platform's: the global types a
// handler written for Cloudflare Workers is typed with, the extensions ssr
// makes to the standard globals, `ssr build`'s `SSR_CLIENT`, and the module
// `cloudflare:workers`.
//
// A script, not a module, so that these are global: index.d.ts references
// it. The standard globals themselves (Request, Response, URL, crypto,
// caches, ...) are TypeScript's `WebWorker` lib: a site's tsconfig.json
// names it in `lib` (see this package's README).

/** A fetch handler's third argument. */
interface ExecutionContext {
  /**
   * Keep the render going after its response, until `promise` settles
   * (within its CPU time and the request's wall-clock limit; at most 32 per
   * request). A rejection is logged.
   */
  waitUntil(promise: Promise<unknown>): void;
  /** Accepted, and does nothing: an exception is a 500. */
  passThroughOnException(): void;
}

/**
 * The Workers form: `export default { fetch(request, env, ctx) }`. The
 * response's `Cache-Control` decides what the host's cache keeps (`private`,
 * `no-store`, `no-cache`: nothing; `s-maxage`, else `max-age`: that long).
 */
interface ExportedHandler<Env = import('./index').Env> {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
}

/** A binding that answers requests: `env.ASSETS`, the site's static assets. */
interface Fetcher {
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
}

interface CacheStorage {
  /** The tenant's default cache, kept in the host's page cache. */
  readonly default: Cache;
}

interface SubtleCrypto {
  /** Compares two buffers of the same length in constant time (Workers' extension). */
  timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
}

/**
 * Defined by `ssr build --client`: the browser half's hashed files, so that
 * a page loads exactly the client it was built with. Absent without
 * `--client`.
 */
declare const SSR_CLIENT: { readonly script: string; readonly css: readonly string[] };

declare module 'cloudflare:workers' {
  /**
   * The tenant's vars and secrets, read-only and live: empty at the top
   * level (which runs at build time), their current values during a request.
   */
  export const env: Readonly<Record<string, string | undefined>>;

  /** Schedules work after the current request's response, as `ctx.waitUntil`. */
  export function waitUntil(promise: Promise<unknown>): void;

  /**
   * The class form of a handler: `export default class extends
   * WorkerEntrypoint { fetch(request) { ... this.env ... } }`, made anew
   * for each request.
   */
  export abstract class WorkerEntrypoint<Env = import('./index').Env> {
    protected ctx: ExecutionContext;
    protected env: Env;
    constructor(ctx: ExecutionContext, env: Env);
    fetch?(request: Request): Response | Promise<Response>;
  }

  /** Declared so that imports resolve; constructing one throws: ssr has no Durable Objects. */
  export abstract class DurableObject<Env = import('./index').Env> {
    protected ctx: unknown;
    protected env: Env;
    constructor(ctx: unknown, env: Env);
  }
}
