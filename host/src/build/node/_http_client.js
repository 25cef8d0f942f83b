// `node:_http_client`: Node's old name of `http.ClientRequest`.
import { ClientRequest } from './http.js';

export { ClientRequest };
export default { ClientRequest };
