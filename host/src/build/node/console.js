// `node:console`: the global console's methods (which write to the
// tenant's log), as on workerd. `Console`, which would write to streams
// of the host's, is not given.
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

export default {
  assert, clear, count, countReset, debug, dir, dirxml, error, group, groupCollapsed, groupEnd, info, log, profile, profileEnd,
  table, time, timeEnd, timeLog, timeStamp, trace, warn,
};
