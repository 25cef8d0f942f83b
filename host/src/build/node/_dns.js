// What `node:dns` and `node:dns/promises` are made of, as `workerd` has
// them (the modules pick their names from here): every
// query is DNS over HTTPS, a JSON GET (`application/dns-json`) to the
// host's endpoint (`ssr serve --dns-over-https`, Cloudflare's by default,
// as on `workerd`) through the tenant's own `fetch`, so its grant and
// limits hold: a tenant not granted the endpoint's origin resolves
// nothing. `lookup`, `resolve*` and `reverse` as Node's (records shaped
// as Node gives them); `resolveAny`, `lookupService` and `setServers`
// throw, as on `workerd`.
//
// Departures from `workerd`, each as Node does it: an answer's records of
// another type (the CNAME before an A record) are left out; `reverse` of
// an IP address asks for its `in-addr.arpa`/`ip6.arpa` name; a name with
// no record of the type is `ENODATA`, and the response's code is the
// error's (`ENOTFOUND` for NXDOMAIN, `ESERVFAIL`, `EREFUSED`...).
import { codedError, invalidArgType, invalidArgValue, validateString } from './_errors.js';
import { isIP } from './net.js';

const NODATA = 'ENODATA';
const NOTFOUND = 'ENOTFOUND';
const BADQUERY = 'EBADQUERY';
const BADRESP = 'EBADRESP';

// A response's code (RFC 1035 and 6895) as Node's error code; 0 is none.
const RCODES = { 1: 'EFORMERR', 2: 'ESERVFAIL', 3: NOTFOUND, 4: 'ENOTIMP', 5: 'EREFUSED' };
const TYPES = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, NAPTR: 35, CAA: 257 };
const ORDERS = ['verbatim', 'ipv4first', 'ipv6first'];
let defaultOrder = 'verbatim';

// Node's DNS error: `queryMx ENOTFOUND example.com`.
export function dnsError(hostname, code, syscall, cause = undefined) {
  const e = codedError(Error, code, `${syscall} ${code} ${hostname}`);
  e.errno = undefined;
  e.hostname = hostname;
  e.syscall = syscall;
  if (cause !== undefined) e.cause = cause;
  return e;
}

function oneOf(value, name, allowed) {
  if (!allowed.includes(value)) {
    const list = allowed.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ');
    throw invalidArgValue(name, value, `must be one of: ${list}`);
  }
}

// `workerd`'s endpoint, the host's default, and its servers' addresses.
const CLOUDFLARE = 'https://cloudflare-dns.com/dns-query';
const CLOUDFLARE_SERVERS = ['1.1.1.1', '2606:4700:4700::1111', '1.0.0.1', '2606:4700:4700::1001'];
const endpoint = () => globalThis.__ssr.node.dnsOverHttps() || CLOUDFLARE;

// The records of `type` for `name`, as the endpoint answers them: each
// `{ name, type, TTL, data }`.
async function query(name, type) {
  const syscall = `query${type[0]}${type.slice(1).toLowerCase()}`;
  const url = new URL(endpoint());
  url.searchParams.set('name', name);
  url.searchParams.set('type', type);
  let json;
  try {
    const response = await fetch(url, { headers: { accept: 'application/dns-json' } });
    if (!response.ok) throw dnsError(name, BADRESP, syscall);
    json = await response.json();
  } catch (e) {
    // Why the query failed (the grant's refusal, the network) rides along.
    throw e !== null && e.code === BADRESP ? e : dnsError(name, BADQUERY, syscall, e);
  }
  if (json === null || typeof json !== 'object' || 'error' in json || !Array.isArray(json.Question) || json.Question.length === 0) {
    throw dnsError(name, BADRESP, syscall);
  }
  const status = RCODES[json.Status];
  if (status !== undefined) throw dnsError(name, status, syscall);
  const records = (Array.isArray(json.Answer) ? json.Answer : []).filter((a) => a !== null && typeof a === 'object' && a.type === TYPES[type] && typeof a.data === 'string');
  if (records.length === 0) throw dnsError(name, NODATA, syscall);
  return records;
}

const undotted = (s) => (s.endsWith('.') ? s.slice(0, -1) : s);
const fields = (data, n, name, syscall) => {
  const parts = data.split(' ');
  if (parts.length < n) throw dnsError(name, BADRESP, syscall);
  return parts;
};
// Quoted character-strings (`"a" "b c"`), as TXT and NAPTR records write them.
const quoted = (text) => Array.from(text.matchAll(/"((?:[^"\\]|\\.)*)"/g), (m) => m[1].replace(/\\(.)/g, '$1'));

