// `node:path` as `ssr build` resolves it (build/bundle.rs): POSIX paths,
// with `/` as the working directory, as on Workers; `path.win32` is
// path-win32.js.

import { invalidArgType, validateString } from './_errors.js';
import { globMatcher } from './_glob.js';
import { win32 } from './path-win32.js';

function check(p, name = 'path') {
  validateString(p, name);
}

// `.` and `..` resolved; `..` above the root of an absolute path dropped.
function normalizeParts(path, absolute) {
  const out = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else {
      out.push(part);
    }
  }
  return out.join('/');
}

export function normalize(path) {
  check(path);
  if (path === '') return '.';
  const absolute = path.startsWith('/');
  const trailing = path.endsWith('/');
  let out = normalizeParts(path, absolute);
  if (out === '' && !absolute) out = '.';
  if (out !== '' && trailing) out += '/';
  return absolute ? `/${out}` : out;
}

export function join(...parts) {
  parts.forEach((p) => check(p));
  const joined = parts.filter((p) => p !== '').join('/');
  return joined === '' ? '.' : normalize(joined);
}

export function resolve(...parts) {
  let resolved = '';
  let absolute = false;
  for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
    const p = i >= 0 ? parts[i] : '/';
    check(p, `paths[${i}]`);
    if (p === '') continue;
    resolved = `${p}/${resolved}`;
    absolute = p.startsWith('/');
  }
  const out = normalizeParts(resolved, true);
  return `/${out}`;
}

export function isAbsolute(path) {
  check(path);
  return path.startsWith('/');
}

export function relative(from, to) {
  check(from, 'from');
  check(to, 'to');
  const a = resolve(from).split('/').filter(Boolean);
  const b = resolve(to).split('/').filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}

// The directory part: before the last separator of a path without its
// trailing ones (`//a//b//` -> `//a/`, as Node's).
function dirPart(path) {
  const trimmed = path.replace(/(.)\/+$/, '$1');
  const i = trimmed.lastIndexOf('/');
  if (i === -1) return null;
  if (i === 0) return '/';
  return i === 1 && trimmed[0] === '/' ? '//' : trimmed.slice(0, i);
}

export function dirname(path) {
  check(path);
  const dir = dirPart(path);
  return dir === null ? (path.startsWith('/') ? '/' : '.') : dir;
}

export function basename(path, suffix) {
  check(path);
  if (suffix !== undefined) check(suffix, 'suffix');
  const trimmed = path.replace(/\/+$/, '');
  let base = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  // The suffix is cut even when it is the whole name, unless a directory
  // comes before it (Node's: `a` less `a` is '', `x/a` less `a` is `a`).
  const whole = suffix === base && trimmed.includes('/');
  if (suffix !== undefined && suffix !== '' && base.endsWith(suffix) && !whole) {
    base = base.slice(0, base.length - suffix.length);
  }
  return base;
}

export function extname(path) {
  check(path);
  const base = basename(path);
  const dot = base.lastIndexOf('.');
  // None, only a leading one (`.profile` is a hidden file), or `..`.
  return dot <= 0 || base === '..' ? '' : base.slice(dot);
}

export function parse(path) {
  check(path);
  const root = path.startsWith('/') ? '/' : '';
  const base = basename(path);
  const ext = extname(path);
  return { root, dir: dirPart(path) ?? '', base, ext, name: base.slice(0, base.length - ext.length) };
}

export function format(p) {
  if (p === null || typeof p !== 'object') throw invalidArgType('pathObject', 'of type object', p);
  const dir = p.dir || p.root || '';
  const base = p.base || `${p.name || ''}${p.ext ? (p.ext.startsWith('.') ? '' : '.') + p.ext : ''}`;
  if (!dir) return base;
  return dir === p.root ? `${dir}${base}` : `${dir}/${base}`;
}

export function toNamespacedPath(path) {
  return path;
}

export const sep = '/';
export const delimiter = ':';

// Whether a path matches a glob pattern, as `fs.glob` would match it.
export const matchesGlob = globMatcher(/\//);
const path = { normalize, join, resolve, isAbsolute, relative, dirname, basename, extname, parse, format, toNamespacedPath, matchesGlob, sep, delimiter };
path.posix = path;
// (A cycle with path-win32.js: each reads the other's object only when
// asked.)
Object.defineProperty(path, 'win32', { get: () => win32, enumerable: true, configurable: true });
export const posix = path;
export { win32 };
export default path;
