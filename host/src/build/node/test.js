// `node:test`: of Node's test runner, what `workerd` has, its mocks.
// `mock.fn` wraps a function and records each call (its arguments,
// `this`, result or error, and `new.target`); `mock.method`, `getter` and
// `setter` put such a function in an object's place until `restore()`.
// Each call's implementation is the next one-time one, else the current.
import { invalidArgType, outOfRange } from './_errors.js';

function invalidArg(message) {
  const e = new TypeError(message);
  e.code = 'ERR_INVALID_ARG_VALUE';
  return e;
}

function invalidType(name, expected, value) {
  const e = new TypeError(`The "${name}" argument must be ${expected}. Received ${value === null ? 'null' : typeof value}`);
  e.code = 'ERR_INVALID_ARG_TYPE';
  return e;
}

export class MockFunctionContext {
  #calls = [];
  #implementation;
  #original;
  #once = new Map();
  #restore;
  #times;

  constructor(implementation, original, restore, times) {
    this.#implementation = implementation;
    this.#original = original;
    this.#restore = restore;
    this.#times = times;
  }

  get calls() {
    return this.#calls.slice();
  }

  callCount() {
    return this.#calls.length;
  }

  mockImplementation(implementation) {
    if (typeof implementation !== 'function') throw invalidType('implementation', 'of type function', implementation);
    this.#implementation = implementation;
  }

  mockImplementationOnce(implementation, onCall) {
    if (typeof implementation !== 'function') throw invalidType('implementation', 'of type function', implementation);
    const at = onCall ?? this.#calls.length;
    // A call already made cannot be given an implementation.
    if (at < this.#calls.length) throw outOfRange('onCall', `>= ${this.#calls.length}`, at);
    this.#once.set(at, implementation);
  }

  resetCalls() {
    this.#calls = [];
  }

  restore() {
    this.#implementation = this.#original;
    if (this.#restore) this.#restore();
  }

  // The implementation of the next call; a mock limited to `times` calls
  // goes back to the original after them.
  _next() {
    const at = this.#calls.length;
    if (this.#once.has(at)) {
      const f = this.#once.get(at);
      this.#once.delete(at);
      return f;
    }
    if (this.#times !== undefined && at >= this.#times) return this.#original;
    return this.#implementation;
  }

  _record(call) {
    this.#calls.push(call);
  }
}

// A mock's `times`: how many calls it answers before the original.
function checkTimes(times) {
  if (times === undefined) return;
  if (typeof times !== 'number') throw invalidArgType('options.times', 'of type number', times);
  if (!Number.isInteger(times) || times < 1) throw outOfRange('options.times', '>= 1 && <= 9007199254740991', times);
}

function mockFunction(original, implementation, restore, times) {
  const context = new MockFunctionContext(implementation, original, restore, times);
  const mocked = function (...args) {
    const impl = context._next();
    // `new` of the mock constructs as `new` of the original would (its
    // prototype, its `new.target`), as Node's mocks (a Proxy) do.
    const target = new.target === undefined ? undefined : new.target === mocked ? original : new.target;
    const call = { arguments: args, error: undefined, result: undefined, stack: new Error(), target, this: target ? undefined : this };
    try {
      const result = target ? Reflect.construct(impl, args, target) : Reflect.apply(impl, this, args);
      call.result = result;
      if (target) call.this = result;
      return result;
    } catch (e) {
      call.error = e;
      throw e;
    } finally {
      context._record(call);
    }
  };
  Object.defineProperty(mocked, 'mock', { value: context, enumerable: false });
  Object.defineProperty(mocked, 'name', { value: original ? original.name : 'mock', configurable: true });
  Object.defineProperty(mocked, 'length', { value: original ? original.length : 0, configurable: true });
  if (original && original.prototype) mocked.prototype = original.prototype;
  return mocked;
}

export class MockTracker {
  #mocks = [];

  fn(original = function () {}, implementation = original, options = {}) {
    // fn(options) and fn(original, options), as Node's.
    if (original !== null && typeof original === 'object') {
      options = original;
      original = function () {};
      implementation = original;
    } else if (implementation !== null && typeof implementation === 'object') {
      options = implementation;
      implementation = original;
    }
    checkTimes(options.times);
    if (typeof original !== 'function') throw invalidType('original', 'of type function', original);
    if (typeof implementation !== 'function') throw invalidType('implementation', 'of type function', implementation);
    const mocked = mockFunction(original, implementation, undefined, options.times);
    this.#mocks.push(mocked.mock);
    return mocked;
  }

  method(object, methodName, implementation, options = {}) {
    if (implementation !== null && typeof implementation === 'object' && typeof implementation !== 'function') {
      options = implementation;
      implementation = undefined;
    }
    if (object === null || (typeof object !== 'object' && typeof object !== 'function')) {
      throw invalidType('object', 'of type object', object);
    }
    if (typeof methodName !== 'string' && typeof methodName !== 'symbol') {
      throw invalidType('methodName', 'one of type string or symbol', methodName);
    }
    const { getter = false, setter = false } = options;
    checkTimes(options.times);
    if (getter && setter) throw invalidArg("The property 'options.setter' cannot be used with 'options.getter'");
    let owner = object;
    let descriptor;
    while (owner !== null && (descriptor = Object.getOwnPropertyDescriptor(owner, methodName)) === undefined) {
      owner = Object.getPrototypeOf(owner);
    }
    if (descriptor === undefined) throw invalidArg(`The argument 'methodName' must be a method. Received ${String(methodName)}`);
    const kind = getter ? 'get' : setter ? 'set' : 'value';
    const original = descriptor[kind];
    if (typeof original !== 'function') throw invalidArg(`The argument 'methodName' must be a method. Received ${String(methodName)}`);
    const restore = () => Object.defineProperty(object, methodName, descriptor);
    const mocked = mockFunction(original, implementation ?? original, restore, options.times);
    Object.defineProperty(object, methodName, { ...descriptor, [kind]: mocked });
    this.#mocks.push(mocked.mock);
    return mocked;
  }

  getter(object, methodName, implementation, options = {}) {
    if (implementation !== null && typeof implementation === 'object') {
      options = implementation;
      implementation = undefined;
    }
    if (options.getter === false) throw invalidArg("The property 'options.getter' cannot be false");
    return this.method(object, methodName, implementation, { ...options, getter: true });
  }

  setter(object, methodName, implementation, options = {}) {
    if (implementation !== null && typeof implementation === 'object') {
      options = implementation;
      implementation = undefined;
    }
    if (options.setter === false) throw invalidArg("The property 'options.setter' cannot be false");
    return this.method(object, methodName, implementation, { ...options, setter: true });
  }

  reset() {
    this.restoreAll();
    this.#mocks = [];
  }

  restoreAll() {
    for (const m of this.#mocks) m.restore();
  }
}

export const mock = new MockTracker();

export default { MockFunctionContext, MockTracker, mock };