// A CAA record, in RFC 3597's hex form (`\# 19 00 05 69 73 73 75 65 ...`)
// or as text (`0 issue "letsencrypt.org"`).
function caa(data) {
  if (data.startsWith('\\#')) {
    const bytes = data.split(' ').slice(2).join('').match(/../g).map((h) => parseInt(h, 16));
    const tagLength = bytes[1];
    const tag = String.fromCharCode(...bytes.slice(2, 2 + tagLength));
    return { critical: bytes[0], [tag]: new TextDecoder().decode(Uint8Array.from(bytes.slice(2 + tagLength))) };
  }
  const m = /^(\d+)\s+(\S+)\s+(.*)$/.exec(data);
  return m === null ? { critical: 0 } : { critical: Number(m[1]), [m[2]]: quoted(m[3])[0] ?? m[3] };
}

function checkName(name) {
  validateString(name, 'name');
}

export function getServers() {
  const url = endpoint();
  if (url === CLOUDFLARE) return [...CLOUDFLARE_SERVERS];
  return [new URL(url).hostname];
}
export function setServers() {
  throw new Error('Not implemented');
}
export async function lookupService() {
  throw new Error('Not implemented');
}
export async function resolveAny() {
  throw new Error('Not implemented');
}
export function getDefaultResultOrder() {
  return defaultOrder;
}
export function setDefaultResultOrder(order) {
  oneOf(order, 'dnsOrder', ORDERS);
  defaultOrder = order;
}

function addresses(type) {
  return (name, options = undefined) => {
    checkName(name);
    const ttl = !!(options && options.ttl);
    return query(name, type).then((records) => records.map((r) => (ttl ? { address: r.data, ttl: r.TTL } : r.data)));
  };
}
export const resolve4 = addresses('A');
export const resolve6 = addresses('AAAA');

// A `resolveX(name)` whose records are shaped by `shape(record, name)`.
function records(type, shape) {
  return (name) => {
    checkName(name);
    return query(name, type).then((rs) => rs.map((r) => shape(r.data, name)));
  };
}
export const resolveCname = records('CNAME', undotted);
export const resolveNs = records('NS', undotted);
export const resolvePtr = records('PTR', undotted);
export const resolveCaa = records('CAA', caa);
export const resolveTxt = records('TXT', (data) => (data.startsWith('"') ? quoted(data) : [data]));
export const resolveMx = records('MX', (data, name) => {
  const [priority, exchange] = fields(data, 2, name, 'queryMx');
  return { exchange: undotted(exchange), priority: Number.parseInt(priority, 10) };
});
export const resolveSrv = records('SRV', (data, name) => {
  const [priority, weight, port, target] = fields(data, 4, name, 'querySrv');
  return { name: undotted(target), port: Number.parseInt(port, 10), priority: Number.parseInt(priority, 10), weight: Number.parseInt(weight, 10) };
});
export const resolveNaptr = records('NAPTR', (data, name) => {
  const m = /^(\d+)\s+(\d+)\s+((?:"(?:[^"\\]|\\.)*"\s+){3})(\S+)$/.exec(data);
  if (m === null) throw dnsError(name, BADRESP, 'queryNaptr');
  const [flags, service, regexp] = quoted(m[3]);
  return { flags, service, regexp, replacement: undotted(m[4]), order: Number(m[1]), preference: Number(m[2]) };
});
export function resolveSoa(name) {
  checkName(name);
  return query(name, 'SOA').then(([r]) => {
    const [nsname, hostmaster, serial, refresh, retry, expire, minttl] = fields(r.data, 7, name, 'querySoa');
    const n = (s) => Number.parseInt(s, 10);
    return { nsname: undotted(nsname), hostmaster: undotted(hostmaster), serial: n(serial), refresh: n(refresh), retry: n(retry), expire: n(expire), minttl: n(minttl) };
  });
}

const BY_TYPE = {
  A: resolve4, AAAA: resolve6, ANY: resolveAny, CAA: resolveCaa, CNAME: resolveCname, MX: resolveMx, NAPTR: resolveNaptr,
  NS: resolveNs, PTR: resolvePtr, SOA: resolveSoa, SRV: resolveSrv, TXT: resolveTxt,
};
export function resolve(name, rrtype = 'A') {
  checkName(name);
  validateString(rrtype, 'rrtype');
  const by = Object.hasOwn(BY_TYPE, rrtype) ? BY_TYPE[rrtype] : undefined;
  if (by === undefined) throw invalidArgValue('rrtype', rrtype);
  return by(name);
}

