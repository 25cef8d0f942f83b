// `node:vm`, as on workerd: nothing runs code from a string (a tenant's
// code is what it was built with). The functions check their arguments
// as Node does, then the ones that would run or compile code throw
// `ERR_METHOD_NOT_IMPLEMENTED`, in `workerd`'s words (which name
// `runInThisContext` for every run function). A `Script` can be
// made; a context is a new object that says it is one.
import { codedError, invalidArgType, invalidArgValue, notImplemented, outOfRange } from './_errors.js';

const CONTEXT = Symbol('vm context');

export const constants = Object.freeze({
  USE_MAIN_CONTEXT_DEFAULT_LOADER: Symbol('vm_dynamic_import_main_context_default'),
  DONT_CONTEXTIFY: Symbol('vm_context_no_contextify'),
});

const isObject = (v) => v !== null && typeof v === 'object';

function checkObject(value, name) {
  if (!isObject(value)) throw invalidArgType(name, 'of type object', value);
}

// Each option that is given, of its kind: `{ filename: 'string', ... }`.
function checkOptions(options, kinds, prefix = 'options') {
  if (options === undefined || options === null) return;
  checkObject(options, prefix);
  for (const [key, kind] of Object.entries(kinds)) {
    const v = options[key];
    if (v === undefined) continue;
    const name = `${prefix}.${key}`;
    const ok = {
      string: () => typeof v === 'string',
      number: () => typeof v === 'number',
      boolean: () => typeof v === 'boolean',
      object: () => isObject(v),
      view: () => ArrayBuffer.isView(v),
      loader: () => typeof v === 'function' || typeof v === 'symbol',
    }[kind]();
    if (!ok) {
      const expected = { view: 'an instance of Buffer, TypedArray, or DataView', loader: 'of type function or an instance of Symbol' }[kind];
      throw invalidArgType(name, expected ?? `of type ${kind}`, v);
    }
  }
}

const SCRIPT_OPTIONS = { filename: 'string', lineOffset: 'number', columnOffset: 'number', cachedData: 'view', produceCachedData: 'boolean', importModuleDynamically: 'loader' };

function checkCode(code) {
  if (typeof code !== 'string') throw invalidArgType('code', 'of type string', code);
}

// `runInThisContext`'s options: a timeout above 0, booleans for the rest.
function checkRunOptions(options) {
  if (!isObject(options)) return;
  if (options.timeout !== undefined && !(typeof options.timeout === 'number' && options.timeout > 0)) {
    if (typeof options.timeout !== 'number') throw invalidArgType('options.timeout', 'of type number', options.timeout);
    throw outOfRange('options.timeout', '>= 1 && <= 4294967295', options.timeout);
  }
  checkOptions(options, { breakOnSigint: 'boolean', displayErrors: 'boolean' });
}

export class Script {
  constructor(code, options) {
    checkCode(code);
    if (typeof options !== 'string') checkOptions(options, SCRIPT_OPTIONS);
    this.code = code;
  }

  runInThisContext() {
    throw notImplemented('runInThisContext');
  }

  runInContext() {
    throw notImplemented('runInThisContext');
  }

  runInNewContext() {
    throw notImplemented('runInThisContext');
  }

  createCachedData() {
    return new Uint8Array(0);
  }
}

export const createScript = (code, options) => new Script(code, options);

export function isContext(object) {
  checkObject(object, 'object');
  return Object.prototype.hasOwnProperty.call(object, CONTEXT);
}

export function createContext(object = {}, options = undefined) {
  if (isObject(object) && isContext(object)) return object;
  if (object !== undefined && object !== null && typeof object !== 'object' && object !== constants.DONT_CONTEXTIFY) {
    checkObject(object, 'contextObject');
  }
  checkOptions(options, { name: 'string', origin: 'string', codeGeneration: 'object', importModuleDynamically: 'loader' });
  if (isObject(options)) {
    checkOptions(options.codeGeneration, { strings: 'boolean', wasm: 'boolean' }, 'options.codeGeneration');
    if (options.microtaskMode !== undefined && options.microtaskMode !== 'afterEvaluate') {
      throw invalidArgValue('options.microtaskMode', options.microtaskMode, "must be 'afterEvaluate' or undefined");
    }
  }
  const context = { ...(isObject(object) ? object : {}) };
  Object.defineProperty(context, CONTEXT, { value: true });
  return context;
}

export function runInContext(code, context, options) {
  checkCode(code);
  checkObject(context, 'contextifiedObject');
  if (!isContext(context)) {
    throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', 'The "contextifiedObject" argument must be an vm.Context');
  }
  if (typeof options !== 'string') checkOptions(options, SCRIPT_OPTIONS);
  throw notImplemented('runInThisContext');
}

export function runInNewContext() {
  throw notImplemented('runInThisContext');
}

export function runInThisContext(code, options) {
  checkRunOptions(options);
  throw notImplemented('runInThisContext');
}

export function compileFunction(code, params, options) {
  checkCode(code);
  if (params !== undefined && (!Array.isArray(params) || params.some((p) => typeof p !== 'string'))) {
    throw invalidArgType('params', 'an instance of Array of strings', params);
  }
  checkOptions(options, { ...SCRIPT_OPTIONS, parsingContext: 'object', contextExtensions: 'object' });
  if (isObject(options) && options.contextExtensions !== undefined) {
    if (!Array.isArray(options.contextExtensions) || !options.contextExtensions.every(isObject)) {
      throw invalidArgType('options.contextExtensions', 'an instance of Array of objects', options.contextExtensions);
    }
  }
  throw notImplemented('compileFunction');
}

export function measureMemory(options) {
  if (isObject(options)) {
    if (options.mode !== undefined && options.mode !== 'summary' && options.mode !== 'detailed') {
      throw invalidArgValue('options.mode', options.mode, "must be 'summary' or 'detailed'");
    }
    if (options.execution !== undefined && options.execution !== 'default' && options.execution !== 'eager') {
      throw invalidArgValue('options.execution', options.execution, "must be 'default' or 'eager'");
    }
  }
  throw notImplemented('measureMemory');
}

export default {
  Script, compileFunction, constants, createContext, createScript, isContext, measureMemory, runInContext, runInNewContext, runInThisContext,
};
