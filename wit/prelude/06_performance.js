//! `performance.now()` and `performance.timeOrigin` where the engine has
//! none.
//!
//! Defines: performance
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/echo.js
  // ------------------------------------------------------------ performance
  if (typeof g.performance === 'undefined' || typeof g.performance.now !== 'function') {
    // As on `workerd`: the origin is 0, so `now()` is `Date.now()`, in
    // whole milliseconds.
    defineMissing('performance', { timeOrigin: 0, now: () => Date.now() });
  }

