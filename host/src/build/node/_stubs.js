// What `ssr build` makes the Node exports it does not implement of
// (build/node.rs): a function or class that throws, when called, the
// error `workerd` throws where it does not implement it either (`thrown`:
// its name, code and message, from node/workerd.json), else an error
// saying that `ssr` does not implement it yet.
function notImplemented(module, name, thrown) {
  if (thrown !== null) {
    const e = thrown.name === 'TypeError' ? new TypeError(thrown.message) : new Error(thrown.message);
    if (thrown.code) e.code = thrown.code;
    return e;
  }
  const e = new Error(`The ${module}.${name} method is not implemented by ssr (workerd has it): see docs/compatibility.md`);
  e.code = 'ERR_METHOD_NOT_IMPLEMENTED';
  return e;
}

export function stubFunction(module, name, thrown) {
  // A function, not a method: a class may extend it.
  return { [name]: function () { throw notImplemented(module, name, thrown); } }[name];
}

export function stubClass(module, name, thrown) {
  return { [name]: class { constructor() { throw notImplemented(module, name, thrown); } } }[name];
}

// Gives `target` each of `values` it has not (a module's default export
// the names made for it).
export function fill(target, values) {
  for (const key of Object.keys(values)) {
    if (!(key in target)) target[key] = values[key];
  }
  return target;
}

// The modules the bundle holds, by name, as `require` gives them (their
// default export): what `module.createRequire` and
// `process.getBuiltinModule` answer from.
export const bundled = new Map();

export function register(name, value) {
  bundled.set(name, value);
}

// Makes each of `target`'s properties read-only, as `workerd` has
// `node:constants`' default export (not frozen: it may gain properties).
export function readOnly(target) {
  for (const key of Object.keys(target)) Object.defineProperty(target, key, { writable: false });
  return target;
}
