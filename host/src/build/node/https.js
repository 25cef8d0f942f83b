// `node:https`'s client: `node:http`'s, with `https:` the default
// protocol (the host's `fetch` speaks TLS); its server is `node:http`'s
// (the request arrives as the Worker's, TLS ended before it).
import { Agent as HttpAgent, ClientRequest, Server as HttpServer } from './http.js';

// (Named by its key: the bundle may rename a class declaration.)
export const Server = { Server: class extends HttpServer {} }.Server;

export function createServer(options, requestListener) {
  return new Server(options, requestListener);
}

export class Agent extends HttpAgent {
  constructor(options) {
    super(options);
    this.defaultPort = 443;
    this.protocol = 'https:';
  }
}

export const globalAgent = new Agent();

function SecureClientRequest(...args) {
  this._defaultProtocol = 'https:';
  ClientRequest.apply(this, args);
}
Object.setPrototypeOf(SecureClientRequest.prototype, ClientRequest.prototype);

export function request(...args) {
  return new SecureClientRequest(...args);
}

export function get(...args) {
  const req = request(...args);
  req.end();
  return req;
}

export default { Agent, Server, createServer, globalAgent, request, get };
