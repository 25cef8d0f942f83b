//! Service bindings: `env.X` of each service the app's wrangler config
//! binds (`services`). A binding to the app itself (its own name) is
//! answered in this instance, as `workerd` answers it in the same isolate:
//! the callee shares the caller's module state (a `node:http` server the
//! caller started answers it), its request and response are the objects
//! themselves, and RPC's values are cloned as structured clone would. A
//! binding to another tenant goes through the host, which renders it as
//! that service's own request, without leaving the host (`calls::SERVICE`,
//! which `25_fetch.js` calls: the response answers as a fetch's); any other
//! method is an RPC call of the service's `WorkerEntrypoint` method of
//! that name (`contract::RPC`), its arguments and result sent as
//! [`rpcEncode`] writes them. `33_driver.js` runs the callee's side.
//!
//! Defines: none
//! Host calls: object, service
//! Rust: host/src/bindings/service.rs
//! WPT: none
//! Test plugin: tests/plugins/services.js
  // ---------------------------------------------------------- services
  // How deep the render in progress is in a chain of service calls (its
  // request's `x-ssr-service-depth`, which only the host sets): the host
  // refuses a call past its bound.
  let serviceDepth = 0;
  // The deepest a chain of service calls goes (the host's `MAX_DEPTH`).
  const MAX_SERVICE_DEPTH = 16;
  // A binding made by `serviceBinding`: its name, how many calls to the
  // app itself deep its `env` is (`level`, [`envAt`]), and, for a binding
  // to the app itself, the export it names (`own`: '' the default one).
  class Fetcher {
    #name;
    #level;
    #own;
    constructor(token, name, level, own) {
      if (token !== makeService) throw new TypeError('Illegal constructor');
      this.#name = name;
      this.#level = level;
      this.#own = own;
    }
    fetch(input, init) {
      const local = this.#own === undefined ? null : localService(this.#own);
      if (local === null) return fetchThrough(this.#name, input, init, this.#level);
      return deeper(this.#name, this.#level).then(() => {
        const req = new RequestImpl(input, init === undefined ? {} : init);
        return local(req, envAt(this.#level + 1));
      }).then((res) => {
        if (!(res instanceof ResponseImpl)) throw new TypeError(`env.${this.#name}.fetch(): the handler did not return a Response`);
        // As it arrives over HTTP on workerd: its status text the
        // status's own where it had none.
        if (res._statusText !== '' || !Object.prototype.hasOwnProperty.call(REASONS, res.status)) return res;
        return new ResponseImpl(res.body, { status: res.status, statusText: REASONS[res.status], headers: res.headers });
      });
    }
    // `workerd`'s `Fetcher.scheduled()`: the service's `scheduled`
    // handler runs as a cron trigger would run it, with `cron` and
    // `scheduledTime` (a Date or ms; now unless given), answering
    // `{outcome, noRetry}` (`exception` when it threw). The app's own
    // alone: another tenant's handler runs on its own triggers only.
    scheduled(options) {
      const own = this.#own;
      if (own === undefined) {
        return Promise.reject(new TypeError(`env.${this.#name}.scheduled(): another tenant's scheduled handler runs on its own cron triggers only`));
      }
      const time = options?.scheduledTime === undefined ? Date.now() : Number(options.scheduledTime);
      const cron = options?.cron === undefined ? '' : String(options.cron);
      return deeper(this.#name, this.#level)
        .then(() => scheduledLocally(cron, time, envAt(this.#level + 1)))
        .then(() => ({ outcome: 'ok', noRetry: false }), () => ({ outcome: 'exception', noRetry: false }));
    }
  }
  const makeService = Symbol('service');
  // The standard reason phrases of final statuses (RFC 9110, and those
  // HTTP servers send).
  const REASONS = {
    200: 'OK', 201: 'Created', 202: 'Accepted', 203: 'Non-Authoritative Information', 204: 'No Content', 205: 'Reset Content', 206: 'Partial Content', 207: 'Multi-Status', 208: 'Already Reported', 226: 'IM Used',
    300: 'Multiple Choices', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified', 305: 'Use Proxy', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
    400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 407: 'Proxy Authentication Required', 408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 411: 'Length Required', 412: 'Precondition Failed', 413: 'Payload Too Large', 414: 'URI Too Long', 415: 'Unsupported Media Type', 416: 'Range Not Satisfiable', 417: 'Expectation Failed', 418: "I'm a teapot", 421: 'Misdirected Request', 422: 'Unprocessable Entity', 423: 'Locked', 424: 'Failed Dependency', 426: 'Upgrade Required', 428: 'Precondition Required', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large', 451: 'Unavailable For Legal Reasons',
    500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout', 505: 'HTTP Version Not Supported', 506: 'Variant Also Negotiates', 507: 'Insufficient Storage', 508: 'Loop Detected', 510: 'Not Extended', 511: 'Network Authentication Required',
  };
  Object.defineProperty(Fetcher.prototype, Symbol.toStringTag, { value: 'Fetcher', configurable: true });
  // A Fetcher whose other members are RPC methods: `env.X.name(...args)`
  // calls the service's method `name`, and `await env.X.name` reads its
  // property `name` (a getter's value), as workerd's RpcProperty does.
  // `then` stays undefined, so that a binding can be awaited or returned
  // from an async function.
  const serviceBinding = (name, level, own) => new Proxy(new Fetcher(makeService, name, level, own), {
    get(target, key) {
      if (typeof key === 'symbol' || key in target) {
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' && key !== 'constructor' ? v.bind(target) : v;
      }
      if (key === 'then') return undefined;
      const call = (args) => (own === undefined ? rpcThrough(name, level, key, args) : rpcLocally(name, level, own, key, args));
      const member = (...args) => call(args);
      member.then = (ok, fail) => call(undefined).then(ok, fail);
      return member;
    },
  });
  // Resolves when a call one level below `level` is within the chain's
  // bound, else rejects as the host does.
  function deeper(name, level) {
    return new Promise((ok) => {
      if (serviceDepth + level + 1 > MAX_SERVICE_DEPTH) {
        throw new TypeError(`env.${name}.fetch(): a chain of service calls is at most ${MAX_SERVICE_DEPTH} deep`);
      }
      ok();
    });
  }

  // The method of an RPC call's request (`contract::RPC`).
  const RPC = '@rpc';
  // `args` undefined: a property's read. `binding`: a service binding's
  // name, or a Durable Object's stub's `{object, id, name}`.
  function rpcThrough(binding, level, method, args) {
    return new Promise((resolve, reject) => {
      const asked = args === undefined ? { method, get: true } : { method, args: rpcEncode(args) };
      const body = encoder().encode(JSON.stringify(asked));
      const headers = [['content-type', 'application/json']];
      const id = typeof binding === 'object'
        ? host('object', { op: 'rpc', binding: binding.object, id: binding.id, name: binding.name }, body).value
        : host('service', { binding, method: RPC, url: 'https://rpc.invalid/', headers, depth: serviceDepth + level }, body).value;
      inflight.set(id, { resolve, reject, method: 'POST', body: undefined, object: typeof binding === 'object' });
    }).then((res) => res.text().then((text) => {
      // The callee's driver answers JSON; anything else is the host's
      // page for a render that failed before it (a limit, say).
      let out;
      try {
        out = JSON.parse(text);
      } catch {
        const name = typeof binding === 'object' ? binding.object : binding;
        throw new Error(`env.${name}.${method}(): the service answered ${res.status}: ${text.trim()}`);
      }
      if (out.error !== undefined) throw rpcError(out.error);
      return rpcDecode(out.value);
    }));
  }
  // The same call to the app itself, in this instance: its arguments and
  // result cloned, and a thrown error as the caller would get it from
  // another instance.
  function rpcLocally(binding, level, own, method, args) {
    return deeper(binding, level)
      .then(() => (args === undefined ? undefined : rpcDecode(rpcEncode(args))))
      .then((sent) => new Promise((ok) => ok(invokeRpc(own || 'default', method, sent, args === undefined, envAt(level + 1))))
        .catch((e) => {
          throw rpcError(rpcFailure(e));
        }))
      .then((value) => rpcDecode(rpcEncode(value)));
  }
  // What a thrown `e` carries to the caller of an RPC call.
  const rpcFailure = (e) => ({ name: e instanceof Error ? e.name : 'Error', message: e instanceof Error ? e.message : String(e) });
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
