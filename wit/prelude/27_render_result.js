//! What a `render()` function returns, checked: headers and cache policy.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/errors.js
  // ------------------------------------------------------ renderer driver
  class BadResult extends Error {}

  function kindOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'an array';
    if (typeof v === 'object') return 'an object';
    return typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`;
  }

  function normalizeHeaders(h) {
    const out = [];
    if (h === undefined || h === null) return out;
    const entries = typeof h.entries === 'function' && !Array.isArray(h) ? Array.from(h.entries())
      : Array.isArray(h) ? h : Object.keys(h).map((k) => [k, h[k]]);
    for (const pair of entries) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new BadResult('render() returned headers that are not name/value pairs; use an object like { "cache-control": "max-age=60" }');
      }
      const values = Array.isArray(pair[1]) ? pair[1] : [pair[1]];
      for (const v of values) out.push([String(pair[0]).toLowerCase(), String(v)]);
    }
    return out;
  }

  function normalizeCache(c) {
    if (c === undefined || c === null) return -1;
    if (c === 'no-store' || c === false) return -2;
    const ttl = typeof c === 'number' ? c : typeof c === 'object' ? c.ttl : undefined;
    if (Number.isInteger(ttl) && ttl >= 0 && ttl <= 0xffffffff) return ttl;
    throw new BadResult(`render() returned cache ${JSON.stringify(c)}; use "no-store", a number of seconds, or { ttl: seconds }`);
  }

