// `node:console`: the global console's methods (which write to the
// tenant's log), as on workerd, and `Console`, a console that writes to
// the app's own writable streams (`process.stdout` goes to the log too).
import { codedError } from './_errors.js';
import { format, inspect } from './util.js';
const c = globalThis.console;
const method = (name) => (typeof c[name] === 'function' ? c[name].bind(c) : () => {});
export const assert = method('assert');
export const clear = method('clear');
export const count = method('count');
export const countReset = method('countReset');
export const debug = method('debug');
export const dir = method('dir');
export const dirxml = method('dirxml');
export const error = method('error');
export const group = method('group');
export const groupCollapsed = method('groupCollapsed');
export const groupEnd = method('groupEnd');
export const info = method('info');
export const log = method('log');
export const profile = method('profile');
export const profileEnd = method('profileEnd');
export const table = method('table');
export const time = method('time');
export const timeEnd = method('timeEnd');
export const timeLog = method('timeLog');
export const timeStamp = method('timeStamp');
export const trace = method('trace');
export const warn = method('warn');

// `new Console(stdout[, stderr])` or `new Console({ stdout, stderr,
// groupIndentation })`: each method formats as `console.log` does and
// writes a line to `stdout` (log, info, debug, dir, dirxml, table, time's
// lines) or `stderr` (warn, error, trace, a failed assert).
export function Console(options, stderrArg) {
  if (!new.target) return new Console(options, stderrArg);
  const named = options !== null && typeof options === 'object' && typeof options.write !== 'function';
  const stdout = named ? options.stdout : options;
  const stderr = (named ? options.stderr : stderrArg) ?? stdout;
  for (const [name, stream] of [['stdout', stdout], ['stderr', stderr]]) {
    if (stream === null || typeof stream !== 'object' || typeof stream.write !== 'function') {
      throw codedError(TypeError, 'ERR_CONSOLE_WRITABLE_STREAM', `Console expects a writable stream instance for ${name}`);
    }
  }
  const step = named && options.groupIndentation !== undefined ? options.groupIndentation : 2;
  let indent = '';
  const counts = new Map();
  const timers = new Map();
  const out = (stream) => (...args) => {
    const text = format(...args);
    stream.write(`${indent === '' ? text : text.replace(/^/gm, indent)}\n`);
  };
  const log = out(stdout);
  const error = out(stderr);
  const elapsed = (label) => `${label}: ${(performance.now() - timers.get(label)).toFixed(3)}ms`;
  const methods = {
    log,
    info: log,
    debug: log,
    warn: error,
    error,
    dir: (value, opts) => log(inspect(value, opts)),
    time: (label = 'default') => void timers.set(String(label), performance.now()),
    timeEnd: (label = 'default') => {
      if (!timers.has(String(label))) return;
      log(elapsed(String(label)));
      timers.delete(String(label));
    },
    timeLog: (label = 'default', ...data) => {
      if (timers.has(String(label))) log(elapsed(String(label)), ...data);
    },
    trace: (...args) => error(`Trace${args.length > 0 ? `: ${format(...args)}` : ''}\n${new Error().stack?.split('\n').slice(2).join('\n') ?? ''}`),
    assert: (value, ...args) => {
      if (!value) error(...(args.length > 0 ? [`Assertion failed: ${format(...args)}`] : ['Assertion failed']));
    },
    clear: () => {},
    count: (label = 'default') => {
      const n = (counts.get(String(label)) ?? 0) + 1;
      counts.set(String(label), n);
      log(`${label}: ${n}`);
    },
    countReset: (label = 'default') => void counts.delete(String(label)),
    group: (...args) => {
      if (args.length > 0) log(...args);
      indent += ' '.repeat(step);
    },
    groupEnd: () => {
      indent = indent.slice(0, Math.max(0, indent.length - step));
    },
    table: (data) => log(data),
    dirxml: (...args) => log(...args),
  };
  methods.groupCollapsed = methods.group;
  Object.assign(this, methods);
}

export default {
  Console, assert, clear, count, countReset, debug, dir, dirxml, error, group, groupCollapsed, groupEnd, info, log, profile, profileEnd,
  table, time, timeEnd, timeLog, timeStamp, trace, warn,
};
