// `node:child_process`: a Worker runs no processes, so every function
// throws ERR_METHOD_NOT_IMPLEMENTED, as on `workerd`, after checking its
// arguments as `workerd` does (a wrong argument is a TypeError first).
// `ChildProcess` exists for `instanceof` and its prototype's methods.

import { invalidArgType, notImplemented } from './_errors.js';

const refuse = (name) => notImplemented(`child_process.${name}`);

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function command(value, name) {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
}

export class ChildProcess {
  constructor() {
    throw refuse('ChildProcess');
  }
  kill() {
    throw notImplemented('kill()');
  }
  send() {
    throw notImplemented('send()');
  }
  disconnect() {
    throw notImplemented('disconnect()');
  }
  ref() {}
  unref() {}
  [Symbol.dispose]() {}
}

export function _forkChild() {
  throw refuse('_forkChild');
}

export function exec(cmd, options, callback) {
  command(cmd, 'command');
  if (typeof options === 'function') [options, callback] = [undefined, options];
  if (options !== undefined && options !== null && !isObject(options)) throw invalidArgType('options', 'of type object', options);
  if (callback !== undefined && callback !== null && typeof callback !== 'function') {
    throw invalidArgType('callback', 'of type function', callback);
  }
  throw refuse('exec');
}

export function execFile(file) {
  command(file, 'file');
  throw refuse('execFile');
}

export function execFileSync(file) {
  command(file, 'file');
  throw refuse('execFileSync');
}

export function execSync(cmd) {
  command(cmd, 'command');
  throw refuse('execSync');
}

export function fork(modulePath, args, options) {
  command(modulePath, 'modulePath');
  if (args !== undefined && args !== null && !Array.isArray(args)) {
    if (!isObject(args)) throw invalidArgType('args', 'an instance of Array', args);
    options = args;
  } else if (options !== undefined && options !== null && !isObject(options)) {
    throw invalidArgType('options', 'of type object', options);
  }
  throw refuse('fork');
}

export function spawn() {
  throw refuse('spawn');
}

export function spawnSync(cmd) {
  command(cmd, 'command');
  throw refuse('spawnSync');
}

export default { ChildProcess, _forkChild, exec, execFile, execFileSync, execSync, fork, spawn, spawnSync };
