// `node:async_hooks` as `ssr build` resolves it (build/bundle.rs): the
// storage frameworks keep a request's context in. The frame itself lives in
// the prelude (wit/prelude/01_async_context.js), which carries it through
// promise reactions, timers and microtasks; a bundle that imports this
// module has its async functions lowered so that `await` goes through them
// too.
import { invalidArgType } from './_errors.js';

const context = globalThis.__ssr.node.asyncContext;

// The frame with `storage` set to `value` (frames are never changed in place:
// a callback keeps the frame it was bound to).
function withValue(storage, value) {
  const frame = new Map(context.frame);
  frame.set(storage, value);
  return frame;
}

const runIn = (frame, fn, thisArg, args) => context.runIn(frame, fn, thisArg, args);

// Node 24's options: `defaultValue`, what `getStore()` answers where no
// `run` set this storage, and `name`.
export class AsyncLocalStorage {
  #defaultValue;
  #name;
  constructor(options = {}) {
    if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
    this.#defaultValue = options.defaultValue;
    this.#name = options.name === undefined ? '' : String(options.name);
    context.enable();
  }
  get name() {
    return this.#name;
  }
  getStore() {
    const frame = context.frame;
    return frame !== undefined && frame.has(this) ? frame.get(this) : this.#defaultValue;
  }
  run(store, fn, ...args) {
    return runIn(withValue(this, store), fn, undefined, args);
  }
  exit(fn, ...args) {
    return runIn(withValue(this, undefined), fn, undefined, args);
  }
  // For the rest of the synchronous run and what it schedules.
  enterWith(store) {
    context.frame = withValue(this, store);
  }
  disable() {
    if (context.frame !== undefined && context.frame.has(this)) {
      context.frame = withValue(this, undefined);
    }
  }
  static bind(fn) {
    if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
    return context.bindTo(context.frame, fn);
  }
  static snapshot() {
    const frame = context.frame;
    return (fn, ...args) => runIn(frame, fn, undefined, args);
  }
}

let lastId = 1;
export class AsyncResource {
  constructor(type, options) {
    if (typeof type !== 'string' || type === '') {
      throw new TypeError('The "type" argument must be a non-empty string');
    }
    this.type = type;
    this._frame = context.frame;
    this._id = ++lastId;
    this._trigger = typeof options === 'number' ? options : (options && options.triggerAsyncId) || 0;
  }
  runInAsyncScope(fn, thisArg, ...args) {
    return runIn(this._frame, fn, thisArg, args);
  }
  bind(fn, thisArg) {
    const resource = this;
    const bound = function (...args) {
      return resource.runInAsyncScope(fn, thisArg === undefined ? this : thisArg, ...args);
    };
    Object.defineProperty(bound, 'length', { value: fn.length });
    return bound;
  }
  emitDestroy() {
    return this;
  }
  asyncId() {
    return this._id;
  }
  triggerAsyncId() {
    return this._trigger;
  }
  static bind(fn, type, thisArg) {
    return new AsyncResource(type || fn.name || 'bound-anonymous-fn').bind(fn, thisArg);
  }
}

// Hooks into every async resource are Node's own machinery, which Workers
// do not have: as on `workerd`, a hook is made and never called (so that
// code written for Node, and unenv's polyfills, go on), and the current
// resource is an empty one.
class AsyncHook {
  enable() {
    return this;
  }
  disable() {
    return this;
  }
}
export function createHook() {
  return new AsyncHook();
}
export const executionAsyncId = () => 0;
export const triggerAsyncId = () => 0;
export const executionAsyncResource = () => Object.create(null);

export default { AsyncLocalStorage, AsyncResource, createHook, executionAsyncId, triggerAsyncId, executionAsyncResource };
