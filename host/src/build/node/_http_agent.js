// `node:_http_agent`: Node's old name of `http.Agent`.
import { Agent, globalAgent } from './http.js';

export { Agent, globalAgent };
export default { Agent, globalAgent };
