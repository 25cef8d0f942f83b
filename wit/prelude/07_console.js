//! `console`, formatted as Node formats it, each line to the host's log.
//!
//! Defines: console
//! Host calls: none
//! Rust: host/src/web/console.rs
//! WPT: none
//! Test plugin: tests/plugins/chatty.js
  // ---------------------------------------------------------------- console
  function inspect(v, depth, seen) {
    if (typeof v === 'string') return depth === 0 ? v : JSON.stringify(v);
    if (typeof v === 'function') return `[Function: ${v.name || '(anonymous)'}]`;
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol') return v.toString();
    if (v === null || typeof v !== 'object') return String(v);
    if (v instanceof Error) return v.stack ? `${v.name}: ${v.message}\n${v.stack}` : `${v.name}: ${v.message}`;
    if (seen.includes(v)) return '[Circular]';
    if (depth > 2) return Array.isArray(v) ? '[Array]' : '[Object]';
    const inner = seen.concat([v]);
    if (Array.isArray(v)) return `[ ${v.map((x) => inspect(x, depth + 1, inner)).join(', ')} ]`;
    if (v instanceof Date) return v.toISOString();
    const keys = Object.keys(v);
    if (keys.length === 0) return '{}';
    return `{ ${keys.map((k) => `${k}: ${inspect(v[k], depth + 1, inner)}`).join(', ')} }`;
  }

  function format(args) {
    let out = '';
    let rest = args;
    if (typeof args[0] === 'string' && args[0].includes('%')) {
      let i = 1;
      out = args[0].replace(/%[sdifoOjc%]/g, (m) => {
        if (m === '%%') return '%';
        if (i >= args.length) return m;
        const a = args[i++];
        switch (m) {
          case '%s': return typeof a === 'string' ? a : inspect(a, 1, []);
          case '%d': case '%i': return String(parseInt(a, 10));
          case '%f': return String(parseFloat(a));
          case '%j': return JSON.stringify(a);
          case '%c': return '';
          default: return inspect(a, 1, []);
        }
      });
      rest = args.slice(i);
      return rest.length ? `${out} ${rest.map((a) => inspect(a, 0, [])).join(' ')}` : out;
    }
    return rest.map((a) => inspect(a, 0, [])).join(' ');
  }

  const consoleImpl = {};
  for (const [name, level] of [['debug', 0], ['trace', 0], ['log', 1], ['info', 1], ['warn', 2], ['error', 3]]) {
    // A lone surrogate goes to the log as U+FFFD (the host takes UTF-8).
    consoleImpl[name] = (...args) => hostLog(level, usv(format(args)));
  }
  consoleImpl.assert = (cond, ...args) => { if (!cond) hostLog(3, usv(`Assertion failed${args.length ? ': ' + format(args) : ''}`)); };
  consoleImpl.dir = (v) => hostLog(1, usv(inspect(v, 1, [])));
  consoleImpl.table = consoleImpl.log;
  for (const name of ['group', 'groupEnd', 'groupCollapsed', 'time', 'timeEnd', 'timeLog', 'count', 'countReset']) {
    consoleImpl[name] = () => {};
  }
  // Always ours: console output must reach the host's log, tagged with the
  // tenant, never the process's stdout.
  Object.defineProperty(g, 'console', { value: consoleImpl, writable: true, configurable: true, enumerable: false });

