//! `navigator`, as `workerd` describes the runtime: its user agent, one
//! CPU, English.
//!
//! Defines: navigator
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/timers.js
  // -------------------------------------------------------------- navigator
  class Navigator {
    get userAgent() { return 'Cloudflare-Workers'; }
    get hardwareConcurrency() { return 1; }
    get language() { return 'en'; }
    get languages() { return ['en']; }
    get platform() { return ''; }
  }
  Object.defineProperty(Navigator.prototype, Symbol.toStringTag, { value: 'Navigator', configurable: true });
  defineMissing('navigator', new Navigator());
