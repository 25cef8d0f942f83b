//! The Workers Cache API (`caches`, `Cache`), kept by the host in its page
//! cache.
//!
//! Defines: caches, CacheStorage, Cache
//! Host calls: cache
//! Rust: host/src/cache/api.rs
//! WPT: none
//! Test plugin: tests/plugins/caches.js
  // ----------------------------------------------------------------- caches
  // The Workers Cache API, kept by the host in its page cache
  // (`calls::CACHE`, `host/src/cache/api.rs`) by the page cache's rules:
  // per tenant, bounded in bytes, expiring by the response's
  // `Cache-Control`, never keeping a response that sets a cookie, and
  // matching a `Vary`ing response only for the same header values.
  function cacheRequest(request, op) {
    const req = request instanceof RequestImpl ? request : new RequestImpl(request);
    if (!/^https?:$/.test(new URLImpl(req._url).protocol)) throw new TypeError(`cache.${op}: only http and https URLs are cached, not ${req._url}`);
    return req;
  }
  function cacheCall(op, name, req, response, body) {
    const args = { op, name, url: req._url, headers: req._headers._list.map(([k, v]) => [k, v]), response };
    return host('cache', args, body);
  }
  // A cache is made by `caches` alone, as on workerd.
  const makeCache = Symbol('cache');
  class CacheImpl {
    constructor(token, name) {
      if (token !== makeCache) throw new TypeError('Illegal constructor');
      this._name = name;
    }
    async match(request, options = {}) {
      const req = cacheRequest(request, 'match');
      if (req._method !== 'GET' && !(options && options.ignoreMethod)) return undefined;
      const { value, data } = cacheCall('match', this._name, req);
      if (value === null) return undefined;
      const headers = new HeadersImpl(value.headers);
      headers.set('cf-cache-status', 'HIT');
      return new ResponseImpl(NULL_BODY.includes(value.status) ? null : data, { status: value.status, headers });
    }
    async put(request, response) {
      const req = cacheRequest(request, 'put');
      if (req._method !== 'GET') throw new TypeError('cache.put: only a response to a GET request is cached');
      if (!(response instanceof ResponseImpl)) throw new TypeError('cache.put: the second argument must be a Response');
      if (response._status === 206) throw new TypeError('cache.put: a partial response (206) is not cached');
      const vary = response._headers.get('vary');
      if (vary !== null && vary.split(',').some((v) => v.trim() === '*')) throw new TypeError('cache.put: a response with Vary: * is not cached');
      if (response.bodyUsed) throw new TypeError('cache.put: the response body was already read');
      const body = new Uint8Array(await response.arrayBuffer());
      const head = { status: response._status, headers: response._headers._list.map(([k, v]) => [k, v]), ttl: ttlOf(response._headers.get('cache-control')) };
      cacheCall('put', this._name, req, head, body);
    }
    async delete(request, options = {}) {
      const req = cacheRequest(request, 'delete');
      if (req._method !== 'GET' && !(options && options.ignoreMethod)) return false;
      return cacheCall('delete', this._name, req).value;
    }
    get [Symbol.toStringTag]() { return 'Cache'; }
  }
  // `caches` is the one instance of `CacheStorage`, which cannot be made
  // (`caches instanceof CacheStorage`), as on `workerd`.
  function CacheStorage() { throw new TypeError('Illegal constructor'); }
  Object.defineProperties(CacheStorage.prototype, {
    open: {
      async value(name) {
        // The default cache's name is '' so that no opened name is the same.
        return new CacheImpl(makeCache, `:${String(name)}`);
      },
      writable: true,
      configurable: true,
      enumerable: true,
    },
    [Symbol.toStringTag]: { value: 'CacheStorage', configurable: true },
  });
  const cacheStorage = Object.create(CacheStorage.prototype);
  cacheStorage.default = new CacheImpl(makeCache, '');
  defineMissing('caches', cacheStorage);
  defineMissing('CacheStorage', CacheStorage);
  defineMissing('Cache', CacheImpl);

