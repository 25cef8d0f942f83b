//! The handler's `env`: vars and secrets asked of the host once per
//! instance, `env.ASSETS`, KV namespaces (`31_kv.js`), D1 databases
//! (`31_d1.js`), R2 buckets (`31_r2.js`), services (`31_services.js`),
//! Durable Object namespaces (`31_durable_objects.js`),
//! and a clear error for bindings the host lacks.
//!
//! Defines: none
//! Host calls: assets, env
//! Rust: host/src/assets/binding.rs
//! WPT: none
//! Test plugin: tests/plugins/assets-binding.js
  // The tenant's vars and secrets, asked of the host once per instance:
  // they change only with the tenant's version, which makes new instances.
  let env = null;
  // Where `node:dns` asks (the host's `--dns-over-https`).
  let dnsOverHttps = '';
  function tenantEnv() {
    if (env === null) {
      const { vars, assets, missing, dns, kv, d1, r2, services, own, objects } = host('env', null).value;
      dnsOverHttps = typeof dns === 'string' ? dns : '';
      const bindings = {};
      // Bindings its wrangler config declares that the host does not
      // provide: there, but touching one throws, naming it.
      for (const [name, kind] of Object.entries(missing || {})) {
        bindings[name] = missingBinding(name, kind);
      }
      for (const name of kv || []) bindings[name] = kvNamespace(name);
      for (const name of d1 || []) bindings[name] = d1Database(name);
      for (const name of r2 || []) bindings[name] = r2Bucket(name);
      for (const name of objects || []) bindings[name] = objectNamespace(name);
      for (const name of services || []) {
        const to = own && Object.prototype.hasOwnProperty.call(own, name) ? own[name] : undefined;
        bindings[name] = serviceBinding(name, 0, to);
        serviceSpecs.push([name, to, bindings[name]]);
      }
      // A tenant with assets gets the Workers binding (a var of that name wins).
      if (assets) bindings[assets] = assetsBinding;
      env = Object.freeze(Object.assign(bindings, vars));
    }
    return env;
  }
  // Each service binding: its name, the export it names when it is one to
  // the app itself, and the binding itself in `env`.
  const serviceSpecs = [];
  // `env` as a handler called through a chain of `level` calls to the app
  // itself sees it: the same, but its service bindings count the chain
  // (`31_services.js`). One per level, per instance.
  const envsAt = [];
  function envAt(level) {
    const base = tenantEnv();
    if (level === 0) return base;
    if (envsAt[level] === undefined) {
      const e = Object.assign({}, base);
      // A var of the same name wins, as in `env`.
      for (const [name, to, binding] of serviceSpecs) if (base[name] === binding) e[name] = serviceBinding(name, level, to);
      envsAt[level] = Object.freeze(e);
    }
    return envsAt[level];
  }
  function missingBinding(name, kind) {
    const fail = () => {
      throw new Error(
        `env.${name} (${kind}, declared in the app's wrangler config) is not provided by ssr; see docs/compatibility.md`,
      );
    };
    return new Proxy(Object.freeze(Object.create(null)), {
      // Asked by await, JSON.stringify and inspection, which touch nothing.
      get: (_, k) => (typeof k === 'symbol' || k === 'then' || k === 'toJSON' ? undefined : fail()),
      has: fail,
      apply: fail,
    });
  }
  // `env.ASSETS`: the tenant's packed assets by Workers' rules for HTML
  // files (`calls::ASSETS`, `host/src/assets/binding.rs`).
  let requestBase = '';
  const assetsBinding = Object.freeze({
    async fetch(input, init) {
      const req = input instanceof RequestImpl && init === undefined ? input : new RequestImpl(input, init);
      // Below the base the host routed by (`/t/<id>` under path routing).
      let path = new URLImpl(req._url).pathname;
      if (requestBase !== '' && (path === requestBase || path.startsWith(`${requestBase}/`))) {
        path = path.slice(requestBase.length) || '/';
      }
      const { value, data } = host('assets', { path });
      const body = req._method !== 'HEAD' && data && data.length > 0 ? data : null;
      return new ResponseImpl(body, { status: value.status, headers: value.headers });
    },
  });

