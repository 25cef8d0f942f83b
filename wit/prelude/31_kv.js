//! Workers KV: `env.X` of each namespace the app's wrangler config binds
//! (`kv_namespaces`), a `KvNamespace` whose calls the host answers from
//! the server's store, through the engine's wait like a request.
//!
//! Defines: none
//! Host calls: kv
//! Rust: host/src/bindings/kv.rs
//! WPT: none
//! Test plugin: tests/plugins/kv.js
  // ---------------------------------------------------------------- KV
  // Arguments are converted and keys checked here, as `workerd` does,
  // with its TypeErrors; the host checks every limit again and refuses in
  // Cloudflare's words (`KV PUT failed: 413 ...`), as an `Error`.
  const makeKv = Symbol('kv');
  const KV_TYPES = ['text', 'arrayBuffer', 'json', 'stream'];
  const kvText = (bytes) => new TextDecoderImpl().decode(bytes);
  function kvKey(key) {
    const k = String(key);
    if (k === '') throw new TypeError('Key name cannot be empty.');
    if (k === '.' || k === '..') throw new TypeError(`"${k}" is not allowed as a key name.`);
    return k;
  }
  // `get`'s second argument: a type, or `{ type, cacheTtl }`.
  function kvGetOptions(options) {
    if (options === undefined || options === null) return ['text', undefined];
    if (typeof options === 'string') return [options, undefined];
    const type = options.type === undefined ? 'text' : String(options.type);
    return [type, options.cacheTtl === undefined ? undefined : Number(options.cacheTtl)];
  }
  // A value's bytes as `type` asks; the type is checked once there is a
  // value, as on `workerd`.
  function kvValue(bytes, type) {
    switch (type) {
      case 'text': return kvText(bytes);
      case 'json': return JSON.parse(kvText(bytes));
      case 'arrayBuffer': return bytes.slice().buffer;
      case 'stream':
        return bytesStream(bytes.slice());
      default:
        throw new TypeError(`Unknown response type. Possible types are ${KV_TYPES.map((t) => `"${t}"`).join(', ').replace(/, ("stream")$/, ', and $1')}.`);
    }
  }
  // A number option as `workerd` converts it: what is not a number is 0.
  function kvNumber(n) {
    const v = Number(n);
    return Number.isNaN(v) ? 0 : v;
  }
  async function kvBytes(value) {
    if (typeof value === 'string') return new TextEncoderImpl().encode(value);
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return bufferSource(value);
    if (value instanceof ReadableStreamImpl) return readAllBytes(value, 'KV put');
    return new TextEncoderImpl().encode(String(value));
  }
  class KvNamespace {
    #name;
    constructor(token, name) {
      if (token !== makeKv) throw new TypeError('Illegal constructor');
      this.#name = name;
    }
    // One call of the host's (`calls::KV`): `[answer, bytes]`.
    #call(args, bytes) {
      return hostOp('kv', Object.assign({ binding: this.#name }, args), bytes);
    }
    async #read(key, options, withMetadata) {
      const [type, cacheTtl] = kvGetOptions(options);
      if (Array.isArray(key)) {
        const keys = key.map(kvKey);
        const [found, data] = await this.#call({ op: 'get', keys, bulk: true, type, cacheTtl });
        const out = new Map();
        let at = 0;
        keys.forEach((k, i) => {
          const f = found[i];
          if (f === null) {
            out.set(k, null);
            return;
          }
          const text = kvText(data.subarray(at, (at += f[0])));
          let value = text;
          if (type === 'json') {
            try {
              value = JSON.parse(text);
            } catch {
              throw new Error('KV GET_BULK failed: 400 At least one of the requested keys corresponds to a non-json value');
            }
          }
          out.set(k, withMetadata ? { value, metadata: f[1] } : value);
        });
        return out;
      }
      const [found, data] = await this.#call({ op: 'get', keys: [kvKey(key)], cacheTtl });
      const f = found[0];
      const value = f === null ? null : kvValue(data, type);
      return withMetadata ? { value, metadata: f === null ? null : f[1], cacheStatus: null } : value;
    }
    get(key, options) {
      return this.#read(key, options, false);
    }
    getWithMetadata(key, options) {
      return this.#read(key, options, true);
    }
    async put(key, value, options) {
      const args = { op: 'put', key: kvKey(key) };
      const o = options === undefined || options === null ? {} : options;
      if (o.expiration !== undefined) args.expiration = kvNumber(o.expiration);
      if (o.expirationTtl !== undefined) args.expirationTtl = kvNumber(o.expirationTtl);
      if (o.metadata !== undefined && o.metadata !== null) args.metadata = JSON.stringify(o.metadata);
      await this.#call(args, await kvBytes(value));
    }
    async delete(key) {
      await this.#call({ op: 'delete', key: kvKey(key) });
    }
    async list(options) {
      const o = options === undefined || options === null ? {} : options;
      const args = { op: 'list' };
      if (o.prefix !== undefined && o.prefix !== null) args.prefix = String(o.prefix);
      if (o.limit !== undefined && o.limit !== null) args.limit = kvNumber(o.limit);
      if (o.cursor !== undefined && o.cursor !== null) args.cursor = String(o.cursor);
      const [v] = await this.#call(args);
      const keys = v.keys.map((k) => {
        const key = { name: k.name };
        if (k.expiration !== undefined) key.expiration = k.expiration;
        if (k.metadata !== undefined) key.metadata = k.metadata;
        return key;
      });
      const out = { keys, list_complete: v.list_complete };
      if (v.cursor !== undefined) out.cursor = v.cursor;
      out.cacheStatus = null;
      return out;
    }
  }
  Object.defineProperty(KvNamespace.prototype, Symbol.toStringTag, { value: 'KvNamespace', configurable: true });
  const kvNamespace = (name) => new KvNamespace(makeKv, name);

