// `node:dns`: `_dns.js`'s queries (DNS over HTTPS through the tenant's
// `fetch`) with Node's callbacks: `lookup(hostname[, options], callback)`
// checks its arguments at once and calls back with `(err, address,
// family)`, or `(err, [{ address, family }])` with `all`; the other
// queries are `callbackify`'d, and `Resolver`'s methods take callbacks
// too. `dns.promises` is `node:dns/promises`.
import { validateFunction, invalidArgType } from './_errors.js';
import { callbackify } from './util.js';
import * as api from './_dns.js';
import promises from './dns-promises.js';

export { getServers, setServers, getDefaultResultOrder, setDefaultResultOrder } from './_dns.js';
export { promises };

export function lookup(hostname, options, callback) {
  if (hostname) api.validateHostname(hostname);
  if (typeof options === 'function') {
    callback = options;
    options = undefined;
  } else if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'number') {
    validateFunction(arguments.length === 2 ? options : callback, 'callback');
    throw invalidArgType('options', 'of type object or integer', options);
  } else {
    validateFunction(callback, 'callback');
  }
  const o = api.lookupOptions(options);
  api.lookupAll(hostname, o).then(
    (found) => {
      if (o.all) callback(null, found);
      else if (found.length === 0) callback(null, null, o.family === 6 ? 6 : 4);
      else callback(null, found[0].address, found[0].family);
    },
    (err) => callback(err),
  );
}

const QUERIES = [
  'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr',
  'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse',
];
const called = Object.fromEntries(QUERIES.map((name) => [name, callbackify(api[name])]));
export const {
  lookupService, resolve, resolve4, resolve6, resolveAny, resolveCaa, resolveCname, resolveMx, resolveNaptr, resolveNs,
  resolvePtr, resolveSoa, resolveSrv, resolveTxt, reverse,
} = called;

export class Resolver extends api.Resolver {}
api.defineMethods(Resolver.prototype, Object.fromEntries(Object.entries(called).filter(([name]) => name !== 'lookupService')));

export default {
  ...called, lookup, promises, Resolver, getServers: api.getServers, setServers: api.setServers,
  getDefaultResultOrder: api.getDefaultResultOrder, setDefaultResultOrder: api.setDefaultResultOrder,
};
