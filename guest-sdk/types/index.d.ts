// @ssr/types: the TypeScript types of an ssr site (this package's README
// says how a site installs it). A site's code is one ES module exporting
// either a fetch handler, the Workers form, with the standard `Request` and
// `Response`:
//
//   import type { Handler } from '@ssr/types';
//   export default { async fetch(request, env, ctx) { return new Response('hi'); } } satisfies Handler;
//
// or `render` (named, or as the default export, or as a default object with
// a `render` method), given the request as plain data:
//
//   import type { Render } from '@ssr/types';
//   export const render: Render = (request, env) => `<h1>${request.path}</h1>`;
//
// The Workers globals and the module `cloudflare:workers` are in workers.d.ts.

/// <reference path="./workers.d.ts" />

/** One HTTP request, as the renderer sees it. */
export interface RenderRequest {
  /** Upper-case method: "GET", "HEAD", ... */
  method: string;
  /** Path and query exactly as received, after `base`: "/blog/1?draft=1". */
  url: string;
  /**
   * The absolute URL as received: scheme, Host (port included), base, path
   * and query: "http://shop.example:8080/blog/1?draft=1".
   */
  href: string;
  /**
   * The path prefix the host routed by ("/t/shop" under path routing), or "".
   * Links the page makes start with it: `${req.base}/blog/2`.
   */
  base: string;
  /** The path alone, percent-encoding kept: "/blog/1". */
  path: string;
  /** Each query name mapped to its first value, percent-decoded. */
  query: Record<string, string>;
  /**
   * Request headers, names lower-cased; repeated headers joined with ", ".
   * Every name read (or tested with `in`) joins the page's cache key; listing
   * the names (`Object.keys`, spread, `JSON.stringify`) makes the page vary on
   * every header, so it is never cached.
   */
  headers: Record<string, string>;
  /** The id of the tenant the request was routed to. */
  tenant: string;
}

/** How long the host may cache a response. */
export type CachePolicy =
  /** Never cache. */
  | 'no-store'
  /** Cache for this many seconds. */
  | number
  | { ttl: number };

/** A full response. */
export interface RenderResponse {
  /** 200-599; default 200; a 204 or 304 is sent without a body. Only 200 responses are cached unless `cache` says otherwise. */
  status?: number;
  /** Header names are lower-cased; `content-type` defaults to `text/html; charset=utf-8`. */
  headers?: Record<string, string | string[]> | Array<[string, string]>;
  /** The body: a string (UTF-8 on the wire) or bytes. */
  body: string | Uint8Array | ArrayBuffer;
  /** The renderer's caching wish; the host's default applies when absent. */
  cache?: CachePolicy;
  /** Request header names the response varies on besides those it read (they join the cache key). */
  vary?: string[];
}

/** What `render` may return: HTML (status 200), a response, or a promise of either. */
export type RenderResult = string | RenderResponse | Promise<string | RenderResponse>;

/** The tenant's vars and secrets (`ssr tenant add --var`, `ssr tenant secret put`), frozen. */
export type Env = Readonly<Record<string, string>>;

/** The function a renderer exports. */
export type Render = (request: RenderRequest, env: Env) => RenderResult;

/** A fetch handler's third argument (the Workers global `ExecutionContext`). */
export type Context = ExecutionContext;

/**
 * The Workers form, `export default { fetch(request, env, ctx) }`: the
 * Workers global `ExportedHandler`, whose `env` is the tenant's vars and
 * secrets unless the site names its own type (with `env.ASSETS: Fetcher`,
 * say).
 */
export type Handler<E = Env> = ExportedHandler<E>;
