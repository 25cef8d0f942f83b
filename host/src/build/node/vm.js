// `node:vm`, as on workerd: nothing runs code from a string (a tenant's
// code is what it was built with). A `Script` can be made, as there, and
// running it throws `ERR_METHOD_NOT_IMPLEMENTED`; a context is a plain
// object that says it is one. The other functions are made from
// workerd's record (build/node.rs), with its errors.
const CONTEXT = Symbol('vm context');

function notImplemented(name) {
  const e = new Error(`The ${name} method is not implemented`);
  e.code = 'ERR_METHOD_NOT_IMPLEMENTED';
  return e;
}

function checkObject(object) {
  if (object === null || typeof object !== 'object') {
    const e = new TypeError(`The "object" argument must be of type object. Received ${object === null ? 'null' : typeof object}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
}

export class Script {
  constructor(code) {
    if (typeof code !== 'string') {
      const e = new TypeError(`The "code" argument must be of type string. Received ${typeof code}`);
      e.code = 'ERR_INVALID_ARG_TYPE';
      throw e;
    }
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

export function createContext(object = {}) {
  checkObject(object);
  Object.defineProperty(object, CONTEXT, { value: true });
  return object;
}

export function isContext(object) {
  checkObject(object);
  return Object.prototype.hasOwnProperty.call(object, CONTEXT);
}

export function runInContext(code, context) {
  checkObject(context);
  throw notImplemented('runInThisContext');
}

export default { Script, createScript, createContext, isContext, runInContext };
