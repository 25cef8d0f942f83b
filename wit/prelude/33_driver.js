//! The renderer driver the engines call (`__ssr`): shaping a request,
//! settling a render, a cron trigger's `scheduled` handler (a request of
//! method `@scheduled`, which no client can send), a service binding's RPC
//! call (`@rpc`, neither), a Durable Object's life (`@object`), timers and fetches the
//! engine drives; closes the block `00_core.js` opened.
//!
//! Defines: __ssr
//! Host calls: compress, response-head
//! Rust: host/src/engine/mod.rs
//! WPT: none
//! Test plugin: tests/plugins/handler.js
  // The renderer, set once the bundle's top level has run: (raw, reads) ->
  // its result. `handlerName` names it in messages.
  let render = null;
  let handlerName = 'render';
  // The module's `scheduled` handler, for its cron triggers: (controller,
  // env) -> a promise.
  let scheduled = null;
  // What a cron trigger's handler is given, as `workerd` has it.
  class ScheduledController {
    #cron;
    #time;
    constructor(token, cron, time) {
      if (token !== SCHEDULED) throw new TypeError('Illegal constructor');
      this.#cron = cron;
      this.#time = time;
    }
    get cron() { return this.#cron; }
    get scheduledTime() { return this.#time; }
    get type() { return 'scheduled'; }
    noRetry() {}
    get [Symbol.toStringTag]() { return 'ScheduledController'; }
  }
  // The method of a cron trigger's request (`contract::SCHEDULED`).
  const SCHEDULED = '@scheduled';
  function runScheduled(raw) {
    const q = new Map(raw.query);
    return scheduledLocally(q.get('cron') || '', Number(q.get('scheduledTime')), tenantEnv()).then(() => new ResponseImpl(null, { status: 200, headers: { 'cache-control': 'no-store' } }));
  }
  // Runs the `scheduled` handler for `cron` at `time` (ms), given `env`.
  function scheduledLocally(cron, time, env) {
    return new Promise((ok) => {
      if (scheduled === null) {
        throw new BadResult('the module exports no `scheduled` handler for its cron triggers; add `export default { async scheduled(controller, env, ctx) { ... } }`');
      }
      ok(scheduled(new ScheduledController(SCHEDULED, cron, time), env));
    });
  }
  // The method of a Durable Object's render (`contract::OBJECT`):
  // `runObject` (`31_durable_objects.js`) runs it.
  const OBJECT = '@object';
  // The module's exports, for RPC calls: a service binding's call of a
  // method (`contract::RPC`) runs it on a new instance of the export the
  // binding names (query `entrypoint`, else the default export), which
  // must be a `WorkerEntrypoint` class, as on workerd (which answers any
  // other with the same error as a missing method). Its answer is JSON:
  // `{value}` or `{error: {name, message}}` (`31_services.js`).
  let exported = {};
  function runRpc(raw) {
    const q = new Map(raw.query);
    const name = q.get('entrypoint') || 'default';
    const reply = (out) => new ResponseImpl(JSON.stringify(out), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
    return new Promise((ok) => {
      const { method, args, get } = JSON.parse(decoder().decode(raw.body || new Uint8Array(0)));
      ok(invokeRpc(name, method, get ? undefined : rpcDecode(args), get, tenantEnv()));
    }).then((value) => reply({ value: rpcEncode(value) }), (e) => reply({ error: rpcFailure(e) }));
  }
  // Calls `method` (or, `get`, reads the property) of a new instance of
  // the export `name`, given `env`, with `args`.
  function invokeRpc(name, method, args, get, env) {
    const Entry = Object.prototype.hasOwnProperty.call(exported, name) ? exported[name] : undefined;
    // Its own members and its superclasses', not WorkerEntrypoint's or
    // Object's; an export that is no WorkerEntrypoint class has none.
    let d;
    const entry = typeof Entry === 'function' && Entry.prototype instanceof WorkerEntrypoint;
    for (let p = entry ? Entry.prototype : null; p && p !== WorkerEntrypoint.prototype && d === undefined; p = Object.getPrototypeOf(p)) {
      d = Object.getOwnPropertyDescriptor(p, method);
    }
    const fn = d === undefined ? undefined : get && d.get !== undefined ? d.get : d.value;
    if (typeof fn !== 'function' || method === 'constructor' || method === 'fetch') {
      throw new TypeError(`The RPC receiver does not implement the method "${method}".`);
    }
    // A method read as a property would be a stub on workerd; ssr
    // passes no functions (`rpcEncode`).
    if (get && d.get === undefined) throw new DOMExceptionImpl(`"${method}" is a method: ssr passes no RPC stubs of functions (workerd would); call it`, 'DataCloneError');
    return get ? fn.call(new Entry(context, env)) : fn.apply(new Entry(context, env), args);
  }
  // How a request through a service binding to the app itself, to its
  // export `name` ('' the default one), is answered in this instance:
  // (request, env) -> its response; null for a module of a render
  // function, whose requests the host renders.
  let localDefault = null;
  function localService(name) {
    if (name === '') return localDefault;
    return (req, env) => entrypoint(name).fetch(req, env);
  }
  // A new instance of the export `name`, a WorkerEntrypoint class with a
  // `fetch` method, given `env`.
  function entrypoint(name) {
    const Entry = Object.prototype.hasOwnProperty.call(exported, name) ? exported[name] : undefined;
    if (typeof Entry !== 'function' || !(Entry.prototype instanceof WorkerEntrypoint) || typeof Entry.prototype.fetch !== 'function') {
      throw new BadResult(`the entrypoint \`${name}\` a service binding names is no WorkerEntrypoint class with a \`fetch\` method`);
    }
    return { fetch: (req, env) => new Entry(context, env).fetch(req) };
  }
  // A service binding's request to the export `name` (its `entrypoint`,
  // which only the host names: `x-ssr-service-entrypoint`): a new
  // instance of that `WorkerEntrypoint` class answers it by its `fetch`.
  function renderEntrypoint(name, raw, reads) {
    return entrypoint(name).fetch(incomingRequest(raw, reads), tenantEnv());
  }
  // A Response of status 101 with `end`, a WebSocket's: its head goes to
  // the client, and the render lives on as the socket's (`serveClient`)
  // until it closes; `res`, its head, is the render's result.
  function upgradeTo(end, res) {
    if (socketOf(end).accepted) throw new BadResult(`${handlerName}() returned a WebSocket it had accepted; return the other end of its WebSocketPair, and accept this one`);
    if (socketOf(end).host) throw new BadResult(`${handlerName}() returned a WebSocket that serves a client already`);
    headSent = host('response-head', headOf(res)).value;
    if (!headSent) throw new BadResult('a WebSocket needs a client to talk to: `ssr render` has none; try it under `ssr dev` or `ssr serve`');
    return serveClient(end).then(() => res);
  }
  // What `node:` modules run when a render ends (`node.onReset`).
  const resetHooks = [];
  const ssr = {
    // Pick the renderer from a module namespace: a default class with a
    // `fetch` method (the Workers `WorkerEntrypoint` form: one instance per
    // request, given the context and `env`), a default object with a
    // `fetch` method (the Workers form), `render`, a default function, or
    // a default object with a `render` method.
    resolve(ns) {
      exported = ns;
      const d = ns.default;
      if (typeof d === 'function' && d.prototype && typeof d.prototype.scheduled === 'function') {
        scheduled = (c, env) => new d(context, env).scheduled(c);
      } else if (d && typeof d === 'object' && typeof d.scheduled === 'function') {
        scheduled = (c, env) => d.scheduled(c, env, context);
      }
      if (typeof d === 'function' && d.prototype && typeof d.prototype.fetch === 'function') {
        handlerName = 'fetch';
        localDefault = (req, env) => new d(context, env).fetch(req);
        render = (raw, reads) => localDefault(incomingRequest(raw, reads), tenantEnv());
        return;
      }
      if (d && typeof d === 'object' && typeof d.fetch === 'function') {
        handlerName = 'fetch';
        localDefault = (req, env) => d.fetch(req, env, context);
        render = (raw, reads) => localDefault(incomingRequest(raw, reads), tenantEnv());
        return;
      }
      if (typeof d === 'function' && d.prototype instanceof WorkerEntrypoint) {
        // A service of RPC methods alone.
        handlerName = 'fetch';
        render = localDefault = () => {
          throw new BadResult('the default export has no `fetch` method: it answers RPC calls only');
        };
        return;
      }
      let fn = null;
      if (typeof ns.render === 'function') fn = ns.render;
      else if (typeof d === 'function') fn = d;
      else if (d && typeof d.render === 'function') fn = d.render.bind(d);
      else if (scheduled !== null) {
        // A Worker of cron triggers alone: a request finds no handler.
        handlerName = 'fetch';
        render = localDefault = () => {
          throw new BadResult('the module exports only a `scheduled` handler, no `fetch` handler for requests');
        };
        return;
      } else {
        const names = Object.keys(ns);
        throw new BadResult(`the module does not export a render function (exports: ${names.length ? names.join(', ') : 'none'}); add \`export default { fetch(request, env) { ... } }\` or \`export function render(request, env) { ... }\``);
      }
      render = (raw, reads) => fn(shapeRequest(raw, reads), tenantEnv());
    },
    // `raw` is {method, url, href, base, path, query: [[name, value]], headers:
    // [[name, value]], tenant, body?: Uint8Array}, as every engine passes it;
    // a fetch handler sees it as a Request, a render function as an object
    // with `query` holding each name's first value and `headers` with
    // lower-case names, repeated ones joined with ", ".
    // The response's `vary` lists the headers the renderer declared and
    // those it read.
    // A body that is a stream goes to the host as it comes (`sendStream`);
    // the head goes with the headers read so far, and the final result
    // lists every header read, those read while the body streamed too
    // (a Suspense boundary reading a cookie), so that the host keys the
    // page it keeps on all of them.
    call(raw) {
      serving = true;
      asyncContext.frame = undefined;
      const reads = new Set();
      const noteReads = (res) => {
        for (const name of reads) if (!res.vary.includes(name)) res.vary.push(name);
        return res;
      };
      afterwork = [];
      given = 0;
      headSent = false;
      requestBase = typeof raw.base === 'string' ? raw.base : '';
      const depth = raw.headers.find(([k]) => k.toLowerCase() === 'x-ssr-service-depth');
      serviceDepth = depth === undefined ? 0 : Number(depth[1]) || 0;
      const entry = raw.headers.find(([k]) => k.toLowerCase() === 'x-ssr-service-entrypoint');
      const run = raw.method === SCHEDULED ? () => runScheduled(raw) : raw.method === RPC ? () => runRpc(raw)
        : raw.method === OBJECT ? () => runObject(raw) : entry !== undefined ? () => renderEntrypoint(entry[1], raw, reads) : () => render(raw, reads);
      return new Promise((ok) => ok(run())).then((out) => {
        const res = noteReads(normalize(out));
        if (out instanceof ResponseImpl && out._webSocket !== null) return upgradeTo(out._webSocket, res);
        const body = out instanceof ResponseImpl ? out._body : out !== null && typeof out === 'object' ? out.body : null;
        return body instanceof ReadableStreamImpl ? sendStream(body, res).then(noteReads) : res;
      }).then((res) => (afterwork.length > 0 ? afterResponse(res) : res));
    },
    describe,
    workers,
    // What `cloudflare:sockets` gives (host/src/build/sockets.js).
    sockets: socketsModule,
    // What the `node:` modules (host/src/build/node/) build on.
    node: Object.freeze({
      asyncContext,
      reportUncaught,
      digest: (hash, bytes) => subtleCall({ op: 'digest', hash }, [bytes]).data,
      hmac: (hash, key, bytes) => subtleCall({ op: 'sign', alg: 'HMAC', hash }, [key, bytes]).data,
      // PBKDF2, HKDF and scrypt (`args.alg`) with any hash of node:crypto's.
      derive: (args, parts) => subtleCall(Object.assign({ op: 'derive' }, args), parts).data,
      // `node:crypto`'s keys, signatures and ciphers (web/crypto/node.rs).
      crypto: (args, parts) => subtleCall(args, parts),
      // `fetch` with a method it forbids (TRACE), for `node:http`'s client.
      fetchAs: (method, url, init) => fetchThrough(null, url, init, 0, method),
      // Where `node:dns` sends its queries, through `fetch`.
      dnsOverHttps: () => {
        tenantEnv();
        return dnsOverHttps;
      },
      // A CryptoKey's state (KeyObject.from, and keys given to sign()).
      keyOf: (key) => {
        const s = key !== null && typeof key === 'object' ? keyState.get(key) : undefined;
        return s && { type: s.type, extractable: s.extractable, algorithm: s.algorithm, material: s.material };
      },
      // `node:zlib`: the host's coders of CompressionStream, called whole.
      compress: (args, bytes) => namedCall('compress', args, bytes),
      // `fn` runs when each render ends (`node:fs` empties its files).
      onReset: (fn) => {
        resetHooks.push(fn);
      },
    }),
    runNextTimer,
    arrived,
    reset() {
      for (const fn of resetHooks) {
        try {
          fn();
        } catch (e) {
          reportUncaught(e, 'a reset');
        }
      }
      asyncContext.frame = undefined;
      outerFrames.length = 0;
      clearTimers();
      inflight.clear();
      sockets.clear();
      afterwork = [];
    },
  };
  Object.defineProperty(g, '__ssr', { value: Object.freeze(ssr), enumerable: false });
}
