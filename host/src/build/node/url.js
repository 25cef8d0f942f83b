// `node:url` as `ssr build` resolves it (build/bundle.rs): the WHATWG URL
// classes (the prelude's, parsed by the host's `url` crate), file URL
// helpers, and Node's legacy `parse` / `format` / `resolve`.
import * as querystring from './querystring.js';
import { toUnicode } from './punycode.js';

export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;

function invalid(code, message) {
  const err = new TypeError(message);
  err.code = code;
  return err;
}

export function fileURLToPath(url) {
  const u = typeof url === 'string' ? new URL(url) : url;
  if (!(u instanceof URL)) throw invalid('ERR_INVALID_ARG_TYPE', 'The "path" argument must be of type string or an instance of URL');
  if (u.protocol !== 'file:') throw invalid('ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
  if (u.hostname !== '') throw invalid('ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
  if (/%2f/i.test(u.pathname)) throw invalid('ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
  return decodeURIComponent(u.pathname);
}

export function pathToFileURL(path) {
  const abs = path.startsWith('/') ? path : `/${path}`;
  const u = new URL('file://');
  u.pathname = abs.replace(/%/g, '%25').replace(/\\/g, '%5C').replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/\t/g, '%09');
  return u;
}

export function domainToASCII(domain) {
  try {
    return new URL(`http://${domain}`).hostname;
  } catch (_) {
    return '';
  }
}

// The host parses to ASCII; its `xn--` labels are then decoded.
export function domainToUnicode(domain) {
  const ascii = domainToASCII(domain);
  try {
    return toUnicode(ascii);
  } catch (_) {
    return '';
  }
}

// As Node makes them: a URL's own properties too (one a user extended),
// and a copy of a URL (which has none of its getters) gives what it has.
export function urlToHttpOptions(url) {
  const { hostname } = url;
  const options = {
    __proto__: null,
    ...url,
    protocol: url.protocol,
    hostname: typeof hostname === 'string' && hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    hash: url.hash,
    search: url.search,
    pathname: url.pathname,
    path: `${url.pathname || ''}${url.search || ''}`,
    href: url.href,
  };
  if (url.port !== '') options.port = Number(url.port);
  if (url.username || url.password) options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return options;
}

// ------------------------------------------------------------- legacy
const SLASHED = new Set(['http:', 'https:', 'ftp:', 'gopher:', 'file:', 'ws:', 'wss:']);

export function Url() {
  this.protocol = null;
  this.slashes = null;
  this.auth = null;
  this.host = null;
  this.port = null;
  this.hostname = null;
  this.hash = null;
  this.search = null;
  this.query = null;
  this.pathname = null;
  this.path = null;
  this.href = null;
}

export function parse(url, parseQueryString, slashesDenoteHost) {
  if (url instanceof Url) return url;
  if (typeof url !== 'string') throw invalid('ERR_INVALID_ARG_TYPE', 'The "url" argument must be of type string');
  const out = new Url();
  let rest = url.trim();
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) {
    out.hash = rest.slice(hashAt);
    rest = rest.slice(0, hashAt);
  }
  const queryAt = rest.indexOf('?');
  if (queryAt !== -1) {
    out.search = rest.slice(queryAt);
    out.query = rest.slice(queryAt + 1);
    rest = rest.slice(0, queryAt);
  }
  if (parseQueryString) out.query = querystring.parse(out.query || '');
  rest = rest.replace(/\\/g, '/');
  const proto = /^[a-z0-9.+-]+:/i.exec(rest);
  if (proto) {
    out.protocol = proto[0].toLowerCase();
    rest = rest.slice(proto[0].length);
  }
  const slashed = rest.startsWith('//') && out.protocol !== 'javascript:' && (out.protocol !== null || slashesDenoteHost);
  if (slashed) {
    out.slashes = true;
    rest = rest.slice(2);
  }
  // A scheme that is not a web one (`mailto:a@b.c`) has a host without slashes.
  if (out.protocol !== 'javascript:' && (slashed || (out.protocol !== null && !SLASHED.has(out.protocol)))) {
    const end = rest.search(/[/?#]/);
    let host = end === -1 ? rest : rest.slice(0, end);
    rest = end === -1 ? '' : rest.slice(end);
    const at = host.lastIndexOf('@');
    if (at !== -1) {
      out.auth = decodeURIComponent(host.slice(0, at));
      host = host.slice(at + 1);
    }
    const port = /:([0-9]*)$/.exec(host);
    if (port) {
      if (port[1] !== '') out.port = port[1];
      host = host.slice(0, host.length - port[0].length);
    }
    out.hostname = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
    out.host = (host.startsWith('[') ? `[${out.hostname}]` : out.hostname) + (out.port ? `:${out.port}` : '');
  }
  if (rest !== '') out.pathname = rest;
  else if (out.slashes && SLASHED.has(out.protocol)) out.pathname = '/';
  if (out.pathname !== null || out.search !== null) out.path = `${out.pathname || ''}${out.search || ''}`;
  out.href = format(out);
  return out;
}

export function format(obj, options) {
  if (typeof obj === 'string') obj = parse(obj);
  if (obj instanceof URL) {
    const o = Object.assign({ auth: true, fragment: true, search: true, unicode: false }, options);
    const u = new URL(obj.href);
    if (!o.auth) {
      u.username = '';
      u.password = '';
    }
    if (!o.fragment) u.hash = '';
    if (!o.search) u.search = '';
    return u.href;
  }
  if (obj === null || typeof obj !== 'object') throw invalid('ERR_INVALID_ARG_TYPE', 'The "urlObject" argument must be one of type object or string');
  let protocol = obj.protocol || '';
  if (protocol && !protocol.endsWith(':')) protocol += ':';
  let auth = obj.auth ? `${encodeURIComponent(obj.auth).replace(/%3A/i, ':')}@` : '';
  let host = '';
  if (obj.host) host = auth + obj.host;
  else if (obj.hostname) host = auth + (obj.hostname.includes(':') ? `[${obj.hostname}]` : obj.hostname) + (obj.port ? `:${obj.port}` : '');
  let pathname = obj.pathname || '';
  let hash = obj.hash || '';
  let search = obj.search || '';
  if (!search && obj.query && typeof obj.query === 'object') {
    const q = querystring.stringify(obj.query);
    if (q) search = `?${q}`;
  }
  if (search && !search.startsWith('?')) search = `?${search}`;
  if (hash && !hash.startsWith('#')) hash = `#${hash}`;
  if ((obj.slashes || SLASHED.has(protocol)) && (obj.slashes || host !== '')) {
    host = `//${host}`;
    if (pathname && !pathname.startsWith('/')) pathname = `/${pathname}`;
  }
  pathname = pathname.replace(/[?#]/g, encodeURIComponent);
  search = search.replace(/#/g, '%23');
  return `${protocol}${host}${pathname}${search}${hash}`;
}

export function resolve(from, to) {
  return new URL(to, new URL(from, 'resolve://')).href.replace(/^resolve:\/\/\/?/, from.startsWith('/') ? '/' : '');
}

export default { URL, URLSearchParams, fileURLToPath, pathToFileURL, domainToASCII, domainToUnicode, urlToHttpOptions, Url, parse, format, resolve };
