// `node:fs`, as on workerd: a file system in the instance's memory, never
// the host's. `/tmp` is writable scratch space; `/`, `/bundle` and `/dev`
// are there and read-only, and `/dev` holds `null`, `zero`, `full` and
// `random`. Everything written is gone when the render ends
// (`__ssr.node.onReset`), so a file written in one request is not seen by
// the next, nor by another tenant; its bytes count against the tenant's
// memory like any other.
//
// The model is POSIX's: inodes (directories, files, symbolic links,
// devices) with hard links counted, file descriptors with a position and
// open flags, symbolic links followed up to 40 deep. The sync calls do the
// work; the callback form runs the sync call at once and delivers its
// answer in a microtask, the promise form resolves with it. Argument
// errors (`ERR_*`) are thrown by the callback form itself, as Node throws
// them before starting the operation; what the operation meets (`ENOENT`,
// `EPERM`...) reaches the callback. Writing where the tree is read-only is
// `EPERM`, as on workerd. Watching throws workerd's "not implemented".
import { Buffer } from './buffer.js';
import { posix } from './path.js';
import { Readable, Writable } from './stream.js';
import EventEmitter from './events.js';
import { codedError, invalidArgType, invalidArgValue, outOfRange, validateFunction, validateInteger } from './_errors.js';

export const constants = Object.assign(Object.create(null), {
  UV_FS_SYMLINK_DIR: 1, UV_FS_SYMLINK_JUNCTION: 2, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, UV_DIRENT_UNKNOWN: 0, UV_DIRENT_FILE: 1,
  UV_DIRENT_DIR: 2, UV_DIRENT_LINK: 3, UV_DIRENT_FIFO: 4, UV_DIRENT_SOCKET: 5, UV_DIRENT_CHAR: 6, UV_DIRENT_BLOCK: 7,
  EXTENSIONLESS_FORMAT_JAVASCRIPT: 0, EXTENSIONLESS_FORMAT_WASM: 1, S_IFMT: 61440, S_IFREG: 32768, S_IFDIR: 16384, S_IFCHR: 8192,
  S_IFBLK: 24576, S_IFIFO: 4096, S_IFLNK: 40960, S_IFSOCK: 49152, O_CREAT: 64, O_EXCL: 128, UV_FS_O_FILEMAP: 0, O_NOCTTY: 256,
  O_TRUNC: 512, O_APPEND: 1024, O_DIRECTORY: 65536, O_NOATIME: 262144, O_NOFOLLOW: 131072, O_SYNC: 1052672, O_DSYNC: 4096,
  O_DIRECT: 16384, O_NONBLOCK: 2048, S_IRWXU: 448, S_IRUSR: 256, S_IWUSR: 128, S_IXUSR: 64, S_IRWXG: 56, S_IRGRP: 32, S_IWGRP: 16,
  S_IXGRP: 8, S_IRWXO: 7, S_IROTH: 4, S_IWOTH: 2, S_IXOTH: 1, F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, UV_FS_COPYFILE_EXCL: 1,
  COPYFILE_EXCL: 1, UV_FS_COPYFILE_FICLONE: 2, COPYFILE_FICLONE: 2, UV_FS_COPYFILE_FICLONE_FORCE: 4, COPYFILE_FICLONE_FORCE: 4,
});
export const { F_OK, R_OK, W_OK, X_OK } = constants;
const { S_IFMT, S_IFREG, S_IFDIR, S_IFCHR, S_IFLNK } = constants;

// The errors the operations meet, as libuv numbers and words them.
const UV = {
  EPERM: [-1, 'operation not permitted'], ENOENT: [-2, 'no such file or directory'], EBADF: [-9, 'bad file descriptor'],
  EACCES: [-13, 'permission denied'], EEXIST: [-17, 'file already exists'], EXDEV: [-18, 'cross-device link not permitted'],
  ENOTDIR: [-20, 'not a directory'], EISDIR: [-21, 'illegal operation on a directory'], EINVAL: [-22, 'invalid argument'],
  ENOSPC: [-28, 'no space left on device'], ENOTEMPTY: [-39, 'directory not empty'], ELOOP: [-40, 'too many symbolic links encountered'],
};

function fail(code, syscall, path, dest) {
  const [errno, text] = UV[code];
  let message = `${code}: ${text}, ${syscall}`;
  if (path !== undefined) message += ` '${path}'`;
  if (dest !== undefined) message += ` -> '${dest}'`;
  const e = new Error(message);
  e.errno = errno;
  e.code = code;
  e.syscall = syscall;
  if (path !== undefined) e.path = path;
  if (dest !== undefined) e.dest = dest;
  return e;
}

// ---- the tree ------------------------------------------------------------

let nextIno = 1;
let root;
const fds = new Map();
let nextFd = 3;

function inode(kind, mode, readOnly, extra) {
  const type = { dir: S_IFDIR, file: S_IFREG, link: S_IFLNK, dev: S_IFCHR }[kind];
  // The modification time is the only time kept: stats show no access or
  // birth time, and a change time that is this one (as workerd's do).
  return { kind, mode: type | mode, readOnly, ino: nextIno++, mtimeMs: Date.now(), ...extra };
}
const directory = (readOnly) => inode('dir', 0o755, readOnly, { entries: new Map() });

// Descriptors 0, 1 and 2: standard input reads nothing, and what is
// written to standard output and error goes to the console.
const stdio = (fd) => ({ node: inode('dev', 0o666, false, { device: 'null', stdio: fd }), path: undefined, position: 0, readable: fd === 0, writable: fd !== 0, append: false });

function fresh() {
  fds.clear();
  for (const fd of [0, 1, 2]) fds.set(fd, stdio(fd));
  root = directory(true);
  root.entries.set('bundle', directory(true));
  root.entries.set('tmp', directory(false));
  const dev = directory(true);
  for (const name of ['null', 'zero', 'full', 'random']) dev.entries.set(name, inode('dev', 0o666, false, { device: name }));
  root.entries.set('dev', dev);
}
fresh();
globalThis.__ssr.node.onReset(fresh);

