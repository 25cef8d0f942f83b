//! Durable Objects: `env.X` of each namespace the app's wrangler config
//! binds (`durable_objects.bindings`), a `DurableObjectNamespace` whose
//! ids the host makes and checks, and whose stubs reach the object's own
//! instance through the host (`fetch`, and RPC to its methods, as a
//! service binding's: `31_services.js`); and the object's side, run by
//! `33_driver.js` for a render of method `@object`: its class constructed
//! once with `ctx` (a `DurableObjectState`) and `env`, then its events
//! one at a time, each answered before the next is read. `ctx.storage`
//! is answered by the host in the call itself (the object's SQLite
//! database): key-value (`get`, `put`, `delete`, `list`, `deleteAll`,
//! `transaction`, `transactionSync`, and `kv`'s synchronous forms), SQL
//! (`sql.exec`, cursors, `databaseSize`) and alarms.
//!
//! Defines: none
//! Host calls: object
//! Rust: host/src/bindings/objects/mod.rs
//! WPT: none
//! Test plugin: tests/plugins/objects.js
  // --------------------------------------------------- Durable Objects
  const makeObjects = Symbol('objects');
  class DurableObjectId {
    #id;
    #name;
    constructor(token, id, name) {
      if (token !== makeObjects) throw new TypeError('Illegal constructor');
      this.#id = id;
      this.#name = name;
    }
    toString() { return this.#id; }
    // The name an event's stub was made from, for the object's own id
    // (`ctx.id.name`), once known.
    static named(id, name) {
      if (id.#name === undefined && typeof name === 'string') id.#name = name;
    }
    equals(other) { return other instanceof DurableObjectId && other.toString() === this.#id; }
    get name() { return this.#name; }
    get [Symbol.toStringTag]() { return 'DurableObjectId'; }
  }
  // An id of namespace `binding`, as the host makes it (`{name}`, `{string}`
  // checked, `{}` new).
  function objectId(binding, args) {
    const { value } = host('object', Object.assign({ op: 'id', binding }, args));
    if (value.error !== undefined) throw new TypeError(value.error);
    return value.id;
  }
  class DurableObjectNamespace {
    #binding;
    constructor(token, binding) {
      if (token !== makeObjects) throw new TypeError('Illegal constructor');
      this.#binding = binding;
    }
    idFromName(name) {
      const n = String(name);
      return new DurableObjectId(makeObjects, objectId(this.#binding, { name: n }), n);
    }
    newUniqueId() {
      return new DurableObjectId(makeObjects, objectId(this.#binding, {}), undefined);
    }
    idFromString(id) {
      return new DurableObjectId(makeObjects, objectId(this.#binding, { string: String(id) }), undefined);
    }
    get(id) {
      if (!(id instanceof DurableObjectId)) throw new TypeError("Failed to execute 'get' on 'DurableObjectNamespace': parameter 1 is not of type 'DurableObjectId'.");
      return objectStub(this.#binding, id);
    }
    getByName(name) {
      return this.get(this.idFromName(name));
    }
    // One jurisdiction here: every id is of it.
    jurisdiction() {
      return this;
    }
    get [Symbol.toStringTag]() { return 'DurableObjectNamespace'; }
  }
  const objectNamespace = (binding) => new DurableObjectNamespace(makeObjects, binding);
  class DurableObjectStub {
    #to;
    #id;
    constructor(token, to, id) {
      if (token !== makeObjects) throw new TypeError('Illegal constructor');
      this.#to = to;
      this.#id = id;
    }
    get id() { return this.#id; }
    get name() { return this.#id.name; }
    fetch(input, init) {
      return fetchThrough(this.#to, input, init, 0);
    }
    get [Symbol.toStringTag]() { return 'DurableObject'; }
  }
  // A stub whose other members are RPC calls of the object's methods, as
  // a service binding's (`serviceBinding`); `then` stays undefined.
  function objectStub(binding, id) {
    const to = { object: binding, id: id.toString(), name: id.name };
    return new Proxy(new DurableObjectStub(makeObjects, to, id), {
      get(target, key) {
        if (typeof key === 'symbol' || key in target) {
          const v = Reflect.get(target, key, target);
          return typeof v === 'function' && key !== 'constructor' ? v.bind(target) : v;
        }
        if (key === 'then') return undefined;
        const call = (args) => rpcThrough(to, 0, key, args);
        const member = (...args) => call(args);
        member.then = (ok, fail) => call(undefined).then(ok, fail);
        return member;
      },
    });
  }
  // What the host's storage call answers, or throws its error.
  function storageCall(call) {
    const { value } = host('object', { op: 'storage', call });
    if (value.error !== undefined) throw new Error(value.error);
    return value.answer;
  }
  const storageKey = (k) => {
    if (typeof k !== 'string') k = String(k);
    return k;
  };
  const storageValue = (v) => JSON.stringify(rpcEncode(v));
  const storageDecode = (text) => rpcDecode(JSON.parse(text));
  // `ctx.storage.kv`: the key-value API, synchronous.
  const storageKv = Object.freeze({
    get(key) {
      const [v] = storageCall({ op: 'get', keys: [storageKey(key)] });
      return v === null ? undefined : storageDecode(v);
    },
    put(key, value) {
      if (value === undefined) throw new TypeError('put(): a value of undefined cannot be stored; delete the key instead');
      storageCall({ op: 'put', entries: [[storageKey(key), storageValue(value)]] });
    },
    delete(key) {
      return storageCall({ op: 'delete', keys: [storageKey(key)] }) > 0;
    },
    list(options) {
      return storageList(options).entries();
    },
  });
  function storageList(options) {
    const o = options === undefined || options === null ? {} : options;
    const call = { op: 'list', reverse: Boolean(o.reverse) };
    for (const k of ['start', 'startAfter', 'end', 'prefix']) if (o[k] !== undefined) call[k] = String(o[k]);
    if (o.limit !== undefined) {
      const limit = Number(o.limit);
      if (!(limit > 0)) throw new TypeError('List limit must be positive.');
      call.limit = Math.floor(limit);
    }
    return new Map(storageCall(call).map(([k, v]) => [k, storageDecode(v)]));
  }
  // A statement's rows: a cursor, iterable once, as workerd's.
  class SqlStorageCursor {
    #columns;
    #rows;
    #at = 0;
    #read;
    #written;
    constructor(token, answer) {
      if (token !== makeObjects) throw new TypeError('Illegal constructor');
      this.#columns = answer.columns;
      this.#rows = answer.rows.map((row) => row.map((v) => (Array.isArray(v) ? new Uint8Array(v).buffer : v)));
      this.#read = answer.rowsRead;
      this.#written = answer.rowsWritten;
    }
    #object(row) {
      const o = {};
      this.#columns.forEach((c, i) => {
        o[c] = row[i];
      });
      return o;
    }
    next() {
      if (this.#at >= this.#rows.length) return { done: true, value: undefined };
      return { done: false, value: this.#object(this.#rows[this.#at++]) };
    }
    toArray() {
      const out = [];
      for (let r = this.next(); !r.done; r = this.next()) out.push(r.value);
      return out;
    }
    one() {
      const left = this.#rows.length - this.#at;
      if (left === 0) throw new Error('Expected exactly one result from SQL query, but got no results.');
      if (left > 1) throw new Error('Expected exactly one result from SQL query, but got multiple results.');
      return this.next().value;
    }
    raw() {
      const rows = this.#rows;
      const self = this;
      return {
        next() {
          return self.#at >= rows.length ? { done: true, value: undefined } : { done: false, value: rows[self.#at++].slice() };
        },
        toArray() {
          const out = [];
          for (let r = this.next(); !r.done; r = this.next()) out.push(r.value);
          return out;
        },
        [Symbol.iterator]() { return this; },
      };
    }
    get columnNames() { return this.#columns.slice(); }
    get rowsRead() { return this.#read; }
    get rowsWritten() { return this.#written; }
    [Symbol.iterator]() { return this; }
    get [Symbol.toStringTag]() { return 'SqlStorageCursor'; }
  }
  // A bound value, as D1 binds it (`31_d1.js`: a boolean as 1 or 0, as
  // workerd binds it).
  function sqlParam(v) {
    if (typeof v === 'bigint') throw new TypeError('SQL bindings of type bigint are not supported; bind a number or a string');
    if (v === undefined) throw new TypeError('SQL bindings cannot be undefined; bind null');
    return d1Param(v);
  }
  class SqlStorage {
    constructor(token) {
      if (token !== makeObjects) throw new TypeError('Illegal constructor');
    }
    exec(query, ...bindings) {
      const answer = storageCall({ op: 'sql', query: String(query), params: bindings.map(sqlParam) });
      return new SqlStorageCursor(makeObjects, answer);
    }
    get databaseSize() { return storageCall({ op: 'size' }); }
    get [Symbol.toStringTag]() { return 'SqlStorage'; }
  }
  const sqlStorage = new SqlStorage(makeObjects);
  // Runs `fn` in a transaction of the object's database: committed when
  // it returns (or its promise resolves), rolled back when it throws or
  // calls `rollback()`.
  function inTransaction(fn, sync) {
    storageCall({ op: 'begin' });
    let rolledBack = false;
    const txn = Object.assign(Object.create(storage), {
      rollback() {
        if (rolledBack) return;
        rolledBack = true;
        storageCall({ op: 'rollback' });
      },
    });
    const end = (ok) => {
      if (!rolledBack) storageCall({ op: ok ? 'commit' : 'rollback' });
    };
    let out;
    try {
      out = fn(txn);
    } catch (e) {
      end(false);
      throw e;
    }
    if (sync || !(out instanceof Promise)) {
      end(true);
      return out;
    }
    return out.then((v) => {
      end(true);
      return v;
    }, (e) => {
      end(false);
      throw e;
    });
  }
  // `ctx.storage`: its answers come at once, but its key-value methods
  // return promises, as Cloudflare's.
  const later = (fn) => new Promise((ok) => ok(fn()));
  const storage = Object.freeze({
    get(keys) {
      return later(() => {
        if (!Array.isArray(keys)) return storageKv.get(keys);
        const got = storageCall({ op: 'get', keys: keys.map(storageKey) });
        const out = new Map();
        keys.forEach((k, i) => {
          if (got[i] !== null) out.set(storageKey(k), storageDecode(got[i]));
        });
        return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      });
    },
    put(key, value) {
      return later(() => {
        if (key !== null && typeof key === 'object') {
          const entries = Object.entries(key).map(([k, v]) => [k, storageValue(v)]);
          storageCall({ op: 'put', entries });
          return undefined;
        }
        storageKv.put(key, value);
        return undefined;
      });
    },
    delete(keys) {
      return later(() => (Array.isArray(keys) ? storageCall({ op: 'delete', keys: keys.map(storageKey) }) : storageKv.delete(keys)));
    },
    list(options) {
      return later(() => storageList(options));
    },
    deleteAll() {
      return later(() => {
        storageCall({ op: 'deleteAll' });
      });
    },
    transaction(fn) {
      return later(() => inTransaction(fn, false));
    },
    transactionSync(fn) {
      return inTransaction(fn, true);
    },
    getAlarm() {
      return later(() => host('object', { op: 'getAlarm' }).value.answer);
    },
    setAlarm(time) {
      return later(() => {
        const at = time instanceof Date ? time.getTime() : Number(time);
        if (!Number.isFinite(at)) throw new TypeError('setAlarm(): the time is not a Date or a number of milliseconds');
        host('object', { op: 'setAlarm', at });
      });
    },
    deleteAlarm() {
      return later(() => {
        host('object', { op: 'deleteAlarm' });
      });
    },
    // Every write is durable when its call returns.
    sync() {
      return Promise.resolve();
    },
    get sql() { return sqlStorage; },
    get kv() { return storageKv; },
  });
  // `ctx` of an object: its id, its storage, `blockConcurrencyWhile`.
  class DurableObjectState {
    #id;
    #blockers = [];
    constructor(token, id) {
      if (token !== makeObjects) throw new TypeError('Illegal constructor');
      this.#id = id;
    }
    get id() { return this.#id; }
    get storage() { return storage; }
    // No other event starts until `fn`'s promise settles (events run one
    // at a time here: the next waits for it too).
    blockConcurrencyWhile(fn) {
      const p = new Promise((ok) => ok(fn()));
      this.#blockers.push(p.then(() => undefined, () => undefined));
      return p;
    }
    waitUntil(p) {
      Promise.resolve(p).catch((e) => reportUncaught(e, 'ctx.waitUntil()'));
    }
    acceptWebSocket() {
      throw new Error('ctx.acceptWebSocket(): WebSockets to Durable Objects are not provided by ssr yet (docs/durable-objects.md)');
    }
    getWebSockets() {
      return [];
    }
    // What blocks the next event now.
    static blocked(state) {
      const b = state.#blockers;
      state.#blockers = [];
      return Promise.all(b);
    }
    get [Symbol.toStringTag]() { return 'DurableObjectState'; }
  }
  // What a stub's call rejects with: the error the object's handler threw
  // (`{name, message}`, as an RPC call's), or the host's reason.
  function objectFailure(text) {
    try {
      const e = JSON.parse(text);
      if (e !== null && typeof e === 'object' && typeof e.message === 'string') return rpcError(e);
    } catch {
      // The host's own words.
    }
    return new Error(text);
  }
  // The object's answer to an event: a head and its bytes.
  function objectAnswer(status, headers, body, error) {
    host('object', { op: 'answer', status, headers, error }, body);
  }
  // What the render of a Durable Object (`@object`) runs: its class, made
  // once, then its events until it is evicted.
  function runObject(raw) {
    const q = new Map(raw.query);
    const className = q.get('class') || '';
    const Class = Object.prototype.hasOwnProperty.call(exported, className) ? exported[className] : undefined;
    const id = new DurableObjectId(makeObjects, q.get('id') || '', undefined);
    const state = new DurableObjectState(makeObjects, id);
    let instance = null;
    let failed = null;
    try {
      if (typeof Class !== 'function') throw new TypeError(`the Worker's module exports no class \`${className}\`, which its wrangler config's durable_objects.bindings name`);
      instance = new Class(state, tenantEnv());
    } catch (e) {
      failed = e;
      reportUncaught(e, `the Durable Object ${className}'s constructor`);
    }
    const loop = () => DurableObjectState.blocked(state)
      .then(() => hostOp('object', { op: 'next' }))
      .then(([ev, data]) => {
        if (ev.kind === 'evict') return new ResponseImpl(null, { status: 204 });
        DurableObjectId.named(id, ev.name);
        return new Promise((ok) => {
          if (failed !== null) throw failed;
          ok(objectEvent(instance, ev, data));
        }).then(([status, headers, body]) => objectAnswer(status, headers, body), (e) => {
          const error = rpcFailure(e);
          objectAnswer(500, [['content-type', 'application/json']], encoder().encode(JSON.stringify({ error })), JSON.stringify(error));
        }).then(loop);
      });
    return loop();
  }
  // One event of the object's: `[status, headers, bytes]`.
  function objectEvent(instance, ev, data) {
    switch (ev.kind) {
      case 'fetch': {
        if (typeof instance.fetch !== 'function') throw new TypeError('Handler does not export a fetch() function.');
        const hasBody = ev.method !== 'GET' && ev.method !== 'HEAD' && data.byteLength > 0;
        const req = new RequestImpl(ev.url, { method: ev.method, headers: ev.headers, body: hasBody ? data : null });
        return Promise.resolve(instance.fetch(req)).then((res) => {
          if (!(res instanceof ResponseImpl)) throw new TypeError('the Durable Object\'s fetch() did not return a Response');
          if (res._webSocket !== null) throw new TypeError('a Durable Object answered with a WebSocket: WebSockets to Durable Objects are not provided by ssr yet (docs/durable-objects.md)');
          const headers = res._headers._list.map(([k, v]) => [k, v]);
          return res.arrayBuffer().then((b) => [res.status, headers, new Uint8Array(b)]);
        });
      }
      case 'rpc': {
        const reply = (out) => [200, [['content-type', 'application/json']], encoder().encode(JSON.stringify(out))];
        return new Promise((ok) => {
          const { method, args, get } = JSON.parse(decoder().decode(data));
          ok(invokeOnObject(instance, method, get ? undefined : rpcDecode(args), get));
        }).then((value) => reply({ value: rpcEncode(value) }), (e) => reply({ error: rpcFailure(e) }));
      }
      case 'alarm': {
        if (typeof instance.alarm !== 'function') throw new TypeError('the Durable Object has an alarm set but no alarm() handler');
        return Promise.resolve(instance.alarm({ retryCount: ev.retryCount, isRetry: ev.isRetry })).then(() => [200, [], new Uint8Array(0)]);
      }
      default:
        throw new TypeError(`the host sent an event of kind ${ev.kind}`);
    }
  }
  // An RPC call of the object's method `method` (its class's and its
  // superclasses', not DurableObject's or Object's), or a read of its
  // property (`get`).
  function invokeOnObject(instance, method, args, get) {
    let d;
    for (let p = Object.getPrototypeOf(instance); p && p !== DurableObject.prototype && p !== Object.prototype && d === undefined; p = Object.getPrototypeOf(p)) {
      d = Object.getOwnPropertyDescriptor(p, method);
    }
    const fn = d === undefined ? undefined : get && d.get !== undefined ? d.get : d.value;
    if (typeof fn !== 'function' || method === 'constructor' || method === 'fetch' || method === 'alarm') {
      throw new TypeError(`The RPC receiver does not implement the method "${method}".`);
    }
    if (get && d.get === undefined) throw new DOMExceptionImpl(`"${method}" is a method: ssr passes no RPC stubs of functions (workerd would); call it`, 'DataCloneError');
    return get ? fn.call(instance) : fn.apply(instance, args);
  }
