// `node:process` as `ssr build` resolves it (build/bundle.rs), and the
// global `process` of an app whose wrangler config sets `nodejs_compat`.
// `env` holds the tenant's vars and secrets that are text (empty while the
// bundle's top level runs at build time); a value set here stays in this
// instance only.
import EventEmitter from './events.js';
import { Readable, Writable } from './stream.js';
import { Buffer } from './buffer.js';
import { bundled } from './_stubs.js';
import { codedError, refusing } from './_errors.js';
import { parseEnv } from './util.js';

const live = globalThis.__ssr.workers.env;
const own = Object.create(null);
const textVar = (k) => (typeof k === 'string' && !(k in own) && typeof live[k] === 'string' ? live[k] : undefined);
export const env = new Proxy(own, {
  get: (t, k) => (k in t ? t[k] : textVar(k)),
  has: (t, k) => k in t || textVar(k) !== undefined,
  set: (t, k, v) => {
    t[k] = String(v);
    return true;
  },
  deleteProperty: (t, k) => delete t[k],
  ownKeys: (t) => [...new Set([...Reflect.ownKeys(t), ...Reflect.ownKeys(live).filter((k) => textVar(k) !== undefined)])],
  getOwnPropertyDescriptor: (t, k) => {
    const value = k in t ? t[k] : textVar(k);
    return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
  },
});

// The release, versions, platform, `argv` and the other plain data are
// `workerd`'s, made beside this file from node/workerd.json (build/node.rs).
export const execArgv = [];
export const exitCode = undefined;

// Node runs ticks before promise reactions; here they queue with them.
export function nextTick(fn, ...args) {
  if (typeof fn !== 'function') throw new TypeError('The "callback" argument must be of type function');
  queueMicrotask(() => fn(...args));
}

