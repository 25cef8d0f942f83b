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
    [Symbol.toStringTag]: { value: 'Navigator', configurable: true },
  });
  defineMissing('navigator', Object.create(Navigator.prototype));
  defineMissing('Navigator', Navigator);
