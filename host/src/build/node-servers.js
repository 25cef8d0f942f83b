// The module `cloudflare:node` as `ssr build` resolves it (esbuild's
// `--alias`, build/bundle.rs): a `node:http` server as a Worker's fetch
// handler, as on workerd. `httpServerHandler(server)` (or a port, or
// `{ port }`) gives `{ fetch }`, which answers each request by the server
// on that port; a server not yet listening is told to listen first.
// `handleAsNodeRequest(port, request)` answers one. The servers listen on
// no socket (node/_serving.js).
import { answer, portOf } from './_serving.js';

export async function handleAsNodeRequest(desc, request, env, ctx) {
  return answer(portOf(desc), request, env, ctx);
}

export function httpServerHandler(desc) {
  if (desc === null || desc === undefined) throw new Error('Server descriptor cannot be null or undefined');
  if (typeof desc === 'object' && desc.port == null && typeof desc.listen === 'function') {
    // A server: its port, listening now if it was not.
    if (typeof desc.address()?.port !== 'number') desc.listen();
    desc = { port: desc.address()?.port };
  }
  const port = portOf(desc);
  return {
    fetch: (request, env, ctx) => handleAsNodeRequest(port, request, env, ctx),
  };
}

export default { handleAsNodeRequest, httpServerHandler };
