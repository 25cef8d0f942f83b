// The module `cloudflare:workers` as `ssr build` resolves it (esbuild's
// `--alias`, build/bundle.rs): what the prelude (wit/prelude/32_cloudflare_workers.js)
// provides, under the names Cloudflare's runtime exports. Apps built by the
// frameworks' Cloudflare adapters import `env` from here.
const workers = globalThis.__ssr.workers;

// The tenant's vars and secrets, read-only and live: empty at the top level
// (which runs at build time), their current values during a request.
export const env = workers.env;
export const WorkerEntrypoint = workers.WorkerEntrypoint;
// Declaring a subclass is fine; constructing one throws, naming why.
export const DurableObject = workers.DurableObject;
export const waitUntil = workers.waitUntil;
