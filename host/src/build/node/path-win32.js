// `node:path/win32` (and `path.win32`): Windows paths as Node treats them,
// for code that handles paths of another system (a tool that reads a
// Windows path from data). Both `\` and `/` separate; a path may start
// with a root: a drive (`C:`, relative to that drive's directory, or
// `C:\`), a UNC share (`\\server\share\`) or a lone separator. Output is
// written with `\`. The working directory is the root, as on Workers.

import { invalidArgType, validateString } from './_errors.js';
import { globMatcher } from './_glob.js';
// (A cycle with path.js: each reads the other's object only when asked.)
import { posix } from './path.js';

const isSep = (c) => c === '\\' || c === '/';
const isDriveLetter = (c) => /^[A-Za-z]$/.test(c);

// The root of `path`: `{ device, absolute, end }`, where `end` is where
// the rest starts (a UNC root with no path after it is `whole`).
function rootOf(path) {
  const len = path.length;
  if (len === 0) return { device: '', absolute: false, end: 0 };
  if (isSep(path[0])) {
    if (len > 1 && isSep(path[1])) {
      // `\\server\share`: both parts named.
      let j = 2;
      while (j < len && !isSep(path[j])) j++;
      if (j < len && j !== 2) {
        const server = path.slice(2, j);
        while (j < len && isSep(path[j])) j++;
        const start = j;
        while (j < len && !isSep(path[j])) j++;
        if (j !== start) {
          return { device: `\\\\${server}\\${path.slice(start, j)}`, absolute: true, end: j, whole: j === len };
        }
      }
    }
    return { device: '', absolute: true, end: 1 };
  }
  if (len > 1 && isDriveLetter(path[0]) && path[1] === ':') {
    const absolute = len > 2 && isSep(path[2]);
    return { device: path.slice(0, 2), absolute, end: absolute ? 3 : 2 };
  }
  return { device: '', absolute: false, end: 0 };
}

// `.` and `..` resolved in the part after the root; `..` above the root
// kept only where the path is relative.
function normalizeTail(tail, allowAboveRoot) {
  const out = [];
  for (const part of tail.split(/[\\/]/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (allowAboveRoot) out.push('..');
    } else {
      out.push(part);
    }
  }
  return out.join('\\');
}

export function normalize(path) {
  validateString(path, 'path');
  if (path.length === 0) return '.';
  if (path.length === 1) return isSep(path) ? '\\' : path;
  const root = rootOf(path);
  if (root.whole) return `${root.device}\\`;
  let tail = normalizeTail(path.slice(root.end), !root.absolute);
  if (tail === '' && !root.absolute) tail = '.';
  if (tail !== '' && isSep(path[path.length - 1])) tail += '\\';
  if (root.device === '') return root.absolute ? `\\${tail}` : tail;
  return root.absolute ? `${root.device}\\${tail}` : `${root.device}${tail}`;
}

export function isAbsolute(path) {
  validateString(path, 'path');
  return rootOf(path).absolute;
}

export function join(...parts) {
  parts.forEach((p) => validateString(p, 'path'));
  const joined = parts.filter((p) => p !== '').join('\\');
  return joined === '' ? '.' : normalize(joined);
}

// From the right, until a path with a root that is absolute; the working
// directory is `\`.
export function resolve(...parts) {
  let device = '';
  let tail = '';
  let absolute = false;
  for (let i = parts.length - 1; i >= -1; i--) {
    const p = i >= 0 ? parts[i] : '\\';
    validateString(p, `paths[${i}]`);
    if (p === '') continue;
    const root = rootOf(p);
    if (root.device !== '') {
      if (device !== '' && device.toLowerCase() !== root.device.toLowerCase()) continue;
      device = root.device;
    }
    tail = `${p.slice(root.end)}\\${tail}`;
    if (root.absolute) {
      absolute = true;
      break;
    }
  }
  const out = normalizeTail(tail, !absolute);
  return absolute ? `${device}\\${out}` : `${device}${out}` || '.';
}

