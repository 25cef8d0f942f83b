// `node:_tls_common`: `node:tls`'s secure contexts, under Node's internal
// name (`translatePeerCertificate` throws: no certificate reaches the
// sandbox).
import { SecureContext, createSecureContext } from './tls.js';

export { SecureContext, createSecureContext };
export default { SecureContext, createSecureContext };
