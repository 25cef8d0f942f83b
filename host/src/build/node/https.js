// `node:https`'s client: `node:http`'s, with `https:` the default
// protocol (the host's `fetch` speaks TLS).
import { Agent as HttpAgent, ClientRequest } from './http.js';

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

export default { Agent, globalAgent, request, get };
