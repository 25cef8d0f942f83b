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
    const origin = Date.now();
    defineMissing('performance', { timeOrigin: origin, now: () => Date.now() - origin });
  }