export function relative(from, to) {
  validateString(from, 'from');
  validateString(to, 'to');
  const a = resolve(from);
  const b = resolve(to);
  if (a.toLowerCase() === b.toLowerCase()) return '';
  const x = a.split('\\').filter(Boolean);
  const y = b.split('\\').filter(Boolean);
  let i = 0;
  while (i < x.length && i < y.length && x[i].toLowerCase() === y[i].toLowerCase()) i++;
  if (i === 0) return b;
  return [...x.slice(i).map(() => '..'), ...y.slice(i)].join('\\');
}

// The part after the root, less its trailing separators.
function rest(path) {
  const root = rootOf(path);
  let end = path.length;
  while (end > root.end && isSep(path[end - 1])) end--;
  return { root, head: path.slice(0, root.end), body: path.slice(root.end, end) };
}

export function dirname(path) {
  validateString(path, 'path');
  if (path.length === 0) return '.';
  const { root, head, body } = rest(path);
  if (root.whole) return path;
  const i = Math.max(body.lastIndexOf('\\'), body.lastIndexOf('/'));
  if (i === -1) return head === '' ? '.' : head;
  let end = i;
  while (end > 0 && isSep(body[end - 1])) end--;
  return head + body.slice(0, end);
}

export function basename(path, suffix) {
  validateString(path, 'path');
  if (suffix !== undefined) validateString(suffix, 'suffix');
  const { root, body } = rest(path);
  if (root.whole) return '';
  let base = body.slice(Math.max(body.lastIndexOf('\\'), body.lastIndexOf('/')) + 1);
  if (suffix !== undefined && suffix !== '' && base.endsWith(suffix) && base !== suffix) {
    base = base.slice(0, base.length - suffix.length);
  }
  return base;
}

export function extname(path) {
  validateString(path, 'path');
  const base = basename(path);
  const dot = base.lastIndexOf('.');
  return dot <= 0 || base === '..' ? '' : base.slice(dot);
}

export function parse(path) {
  validateString(path, 'path');
  const { head } = rest(path);
  const base = basename(path);
  const ext = extname(path);
  const dir = base === '' ? head : dirname(path);
  return { root: head, dir: dir === '.' && !path.startsWith('.') ? '' : dir, base, ext, name: base.slice(0, base.length - ext.length) };
}

export function format(p) {
  if (p === null || typeof p !== 'object') throw invalidArgType('pathObject', 'of type object', p);
  const dir = p.dir || p.root || '';
  const base = p.base || `${p.name || ''}${p.ext ? (p.ext.startsWith('.') ? '' : '.') + p.ext : ''}`;
  if (!dir) return base;
  return dir === p.root ? `${dir}${base}` : `${dir}\\${base}`;
}

// An absolute path as Windows' long-path form (`\\?\C:\x`, `\\?\UNC\s\x`).
export function toNamespacedPath(path) {
  if (typeof path !== 'string' || path.length === 0) return path;
  const resolved = resolve(path);
  if (resolved.startsWith('\\\\') && !resolved.startsWith('\\\\?\\') && !resolved.startsWith('\\\\.\\')) {
    return `\\\\?\\UNC\\${resolved.slice(2)}`;
  }
  if (isDriveLetter(resolved[0] ?? '') && resolved.slice(1, 3) === ':\\') return `\\\\?\\${resolved}`;
  return path;
}

export const sep = '\\';
export const delimiter = ';';

// Whether a path matches a glob pattern, as `fs.glob` would match it.
export const matchesGlob = globMatcher(/[\\/]/);

const win32 = { normalize, join, resolve, isAbsolute, relative, dirname, basename, extname, parse, format, toNamespacedPath, matchesGlob, sep, delimiter };
win32.win32 = win32;
Object.defineProperty(win32, 'posix', { get: () => posix, enumerable: true, configurable: true });
export { win32, posix };
export default win32;
