// The module `cloudflare:sockets` as `ssr build` resolves it (esbuild's
// `--alias`, build/bundle.rs): Workers' `connect()`, from the prelude
// (wit/prelude/25_sockets.js). Database drivers (Postgres, MySQL, Redis
// clients for Workers) import it.
const sockets = globalThis.__ssr.sockets;

export const connect = sockets.connect;
export default { connect };
