//! Service bindings: `env.X` of each service the app's wrangler config
//! binds (`services`), whose `fetch` the host renders as that service's
//! own request, without leaving the host (`calls::SERVICE`, which
//! `25_fetch.js` calls: the response answers as a fetch's); any other
//! method is an RPC call of the service's `WorkerEntrypoint` method of
//! that name (`contract::RPC`), its arguments and result sent as
//! [`rpcEncode`] writes them. `33_driver.js` runs the callee's side.
//!
//! Defines: none
//! Host calls: service
//! Rust: host/src/bindings/service.rs
//! WPT: none
//! Test plugin: tests/plugins/services.js
  // ---------------------------------------------------------- services
  // How deep the render in progress is in a chain of service calls (its
  // request's `x-ssr-service-depth`, which only the host sets): the host
  // refuses a call past its bound.
  let serviceDepth = 0;
  class Fetcher {
    #name;
    constructor(token, name) {
      if (token !== makeService) throw new TypeError('Illegal constructor');
      this.#name = name;
    }
    fetch(input, init) {
      return fetchThrough(this.#name, input, init);
    }
  }
  const makeService = Symbol('service');
  Object.defineProperty(Fetcher.prototype, Symbol.toStringTag, { value: 'Fetcher', configurable: true });
  // A Fetcher whose other members are RPC methods: `env.X.name(...args)`
  // calls the service's method `name`, and `await env.X.name` reads its
  // property `name` (a getter's value), as workerd's RpcProperty does.
  // `then` stays undefined, so that a binding can be awaited or returned
  // from an async function.
  const serviceBinding = (name) => new Proxy(new Fetcher(makeService, name), {
    get(target, key) {
      if (typeof key === 'symbol' || key in target) {
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' && key !== 'constructor' ? v.bind(target) : v;
      }
      if (key === 'then') return undefined;
      const member = (...args) => rpcThrough(name, key, args);
      member.then = (ok, fail) => rpcThrough(name, key, undefined).then(ok, fail);
      return member;
    },
  });

  // The method of an RPC call's request (`contract::RPC`).
  const RPC = '@rpc';
  // `args` undefined: a property's read.
  function rpcThrough(binding, method, args) {
    return new Promise((resolve, reject) => {
      const asked = args === undefined ? { method, get: true } : { method, args: rpcEncode(args) };
      const body = encoder().encode(JSON.stringify(asked));
      const headers = [['content-type', 'application/json']];
      const call = { binding, method: RPC, url: 'https://rpc.invalid/', headers, depth: serviceDepth };
      inflight.set(host('service', call, body).value, { resolve, reject, method: 'POST', body: undefined });
    }).then((res) => res.text().then((text) => {
      // The callee's driver answers JSON; anything else is the host's
      // page for a render that failed before it (a limit, say).
      let out;
      try {
        out = JSON.parse(text);
      } catch {
        throw new Error(`env.${binding}.${method}(): the service answered ${res.status}: ${text.trim()}`);
      }
      if (out.error !== undefined) throw rpcError(out.error);
      return rpcDecode(out.value);
    }));
  }
  // An error the callee threw, as the caller sees it: its class (one of
  // the standard ones structured clone knows, else Error), name and
  // message; not its stack.
  function rpcError({ name, message }) {
    const E = Object.prototype.hasOwnProperty.call(ERRORS, name) ? ERRORS[name] : Error;
    const e = new E(message);
    if (e.name !== name) Object.defineProperty(e, 'name', { value: name, configurable: true, writable: true });
    return e;
  }

  // RPC's values as JSON: what structured clone carries (primitives,
  // plain objects and arrays, Date, RegExp, Map, Set, ArrayBuffer and its
  // views, errors), every object tagged (`$`) and numbered, so that a
  // shared or cyclic one arrives shared (`$: 'x'`). A function or symbol
  // throws a DataCloneError (workerd passes a function as a stub; ssr does
  // not yet).
  const VIEWS = { Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array, DataView };
  const bytesHex = (v) => hexOf(new Uint8Array(v.buffer || v, v.byteOffset || 0, v.byteLength));
  const hexBytes = (h) => Uint8Array.from(h.match(/../g) || [], (x) => parseInt(x, 16));
  function rpcEncode(value) {
    const ids = new Map();
    const enc = (v) => {
      if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
      if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : { $: 'n', v: String(Object.is(v, -0) ? '-0' : v) };
      if (v === undefined) return { $: 'u' };
      if (typeof v === 'bigint') return { $: 'b', v: String(v) };
      if (typeof v !== 'object') throw new DOMExceptionImpl(`${typeof v === 'function' ? `function ${v.name || '(anonymous)'}` : String(v)} could not be cloned.`, 'DataCloneError');
      if (ids.has(v)) return { $: 'x', i: ids.get(v) };
      const i = ids.size;
      ids.set(v, i);
      if (Array.isArray(v)) return { $: 'a', i, v: Array.from(v, enc) };
      if (v instanceof Date) return { $: 'd', i, v: v.getTime() };
      if (v instanceof RegExp) return { $: 'r', i, s: v.source, f: v.flags };
      if (v instanceof Map) return { $: 'm', i, v: Array.from(v, ([k, x]) => [enc(k), enc(x)]) };
      if (v instanceof Set) return { $: 's', i, v: Array.from(v, enc) };
      if (v instanceof ArrayBuffer) return { $: 'ab', i, v: bytesHex(v) };
      if (ArrayBuffer.isView(v)) return { $: 'ta', i, t: v.constructor.name, v: bytesHex(v) };
      if (v instanceof Error) return { $: 'e', i, n: v.name, m: v.message };
      const o = {};
      for (const k of Object.keys(v)) o[k] = enc(v[k]);
      return { $: 'o', i, v: o };
    };
    return enc(value);
  }
  function rpcDecode(value) {
    const made = [];
    const dec = (v) => {
      if (v === null || typeof v !== 'object') return v;
      const keep = (x) => ((made[v.i] = x), x);
      switch (v.$) {
        case 'n': return Number(v.v);
        case 'u': return undefined;
        case 'b': return BigInt(v.v);
        case 'x': return made[v.i];
        case 'a': { const a = keep([]); for (const x of v.v) a.push(dec(x)); return a; }
        case 'd': return keep(new Date(v.v));
        case 'r': return keep(new RegExp(v.s, v.f));
        case 'm': { const m = keep(new Map()); for (const [k, x] of v.v) m.set(dec(k), dec(x)); return m; }
        case 's': { const s = keep(new Set()); for (const x of v.v) s.add(dec(x)); return s; }
        case 'ab': return keep(hexBytes(v.v).buffer);
        case 'ta': {
          const b = hexBytes(v.v).buffer;
          const View = VIEWS[v.t] || Uint8Array;
          return keep(View === DataView ? new DataView(b) : new View(b, 0, b.byteLength / (View.BYTES_PER_ELEMENT || 1)));
        }
        case 'e': return keep(rpcError({ name: v.n, message: v.m }));
        default: { const o = keep({}); for (const k of Object.keys(v.v)) o[k] = dec(v.v[k]); return o; }
      }
    };
    return dec(value);
  }
