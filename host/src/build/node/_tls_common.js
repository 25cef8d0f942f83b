// `node:_tls_common`: `node:tls`'s secure contexts, under Node's internal
// name, and `translatePeerCertificate`, which turns a legacy certificate
// object's `infoAccess` text into lists by method (its issuer's too), as
// Node's does.
import { SecureContext, createSecureContext } from './tls.js';
import { infoAccessByMethod } from './_crypto_x509.js';

export function translatePeerCertificate(c) {
  if (!c) return null;
  if (c.issuerCertificate != null && c.issuerCertificate !== c) {
    c.issuerCertificate = translatePeerCertificate(c.issuerCertificate);
  }
  if (c.infoAccess != null) c.infoAccess = infoAccessByMethod(c.infoAccess, Object.create(null));
  return c;
}

export { SecureContext, createSecureContext };
export default { SecureContext, createSecureContext, translatePeerCertificate };
