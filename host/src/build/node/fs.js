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
import { compile as compileGlob, segmentsMatch } from './_glob.js';
import { Readable, Writable, finished } from './stream.js';
import EventEmitter from './events.js';
import { codedError, invalidArgType, invalidArgValue, notImplemented as methodNotImplemented, outOfRange, validateFunction, validateInteger } from './_errors.js';

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

function inode(kind, mode, readOnly, extra) {
  const type = { dir: S_IFDIR, file: S_IFREG, link: S_IFLNK, dev: S_IFCHR }[kind];
  // The modification time is the only time kept: stats show no access or
  // birth time, and a change time that is this one (as workerd's do). As
  // on workerd, it is the epoch until `utimes` sets it, and writes leave
  // it: a file's times tell nothing of when a request ran.
  return { kind, mode: type | mode, readOnly, ino: nextIno++, mtimeMs: 0, ...extra };
}
const directory = (readOnly) => inode('dir', 0o755, readOnly, { entries: new Map() });

// Descriptors 0, 1 and 2, as workerd has them: empty regular files that
// read nothing, that closing leaves open, and whose writes go to the
// console (standard error's as errors), at most 16 KiB a write. (`stdio`
// is the descriptor plus one, never 0.)
const STDIO_WRITE_MAX = 16 << 10;
const stdio = (fd) => ({ node: { ...inode('dev', 0o666, false, { device: 'null', stdio: fd + 1 }), mode: S_IFREG | 0o666 }, path: undefined, position: 0, readable: true, writable: true, append: true });

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
  // `workerd`'s bounds on a path.
  if (p.length > 4096) throw new Error('File path is too long');
  const resolved = posix.resolve('/', p);
  if (resolved.split('/').length - 1 > 48) throw new Error('File path has too many segments');
  return resolved;
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

// Where a new entry may go: its parent must be a writable directory.
function creatable(found, syscall, path) {
  if (found.parent === undefined || found.parent.readOnly) throw fail('EPERM', syscall, path);
}

function attach(found, node) {
  found.parent.entries.set(found.name, node);
}

function unlinkEntry(found) {
  found.parent.entries.delete(found.name);
}

// ---- file data ------------------------------------------------------------

// A file holds at most 128 MiB, as `workerd`'s (its blob limit): more is
// EPERM, "File size limit exceeded", before anything is allocated.
const MAX_FILE_SIZE = 128 * 1024 * 1024;

function grow(node, size, syscall = 'write', path = undefined) {
  if (size > MAX_FILE_SIZE) {
    const e = fail('EPERM', syscall, path);
    e.message = e.message.replace('operation not permitted', 'File size limit exceeded');
    throw e;
  }
  if (node.data.length >= size) return;
  const data = new Uint8Array(Math.max(size, node.data.length * 2));
  data.set(node.data.subarray(0, node.size));
  node.data = data;
}