// A path argument as Node takes it (string, Buffer or file: URL), made
// absolute from `/`.
function pathOf(p, name = 'path') {
  if (p instanceof URL) {
    if (p.protocol !== 'file:') throw codedError(TypeError, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
    if (p.hostname !== '') throw codedError(TypeError, 'ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
    if (/%2f/i.test(p.pathname)) throw codedError(TypeError, 'ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
    p = decodeURIComponent(p.pathname);
  } else if (p instanceof Uint8Array) {
    p = Buffer.from(p).toString();
  }
  if (typeof p !== 'string') throw invalidArgType(name, 'of type string or an instance of Buffer or URL', p);
  if (p.includes('\u0000')) throw invalidArgValue(name, p, 'must be a string, Uint8Array, or URL without null bytes');
  return posix.resolve('/', p);
}

// Finds `path`: the inode (undefined if there is none), its parent
// directory and its name there, and the path with every link followed.
// The last component's link is followed when `follow`.
function lookup(path, follow = true, syscall = 'open', original = path) {
  let parts = path.split('/').filter(Boolean);
  let dir = root;
  let at = '';
  let hops = 0;
  for (let i = 0; i < parts.length; i++) {
    if (dir.kind !== 'dir') throw fail('ENOTDIR', syscall, original);
    const name = parts[i];
    const node = dir.entries.get(name);
    const last = i === parts.length - 1;
    if (node === undefined) {
      if (!last) throw fail('ENOENT', syscall, original);
      return { node: undefined, parent: dir, name, path: `${at}/${name}` };
    }
    if (node.kind === 'link' && (!last || follow)) {
      if (++hops > 40) throw fail('ELOOP', syscall, original);
      const target = posix.resolve(at || '/', node.target);
      parts = [...target.split('/').filter(Boolean), ...parts.slice(i + 1)];
      dir = root;
      at = '';
      i = -1;
      continue;
    }
    if (last) return { node, parent: dir, name, path: `${at}/${name}` };
    dir = node;
    at = `${at}/${name}`;
  }
  return { node: root, parent: undefined, name: '', path: '/' };
}

function existing(path, syscall, follow = true) {
  const found = lookup(path, follow, syscall);
  if (found.node === undefined) throw fail('ENOENT', syscall, path);
  return found;
}

function touch(node) {
  node.mtimeMs = Date.now();
}

// Where a new entry may go: its parent must be a writable directory.
function creatable(found, syscall, path) {
  if (found.parent === undefined || found.parent.readOnly) throw fail('EPERM', syscall, path);
}

function attach(found, node) {
  found.parent.entries.set(found.name, node);
  touch(found.parent);
}

function unlinkEntry(found) {
  found.parent.entries.delete(found.name);
  touch(found.parent);
}

// ---- file data ------------------------------------------------------------

function grow(node, size) {
  if (node.data.length >= size) return;
  const data = new Uint8Array(Math.max(size, node.data.length * 2));
  data.set(node.data.subarray(0, node.size));
  node.data = data;
}

function writeAt(node, bytes, position, syscall) {
  if (node.kind === 'dev') {
    if (node.device === 'full') throw fail('EPERM', syscall);
    if (node.stdio) console[node.stdio === 1 ? 'log' : 'error'](Buffer.from(bytes).toString().replace(/\n$/, ''));
    return bytes.length;
  }
  grow(node, position + bytes.length);
  if (position > node.size) node.data.fill(0, node.size, position);
  node.data.set(bytes, position);
  node.size = Math.max(node.size, position + bytes.length);
  touch(node);
  return bytes.length;
}

function readAt(node, target, position) {
  if (node.kind === 'dev') {
    if (node.device === 'null') return 0;
    if (node.device === 'random') {
      for (let i = 0; i < target.length; i += 65536) globalThis.crypto.getRandomValues(target.subarray(i, i + 65536));
    } else {
      target.fill(0);
    }
    return target.length;
  }
  const n = Math.max(0, Math.min(target.length, node.size - position));
  target.set(node.data.subarray(position, position + n));
  return n;
}

const contents = (node) => (node.kind === 'dev' ? new Uint8Array(0) : node.data.subarray(0, node.size));

function setSize(node, len, syscall, path) {
  if (node.kind === 'dir') throw fail('EISDIR', syscall, path);
  if (node.kind !== 'file') return;
  grow(node, len);
  if (len > node.size) node.data.fill(0, node.size, len);
  node.size = len;
  touch(node);
}

const newFile = (mode = 0o666) => inode('file', mode & 0o777, false, { data: new Uint8Array(0), size: 0 });

// ---- argument checks ------------------------------------------------------

function encodingOf(options, fallback = null) {
  if (options === undefined || options === null) return fallback;
  if (typeof options === 'string') return options;
  if (typeof options !== 'object') throw invalidArgType('options', 'of type string or an instance of Object', options);
  return options.encoding ?? fallback;
}

function checkEncoding(encoding) {
  if (encoding !== null && encoding !== 'buffer' && !Buffer.isEncoding(encoding)) {
    throw invalidArgValue('encoding', encoding, 'is invalid encoding');
  }
}

function bytesOf(data, encoding, name = 'data') {
  if (typeof data === 'string') return Buffer.from(data, encoding || 'utf8');
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw invalidArgType(name, 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

function modeOf(mode, name, fallback) {
  if (mode === undefined || mode === null) return fallback;
  if (typeof mode === 'string') {
    if (!/^[0-7]+$/.test(mode)) throw invalidArgValue(name, mode, 'must be a 32-bit unsigned integer or an octal string');
    mode = Number.parseInt(mode, 8);
  }
  validateInteger(mode, name, 0, 4294967295);
  return mode;
}

function fdOf(fd) {
  validateInteger(fd, 'fd', 0, 2147483647);
  return fd;
}

function fileOf(fd, syscall) {
  const file = fds.get(fdOf(fd));
  if (file === undefined) throw fail('EBADF', syscall);
  return file;
}

function validateId(id, name) {
  validateInteger(id, name, -1, 4294967295);
}

function timeOf(time, name) {
  if (typeof time === 'number') return Number.isFinite(time) ? time * 1000 : Date.now();
  if (typeof time === 'bigint') return Number(time) * 1000;
  if (time instanceof Date) return time.getTime();
  if (typeof time === 'string' && time !== '' && !Number.isNaN(Number(time))) return Number(time) * 1000;
  throw invalidArgType(name, 'of type number or an instance of Date', time);
}

const FLAGS = {
  r: 0, rs: 0, sr: 0, 'r+': 2, 'rs+': 2, 'sr+': 2, w: 577, wx: 705, xw: 705, 'w+': 578, 'wx+': 706, 'xw+': 706,
  a: 1089, ax: 1217, xa: 1217, as: 1089, sa: 1089, 'a+': 1090, 'ax+': 1218, 'xa+': 1218, 'as+': 1090, 'sa+': 1090,
};

function flagsOf(flags, fallback = 'r') {
  if (flags === undefined || flags === null) flags = fallback;
  if (typeof flags === 'number') return flags;
  if (typeof flags === 'string' && flags in FLAGS) return FLAGS[flags];
  throw invalidArgValue('flags', flags);
}

// ---- Stats, Dirent, Dir ---------------------------------------------------

export class Stats {
  constructor(node, bigint = false) {
    const size = node.kind === 'file' ? node.size : node.kind === 'dir' ? 4096 : node.kind === 'link' ? node.target.length : 0;
    const n = bigint ? BigInt : Number;
    this.dev = n(0);
    this.mode = n(node.mode);
    // As workerd reports them: one link, no access or birth time, and a
    // change time that is the modification time.
    this.nlink = n(1);
    this.uid = n(0);
    this.gid = n(0);
    this.rdev = n(0);
    this.blksize = n(4096);
    this.ino = n(node.ino);
    this.size = n(size);
    this.blocks = n(Math.ceil(size / 512));
    const times = { atime: 0, mtime: node.mtimeMs, ctime: node.mtimeMs, birthtime: 0 };
    for (const which of ['atime', 'mtime', 'ctime', 'birthtime']) {
      const ms = times[which];
      this[`${which}Ms`] = bigint ? BigInt(Math.floor(ms)) : ms;
      if (bigint) this[`${which}Ns`] = BigInt(Math.floor(ms)) * 1000000n;
      this[which] = new Date(ms);
    }
  }

  isFile() { return this.#type() === S_IFREG; }
  isDirectory() { return this.#type() === S_IFDIR; }
  isSymbolicLink() { return this.#type() === S_IFLNK; }
  isCharacterDevice() { return this.#type() === S_IFCHR; }
  isBlockDevice() { return false; }
  isFIFO() { return false; }
  isSocket() { return false; }
  #type() { return Number(this.mode) & S_IFMT; }
}

export class Dirent {
  constructor(name, parentPath, kind) {
    this.name = name;
    this.parentPath = parentPath;
    this.path = parentPath;
    this._kind = kind;
  }

  isFile() { return this._kind === 'file'; }
  isDirectory() { return this._kind === 'dir'; }
  isSymbolicLink() { return this._kind === 'link'; }
  isCharacterDevice() { return this._kind === 'dev'; }
  isBlockDevice() { return false; }
  isFIFO() { return false; }
  isSocket() { return false; }
}

export class Dir {
  #entries;
  #closed = false;

  constructor(path, entries) {
    this.path = path;
    this.#entries = entries;
  }

  #check() {
    if (this.#closed) throw codedError(Error, 'ERR_DIR_CLOSED', 'Directory handle was closed');
  }

  readSync() {
    this.#check();
    return this.#entries.shift() ?? null;
  }

  read(cb) {
    if (cb === undefined) return new Promise((resolve, reject) => { try { resolve(this.readSync()); } catch (e) { reject(e); } });
    validateFunction(cb, 'callback');
    let entry;
    try {
      entry = this.readSync();
    } catch (e) {
      queueMicrotask(() => cb(e));
      return;
    }
    queueMicrotask(() => cb(null, entry));
  }

  closeSync() {
    this.#check();
    this.#closed = true;
  }

  close(cb) {
    if (cb === undefined) return new Promise((resolve, reject) => { try { resolve(this.closeSync()); } catch (e) { reject(e); } });
    validateFunction(cb, 'callback');
    let error = null;
    try {
      this.closeSync();
    } catch (e) {
      error = e;
    }
    queueMicrotask(() => cb(error));
  }

  async *[Symbol.asyncIterator]() {
    try {
      for (let e = this.readSync(); e !== null; e = this.readSync()) yield e;
    } finally {
      if (!this.#closed) this.closeSync();
    }
  }

  *entries() {
    for (let e = this.readSync(); e !== null; e = this.readSync()) yield e;
  }
}

// ---- the sync calls ------------------------------------------------------

export function existsSync(p) {
  try {
    return lookup(pathOf(p)).node !== undefined;
  } catch {
    return false;
  }
}

function statOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  if (options.bigint !== undefined && typeof options.bigint !== 'boolean') throw invalidArgType('options.bigint', 'of type boolean', options.bigint);
  return options;
}

function statWith(p, options, follow, syscall) {
  const path = pathOf(p);
  const { bigint = false, throwIfNoEntry = true } = statOptions(options);
  const { node } = lookup(path, follow, syscall);
  if (node === undefined) {
    if (!throwIfNoEntry) return undefined;
    throw fail('ENOENT', syscall, path);
  }
  return new Stats(node, bigint);
}

export const statSync = (p, options) => statWith(p, options, true, 'stat');
export const lstatSync = (p, options) => statWith(p, options, false, 'lstat');

export function fstatSync(fd, options) {
  const { bigint = false } = statOptions(options);
  return new Stats(fileOf(fd, 'fstat').node, bigint);
}

export function statfsSync(p, options) {
  pathOf(p);
  const { bigint = false } = statOptions(options);
  const n = bigint ? BigInt : Number;
  return { type: n(0), bsize: n(0), blocks: n(0), bfree: n(0), bavail: n(0), files: n(0), ffree: n(0) };
}

export function accessSync(p, mode = F_OK) {
  const path = pathOf(p);
  if (typeof mode !== 'number') throw invalidArgType('mode', 'of type number', mode);
  validateInteger(mode, 'mode', 0, 7);
  const { node } = lookup(path, true, 'access');
  // As on workerd: nothing may be run, and a write where the tree is
  // read-only is refused as if the file were not there.
  if (node === undefined || mode & X_OK || (mode & W_OK && node.readOnly)) throw fail('ENOENT', 'access', path);
}

export function openSync(p, flags, mode) {
  const path = pathOf(p);
  const bits = flagsOf(flags);
  mode = modeOf(mode, 'mode', 0o666);
  const found = lookup(path, !(bits & constants.O_NOFOLLOW), 'open');
  let { node } = found;
  if (node === undefined) {
    if (!(bits & constants.O_CREAT)) throw fail('ENOENT', 'open', path);
    creatable(found, 'open', path);
    node = newFile(mode);
    attach(found, node);
  } else if (bits & constants.O_CREAT && bits & constants.O_EXCL) {
    throw fail('EEXIST', 'open', path);
  }
  const access = bits & 3;
  if (node.kind === 'dir' && access !== 0) throw fail('EISDIR', 'open', path);
  if (access !== 0 && node.readOnly) throw fail('EPERM', 'open', path);
  if (bits & constants.O_TRUNC && node.kind === 'file' && access !== 0) setSize(node, 0, 'open', path);
  const fd = nextFd++;
  fds.set(fd, { node, path, position: 0, readable: access !== 1, writable: access !== 0, append: Boolean(bits & constants.O_APPEND) });
  return fd;
}

export function closeSync(fd) {
  fds.delete(fdOf(fd));
}

// `read(fd, buffer, offset, length, position)` or `read(fd, buffer,
// {offset, length, position})`.
function bufferOutOfBounds(name) {
  return codedError(RangeError, 'ERR_BUFFER_OUT_OF_BOUNDS', `"${name}" is outside of buffer bounds`);
}

function readArgs(buffer, offsetOrOptions, length, position, writing = false) {
  if (!ArrayBuffer.isView(buffer)) throw invalidArgType('buffer', 'an instance of Buffer, TypedArray, or DataView', buffer);
  let offset = offsetOrOptions;
  if (offsetOrOptions !== null && typeof offsetOrOptions === 'object') ({ offset = 0, length, position = null } = offsetOrOptions);
  offset ??= 0;
  if (typeof offset === 'bigint') offset = Number(offset);
  validateInteger(offset, 'offset', 0);
  length ??= buffer.byteLength - offset;
  validateInteger(length, 'length', 0);
  if (writing && offset > buffer.byteLength) throw bufferOutOfBounds('offset');
  if (writing && offset + length > buffer.byteLength) throw bufferOutOfBounds('length');
  if (offset > buffer.byteLength) throw outOfRange('offset', `>= 0 && <= ${buffer.byteLength}`, offset);
  if (offset + length > buffer.byteLength) throw outOfRange('length', `<= ${buffer.byteLength - offset}`, length);
  if (typeof position === 'bigint') position = Number(position);
  if (position !== null && position !== undefined && position !== -1) validateInteger(position, 'position', -1);
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
  return { bytes, position: position === -1 ? null : position ?? null };
}

function readInto(file, bytes, position) {
  if (!file.readable) throw fail('EBADF', 'read');
  if (file.node.kind === 'dir') throw fail('EISDIR', 'read');
  const at = position ?? file.position;
  const n = readAt(file.node, bytes, at);
  if (position === null) file.position += n;
  return n;
}

export function readSync(fd, buffer, offsetOrOptions, length, position) {
  const file = fileOf(fd, 'read');
  const args = readArgs(buffer, offsetOrOptions, length, position);
  return readInto(file, args.bytes, args.position);
}

export function readvSync(fd, buffers, position = null) {
  const file = fileOf(fd, 'read');
  if (!Array.isArray(buffers)) throw invalidArgType('buffers', 'an instance of ArrayBufferView[]', buffers);
  let total = 0;
  for (const buffer of buffers) {
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const n = readInto(file, bytes, position === null ? null : position + total);
    total += n;
    if (n < bytes.length) break;
  }
  return total;
}

function writeFrom(file, bytes, position) {
  if (!file.writable) throw fail('EBADF', 'write');
  const at = file.append && file.node.kind === 'file' ? file.node.size : position ?? file.position;
  const n = writeAt(file.node, bytes, at, 'write');
  if (position === null || file.append) file.position = at + n;
  return n;
}

// `write(fd, buffer, offset, length, position)`, `write(fd, buffer,
// {offset, length, position})` or `write(fd, string, position, encoding)`.
export function writeSync(fd, data, offsetOrOptions, length, position) {
  const file = fileOf(fd, 'write');
  if (typeof data === 'string') {
    const encoding = typeof length === 'string' ? length : 'utf8';
    let at = offsetOrOptions ?? null;
    if (typeof at === 'bigint') at = Number(at);
    if (at !== null) validateInteger(at, 'position', 0);
    return writeFrom(file, Buffer.from(data, encoding), at);
  }
  const args = readArgs(data, offsetOrOptions, length, position, true);
  return writeFrom(file, args.bytes, args.position);
}

export function writevSync(fd, buffers, position = null) {
  const file = fileOf(fd, 'write');
  if (!Array.isArray(buffers)) throw invalidArgType('buffers', 'an instance of ArrayBufferView[]', buffers);
  let total = 0;
  for (const buffer of buffers) {
    total += writeFrom(file, new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength), position === null ? null : position + total);
  }
  return total;
}

export function ftruncateSync(fd, len = 0) {
  const file = fileOf(fd, 'ftruncate');
  validateInteger(len, 'len');
  if (!file.writable) throw fail('EBADF', 'ftruncate');
  setSize(file.node, Math.max(0, len), 'ftruncate');
}

export function truncateSync(p, len = 0) {
  if (typeof p === 'number') return ftruncateSync(p, len);
  const path = pathOf(p);
  validateInteger(len, 'len');
  const { node } = existing(path, 'open');
  if (node.readOnly) throw fail('EPERM', 'open', path);
  setSize(node, Math.max(0, len), 'open', path);
}

export function fsyncSync(fd) {
  fileOf(fd, 'fsync');
}
export function fdatasyncSync(fd) {
  fileOf(fd, 'fdatasync');
}

function readOptions(options, fallbackFlag) {
  const encoding = encodingOf(options);
  checkEncoding(encoding);
  const flag = options && typeof options === 'object' && options.flag !== undefined ? options.flag : fallbackFlag;
  return { encoding, flag };
}

export function readFileSync(p, options) {
  const { encoding, flag } = readOptions(options, 'r');
  const fd = typeof p === 'number' ? p : openSync(p, flag);
  try {
    const file = fileOf(fd, 'read');
    if (file.node.kind === 'dir') throw fail('EISDIR', 'read');
    // From the file's start, whatever the descriptor's position, as workerd.
    const out = Buffer.from(contents(file.node));
    return encoding && encoding !== 'buffer' ? out.toString(encoding) : out;
  } finally {
    if (typeof p !== 'number') closeSync(fd);
  }
}

function writeWith(p, data, options, fallbackFlag) {
  const { encoding, flag } = readOptions(options, fallbackFlag);
  if (typeof data !== 'string' && !ArrayBuffer.isView(data)) {
    throw invalidArgType('data', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  }
  const mode = options && typeof options === 'object' ? options.mode : undefined;
  const fd = typeof p === 'number' ? p : openSync(p, flag, mode);
  try {
    writeFrom(fileOf(fd, 'write'), bytesOf(data, encoding), null);
  } finally {
    if (typeof p !== 'number') closeSync(fd);
  }
}

export const writeFileSync = (p, data, options) => writeWith(p, data, options, 'w');
export const appendFileSync = (p, data, options) => writeWith(p, data, options, 'a');

export function mkdirSync(p, options) {
  const path = pathOf(p);
  let recursive = false;
  let mode = 0o777;
  if (typeof options === 'number' || typeof options === 'string') mode = modeOf(options, 'mode', 0o777);
  else if (options !== undefined && options !== null) {
    if (typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
    if (options.recursive !== undefined && typeof options.recursive !== 'boolean') {
      throw invalidArgType('options.recursive', 'of type boolean', options.recursive);
    }
    recursive = Boolean(options.recursive);
    mode = modeOf(options.mode, 'options.mode', 0o777);
  }
  if (!recursive) {
    const found = lookup(path, true, 'mkdir');
    // An existing directory is no error: workerd makes this a no-op.
    if (found.node !== undefined && found.node.kind === 'dir') return undefined;
    if (found.node !== undefined) throw fail('EEXIST', 'mkdir', path);
    creatable(found, 'mkdir', path);
    attach(found, inode('dir', mode & 0o777, false, { entries: new Map() }));
    return undefined;
  }
  let first;
  let at = '';
  for (const name of path.split('/').filter(Boolean)) {
    at = `${at}/${name}`;
    const found = lookup(at, true, 'mkdir');
    if (found.node === undefined) {
      creatable(found, 'mkdir', path);
      attach(found, inode('dir', mode & 0o777, false, { entries: new Map() }));
      first ??= at;
    } else if (found.node.kind !== 'dir') {
      throw fail(at === path ? 'EEXIST' : 'ENOTDIR', 'mkdir', path);
    }
  }
  return first;
}

export function mkdtempSync(prefix, options) {
  const encoding = encodingOf(options);
  if (typeof prefix !== 'string' && !(prefix instanceof Uint8Array) && !(prefix instanceof URL)) {
    throw invalidArgType('prefix', 'of type string or an instance of Buffer or URL', prefix);
  }
  const base = pathOf(prefix, 'prefix');
  const chars = '0123456789';
  for (;;) {
    let suffix = '';
    for (let i = 0; i < 6; i++) suffix += chars[Math.floor(Math.random() * chars.length)];
    const path = `${base}${suffix}`;
    if (lookup(path, true, 'mkdtemp').node === undefined) {
      try {
        mkdirSync(path);
      } catch (e) {
        throw fail(e.code, 'mkdtemp', `${base}XXXXXX`);
      }
      return encoding === 'buffer' ? Buffer.from(path) : path;
    }
  }
}

// A directory's entries in the order they were made, as workerd lists them.
const entriesOf = (dir) => [...dir.entries];

function listing(path, dir, recursive, prefix = '') {
  const out = [];
  for (const [name, node] of entriesOf(dir)) {
    out.push({ name: prefix + name, parentPath: prefix ? posix.join(path, prefix.slice(0, -1)) : path, kind: node.kind });
    if (recursive && node.kind === 'dir') out.push(...listing(path, node, true, `${prefix}${name}/`));
  }
  return out;
}

export function readdirSync(p, options) {
  const path = pathOf(p);
  const encoding = encodingOf(options, 'utf8');
  checkEncoding(encoding);
  const withFileTypes = Boolean(options && typeof options === 'object' && options.withFileTypes);
  const recursive = Boolean(options && typeof options === 'object' && options.recursive);
  const { node } = existing(path, 'scandir');
  if (node.kind !== 'dir') throw fail('ENOTDIR', 'scandir', path);
  return listing(path, node, recursive).map(({ name, parentPath, kind }) => {
    const shown = encoding === 'buffer' ? Buffer.from(name) : name;
    return withFileTypes ? new Dirent(shown, parentPath, kind) : shown;
  });
}

export function opendirSync(p, options) {
  const path = pathOf(p);
  const recursive = Boolean(options && typeof options === 'object' && options.recursive);
  const { node } = existing(path, 'opendir');
  if (node.kind !== 'dir') throw fail('ENOTDIR', 'opendir', path);
  return new Dir(path, listing(path, node, recursive).map(({ name, parentPath, kind }) => new Dirent(name, parentPath, kind)));
}

export function unlinkSync(p) {
  const path = pathOf(p);
  const found = existing(path, 'unlink', false);
  if (found.node.kind === 'dir') throw fail('EISDIR', 'unlink', path);
  if (found.parent.readOnly) throw fail('EPERM', 'unlink', path);
  unlinkEntry(found);
}

export function rmdirSync(p, options) {
  const path = pathOf(p);
  if (options && typeof options === 'object' && options.recursive) return rmSync(path, { recursive: true });
  const found = existing(path, 'rmdir', false);
  if (found.node.kind !== 'dir') throw fail('ENOTDIR', 'rmdir', path);
  if (found.parent === undefined || found.parent.readOnly || found.node.readOnly) throw fail('EPERM', 'rmdir', path);
  if (found.node.entries.size > 0) throw fail('ENOTEMPTY', 'rmdir', path);
  unlinkEntry(found);
}

export function rmSync(p, options) {
  const path = pathOf(p);
  const { force = false, recursive = false } = options && typeof options === 'object' ? options : {};
  const found = lookup(path, false, 'rm');
  if (found.node === undefined) {
    if (force) return;
    throw fail('ENOENT', 'rm', path);
  }
  if (found.parent === undefined || found.parent.readOnly) throw fail('EPERM', 'rm', path);
  if (found.node.kind === 'dir') {
    if (!recursive) {
      const e = codedError(Error, 'ERR_FS_EISDIR', `Path is a directory: rm returned EISDIR (is a directory) ${path}`);
      e.errno = 21;
      e.syscall = 'rm';
      e.path = path;
      throw e;
    }
  }
  unlinkEntry(found);
}

function within(node, dir) {
  if (node === dir) return true;
  if (node.kind !== 'dir') return false;
  for (const child of node.entries.values()) if (within(child, dir)) return true;
  return false;
}

export function renameSync(from, to) {
  const a = pathOf(from, 'oldPath');
  const b = pathOf(to, 'newPath');
  const src = existing(a, 'rename', false);
  const dst = lookup(b, false, 'rename');
  if (src.parent === undefined || src.parent.readOnly) throw fail('EPERM', 'rename', a, b);
  creatable(dst, 'rename', b);
  if (src.node === dst.node) return;
  if (src.node.kind === 'dir' && within(src.node, dst.parent)) throw fail('EINVAL', 'rename', a, b);
  if (dst.node !== undefined) {
    if (dst.node.kind === 'dir' && src.node.kind !== 'dir') throw fail('EISDIR', 'rename', a, b);
    if (dst.node.kind !== 'dir' && src.node.kind === 'dir') throw fail('ENOTDIR', 'rename', a, b);
    if (dst.node.kind === 'dir' && dst.node.entries.size > 0) throw fail('ENOTEMPTY', 'rename', a, b);
    unlinkEntry(dst);
  }
  src.parent.entries.delete(src.name);
  touch(src.parent);
  attach(dst, src.node);
}

export function copyFileSync(from, to, mode = 0) {
  const a = pathOf(from, 'src');
  const b = pathOf(to, 'dest');
  validateInteger(mode, 'mode', 0, 7);
  const src = existing(a, 'copyfile');
  if (src.node.kind === 'dir') throw fail('EISDIR', 'copyfile', a, b);
  const dst = lookup(b, true, 'copyfile');
  if (dst.node !== undefined) {
    if (mode & constants.COPYFILE_EXCL) throw fail('EEXIST', 'copyfile', a, b);
    if (dst.node.kind === 'dir') throw fail('EISDIR', 'copyfile', a, b);
    if (dst.node.readOnly) throw fail('EPERM', 'copyfile', a, b);
    setSize(dst.node, 0, 'copyfile', b);
    writeAt(dst.node, contents(src.node), 0, 'copyfile');
    return;
  }
  creatable(dst, 'copyfile', b);
  const node = newFile(src.node.mode);
  writeAt(node, contents(src.node), 0, 'copyfile');
  attach(dst, node);
}

export function cpSync(from, to, options = {}) {
  const a = pathOf(from, 'src');
  const b = pathOf(to, 'dest');
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { recursive = false, force = true, errorOnExist = false, filter, dereference = false } = options;
  if (filter !== undefined) validateFunction(filter, 'options.filter');
  if (a === b) throw codedError(Error, 'ERR_FS_CP_EINVAL', `Invalid src or dest: cp returned EINVAL (src and dest cannot be the same) ${b}`);
  const copy = (src, dst) => {
    if (filter && !filter(src, dst)) return;
    const { node } = existing(src, 'cp', dereference);
    const target = lookup(dst, true, 'cp');
    if (node.kind === 'dir') {
      if (!recursive) throw codedError(Error, 'ERR_FS_EISDIR', `Recursive option is required to copy a directory: cp returned EISDIR (${src} is a directory (not copied)) ${src}`);
      if (dst.startsWith(`${src}/`)) throw codedError(Error, 'ERR_FS_CP_EINVAL', `Invalid src or dest: cp returned EINVAL (cannot copy ${src} to a subdirectory of self ${dst}) ${dst}`);
      if (target.node === undefined) mkdirSync(dst);
      else if (target.node.kind !== 'dir') throw codedError(Error, 'ERR_FS_CP_NON_DIR_TO_DIR', `Cannot overwrite non-directory with directory: cp returned ENOTDIR (cannot overwrite non-directory ${dst} with directory ${src}) ${dst}`);
      for (const [name] of entriesOf(node)) copy(`${src}/${name}`, `${dst}/${name}`);
      return;
    }
    if (target.node !== undefined) {
      if (target.node.kind === 'dir') throw codedError(Error, 'ERR_FS_CP_DIR_TO_NON_DIR', `Cannot overwrite directory with non-directory: cp returned EISDIR (cannot overwrite directory ${dst} with non-directory ${src}) ${dst}`);
      if (!force) {
        if (errorOnExist) throw codedError(Error, 'ERR_FS_CP_EEXIST', `Target already exists: cp returned EEXIST (${dst} already exists) ${dst}`);
        return;
      }
    }
    if (node.kind === 'link') {
      if (target.node !== undefined) unlinkSync(dst);
      symlinkSync(node.target, dst);
      return;
    }
    copyFileSync(src, dst);
  };
  copy(a, b);
}

export function linkSync(existingPath, newPath) {
  const a = pathOf(existingPath, 'existingPath');
  const b = pathOf(newPath, 'newPath');
  const src = existing(a, 'link', false);
  const dst = lookup(b, false, 'link');
  if (dst.node !== undefined) throw fail('EEXIST', 'link', a, b);
  if (src.node.kind === 'dir') throw fail('EPERM', 'link', a, b);
  creatable(dst, 'link', b);
  attach(dst, src.node);
}

export function symlinkSync(target, p, type) {
  const t = target instanceof URL || target instanceof Uint8Array ? pathOf(target, 'target') : target;
  if (typeof t !== 'string') throw invalidArgType('target', 'of type string or an instance of Buffer or URL', target);
  const path = pathOf(p);
  if (type !== undefined && type !== null && !['dir', 'file', 'junction'].includes(type)) {
    throw invalidArgValue('type', type, "must be one of: 'dir', 'file', 'junction', null, undefined");
  }
  const found = lookup(path, false, 'symlink');
  if (found.node !== undefined) throw fail('EEXIST', 'symlink', t, path);
  creatable(found, 'symlink', path);
  attach(found, inode('link', 0o777, false, { target: t }));
}

export function readlinkSync(p, options) {
  const path = pathOf(p);
  const encoding = encodingOf(options);
  const { node } = existing(path, 'readlink', false);
  if (node.kind !== 'link') throw fail('EINVAL', 'readlink', path);
  return encoding === 'buffer' ? Buffer.from(node.target) : node.target;
}

export function realpathSync(p, options) {
  const path = pathOf(p);
  const encoding = encodingOf(options);
  const found = existing(path, 'realpath');
  return encoding === 'buffer' ? Buffer.from(found.path) : found.path;
}
realpathSync.native = realpathSync;

export function chmodSync(p, mode) {
  const path = pathOf(p);
  mode = modeOf(mode, 'mode');
  existing(path, 'chmod');
}
export function lchmodSync(p, mode) {
  const path = pathOf(p);
  mode = modeOf(mode, 'mode');
  existing(path, 'lchmod', false);
}
export function fchmodSync(fd, mode) {
  fdOf(fd);
  modeOf(mode, 'mode');
  fileOf(fd, 'fstat');
}

// Ownership and permissions are checked and kept as they are: a Worker has
// no users or groups (workerd does the same).
function ownerArgs(uid, gid) {
  validateId(uid, 'uid');
  validateId(gid, 'gid');
}
export function chownSync(p, uid, gid) {
  const path = pathOf(p);
  ownerArgs(uid, gid);
  existing(path, 'chown');
}
export function lchownSync(p, uid, gid) {
  const path = pathOf(p);
  ownerArgs(uid, gid);
  existing(path, 'lchown', false);
}
export function fchownSync(fd, uid, gid) {
  fdOf(fd);
  ownerArgs(uid, gid);
  fileOf(fd, 'fstat');
}

// `utimes` and `lutimes`: both times are checked, the modification time
// kept (the access time is not, as on workerd).
function setTimes(p, atime, mtime, follow, syscall) {
  const path = pathOf(p);
  timeOf(atime, 'atime');
  const m = timeOf(mtime, 'mtime');
  const { node } = existing(path, syscall, follow);
  if (node.readOnly) throw fail('EPERM', syscall, path);
  node.mtimeMs = m;
}

export const utimesSync = (p, atime, mtime) => setTimes(p, atime, mtime, true, 'utime');
export const lutimesSync = (p, atime, mtime) => setTimes(p, atime, mtime, false, 'lutime');
export function futimesSync(fd, atime, mtime) {
  timeOf(atime, 'atime');
  const m = timeOf(mtime, 'mtime');
  fileOf(fd, 'futime').node.mtimeMs = m;
}

// ---- glob ----------------------------------------------------------------

// One path segment of a glob as a RegExp: `*`, `?`, `[...]`, `{a,b}`.
function segmentRegExp(segment) {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        let set = segment.slice(i + 1, end);
        if (set[0] === '!') set = `^${set.slice(1)}`;
        out += `[${set.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      const end = segment.indexOf('}', i + 1);
      if (end < 0) out += '\\{';
      else {
        out += `(?:${segment.slice(i + 1, end).split(',').map((s) => segmentRegExp(s).source.slice(1, -1)).join('|')})`;
        i = end;
      }
    } else out += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

function matchesGlob(parts, names) {
  if (parts.length === 0) return names.length === 0;
  if (parts[0] === '**') {
    for (let i = 0; i <= names.length; i++) if (matchesGlob(parts.slice(1), names.slice(i))) return true;
    return false;
  }
  return names.length > 0 && segmentRegExp(parts[0]).test(names[0]) && matchesGlob(parts.slice(1), names.slice(1));
}

export function globSync(pattern, options = {}) {
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  for (const p of patterns) if (typeof p !== 'string') throw invalidArgType('pattern', 'of type string', p);
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const cwd = options.cwd === undefined ? '/' : pathOf(options.cwd, 'options.cwd');
  const { exclude, withFileTypes = false } = options;
  const excluded = (name, dirent) => {
    if (typeof exclude === 'function') return exclude(withFileTypes ? dirent : name);
    if (Array.isArray(exclude)) return exclude.some((x) => matchesGlob(x.split('/').filter(Boolean), name.split('/')));
    return false;
  };
  const { node } = lookup(cwd, true, 'scandir');
  if (node === undefined || node.kind !== 'dir') return [];
  const out = new Map();
  for (const p of patterns) {
    const absolute = p.startsWith('/');
    const base = absolute ? '/' : cwd;
    const parts = p.split('/').filter((s) => s !== '' && s !== '.');
    const start = absolute ? root : node;
    if (parts.length === 0) continue;
    // Level by level, as workerd lists matches: a directory's own entries
    // before its subdirectories'.
    const queue = [[start, [], base]];
    while (queue.length > 0) {
      const [dir, names, at] = queue.shift();
      for (const [name, child] of entriesOf(dir)) {
        const rel = [...names, name];
        const relPath = rel.join('/');
        const dirent = new Dirent(name, at, child.kind);
        if (excluded(relPath, dirent)) continue;
        if (matchesGlob(parts, rel)) out.set(absolute ? `/${relPath}` : relPath, dirent);
        if (child.kind === 'dir') queue.push([child, rel, posix.join(at, name)]);
      }
    }
  }
  return [...out].map(([name, dirent]) => (withFileTypes ? dirent : name));
}

// ---- streams --------------------------------------------------------------

// Opens a stream's file. Code written for Node may replace a stream's
// `open`, or delete it, and the stream still opens.
function openStream() {
  try {
    this.fd = openSync(this.path, this.flags, this.mode);
  } catch (e) {
    this.destroy(e);
    return;
  }
  const fd = this.fd;
  queueMicrotask(() => {
    this.emit('open', fd);
    this.emit('ready');
  });
}

// What both file streams keep: their file (a path, or a descriptor already
// open), how to open it, and where to start.
function fileStream(stream, path, options, flags) {
  stream.path = options.fd === undefined || options.fd === null ? path : undefined;
  // A FileHandle as `fd`: the stream reads or writes its descriptor, and
  // closing the stream closes the handle.
  stream.fileHandle = options.fd instanceof FileHandle ? options.fd : null;
  stream.fd = stream.fileHandle ? stream.fileHandle.fd : options.fd ?? null;
  stream.flags = options.flags ?? flags;
  stream.mode = options.mode ?? 0o666;
  stream.start = options.start;
  if (stream.start !== undefined) validateInteger(stream.start, 'start', 0);
  stream.pos = stream.start;
  stream.autoClose = options.autoClose ?? true;
}

function startStream(stream) {
  if (stream.fd !== null) queueMicrotask(() => stream.emit('ready'));
  else if (typeof stream.open === 'function' && stream.open !== openStream) stream.open();
  else openStream.call(stream);
}

export function ReadStream(path, options) {
  if (!(this instanceof ReadStream)) return new ReadStream(path, options);
  // Read, not copied: an option may be inherited (`{ __proto__: { start } }`).
  options = typeof options === 'string' ? { encoding: options } : options ?? {};
  Readable.call(this, { highWaterMark: options.highWaterMark ?? 64 * 1024, encoding: options.encoding, emitClose: options.emitClose ?? true, autoDestroy: options.autoClose ?? true });
  fileStream(this, path, options, 'r');
  this.end = options.end ?? Infinity;
  if (options.end !== undefined) validateInteger(this.end, 'end', 0);
  if (this.start !== undefined && this.start > this.end) throw outOfRange('start', `<= "end" (here: ${this.end})`, this.start);
  this.bytesRead = 0;
  startStream(this);
}
Object.setPrototypeOf(ReadStream.prototype, Readable.prototype);
Object.setPrototypeOf(ReadStream, Readable);

ReadStream.prototype.open = openStream;

ReadStream.prototype._read = function (n) {
  if (this.fd === null) return void this.once('open', () => this._read(n));
  const remaining = this.end === Infinity ? n : this.end - (this.start ?? 0) + 1 - this.bytesRead;
  const want = Math.max(0, Math.min(n, this.readableHighWaterMark, remaining));
  if (want === 0) return void this.push(null);
  const chunk = Buffer.alloc(want);
  let got;
  try {
    got = readSync(this.fd, chunk, 0, want, this.pos === undefined ? null : this.pos);
  } catch (e) {
    this.destroy(e);
    return;
  }
  if (this.pos !== undefined) this.pos += got;
  this.bytesRead += got;
  this.push(got > 0 ? chunk.subarray(0, got) : null);
};

ReadStream.prototype._destroy = function (err, cb) {
  if (this.fd !== null && this.autoClose) {
    if (this.fileHandle) this.fileHandle.close();
    else closeSync(this.fd);
  }
  this.fd = null;
  cb(err);
};

ReadStream.prototype.close = function (cb) {
  if (typeof cb === 'function') this.once('close', cb);
  this.destroy();
};

export function WriteStream(path, options) {
  if (!(this instanceof WriteStream)) return new WriteStream(path, options);
  // Read, not copied: an option may be inherited (`{ __proto__: { start } }`).
  options = typeof options === 'string' ? { encoding: options } : options ?? {};
  Writable.call(this, { highWaterMark: options.highWaterMark, decodeStrings: true, defaultEncoding: options.encoding ?? 'utf8', emitClose: options.emitClose ?? true, autoDestroy: options.autoClose ?? true });
  fileStream(this, path, options, 'w');
  this.bytesWritten = 0;
  startStream(this);
}
Object.setPrototypeOf(WriteStream.prototype, Writable.prototype);
Object.setPrototypeOf(WriteStream, Writable);

WriteStream.prototype.open = openStream;

WriteStream.prototype._write = function (chunk, encoding, cb) {
  if (this.fd === null) return void this.once('open', () => this._write(chunk, encoding, cb));
  try {
    const n = writeSync(this.fd, chunk, 0, chunk.length, this.pos === undefined ? null : this.pos);
    if (this.pos !== undefined) this.pos += n;
    this.bytesWritten += n;
  } catch (e) {
    return void cb(e);
  }
  cb();
};

WriteStream.prototype._destroy = ReadStream.prototype._destroy;

WriteStream.prototype.close = function (cb) {
  if (typeof cb === 'function') {
    if (this.closed) return void queueMicrotask(cb);
    this.once('close', cb);
  }
  if (!this.writableEnded) this.end();
  else this.destroy();
};
WriteStream.prototype.destroySoon = WriteStream.prototype.end;

for (const Stream of [ReadStream, WriteStream]) {
  Object.defineProperty(Stream.prototype, 'pending', { get() { return this.fd === null; }, configurable: true });
}

export const FileReadStream = ReadStream;
export const FileWriteStream = WriteStream;
// Functions, not arrows: code calls them with `new` too.
export function createReadStream(path, options) {
  return new ReadStream(path, options);
}
export function createWriteStream(path, options) {
  return new WriteStream(path, options);
}

export async function openAsBlob(p, options = {}) {
  const path = pathOf(p);
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { node } = existing(path, 'open');
  return new Blob([contents(node).slice()], options.type === undefined ? {} : { type: options.type });
}

function notImplemented(name) {
  return function () {
    const e = new Error(`fs.${name} is not implemented`);
    e.code = 'ERR_METHOD_NOT_IMPLEMENTED';
    throw e;
  };
}
export const watch = notImplemented('watch');
export const watchFile = notImplemented('watchFile');
export const unwatchFile = notImplemented('unwatchFile');

// ---- the callback and promise forms --------------------------------------

// Runs `fn` now; an argument error is thrown, anything else goes to the
// callback (the last argument) in a microtask.
function callbackOf(fn, optionalCallback = false, readOnly = false) {
  return function (...args) {
    let cb = args.at(-1);
    if (typeof cb === 'function') args.pop();
    else if (optionalCallback) cb = () => {};
    else {
      // Node checks the other arguments before the callback: a call that
      // changes nothing can be run to find their error.
      if (readOnly) {
        try {
          fn(...args);
        } catch (e) {
          if (typeof e.code === 'string' && e.code.startsWith('ERR_')) throw e;
        }
      }
      validateFunction(cb, 'cb');
    }
    let out;
    try {
      out = fn(...args);
    } catch (e) {
      if (typeof e.code === 'string' && e.code.startsWith('ERR_') && !e.code.startsWith('ERR_FS_')) throw e;
      queueMicrotask(() => cb(e));
      return;
    }
    queueMicrotask(() => cb(null, out));
  };
}

const promiseOf = (fn) => (...args) => new Promise((resolve) => resolve(fn(...args)));

export const stat = callbackOf(statSync, false, true);
export const lstat = callbackOf(lstatSync, false, true);
export const fstat = callbackOf(fstatSync, false, true);
export const statfs = callbackOf(statfsSync, false, true);
export const access = callbackOf(accessSync, false, true);
export const open = callbackOf(openSync);
export const close = callbackOf(closeSync, true);
export const ftruncate = callbackOf(ftruncateSync);
export const truncate = callbackOf(truncateSync);
export const fsync = callbackOf(fsyncSync);
export const fdatasync = callbackOf(fdatasyncSync);
export const readFile = callbackOf(readFileSync);
export const writeFile = callbackOf(writeFileSync);
export const appendFile = callbackOf(appendFileSync);
export const mkdir = callbackOf(mkdirSync);
export const mkdtemp = callbackOf(mkdtempSync);
export const readdir = callbackOf(readdirSync);
export const opendir = callbackOf(opendirSync);
export const unlink = callbackOf(unlinkSync);
export const rmdir = callbackOf(rmdirSync);
export const rm = callbackOf(rmSync);
export const rename = callbackOf(renameSync);
export const copyFile = callbackOf(copyFileSync);
export const cp = callbackOf(cpSync);
export const link = callbackOf(linkSync);
export const symlink = callbackOf(symlinkSync);
export const readlink = callbackOf(readlinkSync);
export const realpath = callbackOf(realpathSync);
realpath.native = realpath;
export const chmod = callbackOf(chmodSync, false, true);
export const lchmod = callbackOf(lchmodSync, false, true);
export const fchmod = callbackOf(fchmodSync, false, true);
export const chown = callbackOf(chownSync, false, true);
export const lchown = callbackOf(lchownSync, false, true);
export const fchown = callbackOf(fchownSync, false, true);
export const utimes = callbackOf(utimesSync);
export const lutimes = callbackOf(lutimesSync);
export const futimes = callbackOf(futimesSync);
export const glob = callbackOf(globSync);

// `read` and `write` call back with the count and the buffer.
function withBuffer(fn, bufferAt = 1) {
  return callbackOf((...args) => [fn(...args), args[bufferAt]]);
}
const spread = (f) => (...args) => {
  const cb = args.at(-1);
  validateFunction(cb, 'cb');
  return f(...args.slice(0, -1), (err, out) => (err ? cb(err) : cb(null, ...out)));
};
export const read = spread(withBuffer(readSync));
export const readv = spread(withBuffer(readvSync));
export const write = spread(withBuffer(writeSync));
export const writev = spread(withBuffer(writevSync));

export function exists(p, cb) {
  validateFunction(cb, 'cb');
  const there = existsSync(p);
  queueMicrotask(() => cb(there));
}

// `fs/promises`' FileHandle: a file descriptor with the calls as methods,
// and an emitter of `close`. Closed, its `fd` is undefined, as on workerd.
class FileHandle extends EventEmitter {
  #fd;

  constructor(fd) {
    super();
    this.#fd = fd;
  }

  get fd() {
    return this.#fd;
  }

  async close() {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    this.emit('close');
  }

  async stat(options) { return fstatSync(this.#fd, options); }
  async truncate(len) { return ftruncateSync(this.#fd, len); }
  async sync() { return fsyncSync(this.#fd); }
  async datasync() { return fdatasyncSync(this.#fd); }
  async chmod(mode) { return fchmodSync(this.#fd, mode); }
  async chown(uid, gid) { return fchownSync(this.#fd, uid, gid); }
  async utimes(atime, mtime) { return futimesSync(this.#fd, atime, mtime); }
  async readFile(options) { return readFileSync(this.#fd, options); }
  async writeFile(data, options) { return writeFileSync(this.#fd, data, options); }
  async appendFile(data, options) { return writeFileSync(this.#fd, data, options); }

  async read(buffer, offset, length, position) {
    if (buffer === undefined || (buffer !== null && !ArrayBuffer.isView(buffer) && typeof buffer === 'object')) {
      const options = buffer ?? {};
      buffer = options.buffer ?? Buffer.alloc(16384);
      ({ offset = 0, length = buffer.byteLength - offset, position = null } = options);
    }
    const bytesRead = readSync(this.#fd, buffer, offset, length, position);
    return { bytesRead, buffer };
  }

  async readv(buffers, position) { return { bytesRead: readvSync(this.#fd, buffers, position), buffers }; }

  async write(data, offsetOrOptions, length, position) {
    const bytesWritten = writeSync(this.#fd, data, offsetOrOptions, length, position);
    return { bytesWritten, buffer: data };
  }

  async writev(buffers, position) { return { bytesWritten: writevSync(this.#fd, buffers, position), buffers }; }

  createReadStream(options) { return new ReadStream(undefined, { ...options, fd: this.#fd }); }
  createWriteStream(options) { return new WriteStream(undefined, { ...options, fd: this.#fd }); }

  // `await using`: esbuild's lowering looks for Symbol.for('Symbol.asyncDispose')
  // where the engine has no Symbol.asyncDispose (V8 10.2).
  async [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    await this.close();
  }
}

export const promises = {
  access: promiseOf(accessSync),
  appendFile: promiseOf((p, ...rest) => appendFileSync(p instanceof FileHandle ? p.fd : p, ...rest)),
  chmod: promiseOf(chmodSync),
  chown: promiseOf(chownSync),
  constants,
  copyFile: promiseOf(copyFileSync),
  cp: promiseOf(cpSync),
  glob: async function* (pattern, options) {
    yield* globSync(pattern, options);
  },
  lchmod: promiseOf(lchmodSync),
  lchown: promiseOf(lchownSync),
  link: promiseOf(linkSync),
  lstat: promiseOf(lstatSync),
  lutimes: promiseOf(lutimesSync),
  mkdir: promiseOf(mkdirSync),
  mkdtemp: promiseOf(mkdtempSync),
  open: promiseOf((p, flags, mode) => new FileHandle(openSync(p, flags, mode))),
  opendir: promiseOf(opendirSync),
  readFile: promiseOf((p, options) => readFileSync(p instanceof FileHandle ? p.fd : p, options)),
  readdir: promiseOf(readdirSync),
  readlink: promiseOf(readlinkSync),
  realpath: promiseOf(realpathSync),
  rename: promiseOf(renameSync),
  rm: promiseOf(rmSync),
  rmdir: promiseOf(rmdirSync),
  stat: promiseOf(statSync),
  statfs: promiseOf(statfsSync),
  symlink: promiseOf(symlinkSync),
  truncate: promiseOf(truncateSync),
  unlink: promiseOf(unlinkSync),
  utimes: promiseOf(utimesSync),
  watch: notImplemented('promises.watch'),
  writeFile: promiseOf((p, data, options) => writeFileSync(p instanceof FileHandle ? p.fd : p, data, options)),
  FileHandle,
};

export default {
  Dir, Dirent, F_OK, FileReadStream, FileWriteStream, R_OK, ReadStream, Stats, W_OK, WriteStream, X_OK, access, accessSync,
  appendFile, appendFileSync, chmod, chmodSync, chown, chownSync, close, closeSync, constants, copyFile, copyFileSync, cp, cpSync,
  createReadStream, createWriteStream, exists, existsSync, fchmod, fchmodSync, fchown, fchownSync, fdatasync, fdatasyncSync, fstat,
  fstatSync, fsync, fsyncSync, ftruncate, ftruncateSync, futimes, futimesSync, glob, globSync, lchmod, lchmodSync, lchown,
  lchownSync, link, linkSync, lstat, lstatSync, lutimes, lutimesSync, mkdir, mkdirSync, mkdtemp, mkdtempSync, open, openAsBlob,
  openSync, opendir, opendirSync, promises, read, readFile, readFileSync, readSync, readdir, readdirSync, readlink, readlinkSync,
  readv, readvSync, realpath, realpathSync, rename, renameSync, rm, rmSync, rmdir, rmdirSync, stat, statSync, statfs, statfsSync,
  symlink, symlinkSync, truncate, truncateSync, unlink, unlinkSync, unwatchFile, utimes, utimesSync, watch, watchFile, write,
  writeFile, writeFileSync, writeSync, writev, writevSync,
};
