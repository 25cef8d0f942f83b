// `node:module`, as on workerd: `createRequire` gives a `require` of Node's
// built-in modules (not of files: a Worker's code is its bundle), and
// `isBuiltin` says which names those are. A bundle holds only the modules
// it imports somewhere, so `require` of one it does not throws, saying to
// import it; the loader's internals are made from workerd's record, with
// its errors. As on workerd, the module itself (its default export, what
// `require('module')` gives) is the `Module` function, which throws when
// called, with the loader's names on it: code written for Node patches
// them (Next.js sets `Module.prototype.require` and `_resolveFilename`).
import { bundled, stubFunction } from './_stubs.js';
import { builtinModules } from './module.js';

const bare = (id) => (id.startsWith('node:') ? id.slice(5) : id);

// As workerd answers: every `node:` name (`node:test`, and even one Node
// does not have), the bare names of `builtinModules`, and `sqlite`, which
// workerd counts though its `builtinModules` does not list it (checked
// name by name on workerd 2026-11-17).
export function isBuiltin(id) {
  return typeof id === 'string' && (id.startsWith('node:') || builtinModules.includes(id) || id === 'sqlite');
}

function invalidPath(path) {
  const e = new TypeError(`The argument 'path' The argument must be a file URL object, a file URL string, or an absolute path string.. Received ${typeof path === 'string' ? `'${path}'` : String(path)}`);
  e.code = 'ERR_INVALID_ARG_VALUE';
  return e;
}

export function createRequire(path) {
  const href = path instanceof URL ? path.href : path;
  if (typeof href !== 'string' || !(href.startsWith('file:') || href.startsWith('/'))) throw invalidPath(path);
  function require(id) {
    if (typeof id !== 'string' || id === '') {
      const e = new TypeError(`The "id" argument must be of type string. Received ${typeof id}`);
      e.code = 'ERR_INVALID_ARG_TYPE';
      throw e;
    }
    const name = bare(id);
    if (bundled.has(name) && (id.startsWith('node:') || isBuiltin(name))) return bundled.get(name);
    const e = new Error(isBuiltin(name)
      ? `Cannot find module '${id}': ssr bundles a Node module where the app imports it; import '${id}' in the app to require it`
      : `Cannot find module '${id}': a Worker requires only Node's built-in modules; bundle the rest`);
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  require.resolve = (id) => {
    if (isBuiltin(id)) return id;
    require(id);
    return id;
  };
  require.cache = Object.create(null);
  return require;
}

export const enableCompileCache = () => ({ status: 3 });
export const flushCompileCache = () => {};
export const getCompileCacheDir = () => undefined;
export const getSourceMapsSupport = () => ({ enabled: false, nodeModules: false, generatedCode: false });

export const Module = stubFunction('module', 'Module', {
  name: 'Error',
  code: 'ERR_METHOD_NOT_IMPLEMENTED',
  message: 'The module.Module method is not implemented',
});
Object.assign(Module, { Module, createRequire, isBuiltin, enableCompileCache, flushCompileCache, getCompileCacheDir, getSourceMapsSupport });
// The instance methods code written for Node patches or calls, as on
// workerd: there, refusing.
for (const name of ['load', 'require', '_compile']) {
  Module.prototype[name] = stubFunction('module', `Module.prototype.${name}`, {
    name: 'Error',
    code: 'ERR_METHOD_NOT_IMPLEMENTED',
    message: `The module.Module.prototype.${name} method is not implemented`,
  });
}

export default Module;
