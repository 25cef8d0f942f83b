//! `navigator`, as `workerd` describes the runtime: its user agent, one
//! CPU, English.
//!
//! Defines: navigator, Navigator
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/timers.js
  // -------------------------------------------------------------- navigator
  // `navigator` is the one instance of its interface object, which cannot
  // be made (`navigator instanceof Navigator`), as on `workerd`.
  function Navigator() { throw new TypeError('Illegal constructor'); }
  const navigatorGetter = (get) => ({ get, configurable: true, enumerable: true });
  Object.defineProperties(Navigator.prototype, {
    userAgent: navigatorGetter(() => 'Cloudflare-Workers'),
    hardwareConcurrency: navigatorGetter(() => 1),
    language: navigatorGetter(() => 'en'),
    languages: navigatorGetter(() => ['en']),
    platform: navigatorGetter(() => ''),
    // A POST of `body` to `url` through the tenant's `fetch` (its grant),
    // as the request's `waitUntil` work: true, as on workerd, or false
    // outside a request (a module's top level, at build time).
    sendBeacon: {
      value: function sendBeacon(url, body = undefined) {
        if (arguments.length === 0) throw new TypeError("Failed to execute 'sendBeacon' on 'Navigator': 1 argument required, but only 0 present.");
        if (render === null) return false;
        context.waitUntil(fetchImpl(`${url}`, { method: 'POST', body }));
        return true;
      },
      writable: true,
      configurable: true,
      enumerable: true,
    },
    [Symbol.toStringTag]: { value: 'Navigator', configurable: true },
  });
  defineMissing('navigator', Object.create(Navigator.prototype));
  defineMissing('Navigator', Navigator);
