// Evaluated first, before resources/testharness.js: what a dedicated worker
// loaded from the WPT server has and a bare runtime may not, the same on
// every runtime benches/wpt.sh compares (ssr's engines, Node, workerd):
// `location` (the test's URL), `GLOBAL` (as wptserve's worker wrapper
// defines it), and relative `fetch` and `Request` URLs resolved against the test's URL
// (the driver serves the WPT tree there). the test's URL is put in by the
// driver. The results are a promise, `__wptResults`, settled when the
// harness completes (suffix.js) or after 25 s of the runtime's timers (within the drivers' 30 s),
// with the subtests that finished by then.
(function () {
  var url = '__WPT_URL__';
  if (typeof globalThis.self === 'undefined') globalThis.self = globalThis;
  globalThis.location = new URL(url);
  globalThis.GLOBAL = {
    isWindow: function () { return false; },
    isWorker: function () { return true; },
    isShadowRealm: function () { return false; },
  };
  var realFetch = globalThis.fetch;
  if (typeof realFetch === 'function') {
    globalThis.fetch = function (input, init) {
      if (typeof input === 'string' || input instanceof URL) input = new URL(input, url).href;
      return realFetch.call(globalThis, input, init);
    };
  }
  // So are a Request's: no runtime here has a base URL (a worker's is its
  // script's), and the Fetch tests make requests of relative URLs ("").
  var RealRequest = globalThis.Request;
  if (typeof RealRequest === 'function') {
    var proxy = new Proxy(RealRequest, {
      construct: function (target, args, newTarget) {
        if (typeof args[0] === 'string') args[0] = new URL(args[0], url).href;
        return Reflect.construct(target, args, newTarget === proxy ? target : newTarget);
      },
    });
    globalThis.Request = proxy;
  }
  var settle;
  globalThis.__wptResults = new Promise(function (resolve) { settle = resolve; });
  globalThis.__wptSettle = settle;
  setTimeout(function () {
    var done = typeof globalThis.__wptPartial === 'function' ? globalThis.__wptPartial() : [];
    settle({ harness: 'TIMEOUT', message: 'no completion in 25 s', tests: done });
  }, 25000);
})();
