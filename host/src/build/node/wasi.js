// `node:wasi`, as `workerd` has it at today's date: `ssr` runs no
// WebAssembly a site brings (docs/security.md), so a `WASI` is never made:
// the constructor checks its options as Node does, with Node's errors, and
// then throws `ERR_METHOD_NOT_IMPLEMENTED`; so do the methods, but
// `getImportObject`, which gives nothing to import.
import { invalidArgType, invalidArgValue, notImplemented, validateInteger } from './_errors.js';

// An option that must be a plain object (not an array) when given.
function checkObject(options, key) {
  const v = options[key];
  if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) {
    throw invalidArgType(`options.${key}`, 'of type object', v);
  }
}

// A descriptor option: an int32 that is not negative, when given.
function checkDescriptor(options, key) {
  if (options[key] !== undefined) validateInteger(options[key], `options.${key}`, 0, 2147483647);
}

export class WASI {
  constructor(options = undefined) {
    if (options !== undefined) {
      if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
      const { version } = options;
      if (version !== 'unstable' && version !== 'preview1') {
        throw invalidArgValue('options.version', version, "must be one of: 'unstable', 'preview1'");
      }
      if (options.args !== undefined && !Array.isArray(options.args)) {
        throw invalidArgType('options.args', 'an instance of Array', options.args);
      }
      checkObject(options, 'env');
      checkObject(options, 'preopens');
      checkDescriptor(options, 'stdin');
      checkDescriptor(options, 'stdout');
      checkDescriptor(options, 'stderr');
      if (options.returnOnExit !== undefined && typeof options.returnOnExit !== 'boolean') {
        throw invalidArgType('options.returnOnExit', 'of type boolean', options.returnOnExit);
      }
    }
    throw notImplemented('WASI');
  }

  getImportObject() {
    return {};
  }

  finalizeBindings() {
    throw notImplemented('WASI.finalizeBindings');
  }

  start() {
    throw notImplemented('WASI.start');
  }

  initialize() {
    throw notImplemented('WASI.initialize');
  }
}

export default { WASI };
