// The interface objects of Workers' singletons, as workerd has them:
// `crypto`, `navigator`, `caches` and its caches, and the global object
// (a `ServiceWorkerGlobalScope`), are instances of classes no one else
// can make. Compared with workerd's answer
// (tests/all/workers.rs).
const caught = (f) => {
  try {
    f();
    return 'made';
  } catch (e) {
    return [e.name, e.message];
  }
};
export default {
  async fetch() {
    const classes = {};
    for (const name of ['Crypto', 'SubtleCrypto', 'CryptoKey', 'Navigator', 'CacheStorage', 'Cache', 'ServiceWorkerGlobalScope', 'WorkerGlobalScope']) {
      const C = globalThis[name];
      classes[name] = [typeof C, C.name, caught(() => new C()), Object.prototype.toString.call(C.prototype)];
    }
    // Called without `new`: the same (a class of the prelude's would get
    // the engine's own words instead).
    const called = ['Crypto', 'Navigator', 'CacheStorage'].map((name) => caught(() => globalThis[name]()));
    const instances = [
      crypto instanceof Crypto,
      crypto.subtle instanceof SubtleCrypto,
      navigator instanceof Navigator,
      caches instanceof CacheStorage,
      caches.default instanceof Cache,
      (await caches.open('x')) instanceof Cache,
      globalThis instanceof ServiceWorkerGlobalScope,
      self instanceof WorkerGlobalScope,
      Object.getPrototypeOf(ServiceWorkerGlobalScope.prototype) === WorkerGlobalScope.prototype,
    ];
    const shapes = {
      crypto: [Object.keys(crypto), ['getRandomValues', 'randomUUID', 'subtle'].map((k) => Object.hasOwn(Crypto.prototype, k)), crypto.getRandomValues === Crypto.prototype.getRandomValues],
      tags: [String(crypto), String(navigator), String(caches), String(caches.default), String(crypto.subtle)],
      caches: [Object.hasOwn(caches, 'default'), typeof CacheStorage.prototype.open],
      global: [String(globalThis), globalThis.constructor.name, typeof globalThis.addEventListener, 'fetch' in globalThis],
    };
    // Every global class named as its global (none named as the code that
    // made it).
    const names = Object.getOwnPropertyNames(globalThis)
      .filter((k) => /^[A-Z]/.test(k) && typeof globalThis[k] === 'function' && globalThis[k].name !== k)
      .map((k) => `${k} is ${globalThis[k].name}`);
    return new Response(JSON.stringify({ classes, called, instances, shapes, names }));
  },
};
