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
    // Takes `ws` (the server end of a pair whose other end the object
    // answers with) as a hibernatable socket: the host keeps it open while
    // the object is evicted, and its messages are `webSocketMessage`
    // events, `close` a `webSocketClose`.
    acceptWebSocket(ws, tags) {
      const s = socketOf(ws);
      if (s.accepted) throw new TypeError('acceptWebSocket(): the WebSocket was accepted already');
      s.accepted = true;
      s.hibernatable = true;
      s.tags = tags === undefined ? [] : Array.from(tags, String);
      pendingSockets.add(ws);
    }
    getWebSockets(tag) {
      const t = tag === undefined ? undefined : String(tag);
      const list = host('object', { op: 'wsList', tag: t }).value;
      const pending = [...pendingSockets].filter((ws) => t === undefined || socketOf(ws).tags.includes(t));
      return list.map((info) => hostedEnd(info.socket, info)).concat(pending).filter((ws) => socketOf(ws).readyState !== WS_CLOSED);
    }
    getTags(ws) {
      const s = socketOf(ws);
      if (s.hosted === undefined || !s.hibernatable) throw new TypeError('getTags(): the WebSocket was not accepted by ctx.acceptWebSocket()');
      return s.tags.slice();
    }
    setWebSocketAutoResponse() {
      throw new Error('ctx.setWebSocketAutoResponse() is not provided by ssr yet: answer the message in webSocketMessage() (docs/durable-objects.md)');
    }
    getWebSocketAutoResponse() {
      return null;
    }
    // What blocks the next event now.
    static blocked(state) {
      const b = state.#blockers;
      state.#blockers = [];
      return Promise.all(b);
    }
    get [Symbol.toStringTag]() { return 'DurableObjectState'; }
  }
  // A stub's `fetch` of a request that asks to upgrade: the object's
  // socket, as a connection of the host's (`connectRemote`), in a Response
  // of status 101; or the object's other answer.
  function objectWebSocket(to, req) {
    const end = new WebSocketImpl(makingPairEnd);
    const headers = req._headers._list.map(([k, v]) => [k, v]);
    const call = { op: 'fetch', binding: to.object, id: to.id, name: to.name, method: req._method, url: req._url, headers, upgrade: true };
    // The object's 101 comes with its headers.
    let head = [];
    const via = () => hostOp('object', call).then(([answer, data]) => {
      head = answer.headers || [];
      return [answer, data];
    });
    return connectRemote(end, null, [], headers, via)
      .then((refused) => refused || new ResponseImpl(null, { status: 101, webSocket: end, headers: head }));
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
  // The object's answer to an event: a head and its bytes; with
  // `socket` (a 101's server end), the host takes the request's socket.
  function objectAnswer(status, headers, body, error, socket) {
    const tags = socket === undefined ? undefined : socketOf(socket.server).tags || [];
    const { value } = host('object', { op: 'answer', status, headers, error, socket: tags }, body);
    if (socket === undefined || value.socket === null) return;
    const s = socketOf(socket.server);
    s.hosted = value.socket;
    s.accepted = true;
    hostedEnds.set(value.socket, socket.server);
    pendingSockets.delete(socket.server);
    if (s.attachment !== undefined) host('object', { op: 'wsAttach', socket: s.hosted, attachment: JSON.stringify(rpcEncode(s.attachment)) });
    // What it sent before it answered goes now.
    for (const frame of socketOf(socket.client).held.splice(0)) objectSocketSend(value.socket, frame);
  }
  // The object's WebSockets in this instance, by the host's id; and those
  // it accepted for the response it is making (not yet the host's).
  const hostedEnds = new Map();
  const pendingSockets = new Set();
  // The end of socket `id` (`info`: its tags and attachment, when known):
  // this instance's, or a new one after an eviction.
  function hostedEnd(id, info) {
    let end = hostedEnds.get(id);
    if (end !== undefined) return end;
    if (info === undefined) info = host('object', { op: 'wsList' }).value.find((i) => i.socket === id) || { tags: [], attachment: null };
    end = new WebSocketImpl(makingPairEnd);
    const s = socketOf(end);
    Object.assign(s, { accepted: true, hibernatable: true, hosted: id, tags: info.tags });
    if (info.attachment !== null) s.attachment = rpcDecode(JSON.parse(info.attachment));
    hostedEnds.set(id, end);
    return end;
  }
  // A frame the object sends on its socket `id`.
  function objectSocketSend(id, frame) {
    if (frame.close) host('object', { op: 'wsClose', socket: id, code: frame.code, reason: frame.reason });
    else if (frame.bytes !== undefined) host('object', { op: 'wsSend', socket: id, text: false }, frame.bytes);
    else host('object', { op: 'wsSend', socket: id, text: true }, encoder().encode(frame.text));
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
        }).then(([status, headers, body, socket]) => objectAnswer(status, headers, body, undefined, socket), (e) => {
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
          const headers = res._headers._list.map(([k, v]) => [k, v]);
          if (res._webSocket !== null) {
            const client = res._webSocket;
            const server = socketOf(client).peer;
            if (server === null || !socketOf(server).accepted) throw new TypeError('a Durable Object answered with a WebSocket whose other end it did not accept (ctx.acceptWebSocket(ws) or ws.accept())');
            return [101, headers, new Uint8Array(0), { client, server }];
          }
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
      case 'ws':
      case 'ws-close': {
        const bytes = data;
        const end = hostedEnd(ev.socket);
        const s = socketOf(end);
        const done = () => [200, [], new Uint8Array(0)];
        if (ev.kind === 'ws') {
          const data = ev.text ? decoder().decode(bytes) : bytes.slice().buffer;
          if (!s.hibernatable) {
            deliver(end, ev.text ? { text: data } : { bytes: bytes.slice() });
            return done();
          }
          if (typeof instance.webSocketMessage !== 'function') return done();
          return Promise.resolve(instance.webSocketMessage(end, data)).then(done);
        }
        if (!s.hibernatable) {
          deliver(end, { close: true, code: ev.code, reason: ev.reason, clean: ev.clean });
          return done();
        }
        // The close is answered, as workerd answers it.
        if (!s.closeSent && ev.clean) {
          s.closeSent = true;
          objectSocketSend(ev.socket, { close: true, code: ev.code, reason: ev.reason });
        }
        s.readyState = WS_CLOSED;
        const gone = () => {
          hostedEnds.delete(ev.socket);
          return done();
        };
        if (typeof instance.webSocketClose !== 'function') return gone();
        return Promise.resolve(instance.webSocketClose(end, ev.code, ev.reason, ev.clean)).then(gone, (e) => {
          gone();
          throw e;
        });
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
