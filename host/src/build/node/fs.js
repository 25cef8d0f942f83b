// `node:fs`, as on workerd: a file system in the instance's memory, never
// the host's. `/tmp` is writable scratch space; `/`, `/bundle` and `/dev`
// are there and read-only. Everything written is gone when the render
// ends (`__ssr.node.onReset`), so a file written in one request is not
// seen by the next, nor by another tenant; its bytes count against the
// tenant's memory like any other. The sync, callback and promise forms of
// the common calls are here; file descriptors, streams, links and
// watching are not yet (they throw, naming themselves).
import { Buffer } from './buffer.js';
import { posix } from './path.js';

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

// path -> { dir: true } | { data: Uint8Array }, with times and mode.
let nodes = new Map();

function fresh() {
  const now = Date.now();
  nodes = new Map();
  for (const dir of ['/', '/bundle', '/dev', '/tmp']) nodes.set(dir, { dir: true, mode: 0o755, mtimeMs: now, birthtimeMs: now });
}
fresh();
globalThis.__ssr.node.onReset(fresh);

const ERRNO = { ENOENT: -2, EEXIST: -17, EISDIR: -21, ENOTDIR: -20, ENOTEMPTY: -39, EROFS: -30, EINVAL: -22, EPERM: -1 };
const TEXT = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  EISDIR: 'illegal operation on a directory',
  ENOTDIR: 'not a directory',
  ENOTEMPTY: 'directory not empty',
  EROFS: 'read-only file system',
  EINVAL: 'invalid argument',
  EPERM: 'operation not permitted',
};

function fail(code, syscall, path, dest) {
  const e = new Error(`${code}: ${TEXT[code]}, ${syscall} '${path}'${dest ? ` -> '${dest}'` : ''}`);
  e.errno = ERRNO[code];
  e.code = code;
  e.syscall = syscall;
  e.path = path;
  if (dest) e.dest = dest;
  return e;
}