// A built-in module the bundle holds (it is imported somewhere in the
// app), else undefined.
export function getBuiltinModule(id) {
  if (typeof id !== 'string') {
    const e = new TypeError(`The "id" argument must be of type string. Received ${typeof id}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
  return bundled.get(id.startsWith('node:') ? id.slice(5) : id);
}

export const cwd = () => '/';
export function chdir() {
  throw new Error('process.chdir() is not supported: a renderer has no file system');
}
export function exit(code) {
  throw new Error(`process.exit(${code === undefined ? '' : code}) is not supported: a renderer cannot end the server; throw or return a response instead`);
}
export const abort = exit;
export const umask = () => 0o22;
export const uptime = () => performance.now() / 1000;
export function hrtime(previous) {
  const ns = BigInt(Math.round(performance.now() * 1e6));
  const now = [Number(ns / 1000000000n), Number(ns % 1000000000n)];
  if (!previous) return now;
  let s = now[0] - previous[0];
  let n = now[1] - previous[1];
  if (n < 0) {
    s--;
    n += 1e9;
  }
  return [s, n];
}
hrtime.bigint = () => BigInt(Math.round(performance.now() * 1e6));
export const memoryUsage = () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 });
export function emitWarning(warning, type) {
  const text = warning instanceof Error ? `${warning.name}: ${warning.message}` : `${typeof type === 'string' ? type : 'Warning'}: ${warning}`;
  console.warn(text);
}

// The rest of the process's functions, as `workerd` answers them: the
// process is pid 1 of user and group 0 (setting another is EPERM), holds
// no handles, sends nothing and keeps no uncaught-exception hook; the
// debugger's and profiler's hooks do nothing.
const permitted = (syscall) => (id) => {
  if (id !== 0) throw Object.assign(codedError(Error, 'EPERM', 'operation not permitted'), { syscall, errno: 1 });
};
const none = () => {};
export const getuid = () => 0;
export const geteuid = getuid;
export const getgid = getuid;
export const getegid = getuid;
export const getgroups = () => [0];
export const setuid = permitted('setuid');
export const seteuid = permitted('seteuid');
export const setgid = permitted('setgid');
export const setegid = permitted('setegid');
export const setgroups = () => permitted('setgroups')(undefined);
export const initgroups = () => permitted('initgroups')(undefined);
export const kill = refusing('process.kill');
export const _kill = refusing('process._kill');
export const binding = refusing('process.binding');
export const _linkedBinding = refusing('process._linkedBinding');
export const dlopen = refusing('process.dlopen');
export const execve = refusing('process.execve');
export const cpuUsage = refusing('process.cpuUsage');
export const threadCpuUsage = refusing('process.threadCpuUsage');
export const getActiveResourcesInfo = refusing('process.getActiveResourcesInfo');
export const setUncaughtExceptionCaptureCallback = refusing('process.setUncaughtExceptionCaptureCallback');
export const hasUncaughtExceptionCaptureCallback = refusing('process.hasUncaughtExceptionCaptureCallback');
export const ref = none;
export const unref = none;
export const setSourceMapsEnabled = none;
export const getSourceMapsSupport = () => ({ enabled: false, nodeModules: false, generatedCode: false });
export const _tickCallback = none;
export const _debugProcess = none;
export const _debugEnd = none;
export const _startProfilerIdleNotifier = none;
export const _stopProfilerIdleNotifier = none;
export const _fatalException = () => false;
export const _getActiveRequests = () => [];
export const _getActiveHandles = () => [];
export const _rawDebug = (...args) => console.log(...args);
export const send = () => false;
export const constrainedMemory = () => 0;
export const availableMemory = () => 0;
export const reallyExit = (code) => exit(code || 0);
export function assert(value, message) {
  if (!value) throw codedError(Error, 'ERR_INTERNAL_ASSERTION', message || 'Assertion failed');
}
export const resourceUsage = () => Object.fromEntries(
  ['userCPUTime', 'systemCPUTime', 'maxRSS', 'sharedMemorySize', 'unsharedDataSize', 'unsharedStackSize', 'minorPageFault', 'majorPageFault', 'swappedOut', 'fsRead', 'fsWrite', 'ipcSent', 'ipcReceived', 'signalsCount', 'voluntaryContextSwitches', 'involuntaryContextSwitches'].map((k) => [k, 0]),
);
// `.env` text read from the request's file system into `env`.
export function loadEnvFile(path = '.env') {
  Object.assign(env, parseEnv(bundled.get('fs').readFileSync(path instanceof URL ? path : String(path), 'utf8')));
}

// `stdout` and `stderr`: writable streams whose text goes to the tenant's
// log a line at a time, as on `workerd` (a line is held until its newline,
// so that a character written in two halves arrives whole; what is held
// goes out on the next turn of the event loop unless it ends in half a
// character, and at once past 4 KiB). `stdin` reads nothing.
const HELD_MAX = 4096;
function stdio(fd, log) {
  let held = '';
  let timer = null;
  const decoder = new TextDecoder();
  const halfOfOne = () => {
    const code = held.charCodeAt(held.length - 1);
    return code >= 0xd800 && code <= 0xdbff;
  };
  const flush = () => {
    timer = null;
    if (held === '' || halfOfOne()) return;
    log(held);
    held = '';
  };
  const stream = new Writable({
    decodeStrings: false,
    write(chunk, encoding, cb) {
      held += typeof chunk === 'string' && (encoding === 'utf8' || encoding === 'utf-8')
        ? chunk
        : decoder.decode(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk, { stream: true });
      const lines = held.split('\n');
      held = lines.pop();
      for (const line of lines) log(line);
      if (held.length > HELD_MAX) {
        log(held);
        held = '';
      } else if (held !== '' && timer === null && !halfOfOne()) {
        timer = setTimeout(flush, 0);
      }
      cb();
    },
  });
  return Object.assign(stream, { fd, readable: false, _type: 'fs', _isStdio: true });
}
export const stdout = stdio(1, (line) => console.log(line));
export const stderr = stdio(2, (line) => console.error(line));
export const stdin = Object.assign(new Readable({ read() { this.push(null); } }), { fd: 0 });
export const openStdin = () => stdin;

// The process is an event emitter, as Node's: its methods are inherited,
// not its own keys.
const emitter = new EventEmitter();
const methods = {};
for (const name of ['on', 'once', 'off', 'emit', 'addListener', 'removeListener', 'removeAllListeners', 'listeners', 'listenerCount', 'prependListener', 'prependOnceListener', 'eventNames', 'rawListeners', 'setMaxListeners', 'getMaxListeners']) {
  methods[name] = function (...args) {
    const out = emitter[name](...args);
    return out === emitter ? this : out;
  };
}
const process = Object.assign(Object.create(methods), {
  env, execArgv, exitCode, nextTick, getBuiltinModule, cwd, chdir, exit, abort, umask, uptime, hrtime, memoryUsage, emitWarning,
  stdout, stderr, stdin, getuid, geteuid, getgid, getegid, getgroups, setuid, seteuid, setgid, setegid, setgroups, initgroups,
  kill, _kill, binding, _linkedBinding, dlopen, execve, cpuUsage, threadCpuUsage, getActiveResourcesInfo,
  setUncaughtExceptionCaptureCallback, hasUncaughtExceptionCaptureCallback, ref, unref, setSourceMapsEnabled, getSourceMapsSupport,
  _tickCallback, _debugProcess, _debugEnd, _startProfilerIdleNotifier, _stopProfilerIdleNotifier, _fatalException,
  _getActiveRequests, _getActiveHandles, _rawDebug, send, constrainedMemory, availableMemory, reallyExit, assert, resourceUsage,
  loadEnvFile, openStdin,
});
export default process;