// The name a PTR record of `ip` is kept under.
function arpa(ip) {
  if (isIP(ip) === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  const [head, tail = ''] = ip.split('::');
  const groups = (s) => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = groups(tail);
  const all = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return `${all.map((g) => g.padStart(4, '0')).join('').split('').reverse().join('.')}.ip6.arpa`;
}
export function reverse(ip) {
  validateString(ip, 'name');
  return query(isIP(ip) ? arpa(ip) : ip, 'PTR').then((rs) => rs.map((r) => undotted(r.data)));
}

// Node's `dns.lookup` arguments, checked: `{ family, all, order }`.
export function lookupOptions(options) {
  const o = { family: 0, all: false, order: defaultOrder };
  if (typeof options === 'number') {
    oneOf(options, 'family', [0, 4, 6]);
    o.family = options;
  } else if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw invalidArgType('options', 'of type object or integer', options);
    if (options.hints != null) {
      if (typeof options.hints !== 'number') throw invalidArgType('options.hints', 'of type number', options.hints);
      throw codedError(Error, 'ERR_OPTION_NOT_IMPLEMENTED', 'The options.hints option is not implemented');
    }
    if (options.family != null) {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      oneOf(family, 'options.family', [0, 4, 6]);
      o.family = family;
    }
    if (options.all != null) {
      if (typeof options.all !== 'boolean') throw invalidArgType('options.all', 'of type boolean', options.all);
      o.all = options.all;
    }
    if (options.verbatim != null) {
      if (typeof options.verbatim !== 'boolean') throw invalidArgType('options.verbatim', 'of type boolean', options.verbatim);
      o.order = options.verbatim ? 'verbatim' : 'ipv4first';
    }
    if (options.order != null) {
      oneOf(options.order, 'options.order', ORDERS);
      o.order = options.order;
    }
  }
  return o;
}

// `lookup` once its arguments are checked: `[{ address, family }...]`,
// in the order asked for.
export async function lookupAll(hostname, { family, order }) {
  if (!hostname) return [];
  const given = isIP(hostname);
  if (given) return [{ address: hostname, family: given }];
  // A type with no record is no error here; why a query failed (a grant's
  // refusal) is kept as the cause when neither type has one.
  let failed;
  const ask = (type, f) => query(hostname, type).then((rs) => rs.map((r) => ({ address: r.data, family: f })), (e) => {
    if (e.code === BADQUERY && failed === undefined) failed = e.cause;
    return [];
  });
  const v4 = family === 6 ? [] : await ask('A', 4);
  const v6 = family === 4 ? [] : await ask('AAAA', 6);
  const found = order === 'ipv6first' ? [...v6, ...v4] : [...v4, ...v6];
  if (found.length === 0) throw dnsError(hostname, NOTFOUND, family === 6 ? 'queryAaaa' : 'queryA', failed);
  return found;
}

export function validateHostname(hostname) {
  validateString(hostname, 'hostname');
}

export function lookup(hostname, options = undefined) {
  if (hostname) validateHostname(hostname);
  const o = lookupOptions(options);
  return lookupAll(hostname, o).then((found) => {
    if (o.all) return found;
    return found[0] ?? { address: null, family: o.family === 6 ? 6 : 4 };
  });
}

export class Resolver {
  cancel() {
    throw new Error('Not implemented');
  }
  setLocalAddress() {
    throw new Error('Not implemented');
  }
}
const METHODS = {
  getServers, setServers, resolve, resolve4, resolve6, resolveAny, resolveCaa, resolveCname, resolveMx, resolveNaptr,
  resolveNs, resolvePtr, resolveSoa, resolveSrv, resolveTxt, reverse,
};
// Defines each of `table`'s functions as a method of `proto` of its name.
export function defineMethods(proto, table) {
  for (const [name, fn] of Object.entries(table)) {
    Object.defineProperty(proto, name, { value: { [name](...args) { return fn(...args); } }[name], writable: true, configurable: true });
  }
}
defineMethods(Resolver.prototype, METHODS);

// Every public name, for the modules' default objects.
export const promiseApi = {
  ...METHODS, lookup, lookupService, getDefaultResultOrder, setDefaultResultOrder, Resolver,
};
