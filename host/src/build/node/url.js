// `node:url` as `ssr build` resolves it (build/bundle.rs): the WHATWG URL
// classes (the prelude's, parsed by the host's `url` crate), file URL
// helpers, and Node's legacy `parse` / `format` / `resolve`.
import * as querystring from './querystring.js';
import { received } from './_errors.js';
import { toUnicode } from './punycode.js';
import posix from './path-posix.js';
import win32 from './path-win32.js';

export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;

function invalid(code, message) {
  const err = new TypeError(message);
  err.code = code;
  return err;
}

// A `file:` URL's path: POSIX (as on Linux, the default), or Windows with
// `{ windows: true }` (`C:\\dir`, a host as a UNC share `\\\\host\\share`).
export function fileURLToPath(url, options) {
  const u = typeof url === 'string' ? new URL(url) : url;
  if (!(u instanceof URL)) throw invalid('ERR_INVALID_ARG_TYPE', 'The "path" argument must be of type string or an instance of URL');
  if (u.protocol !== 'file:') throw invalid('ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
  if (options !== null && options !== undefined && options.windows) {
    if (/%2f|%5c/i.test(u.pathname)) {
      throw invalid('ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded \\ or / characters');
    }
    const path = decodeURIComponent(u.pathname.replace(/\//g, '\\'));
    if (u.hostname !== '') return `\\\\${domainToUnicode(u.hostname)}${path}`;
    const letter = path.codePointAt(1) | 0x20;
    if (letter < 0x61 || letter > 0x7a || path[2] !== ':') throw invalid('ERR_INVALID_FILE_URL_PATH', 'File URL path must be absolute');
    return path.slice(1);
  }
  if (u.hostname !== '') throw invalid('ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
  if (/%2f/i.test(u.pathname)) throw invalid('ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
  return decodeURIComponent(u.pathname);
}

// A path as a `file:` URL, as Node's: resolved against the working
// directory, POSIX, or Windows with `{ windows: true }` (a drive letter; a
// UNC path's server as the URL's host; the extended-length prefixes
// dropped), its trailing separator kept, and `%`, a POSIX backslash, tab,
// CR, LF, `?`, `#`, `[`, `]`, `^`, `|` and `~` percent-encoded (the URL
// parser leaves the last five).
export function pathToFileURL(path, options = undefined) {
  if (typeof path !== 'string') throw invalid('ERR_INVALID_ARG_TYPE', `The "path" argument must be of type string. ${received(path)}`);
  const windows = !!(options !== null && options !== undefined && options.windows);
  const encode = (text) => {
    let out = text.replace(/%/g, '%25');
    out = windows ? out.replace(/\\/g, '/') : out.replace(/\\/g, '%5C');
    out = out.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/\t/g, '%09');
    return out.replace(/[[\]^|~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  };
  // `\\?\C:\...`: a local path, long.
  if (windows && path.startsWith('\\\\?\\') && !path.startsWith('\\\\?\\UNC\\')) path = path.slice(4);
  let resolved = windows && path.startsWith('\\\\') ? path : windows ? win32.resolve(path) : posix.resolve(path);
  if (windows && resolved.startsWith('\\\\')) {
    const extended = resolved.startsWith('\\\\?\\UNC\\');
    const start = extended ? 8 : 2;
    const end = resolved.indexOf('\\', start);
    const bad = (why) => invalid('ERR_INVALID_ARG_VALUE', `The argument 'path' ${why}. Received '${resolved}'`);
    if (end === -1) throw bad('Missing UNC resource path');
    if (end === 2) throw bad('Empty UNC servername');
    return new URL(`file://${resolved.slice(start, end)}${encode(resolved.slice(end))}`);
  }
  const last = path[path.length - 1];
  if ((last === '/' || (windows && last === '\\')) && !resolved.endsWith(windows ? '\\' : '/')) resolved += '/';
  resolved = encode(resolved).replace(/\?/g, '%3F').replace(/#/g, '%23');
  return new URL(`file://${windows ? '/' : ''}${resolved}`);
}

// A domain as the URL Standard's host parser makes it ASCII, or '' where
// it is not a valid one; the argument is required and made a string first
// (so a value that cannot be is its own error).
export function domainToASCII(...args) {
  if (args.length === 0) throw invalid('ERR_MISSING_ARGS', 'The "domain" argument must be specified');
  const domain = `${args[0]}`;
  try {
    return new URL(`http://${domain}`).hostname;
  } catch (_) {
    return '';
  }
}

// The host parses to ASCII; its `xn--` labels are then decoded.
export function domainToUnicode(...args) {
  if (args.length === 0) throw invalid('ERR_MISSING_ARGS', 'The "domain" argument must be specified');
  const ascii = domainToASCII(args[0]);
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
// Node's legacy URL API, as Node's `url.parse` reads a URL (and `workerd`
// with it): loose, for the URLs older code handles. A backslash before the
// query is a slash; `user@host` is a host; the host ends at the first
// character a host cannot hold, and what follows goes to the path; a
// Unicode host is made ASCII (by the URL Standard's mapping), and a host
// that mapping makes invalid is `ERR_INVALID_URL`; the path's characters
// that must not stand bare are escaped. `format` and `resolve` are the
// inverse and the browser's relative resolution, on these objects.

const SLASHED = new Set(['http', 'http:', 'https', 'https:', 'ftp', 'ftp:', 'gopher', 'gopher:', 'file', 'file:', 'ws', 'ws:', 'wss', 'wss:']);
const HOSTLESS = new Set(['javascript', 'javascript:']);
const PROTOCOL = /^[a-z0-9.+-]+:/i;
const PORT = /:[0-9]*$/;
const HOST_WITH_AUTH = /^\/\/[^@/]+@[^@/]+/;
const SIMPLE_PATH = /^(\/\/?(?!\/)[^?\s]*)(\?[^\s]*)?$/;
const FORBIDDEN_HOST = /[\0\t\n\r #%/:<>?@[\\\]^|]/;
const FORBIDDEN_HOST_IPV6 = /[\0\t\n\r #%/<>?@\\^|]/;
// Never in a host (RFC 2396), and the ones that end it.
const NON_HOST = new Set([' ', '"', '%', "'", ';', '<', '>', '\\', '^', '`', '{', '|', '}']);
const HOST_END = new Set(['#', '/', '?']);
// Escaped in what follows the host, whatever encodeURIComponent thinks.
const AUTO_ESCAPE = { '\t': '%09', '\n': '%0A', '\r': '%0D', ' ': '%20', '"': '%22', "'": '%27', '<': '%3C', '>': '%3E', '\\': '%5C', '^': '%5E', '`': '%60', '{': '%7B', '|': '%7C', '}': '%7D' };
// What `format` leaves bare in `auth`.
const AUTH_BARE = /[A-Za-z0-9!$&'()*+,\-.:;=_~]/;

const isIpv6Hostname = (h) => h.length > 1 && h[0] === '[' && h[h.length - 1] === ']';
const isWhitespace = (c) => c < 33 || c === 0xa0 || c === 0xfeff;

function invalidUrl(input) {
  const e = invalid('ERR_INVALID_URL', 'Invalid URL');
  e.input = input;
  return e;
}

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

// The text between its first and last characters that are not
// whitespace, each backslash before the query or fragment a slash; and
// whether it holds a `#` or an `@` (before the query).
function trimmed(url) {
  let hasHash = false;
  let hasAt = false;
  let split = false;
  let start = -1;
  let end = url.length;
  while (end > 0 && isWhitespace(url.charCodeAt(end - 1))) end--;
  let out = '';
  for (let i = 0; i < end; i++) {
    const c = url[i];
    if (start === -1) {
      if (isWhitespace(url.charCodeAt(i))) continue;
      start = i;
    }
    if (!split) {
      if (c === '@') hasAt = true;
      else if (c === '#') hasHash = split = true;
      else if (c === '?') split = true;
      else if (c === '\\') {
        out += '/';
        continue;
      }
    } else if (c === '#') {
      hasHash = true;
    }
    out += c;
  }
  return { rest: out, hasHash, hasAt };
}

Url.prototype.parse = function parse(url, parseQueryString, slashesDenoteHost) {
  if (typeof url !== 'string') {
    throw invalid('ERR_INVALID_ARG_TYPE', `The "url" argument must be of type string. ${received(url)}`);
  }
  let { rest, hasHash, hasAt } = trimmed(url);
  if (!slashesDenoteHost && !hasHash && !hasAt) {
    const simple = SIMPLE_PATH.exec(rest);
    if (simple) {
      this.path = rest;
      this.href = rest;
      this.pathname = simple[1];
      if (simple[2]) {
        this.search = simple[2];
        this.query = parseQueryString ? querystring.parse(this.search.slice(1)) : this.search.slice(1);
      } else if (parseQueryString) {
        this.search = null;
        this.query = Object.create(null);
      }
      return this;
    }
  }
  let proto = PROTOCOL.exec(rest);
  let lowerProto;
  if (proto) {
    proto = proto[0];
    lowerProto = proto.toLowerCase();
    this.protocol = lowerProto;
    rest = rest.slice(proto.length);
  }
  // `user@server` is always a host, and `//foo/bar` is host foo, path
  // /bar, as browsers resolve relative URLs.
  let slashes;
  if (slashesDenoteHost || proto || HOST_WITH_AUTH.test(rest)) {
    slashes = rest.startsWith('//');
    if (slashes && !(proto && HOSTLESS.has(lowerProto))) {
      rest = rest.slice(2);
      this.slashes = true;
    }
  }
  if (!HOSTLESS.has(lowerProto) && (slashes || (proto && !SLASHED.has(proto)))) {
    rest = this._parseHost(rest, url);
  }
  if (!HOSTLESS.has(lowerProto)) rest = rest.replace(/[\t\n\r "'<>\\^`{|}]/g, (c) => AUTO_ESCAPE[c]);
  const hashAt = rest.indexOf('#');
  const questionAt = rest.indexOf('?');
  const queryAt = questionAt !== -1 && (hashAt === -1 || questionAt < hashAt) ? questionAt : -1;
  if (hashAt !== -1) this.hash = rest.slice(hashAt);
  if (queryAt !== -1) {
    this.search = rest.slice(queryAt, hashAt === -1 ? undefined : hashAt);
    this.query = this.search.slice(1);
    if (parseQueryString) this.query = querystring.parse(this.query);
  } else if (parseQueryString) {
    this.search = null;
    this.query = Object.create(null);
  }
  const first = queryAt !== -1 ? queryAt : hashAt;
  if (first === -1) {
    if (rest.length > 0) this.pathname = rest;
  } else if (first > 0) {
    this.pathname = rest.slice(0, first);
  }
  if (SLASHED.has(lowerProto) && this.hostname && !this.pathname) this.pathname = '/';
  if (this.pathname || this.search) this.path = (this.pathname || '') + (this.search || '');
  this.href = this.format();
  return this;
};

// The host, with any `auth` before its last `@` and its port; answers
// what follows it.
Url.prototype._parseHost = function (rest, url) {
  let hostEnd = -1;
  let atSign = -1;
  let nonHost = -1;
  for (let i = 0; i < rest.length && hostEnd === -1; i++) {
    const c = rest[i];
    if (c === '\t' || c === '\n' || c === '\r') {
      // Dropped, as the URL Standard drops them.
      rest = rest.slice(0, i) + rest.slice(i + 1);
      i--;
    } else if (NON_HOST.has(c)) {
      if (nonHost === -1) nonHost = i;
    } else if (HOST_END.has(c)) {
      if (nonHost === -1) nonHost = i;
      hostEnd = i;
    } else if (c === '@') {
      atSign = i;
      nonHost = -1;
    }
  }
  let start = 0;
  if (atSign !== -1) {
    this.auth = decodeURIComponent(rest.slice(0, atSign));
    start = atSign + 1;
  }
  if (nonHost === -1) {
    this.host = rest.slice(start);
    rest = '';
  } else {
    this.host = rest.slice(start, nonHost);
    rest = rest.slice(nonHost);
  }
  let host = this.host;
  const port = PORT.exec(host);
  if (port) {
    if (port[0] !== ':') this.port = port[0].slice(1);
    host = host.slice(0, host.length - port[0].length);
  }
  this.hostname = host || '';
  const ipv6 = isIpv6Hostname(this.hostname);
  if (!ipv6) {
    // A host ends at a character a host cannot hold: the rest is path.
    const cut = this.hostname.search(/[/\\#?:]/);
    if (cut !== -1) {
      rest = `/${this.hostname.slice(cut)}${rest}`;
      this.hostname = this.hostname.slice(0, cut);
    }
  }
  this.hostname = this.hostname.length > 255 ? '' : this.hostname.toLowerCase();
  if (this.hostname !== '') {
    if (ipv6) {
      if (FORBIDDEN_HOST_IPV6.test(this.hostname)) throw invalidUrl(url);
    } else {
      // Unicode by the URL Standard's mapping; a host that mapping empties
      // or that then holds a forbidden character is refused, not split.
      if (/[^\0-\x7f]/.test(this.hostname)) this.hostname = domainToASCII(this.hostname);
      if (this.hostname === '' || FORBIDDEN_HOST.test(this.hostname)) throw invalidUrl(url);
    }
  }
  this.host = (this.hostname || '') + (this.port ? `:${this.port}` : '');
  if (ipv6) {
    this.hostname = this.hostname.slice(1, -1);
    if (rest[0] !== '/') rest = `/${rest}`;
  }
  return rest;
};

// A string's characters outside `bare` as UTF-8 percent-escapes.
function escapeExcept(text, bare) {
  let out = '';
  for (const c of text) {
    if (c.length === 1 && c.charCodeAt(0) < 0x80 && bare.test(c)) out += c;
    else out += encodeURIComponent(c);
  }
  return out;
}

Url.prototype.format = function format() {
  let auth = this.auth || '';
  if (auth) auth = `${escapeExcept(auth, AUTH_BARE)}@`;
  let protocol = this.protocol || '';
  let pathname = this.pathname || '';
  let hash = this.hash || '';
  let host = '';
  let query = '';
  if (this.host) {
    host = auth + this.host;
  } else if (this.hostname) {
    host = auth + (this.hostname.includes(':') && !isIpv6Hostname(this.hostname) ? `[${this.hostname}]` : this.hostname);
    if (this.port) host += `:${this.port}`;
  }
  if (this.query !== null && typeof this.query === 'object') query = querystring.stringify(this.query);
  let search = this.search || (query && `?${query}`) || '';
  if (protocol && !protocol.endsWith(':')) protocol += ':';
  pathname = pathname.replace(/[#?]/g, (c) => (c === '#' ? '%23' : '%3F'));
  // Only the slashed protocols get `//`, unless they had it.
  if (this.slashes || SLASHED.has(protocol)) {
    if (this.slashes || host) {
      if (pathname && pathname[0] !== '/') pathname = `/${pathname}`;
      host = `//${host}`;
    } else if (protocol.length >= 4 && protocol.startsWith('file')) {
      host = '//';
    }
  }
  search = search.replace(/#/g, '%23');
  if (hash && hash[0] !== '#') hash = `#${hash}`;
  if (search && search[0] !== '?') search = `?${search}`;
  return protocol + host + pathname + search + hash;
};

Url.prototype.resolve = function resolve(relative) {
  return this.resolveObject(urlParse(relative, false, true)).format();
};

// The browser's resolution of `relative` against this URL, as Node's.
Url.prototype.resolveObject = function resolveObject(relative) {
  if (typeof relative === 'string') relative = urlParse(relative, false, true);
  const result = new Url();
  Object.assign(result, this);
  result.hash = relative.hash;
  if (relative.href === '') {
    result.href = result.format();
    return result;
  }
  // `//foo/bar` keeps only the protocol.
  if (relative.slashes && !relative.protocol) {
    for (const key of Object.keys(relative)) if (key !== 'protocol') result[key] = relative[key];
    if (SLASHED.has(result.protocol) && result.hostname && !result.pathname) result.path = result.pathname = '/';
    result.href = result.format();
    return result;
  }
  if (relative.protocol && relative.protocol !== result.protocol) {
    // Another scheme: a slashed one needs a host (taken from the path's
    // first part), except `file:`; any other is taken whole.
    if (!SLASHED.has(relative.protocol)) {
      Object.assign(result, relative);
      result.href = result.format();
      return result;
    }
    result.protocol = relative.protocol;
    if (!relative.host && !/^file:?$/.test(relative.protocol) && !HOSTLESS.has(relative.protocol)) {
      const relPath = (relative.pathname || '').split('/');
      while (relPath.length && !(relative.host = relPath.shift()));
      if (!relative.host) relative.host = '';
      if (!relative.hostname) relative.hostname = '';
      if (relPath[0] !== '') relPath.unshift('');
      if (relPath.length < 2) relPath.unshift('');
      result.pathname = relPath.join('/');
    } else {
      result.pathname = relative.pathname;
    }
    result.search = relative.search;
    result.query = relative.query;
    result.host = relative.host || '';
    result.auth = relative.auth;
    result.hostname = relative.hostname || relative.host;
    result.port = relative.port;
    if (result.pathname || result.search) result.path = (result.pathname || '') + (result.search || '');
    result.slashes = result.slashes || relative.slashes;
    result.href = result.format();
    return result;
  }
  const isSourceAbs = Boolean(result.pathname && result.pathname[0] === '/');
  const isRelAbs = relative.host || (relative.pathname && relative.pathname[0] === '/');
  let mustEndAbs = isRelAbs || isSourceAbs || (result.host && relative.pathname);
  const removeAllDots = mustEndAbs;
  let srcPath = (result.pathname && result.pathname.split('/')) || [];
  const relPath = (relative.pathname && relative.pathname.split('/')) || [];
  const noLeadingSlashes = result.protocol && !SLASHED.has(result.protocol);
  // A scheme without slashes (`mailto:`): `..` may climb into the host,
  // which is put back from the path's first part below.
  if (noLeadingSlashes) {
    result.hostname = '';
    result.port = null;
    if (result.host) {
      if (srcPath[0] === '') srcPath[0] = result.host;
      else srcPath.unshift(result.host);
    }
    result.host = '';
    if (relative.protocol) {
      relative.hostname = null;
      relative.port = null;
      result.auth = null;
      if (relative.host) {
        if (relPath[0] === '') relPath[0] = relative.host;
        else relPath.unshift(relative.host);
      }
      relative.host = null;
    }
    mustEndAbs = mustEndAbs && (relPath[0] === '' || srcPath[0] === '');
  }
  if (isRelAbs) {
    if (relative.host || relative.host === '') {
      if (result.host !== relative.host) result.auth = null;
      result.host = relative.host;
      result.port = relative.port;
    }
    if (relative.hostname || relative.hostname === '') {
      if (result.hostname !== relative.hostname) result.auth = null;
      result.hostname = relative.hostname;
    }
    result.search = relative.search;
    result.query = relative.query;
    srcPath = relPath;
  } else if (relPath.length) {
    srcPath.pop();
    srcPath = srcPath.concat(relPath);
    result.search = relative.search;
    result.query = relative.query;
  } else if (relative.search !== null && relative.search !== undefined) {
    // Only a query (`?foo`).
    if (noLeadingSlashes) {
      result.hostname = result.host = srcPath.shift();
      takeAuthFromHost(result);
    }
    result.search = relative.search;
    result.query = relative.query;
    if (result.pathname !== null || result.search !== null) result.path = (result.pathname || '') + (result.search || '');
    result.href = result.format();
    return result;
  }
  if (!srcPath.length) {
    result.pathname = null;
    result.path = result.search ? `/${result.search}` : null;
    result.href = result.format();
    return result;
  }
  // A path that ends in `.` or `..` (or `/`) keeps a trailing slash.
  let last = srcPath[srcPath.length - 1];
  const hasTrailingSlash = ((result.host || relative.host || srcPath.length > 1) && (last === '.' || last === '..')) || last === '';
  let up = 0;
  for (let i = srcPath.length - 1; i >= 0; i--) {
    last = srcPath[i];
    if (last === '.') {
      srcPath.splice(i, 1);
    } else if (last === '..') {
      srcPath.splice(i, 1);
      up++;
    } else if (up) {
      srcPath.splice(i, 1);
      up--;
    }
  }
  if (!mustEndAbs && !removeAllDots) {
    while (up--) srcPath.unshift('..');
  }
  if (mustEndAbs && srcPath[0] !== '' && (!srcPath[0] || srcPath[0][0] !== '/')) srcPath.unshift('');
  if (hasTrailingSlash && !srcPath.join('/').endsWith('/')) srcPath.push('');
  const isAbsolute = srcPath[0] === '' || Boolean(srcPath[0] && srcPath[0][0] === '/');
  if (noLeadingSlashes) {
    result.hostname = result.host = isAbsolute ? '' : srcPath.length ? srcPath.shift() : '';
    takeAuthFromHost(result);
  }
  mustEndAbs = mustEndAbs || (result.host && srcPath.length);
  if (mustEndAbs && !isAbsolute) srcPath.unshift('');
  if (srcPath.length > 0) {
    result.pathname = srcPath.join('/');
  } else {
    result.pathname = null;
    result.path = null;
  }
  if (result.pathname !== null || result.search !== null) result.path = (result.pathname || '') + (result.search || '');
  result.auth = relative.auth || result.auth;
  result.slashes = result.slashes || relative.slashes;
  result.href = result.format();
  return result;
};

// `mailto:local1@domain1` resolved: the auth can end up in the host.
function takeAuthFromHost(result) {
  const parts = result.host && result.host.indexOf('@') > 0 ? result.host.split('@') : null;
  if (parts) {
    result.auth = parts.shift();
    result.host = result.hostname = parts.shift();
  }
}

function urlParse(url, parseQueryString, slashesDenoteHost) {
  if (url instanceof Url) return url;
  const out = new Url();
  out.parse(url, parseQueryString, slashesDenoteHost);
  return out;
}

export { urlParse as parse };

export function format(urlObject, options) {
  if (typeof urlObject === 'string') {
    urlObject = urlParse(urlObject);
  } else if (typeof urlObject !== 'object' || urlObject === null) {
    throw invalid('ERR_INVALID_ARG_TYPE', `The "urlObject" argument must be one of type object or string. ${received(urlObject)}`);
  } else if (urlObject instanceof URL) {
    let fragment = true;
    let unicode = false;
    let search = true;
    let auth = true;
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object') throw invalid('ERR_INVALID_ARG_TYPE', `The "options" argument must be of type object. ${received(options)}`);
      if (options.fragment != null) fragment = Boolean(options.fragment);
      if (options.unicode != null) unicode = Boolean(options.unicode);
      if (options.search != null) search = Boolean(options.search);
      if (options.auth != null) auth = Boolean(options.auth);
    }
    const u = new URL(urlObject.href);
    if (!auth) {
      u.username = '';
      u.password = '';
    }
    if (!fragment) u.hash = '';
    if (!search) u.search = '';
    if (!unicode) return u.href;
    const ascii = u.host;
    const unicodeHost = domainToUnicode(u.hostname) + (u.port ? `:${u.port}` : '');
    return u.href.replace(`//${u.username || u.password ? `${u.href.slice(u.protocol.length + 2).split('@')[0]}@` : ''}${ascii}`, (m) => m.slice(0, m.length - ascii.length) + unicodeHost);
  }
  return Url.prototype.format.call(urlObject);
}

export function resolve(source, relative) {
  return urlParse(source, false, true).resolve(relative);
}

export function resolveObject(source, relative) {
  if (!source) return relative;
  return urlParse(source, false, true).resolveObject(relative);
}

// What a `file:` URL names, else what was given.
export function toPathIfFileURL(value) {
  return value instanceof URL && value.protocol === 'file:' ? fileURLToPath(value) : value;
}

export default {
  URL, URLSearchParams, fileURLToPath, pathToFileURL, domainToASCII, domainToUnicode, urlToHttpOptions, Url, parse: urlParse, format, resolve,
  resolveObject, toPathIfFileURL,
};