function writeAt(node, bytes, position, syscall) {
  if (node.kind === 'dev') {
    if (node.device === 'full') throw fail('EPERM', syscall);
    if (node.stdio) {
      const shown = bytes.subarray(0, STDIO_WRITE_MAX);
      console[node.stdio === 3 ? 'error' : 'log'](Buffer.from(shown).toString().replace(/\n$/, ''));
      return shown.length;
    }
    return bytes.length;
  }
  grow(node, position + bytes.length, syscall);
  if (position > node.size) node.data.fill(0, node.size, position);
  node.data.set(bytes, position);
  node.size = Math.max(node.size, position + bytes.length);
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
  grow(node, len, syscall, path);
  if (len > node.size) node.data.fill(0, node.size, len);
  node.size = len;
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

// A time `utimes` is given, as `workerd` reads one (not as Node, whose
// numbers are seconds): milliseconds since the epoch, a `Date`, or text a
// `Date` parses.
function timeOf(time) {
  let date;
  if (typeof time === 'number' || typeof time === 'string') date = new Date(time);
  else if (typeof time === 'bigint') date = new Date(Number(time));
  else if (time instanceof Date) date = time;
  else throw invalidArgType('time', 'one of type string, number, or bigint or an instance of Date', time);
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new TypeError('The value cannot be converted because it is not a valid Date.');
  return ms;
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
  // The lowest descriptor free, as POSIX gives (and workerd).
  let fd = 3;
  while (fds.has(fd)) fd++;
  fds.set(fd, { node, path, position: 0, readable: access !== 1, writable: access !== 0, append: Boolean(bits & constants.O_APPEND) });
  return fd;
}

export function closeSync(fd) {
  const n = fdOf(fd);
  if (n > 2) fds.delete(n);
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
  // (A position may be a bigint; an offset may not, on `workerd`.)
  if (typeof offset === 'bigint' && !writing) offset = Number(offset);
  validateInteger(offset, 'offset', 0);
  if (writing && offset > buffer.byteLength) throw bufferOutOfBounds('offset');
  length ??= buffer.byteLength - offset;
  validateInteger(length, 'length', 0);
  if (writing && offset + length > buffer.byteLength) throw bufferOutOfBounds('length');
  if (offset > buffer.byteLength) throw outOfRange('offset', `>= 0 && <= ${buffer.byteLength}`, offset);
  if (offset + length > buffer.byteLength) throw outOfRange('length', `<= ${buffer.byteLength - offset}`, length);
  position = positionOf(position, writing ? 'write' : 'read');
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
  if (!Array.isArray(buffers) || !buffers.every((b) => ArrayBuffer.isView(b))) {
    throw invalidArgType('buffers', 'an instance of ArrayBufferView[]', buffers);
  }
  position = positionOf(position, 'write');
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
// A file's offsets are 32-bit, as on `workerd`: a bigint position past them
// is EINVAL, a number one is out of range; -1 and null are the file's
// own position.
function positionOf(position, syscall) {
  if (position === null || position === undefined || position === -1) return null;
  if (typeof position === 'bigint') {
    if (position < -1n || position > 0xffffffffn) throw fail('EINVAL', syscall);
    return position === -1n ? null : Number(position);
  }
  validateInteger(position, 'position', -1, 0xffffffff);
  return position;
}

export function writeSync(fd, data, offsetOrOptions, length, position) {
  const file = fileOf(fd, 'write');
  if (typeof data === 'string') {
    const encoding = typeof length === 'string' ? length : 'utf8';
    const at = offsetOrOptions !== null && typeof offsetOrOptions === 'object' ? offsetOrOptions.position : offsetOrOptions;
    return writeFrom(file, Buffer.from(data, encoding), positionOf(at, 'write'));
  }
  const args = readArgs(data, offsetOrOptions, length, position, true);
  return writeFrom(file, args.bytes, args.position);
}

export function writevSync(fd, buffers, position = null) {
  // (`workerd` words a bad descriptor here without the call's name.)
  const file = fds.get(fdOf(fd));
  if (file === undefined) throw Object.assign(fail('EBADF', 'write'), { message: 'bad file descriptor' });
  if (!Array.isArray(buffers) || !buffers.every((b) => ArrayBuffer.isView(b))) {
    throw invalidArgType('buffers', 'an instance of ArrayBufferView[]', buffers);
  }
  position = positionOf(position, 'write');
  let total = 0;
  for (const buffer of buffers) {
    total += writeFrom(file, new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength), position === null ? null : position + total);
  }
  return total;
}

export function ftruncateSync(fd, len = 0) {
  fdOf(fd);
  validateInteger(len, 'len', 0);
  const file = fileOf(fd, 'ftruncate');
  if (!file.writable) throw fail('EBADF', 'ftruncate');
  setSize(file.node, len, 'ftruncate');
}

export function truncateSync(p, len = 0) {
  if (typeof p === 'number') return ftruncateSync(p, len);
  const path = pathOf(p);
  validateInteger(len, 'len', 0);
  const { node } = existing(path, 'open');
  if (node.readOnly) throw fail('EPERM', 'open', path);
  setSize(node, len, 'open', path);
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
  checkEncoding(encoding);
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
  checkEncoding(encoding);
  const { node } = existing(path, 'readlink', false);
  if (node.kind !== 'link') throw fail('EINVAL', 'readlink', path);
  return encoding === 'buffer' ? Buffer.from(node.target) : node.target;
}

export function realpathSync(p, options) {
  const path = pathOf(p);
  const encoding = encodingOf(options);
  checkEncoding(encoding);
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
  if (mode === undefined) throw invalidArgType('mode', 'of type number', mode);
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
  timeOf(atime);
  const m = timeOf(mtime);
  const path = pathOf(p);
  const { node } = existing(path, syscall, follow);
  if (node.readOnly) throw fail('EPERM', syscall, path);
  node.mtimeMs = m;
}

export const utimesSync = (p, atime, mtime) => setTimes(p, atime, mtime, true, 'utime');
export const lutimesSync = (p, atime, mtime) => setTimes(p, atime, mtime, false, 'lutime');
export function futimesSync(fd, atime, mtime) {
  timeOf(atime);
  const m = timeOf(mtime);
  fileOf(fd, 'futime').node.mtimeMs = m;
}

// ---- glob ----------------------------------------------------------------

export function globSync(pattern, options = {}) {
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  for (const p of patterns) if (typeof p !== 'string') throw invalidArgType('pattern', 'of type string', p);
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const cwd = options.cwd === undefined ? '/' : pathOf(options.cwd, 'options.cwd');
  const { exclude, withFileTypes = false } = options;
  const excludes = Array.isArray(exclude) ? exclude.flatMap((x) => compileGlob(x, /\//, true)) : [];
  const excluded = (name, dirent) => {
    if (typeof exclude === 'function') return exclude(withFileTypes ? dirent : name);
    return excludes.some((parts) => segmentsMatch(parts, name.split('/')));
  };
  const { node } = lookup(cwd, true, 'scandir');
  if (node === undefined || node.kind !== 'dir') return [];
  const out = new Map();
  // Depth first, as workerd lists matches: where `**` may match nothing,
  // a directory's own matches before its subdirectories', and under a
  // last `**` each entry before what it holds.
  const walk = (parts, dir, names, at, dirent) => {
    if (parts.length === 0) {
      const path = names.join('/');
      if (path !== '') out.set(path, dirent);
      return;
    }
    const [part, ...rest] = parts;
    if (part === '..') {
      const up = posix.dirname(at);
      walk(rest, lookup(up, true, 'scandir').node, [...names, '..'], up, new Dirent(posix.basename(up), posix.dirname(up), 'dir'));
      return;
    }
    if (part === '**') walk(rest, dir, names, at, dirent);
    if (dir === undefined || dir.kind !== 'dir') return;
    for (const [name, child] of entriesOf(dir)) {
      const rel = [...names, name];
      const relPath = rel.join('/');
      const entry = new Dirent(name, at, child.kind);
      if (excluded(relPath, entry)) continue;
      if (part === '**') {
        if (rest.length === 0) out.set(relPath, entry);
        if (child.kind === 'dir') walk(parts, child, rel, posix.join(at, name), entry);
      } else if (part.test(name)) {
        walk(rest, child, rel, posix.join(at, name), entry);
      }
    }
  };
  for (const p of patterns) {
    for (const parts of compileGlob(p, /\//, true)) {
      if (parts[0] === '') walk(parts.slice(1), root, [''], '/', undefined);
      else walk(parts, node, [], cwd, undefined);
    }
  }
  return [...out].map(([name, dirent]) => (withFileTypes ? dirent : name));
}

// ---- streams --------------------------------------------------------------

// The file streams, as Node's: each does its I/O through a set of
// callback functions, `fs` (this module's), `options.fs` (code may bring
// its own `open`, `read`, `write`, `writev`, `close`), or those of a
// FileHandle given as `fd`. The file is opened in `_construct`; a stream
// destroyed while a read or write is under way closes its file when that
// call returns.
const kFs = Symbol('kFs');
const kIo = Symbol('kIsPerformingIO');
const kIoDone = Symbol('kIoDone');

// A FileHandle's methods as the callback functions a stream calls.
function handleOperations(handle) {
  const settle = (p, ok, cb, fallback) => p.then((r) => ok(r), (err) => cb(err, 0, fallback));
  return {
    open: () => {
      throw methodNotImplemented('open()');
    },
    close: (fd, cb) => handle.close().then(() => cb(), cb),
    fsync: (fd, cb) => handle.sync().then(() => cb(), cb),
    read: (fd, buf, offset, length, pos, cb) => settle(handle.read(buf, offset, length, pos), (r) => cb(null, r.bytesRead, r.buffer), cb, buf),
    write: (fd, buf, offset, length, pos, cb) => settle(handle.write(buf, offset, length, pos), (r) => cb(null, r.bytesWritten, r.buffer), cb, buf),
    writev: (fd, buffers, pos, cb) => settle(handle.writev(buffers, pos), (r) => cb(null, r.bytesWritten, r.buffers), cb, buffers),
  };
}

// `options.fs`: each function it gives, this module's for the rest.
function fsOperations(given) {
  if (given === null || typeof given !== 'object') throw invalidArgType('options.fs', 'of type object', given);
  const ops = {};
  for (const name of ['open', 'close', 'fsync', 'read', 'write', 'writev']) {
    ops[name] = given[name] ?? fsCallbacks[name];
    validateFunction(ops[name], `options.fs.${name}`);
  }
  return ops;
}

// What both file streams keep: their file (a path, or a descriptor or
// FileHandle already open), the functions that reach it, and where to
// start (0 unless told: they read and write by position). Options are
// read, not copied: one may be inherited. As `workerd` checks them.
function fileStream(stream, path, options, flags) {
  if (options.encoding !== undefined && options.encoding !== null && options.encoding !== 'buffer' && !Buffer.isEncoding(options.encoding)) {
    throw invalidArgValue('options.encoding', options.encoding);
  }
  for (const name of ['autoClose', 'emitClose', 'flush']) {
    const v = options[name];
    if (v !== undefined && v !== null && typeof v !== 'boolean') throw invalidArgType(`options.${name}`, 'of type boolean', v);
  }
  const uint32 = (v, name) => validateInteger(v, name, 0, 4294967295);
  const start = options.start ?? 0;
  uint32(start, 'options.start');
  if (options.highWaterMark !== undefined) uint32(options.highWaterMark, 'options.highWaterMark');
  const flagsGiven = options.flags ?? flags;
  if (typeof flagsGiven !== 'string') throw invalidArgType('options.flags', 'of type string', flagsGiven);
  if (options.signal !== undefined && options.signal !== null && !(options.signal instanceof AbortSignal)) {
    throw invalidArgType('options.signal', 'an instance of AbortSignal', options.signal);
  }
  const fd = options.fd ?? null;
  if (fd instanceof FileHandle) {
    if (options.fs !== undefined) throw methodNotImplemented('FileHandle with fs');
    stream[kFs] = handleOperations(fd);
    fd.on('close', () => stream.close());
    stream.fd = fd.fd ?? null;
    stream.path = undefined;
  } else {
    stream[kFs] = options.fs === undefined ? fsCallbacks : fsOperations(options.fs);
    if (fd === null) {
      stream.fd = null;
      stream.path = pathOf(path);
    } else {
      validateInteger(fd, 'fd', 0, 2147483647);
      stream.fd = fd;
      stream.path = undefined;
    }
  }
  stream.flags = flagsGiven;
  stream.mode = options.mode ?? 0o666;
  stream.flush = options.flush ?? false;
  stream.start = start;
  stream.pos = start;
  stream[kIo] = false;
}

// `_construct`: a stream open already starts at once; one whose `open` is
// set (as older code does) is open when it emits `open`.
function constructFile(cb) {
  if (typeof this.fd === 'number') return void cb();
  if (typeof this.open === 'function') {
    const emit = this.emit;
    this.emit = function (event, ...args) {
      if (event === 'open') {
        this.emit = emit;
        cb();
        return emit.call(this, event, ...args);
      }
      if (event === 'error') {
        this.emit = emit;
        cb(args[0]);
        return false;
      }
      return emit.call(this, event, ...args);
    };
    this.open();
    return;
  }
  this[kFs].open(this.path, this.flags, this.mode, (err, fd) => {
    if (err) return void cb(err);
    this.fd = fd;
    cb();
    this.emit('open', fd);
    this.emit('ready');
  });
}

// `_destroy`: the file is closed (synced first with `flush`) once no I/O
// is under way.
function destroyFile(err, cb) {
  const close = (e) => {
    if (typeof this.fd !== 'number') return void cb(e);
    const fd = this.fd;
    const shut = (e2) => this[kFs].close(fd, (er) => cb(er || e2));
    this.fd = null;
    if (this.flush) this[kFs].fsync(fd, (er) => shut(e || er));
    else shut(e);
  };
  if (this[kIo]) this.once(kIoDone, (er) => close(err || er));
  else close(err);
}

// Node's stream options: `highWaterMark` 64 KiB, `autoClose` is
// `autoDestroy` (and reads and sets it).
function streamOptions(options, read) {
  return {
    highWaterMark: options.highWaterMark ?? 64 * 1024,
    encoding: read && options.encoding !== 'buffer' ? options.encoding : undefined,
    emitClose: options.emitClose ?? true,
    autoDestroy: options.autoClose ?? true,
    signal: options.signal ?? undefined,
    decodeStrings: true,
  };
}

function autoCloseProperty(Stream, key) {
  const check = (stream) => {
    if (stream === null || typeof stream !== 'object' || !(kFs in stream)) {
      throw codedError(TypeError, 'ERR_INVALID_THIS', `Value of "this" must be of type ${Stream.name}`);
    }
  };
  Object.defineProperty(Stream.prototype, 'autoClose', {
    configurable: true,
    get() {
      check(this);
      return this[key]?.autoDestroy || false;
    },
    set(v) {
      check(this);
      if (this[key] !== undefined) this[key].autoDestroy = v;
    },
  });
}

export function ReadStream(path, options) {
  if (!(this instanceof ReadStream)) return new ReadStream(path, options);
  options = typeof options === 'string' ? { encoding: options } : options ?? {};
  if (typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  fileStream(this, path, options, 'r');
  this.end = options.end ?? Infinity;
  if (this.end !== Infinity) {
    validateInteger(this.end, 'options.end', 0, 4294967295);
    if (this.start > this.end) throw outOfRange('start', `<= "end" (here: ${this.end})`, this.start);
  }
  this.bytesRead = 0;
  Readable.call(this, streamOptions(options, true));
}
Object.setPrototypeOf(ReadStream.prototype, Readable.prototype);
Object.setPrototypeOf(ReadStream, Readable);
autoCloseProperty(ReadStream, '_readableState');

ReadStream.prototype._construct = constructFile;
ReadStream.prototype._destroy = destroyFile;

ReadStream.prototype._read = function (n) {
  n = Math.min(this.pos !== undefined ? this.end - this.pos + 1 : this.end - this.bytesRead + 1, n);
  if (n <= 0) return void this.push(null);
  this[kIo] = true;
  this[kFs].read(this.fd, Buffer.allocUnsafeSlow(n), 0, n, this.pos ?? null, (err, bytesRead, buf) => {
    this[kIo] = false;
    if (this.destroyed) return void this.emit(kIoDone, err);
    if (err) {
      // Without `autoClose` the stream stays, its file open.
      if (this._readableState.autoDestroy) this.destroy(err);
      else this.emit('error', err);
      return;
    }
    if (bytesRead > 0) {
      if (this.pos !== undefined) this.pos += bytesRead;
      this.bytesRead += bytesRead;
      this.push(bytesRead === buf.length ? buf : Buffer.from(buf.subarray(0, bytesRead)));
    } else {
      this.push(null);
    }
  });
};

ReadStream.prototype.close = function (cb) {
  if (typeof cb === 'function') finished(this, cb);
  this.destroy();
};

export function WriteStream(path, options) {
  if (!(this instanceof WriteStream)) return new WriteStream(path, options);
  options = typeof options === 'string' ? { encoding: options } : options ?? {};
  if (typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  fileStream(this, path, options, 'w');
  this.bytesWritten = 0;
  Writable.call(this, streamOptions(options, false));
  if (options.encoding && options.encoding !== 'buffer') this.setDefaultEncoding(options.encoding);
}
Object.setPrototypeOf(WriteStream.prototype, Writable.prototype);
Object.setPrototypeOf(WriteStream, Writable);
autoCloseProperty(WriteStream, '_writableState');

WriteStream.prototype._construct = constructFile;
WriteStream.prototype._destroy = destroyFile;

// One write or a gathered write, then the callback once it is done (a
// stream destroyed meanwhile closes its file then).
function writeDone(stream, cb) {
  return (err, bytes) => {
    stream[kIo] = false;
    if (stream.destroyed) {
      cb(err);
      stream.emit(kIoDone, err);
      return;
    }
    if (err) return void cb(err);
    stream.bytesWritten += bytes;
    cb();
  };
}

WriteStream.prototype._write = function (chunk, encoding, cb) {
  this[kIo] = true;
  this[kFs].write(this.fd, chunk, 0, chunk.length, this.pos ?? null, writeDone(this, cb));
  if (this.pos !== undefined) this.pos += chunk.length;
};

WriteStream.prototype._writev = function (items, cb) {
  const chunks = items.map((item) => item.chunk);
  const size = chunks.reduce((n, c) => n + c.length, 0);
  this[kIo] = true;
  this[kFs].writev(this.fd, chunks, this.pos ?? null, writeDone(this, cb));
  if (this.pos !== undefined) this.pos += size;
};

WriteStream.prototype.close = function (cb) {
  if (typeof cb === 'function') {
    if (this.closed) return void queueMicrotask(cb);
    this.on('close', cb);
  }
  if (!this.autoClose) this.on('finish', this.destroy);
  this.end();
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

// As `workerd`'s: the Blob itself, not a promise (`await` of it works as
// on Node), a copy of the file as it is now; its arguments and the file
// checked at once.
export function openAsBlob(p, options = {}) {
  const path = pathOf(p);
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  if (options.type !== undefined && typeof options.type !== 'string') throw invalidArgType('options.type', 'of type string', options.type);
  const { node } = existing(path, 'open');
  if (node.kind === 'dir') throw fail('EISDIR', 'open', path);
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
// The callback functions file streams use unless given others.
const fsCallbacks = { open, close, fsync, read, write, writev };

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

  // The descriptor, or EBADF once the handle is closed.
  #live(syscall) {
    if (this.#fd === undefined) throw fail('EBADF', syscall);
    return this.#fd;
  }

  async close() {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    // As Node's, `close` is an event of a later turn.
    await null;
    this.emit('close');
  }

  async stat(options) { return fstatSync(this.#live('fstat'), options); }
  async truncate(len) { return ftruncateSync(this.#live('ftruncate'), len); }
  async sync() { return fsyncSync(this.#live('fsync')); }
  async datasync() { return fdatasyncSync(this.#live('fdatasync')); }
  async chmod(mode) { return fchmodSync(this.#live('fchmod'), mode); }
  async chown(uid, gid) { return fchownSync(this.#live('fchown'), uid, gid); }
  async utimes(atime, mtime) { return futimesSync(this.#live('futime'), atime, mtime); }
  async readFile(options) { return readFileSync(this.#live('read'), options); }
  async writeFile(data, options) { return writeFileSync(this.#live('write'), data, options); }
  async appendFile(data, options) { return writeFileSync(this.#live('write'), data, options); }

  async read(buffer, offset, length, position) {
    if (buffer === undefined || (buffer !== null && !ArrayBuffer.isView(buffer) && typeof buffer === 'object')) {
      const options = buffer ?? {};
      buffer = options.buffer ?? Buffer.alloc(16384);
      ({ offset = 0, length = buffer.byteLength - offset, position = null } = options);
    }
    const bytesRead = readSync(this.#live('read'), buffer, offset, length, position);
    return { bytesRead, buffer };
  }

  // A byte stream of the file from where the handle is; at its end it
  // closes the handle, unless `autoClose: false`.
  readableWebStream(options = {}) {
    this.#live('read');
    const autoClose = options === null || options.autoClose !== false;
    return new ReadableStream({
      type: 'bytes',
      pull: async (controller) => {
        if (this.#fd === undefined) return void controller.close();
        const buf = new Uint8Array(64 * 1024);
        const { bytesRead } = await this.read(buf, 0, buf.length, null);
        if (bytesRead > 0) return void controller.enqueue(buf.subarray(0, bytesRead));
        if (autoClose) await this.close();
        controller.close();
      },
      cancel: async () => {
        if (autoClose) await this.close();
      },
    });
  }

  async readv(buffers, position) { return { bytesRead: readvSync(this.#live('read'), buffers, position), buffers }; }

  async write(data, offsetOrOptions, length, position) {
    const bytesWritten = writeSync(this.#live('write'), data, offsetOrOptions, length, position);
    return { bytesWritten, buffer: data };
  }

  async writev(buffers, position) { return { bytesWritten: writevSync(this.#live('write'), buffers, position), buffers }; }

  createReadStream(options) { return new ReadStream(undefined, { ...options, fd: this }); }
  createWriteStream(options) { return new WriteStream(undefined, { ...options, fd: this }); }

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
