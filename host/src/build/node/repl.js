// `node:repl`, as `workerd` has it: a Worker has no terminal, so starting
// a REPL throws `ERR_METHOD_NOT_IMPLEMENTED` (`start`, `writer` and the
// `REPLServer` constructor, made beside this file from workerd's record);
// what code checks or subclasses is here: the modes, `Recoverable`, the
// server's prototype, and the built-in modules' names (those without a
// leading underscore, as Node lists them).
import EventEmitter from './events.js';
import { builtinModules as every } from './module.js';
import { notImplemented } from './_errors.js';

export class REPLServer extends EventEmitter {
  constructor() {
    super();
    throw notImplemented('REPLServer');
  }
  setupHistory() { throw notImplemented('REPLServer.setupHistory'); }
  defineCommand() { throw notImplemented('REPLServer.defineCommand'); }
  displayPrompt() { throw notImplemented('REPLServer.displayPrompt'); }
  clearBufferedCommand() { throw notImplemented('REPLServer.clearBufferedCommand'); }
}

// An error that more input might fix, as Node's REPL makes it.
export class Recoverable extends SyntaxError {
  constructor(err) {
    super();
    this.err = err;
  }
}

export const REPL_MODE_SLOPPY = Symbol('repl-sloppy');
export const REPL_MODE_STRICT = Symbol('repl-strict');
export const builtinModules = every.filter((name) => !name.startsWith('_'));
export { builtinModules as _builtinLibs };

export default { REPLServer, Recoverable, REPL_MODE_SLOPPY, REPL_MODE_STRICT, builtinModules, _builtinLibs: builtinModules };
