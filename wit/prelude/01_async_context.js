//! The async context that `node:async_hooks`' `AsyncLocalStorage` reads: a
//! frame carried across promise reactions and timers.
//!
//! Defines: none
//! Host calls: none
//! Rust: host/src/build/node/
//! WPT: none
//! Test plugin: tests/plugins/node-modules.js
  // --------------------------------------------------------- async context
  // What `node:async_hooks`' AsyncLocalStorage reads (host/src/build/node/
  // async_hooks.js): the frame current now, a Map from each storage to its
  // value, or undefined. A callback scheduled now (a promise reaction, a
  // timer, a microtask) runs in the frame current when it was scheduled.
  // Nothing here costs a thing until the first storage is made. Then:
  // - on V8, its promise hooks keep each promise's frame from its creation
  //   and restore it while its reactions run, `await`'s included;
  // - QuickJS has no hook where a reaction runs, so `then` is wrapped, and
  //   the Wasm plugin of a bundle that imports `node:async_hooks` is built
  //   with async functions lowered to generators driven by `then`
  //   (build/bundle.rs). Lowering cost SvelteKit's page a quarter of its
  //   speed on V8, where the hooks cost nothing measurable
  //   (benches/RESULTS-peers.md).
  // Each render starts in the empty frame (`__ssr.call`, `reset`).
  // A promise's frame is a property under a symbol of the prelude's, as
  // Node keeps its async context on the promise: a WeakMap made every
  // scavenge walk its table (young promises, an old table) and rehash it,
  // 3% of SvelteKit's render on V8 in `perf`.
  const FRAME = Symbol('ssr.asyncFrame');
  const outerFrames = [];
  const asyncContext = {
    frame: undefined,
    enabled: false,
    // `fn` bound to the frame current now (as it is, while disabled).
    bind(fn) {
      if (!asyncContext.enabled || typeof fn !== 'function') return fn;
      return asyncContext.bindTo(asyncContext.frame, fn);
    },
    bindTo(frame, fn) {
      return function (...args) {
        return asyncContext.runIn(frame, fn, this, args);
      };
    },
    runIn(frame, fn, thisArg, args) {
      const outer = asyncContext.frame;
      asyncContext.frame = frame;
      try {
        return fn.apply(thisArg, args);
      } finally {
        asyncContext.frame = outer;
      }
    },
    enable() {
      if (asyncContext.enabled) return;
      asyncContext.enabled = true;
      if (typeof promiseHooks === 'function') {
        promiseHooks(
          (promise) => {
            if (asyncContext.frame !== undefined) promise[FRAME] = asyncContext.frame;
          },
          (promise) => {
            outerFrames.push(asyncContext.frame);
            asyncContext.frame = promise[FRAME];
          },
          () => {
            asyncContext.frame = outerFrames.pop();
          },
        );
        return;
      }
      const then = Promise.prototype.then;
      Object.defineProperty(Promise.prototype, 'then', {
        writable: true,
        configurable: true,
        enumerable: false,
        value: { then(onFulfilled, onRejected) {
          return then.call(this, asyncContext.bind(onFulfilled), asyncContext.bind(onRejected));
        } }.then,
      });
    },
  };