function pathOf(p, name = 'path') {
  if (p instanceof URL) {
    if (p.protocol !== 'file:') {
      const e = new TypeError('The URL must be of scheme file');
      e.code = 'ERR_INVALID_URL_SCHEME';
      throw e;
    }
    p = decodeURIComponent(p.pathname);
  } else if (p instanceof Uint8Array) {
    p = Buffer.from(p).toString();
  }
  if (typeof p !== 'string') {
    const e = new TypeError(`The "${name}" argument must be of type string or an instance of Buffer or URL. Received ${p === null ? 'null' : typeof p}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  return posix.resolve('/', p);
}

const writable = (p) => p === '/tmp' || p.startsWith('/tmp/');

function parentDir(p, syscall) {
  const parent = nodes.get(posix.dirname(p));
  if (parent === undefined) throw fail('ENOENT', syscall, p);
  if (!parent.dir) throw fail('ENOTDIR', syscall, p);
}

function encodingOf(options) {
  if (typeof options === 'string') return options;
  return options && options.encoding ? options.encoding : null;
}

function bytesOf(data, encoding) {
  if (typeof data === 'string') return Buffer.from(data, encoding || 'utf8');
  if (data instanceof Uint8Array) return Uint8Array.prototype.slice.call(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const e = new TypeError(`The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${data === null ? 'null' : typeof data}`);
  e.code = 'ERR_INVALID_ARG_TYPE';
  throw e;
}

export class Stats {
  constructor(node) {
    const size = node.dir ? 4096 : node.data.length;
    Object.assign(this, {
      dev: 0, ino: 0, mode: (node.dir ? S_IFDIR : S_IFREG) | node.mode, nlink: 1, uid: 0, gid: 0, rdev: 0, size, blksize: 4096,
      blocks: Math.ceil(size / 512), atimeMs: node.mtimeMs, mtimeMs: node.mtimeMs, ctimeMs: node.mtimeMs, birthtimeMs: node.birthtimeMs,
    });
    this.atime = new Date(this.atimeMs);
    this.mtime = new Date(this.mtimeMs);
    this.ctime = new Date(this.ctimeMs);
    this.birthtime = new Date(this.birthtimeMs);
  }

  isFile() { return (this.mode & S_IFREG) === S_IFREG && !this.isDirectory(); }
  isDirectory() { return (this.mode & S_IFDIR) === S_IFDIR; }
  isSymbolicLink() { return false; }
  isBlockDevice() { return false; }
  isCharacterDevice() { return false; }
  isFIFO() { return false; }
  isSocket() { return false; }
}

export class Dirent {
  constructor(name, parentPath, dir) {
    this.name = name;
    this.parentPath = parentPath;
    this.path = parentPath;
    this._dir = dir;
  }

  isFile() { return !this._dir; }
  isDirectory() { return this._dir; }
  isSymbolicLink() { return false; }
  isBlockDevice() { return false; }
  isCharacterDevice() { return false; }
  isFIFO() { return false; }
  isSocket() { return false; }
}

export function existsSync(p) {
  try {
    return nodes.has(pathOf(p));
  } catch {
    return false;
  }
}

export function statSync(p, options) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) {
    if (options && options.throwIfNoEntry === false) return undefined;
    throw fail('ENOENT', 'stat', path);
  }
  return new Stats(node);
}

export const lstatSync = statSync;

export function accessSync(p, mode = 0) {
  const path = pathOf(p);
  if (!nodes.has(path)) throw fail('ENOENT', 'access', path);
  if (mode & 2 && !writable(path)) throw fail('EROFS', 'access', path);
}

export function readFileSync(p, options) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) throw fail('ENOENT', 'open', path);
  if (node.dir) throw fail('EISDIR', 'read', path);
  const out = Buffer.from(node.data);
  const encoding = encodingOf(options);
  return encoding ? out.toString(encoding) : out;
}

function put(path, bytes, append, syscall) {
  if (!writable(path)) throw fail('EROFS', syscall, path);
  const node = nodes.get(path);
  if (node && node.dir) throw fail('EISDIR', syscall, path);
  parentDir(path, syscall);
  const now = Date.now();
  if (append && node) {
    const data = new Uint8Array(node.data.length + bytes.length);
    data.set(node.data);
    data.set(bytes, node.data.length);
    node.data = data;
    node.mtimeMs = now;
  } else {
    nodes.set(path, { data: bytes, mode: 0o644, mtimeMs: now, birthtimeMs: node ? node.birthtimeMs : now });
  }
}

export function writeFileSync(p, data, options) {
  const path = pathOf(p, 'file');
  const flag = options && typeof options === 'object' ? options.flag : undefined;
  if (flag && flag.startsWith('wx') && nodes.has(path)) throw fail('EEXIST', 'open', path);
  put(path, bytesOf(data, encodingOf(options)), flag && flag.startsWith('a'), 'open');
}

export function appendFileSync(p, data, options) {
  put(pathOf(p, 'file'), bytesOf(data, encodingOf(options)), true, 'open');
}

export function mkdirSync(p, options) {
  const path = pathOf(p);
  const recursive = options && typeof options === 'object' && options.recursive;
  if (!writable(path)) {
    if (nodes.has(path) && recursive) return undefined;
    throw fail(nodes.has(path) ? 'EEXIST' : 'EROFS', 'mkdir', path);
  }
  if (nodes.has(path)) {
    if (recursive && nodes.get(path).dir) return undefined;
    throw fail('EEXIST', 'mkdir', path);
  }
  if (!recursive) {
    parentDir(path, 'mkdir');
    nodes.set(path, { dir: true, mode: 0o755, mtimeMs: Date.now(), birthtimeMs: Date.now() });
    return undefined;
  }
  let first;
  const parts = path.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const at = `/${parts.slice(0, i).join('/')}`;
    const node = nodes.get(at);
    if (node === undefined) {
      nodes.set(at, { dir: true, mode: 0o755, mtimeMs: Date.now(), birthtimeMs: Date.now() });
      first ??= at;
    } else if (!node.dir) {
      throw fail('ENOTDIR', 'mkdir', path);
    }
  }
  return first;
}

function childrenOf(path) {
  const prefix = path === '/' ? '/' : `${path}/`;
  const out = [];
  for (const [p, node] of nodes) {
    if (p !== path && p.startsWith(prefix) && !p.slice(prefix.length).includes('/')) out.push([p.slice(prefix.length), node]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function readdirSync(p, options) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) throw fail('ENOENT', 'scandir', path);
  if (!node.dir) throw fail('ENOTDIR', 'scandir', path);
  const withFileTypes = options && typeof options === 'object' && options.withFileTypes;
  return childrenOf(path).map(([name, child]) => (withFileTypes ? new Dirent(name, path, Boolean(child.dir)) : name));
}

export function unlinkSync(p) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) throw fail('ENOENT', 'unlink', path);
  if (node.dir) throw fail('EISDIR', 'unlink', path);
  if (!writable(path)) throw fail('EROFS', 'unlink', path);
  nodes.delete(path);
}

export function rmdirSync(p) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) throw fail('ENOENT', 'rmdir', path);
  if (!node.dir) throw fail('ENOTDIR', 'rmdir', path);
  if (!writable(path) || path === '/tmp') throw fail('EROFS', 'rmdir', path);
  if (childrenOf(path).length > 0) throw fail('ENOTEMPTY', 'rmdir', path);
  nodes.delete(path);
}

export function rmSync(p, options) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) {
    if (options && options.force) return;
    throw fail('ENOENT', 'rm', path);
  }
  if (!writable(path) || path === '/tmp') throw fail('EROFS', 'rm', path);
  if (node.dir) {
    if (!(options && options.recursive)) {
      const e = fail('EISDIR', 'rm', path);
      e.code = 'ERR_FS_EISDIR';
      throw e;
    }
    for (const q of [...nodes.keys()]) if (q.startsWith(`${path}/`)) nodes.delete(q);
  }
  nodes.delete(path);
}

export function renameSync(from, to) {
  const a = pathOf(from, 'oldPath');
  const b = pathOf(to, 'newPath');
  const node = nodes.get(a);
  if (node === undefined) throw fail('ENOENT', 'rename', a, b);
  if (!writable(a) || !writable(b)) throw fail('EROFS', 'rename', a, b);
  parentDir(b, 'rename');
  for (const [q, n] of [...nodes]) {
    if (q === a || q.startsWith(`${a}/`)) {
      nodes.delete(q);
      nodes.set(b + q.slice(a.length), n);
    }
  }
}

export function copyFileSync(from, to, mode = 0) {
  const a = pathOf(from, 'src');
  const b = pathOf(to, 'dest');
  if (mode & 1 && nodes.has(b)) throw fail('EEXIST', 'copyfile', a, b);
  const node = nodes.get(a);
  if (node === undefined) throw fail('ENOENT', 'copyfile', a, b);
  if (node.dir) throw fail('EISDIR', 'copyfile', a, b);
  put(b, node.data.slice(), false, 'copyfile');
}

export function realpathSync(p) {
  const path = pathOf(p);
  if (!nodes.has(path)) throw fail('ENOENT', 'realpath', path);
  return path;
}
realpathSync.native = realpathSync;

export function mkdtempSync(prefix) {
  for (;;) {
    const path = `${pathOf(prefix, 'prefix')}${Math.random().toString(36).slice(2, 8)}`;
    if (!nodes.has(path)) {
      mkdirSync(path);
      return path;
    }
  }
}

export function truncateSync(p, len = 0) {
  const path = pathOf(p);
  const node = nodes.get(path);
  if (node === undefined) throw fail('ENOENT', 'open', path);
  if (!writable(path)) throw fail('EROFS', 'open', path);
  const data = new Uint8Array(len);
  data.set(node.data.subarray(0, len));
  node.data = data;
}

// The callback form of a sync call: the result (or error) in a
// microtask, as Node gives it on a later tick.
function callbackOf(fn) {
  return function (...args) {
    const cb = args.pop();
    if (typeof cb !== 'function') {
      const e = new TypeError('The "cb" argument must be of type function. Received undefined');
      e.code = 'ERR_INVALID_ARG_TYPE';
      throw e;
    }
    queueMicrotask(() => {
      let out;
      try {
        out = fn(...args);
      } catch (e) {
        cb(e);
        return;
      }
      cb(null, out);
    });
  };
}

const promiseOf = (fn) => (...args) => new Promise((resolve) => resolve(fn(...args)));

export const stat = callbackOf(statSync);
export const lstat = callbackOf(lstatSync);
export const access = callbackOf(accessSync);
export const readFile = callbackOf(readFileSync);
export const writeFile = callbackOf(writeFileSync);
export const appendFile = callbackOf(appendFileSync);
export const mkdir = callbackOf(mkdirSync);
export const readdir = callbackOf(readdirSync);
export const unlink = callbackOf(unlinkSync);
export const rmdir = callbackOf(rmdirSync);
export const rm = callbackOf(rmSync);
export const rename = callbackOf(renameSync);
export const copyFile = callbackOf(copyFileSync);
export const realpath = callbackOf(realpathSync);
export const mkdtemp = callbackOf(mkdtempSync);
export const truncate = callbackOf(truncateSync);
export function exists(p, cb) {
  queueMicrotask(() => cb(existsSync(p)));
}

export const promises = {
  stat: promiseOf(statSync),
  lstat: promiseOf(lstatSync),
  access: promiseOf(accessSync),
  readFile: promiseOf(readFileSync),
  writeFile: promiseOf(writeFileSync),
  appendFile: promiseOf(appendFileSync),
  mkdir: promiseOf(mkdirSync),
  readdir: promiseOf(readdirSync),
  unlink: promiseOf(unlinkSync),
  rmdir: promiseOf(rmdirSync),
  rm: promiseOf(rmSync),
  rename: promiseOf(renameSync),
  copyFile: promiseOf(copyFileSync),
  realpath: promiseOf(realpathSync),
  mkdtemp: promiseOf(mkdtempSync),
  truncate: promiseOf(truncateSync),
};

export default {
  Stats, Dirent, existsSync, statSync, lstatSync, accessSync, readFileSync, writeFileSync, appendFileSync, mkdirSync, readdirSync,
  unlinkSync, rmdirSync, rmSync, renameSync, copyFileSync, realpathSync, mkdtempSync, truncateSync, stat, lstat, access, readFile,
  writeFile, appendFile, mkdir, readdir, unlink, rmdir, rm, rename, copyFile, realpath, mkdtemp, truncate, exists, promises,
};
