// `node:_http_incoming`: Node's old name of `http.IncomingMessage`.
import { IncomingMessage } from './http.js';

export { IncomingMessage };
export default { IncomingMessage };
