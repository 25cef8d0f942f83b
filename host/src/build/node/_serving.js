// The servers of `node:http` that listen, by port (`_http_server.js` enters
// and removes them), and how a Worker's request reaches one:
// `cloudflare:node`'s `httpServerHandler` and `handleAsNodeRequest`
// (build/node-servers.js). A port is a name within the instance: no
// socket is opened, and no other tenant or instance sees it.
export const listening = new Map();

// `port` as a descriptor gives it (a number, or `{ port }`), checked.
export function portOf(desc) {
  const port = typeof desc === 'number' ? desc : desc?.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('Failed to determine port for server');
  return port;
}

// Answers `request` by the server listening on `port`.
export function answer(port, request, env, ctx) {
  const server = listening.get(port);
  if (server === undefined) {
    const e = new Error(`Http server with port ${port} not found. This is likely a bug with your code. You should check if server.listen() was called with the same port (${port})`);
    e.code = 'ERR_INVALID_ARG_VALUE';
    throw e;
  }
  return server._answer(request, env, ctx);
}
