//! The global scope's interface objects, as `workerd` has them: the global
//! object is a `ServiceWorkerGlobalScope`, whose prototype's prototype is
//! a `WorkerGlobalScope`'s, though not the global `WorkerGlobalScope`'s
//! (on `workerd` too, `self instanceof WorkerGlobalScope` is false, which
//! libraries read as "not a web worker"); neither can be made. The
//! globals stay the global object's own properties.
//!
//! Defines: ServiceWorkerGlobalScope, WorkerGlobalScope
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/interfaces.js
  // ----------------------------------------------------------- global scope
  const scopeClass = (name) => {
    const C = { [name]: function () { throw new TypeError('Illegal constructor'); } }[name];
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
    return C;
  };
  const ServiceWorkerGlobalScope = scopeClass('ServiceWorkerGlobalScope');
  const scopeBase = scopeClass('WorkerGlobalScope').prototype;
  Object.setPrototypeOf(ServiceWorkerGlobalScope.prototype, scopeBase);
  defineMissing('ServiceWorkerGlobalScope', ServiceWorkerGlobalScope);
  defineMissing('WorkerGlobalScope', scopeClass('WorkerGlobalScope'));
  // Above whatever the engine gave the global object (V8's has a
  // prototype of its own before `Object.prototype`).
  Object.setPrototypeOf(scopeBase, Object.getPrototypeOf(g));
  Object.setPrototypeOf(g, ServiceWorkerGlobalScope.prototype);
  // QuickJS tags its global object "global"; the prototype's tag names it.
  if (Object.hasOwn(g, Symbol.toStringTag)) delete g[Symbol.toStringTag];
