// What each of Node's built-in modules exports on workerd
// (benches/node-exports.sh runs this there): for each name asked for, the
// module's export names, each with its kind, its value where it is plain
// data (numbers, strings, constants objects), and the error a function
// throws where that error says it is not implemented; and the default
// export's kind and keys. The names come in the query (`?names=[...]`,
// and `prefix_only=[...]`, those tried only as `node:NAME`).
function kindOf(v) {
  if (typeof v !== 'function') return v === null ? 'null' : typeof v;
  return /^class\b/.test(Function.prototype.toString.call(v)) ? 'class' : 'function';
}

// Plain data: JSON that says the whole value (numbers, strings, arrays
// and plain objects of them; no functions, no cycles), under 64 KiB.
function plain(v) {
  try {
    const text = JSON.stringify(v, (k, x) => {
      if (typeof x === 'function' || typeof x === 'symbol' || typeof x === 'bigint') throw new Error('not plain');
      if (x !== null && typeof x === 'object' && !Array.isArray(x)) {
        const proto = Object.getPrototypeOf(x);
        if (proto !== Object.prototype && proto !== null) throw new Error('not plain');
      }
      return x;
    });
    return text !== undefined && text.length < 65536 ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

// The error calling `f` throws where it says the function is not
// implemented: with no arguments, then with plausible ones (a function
// that checks its arguments first says so only when they pass).
async function unimplemented(f, kind) {
  for (const args of [[], ['x'], ['x', []], [{}], [1]]) {
    try {
      const r = kind === 'class' ? new f(...args) : f(...args);
      if (r && typeof r.then === 'function') await r;
      return undefined;
    } catch (e) {
      const text = `${e && e.message}`;
      if ((e && e.code === 'ERR_METHOD_NOT_IMPLEMENTED') || /not implemented/i.test(text)) {
        return { name: e.name, code: e.code, message: text };
      }
    }
  }
  return undefined;
}

// Modules whose functions are not called: they end the request or the process.
const NOT_CALLED = new Set(['process']);

export default {
  async fetch(request) {
    const query = new URL(request.url).searchParams;
    const names = JSON.parse(query.get('names'));
    // Modules Node has only under `node:` (its `builtinModules` leaves
    // them out): those that import here.
    const prefixOnly = JSON.parse(query.get('prefix_only') ?? '[]');
    const out = {};
    for (const name of [...names, ...prefixOnly]) {
      let m;
      try {
        m = await import(`node:${name}`);
      } catch (e) {
        if (prefixOnly.includes(name)) continue;
        throw e;
      }
      const describe = async (v) => {
        const kind = kindOf(v);
        const row = { kind };
        if (kind === 'function' || kind === 'class') {
          if (!NOT_CALLED.has(name)) {
            const thrown = await unimplemented(v, kind);
            if (thrown) row.throws = thrown;
          }
        } else if (kind !== 'symbol') {
          const value = plain(v);
          if (value !== undefined) row.value = value;
        }
        return row;
      };
      const exports = {};
      for (const key of Object.keys(m).sort()) {
        if (key !== 'default') exports[key] = await describe(m[key]);
      }
      // The default export's keys, and those of them that are not also
      // named exports, described as the named ones are.
      const d = m.default;
      const keys = d !== null && (typeof d === 'object' || typeof d === 'function') ? Object.keys(d).sort() : [];
      const only = {};
      for (const key of keys) {
        if (!(key in exports)) only[key] = await describe(d[key]);
      }
      out[name] = { exports, default: { kind: kindOf(d), keys, only } };
      // A default whose every property is read-only (`node:constants`').
      if (keys.length > 0 && keys.every((k) => Object.getOwnPropertyDescriptor(d, k).writable === false)) {
        out[name].default.readonly = true;
      }
      if (prefixOnly.includes(name)) out[name].prefix_only = true;
    }
    return new Response(JSON.stringify(out, null, 1) + '\n');
  },
};
