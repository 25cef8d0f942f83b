// `node:dns/promises` (and `dns.promises`): `_dns.js` says how queries go.
import { promiseApi } from './_dns.js';

export {
  getServers, setServers, lookup, lookupService, getDefaultResultOrder, setDefaultResultOrder, resolve, resolve4, resolve6,
  resolveAny, resolveCaa, resolveCname, resolveMx, resolveNaptr, resolveNs, resolvePtr, resolveSoa, resolveSrv, resolveTxt,
  reverse, Resolver,
} from './_dns.js';
export default { ...promiseApi };
