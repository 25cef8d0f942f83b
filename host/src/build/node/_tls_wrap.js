// `node:_tls_wrap`: `node:tls`'s socket, under Node's internal name.
import { TLSSocket, connect } from './tls.js';

export { TLSSocket, connect };
export default { TLSSocket, connect };
