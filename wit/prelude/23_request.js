//! `Request`.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: fetch/api/request
//! Test plugin: tests/plugins/handler.js
  const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
  // RequestInit's enumerations, as WebIDL checks them.
  const REQUEST_ENUMS = {
    mode: ['navigate', 'same-origin', 'no-cors', 'cors'],
    credentials: ['omit', 'same-origin', 'include'],
    cache: ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'],
    redirect: ['follow', 'error', 'manual'],
    referrerPolicy: ['', 'no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin', 'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url'],
    priority: ['high', 'low', 'auto'],
    duplex: ['half'],
  };
  function requestEnum(init, name, fallback) {
    const v = init[name];
    if (v === undefined) return fallback;
    const str = String(v);
    if (!REQUEST_ENUMS[name].includes(str)) {
      throw new TypeError(`Failed to construct 'Request': The provided value '${str}' is not a valid enum value of type Request${name[0].toUpperCase()}${name.slice(1)}.`);
    }
    return str;
  }
  // A clone's body: a copy of the bytes, or a branch of the stream's tee.
  function cloneBody(from, to) {
    if (from._body instanceof Uint8Array) to._body = from._body.slice();
    if (from._body instanceof ReadableStreamImpl) [from._body, to._body] = from._body.tee();
  }
  const unusable = (r) => r._used || streamUsed(r._body) || (r._body instanceof ReadableStreamImpl && r._body.locked);
  // The Fetch standard's Request constructor, its steps in order (what
  // applies without a document: no window, no client, no navigation), but
  // for two refusals workerd does not make and Workers apps rely on (a
  // stream body without `duplex`, a URL with credentials).
  // Workers' `cf` of a request or response: plain data, copied as
  // `workerd` copies it (as JSON).
  function cfOf(value, dict) {
    if (typeof value !== 'object') {
      throw new TypeError(`Incorrect type for the 'cf' field on '${dict}': the provided value is not of type 'Object'.`);
    }
    return JSON.parse(JSON.stringify(value));
  }
  class RequestImpl {
    constructor(input, init) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'Request': 1 argument required, but only 0 present.");
      if (init !== undefined && init !== null && typeof init !== 'object' && typeof init !== 'function') {
        throw new TypeError("Failed to construct 'Request': The provided value is not of type 'RequestInit'.");
      }
      const i = init === undefined || init === null ? {} : init;
      const from = input instanceof RequestImpl ? input : null;
      let url;
      if (from) {
        url = from._url;
      } else {
        // A URL with credentials is accepted, as on workerd (the standard
        // refuses it).
        try {
          url = new URLImpl(String(input)).href;
        } catch (_) {
          throw new TypeError(`Failed to parse URL from ${String(input)}`);
        }
      }
      if (i.window !== undefined && i.window !== null) throw new TypeError("Failed to construct 'Request': 'window' can only be null.");
      let referrer = from ? from._referrer : 'about:client';
      if (i.referrer !== undefined) {
        const r = String(i.referrer);
        if (r === '') referrer = 'no-referrer';
        else {
          let parsed;
          try {
            parsed = new URLImpl(r, url);
          } catch (_) {
            throw new TypeError(`Failed to construct 'Request': Referrer '${r}' is not a valid URL.`);
          }
          referrer = parsed.href === 'about:client' ? 'about:client' : parsed.href;
        }
      }
      this._referrer = referrer;
      this._referrerPolicy = requestEnum(i, 'referrerPolicy', from ? from._referrerPolicy : '');
      const mode = requestEnum(i, 'mode', from ? from._mode : 'cors');
      if (mode === 'navigate') throw new TypeError("Failed to construct 'Request': Cannot construct a Request with a RequestInit whose mode member is set as 'navigate'.");
      this._mode = mode;
      this._credentials = requestEnum(i, 'credentials', from ? from._credentials : 'same-origin');
      this._cache = requestEnum(i, 'cache', from ? from._cache : 'default');
      if (this._cache === 'only-if-cached' && this._mode !== 'same-origin') {
        throw new TypeError("Failed to construct 'Request': 'only-if-cached' can be set only with 'same-origin' mode");
      }
      this._redirect = requestEnum(i, 'redirect', from ? from._redirect : 'follow');
      this._integrity = i.integrity !== undefined ? String(i.integrity) : from ? from._integrity : '';
      this._keepalive = i.keepalive !== undefined ? Boolean(i.keepalive) : from ? from._keepalive : false;
      let method = from ? from._method : 'GET';
      if (i.method !== undefined) {
        method = String(i.method);
        if (!TOKEN.test(method)) throw new TypeError(`'${method}' is not a valid HTTP method.`);
        if (['CONNECT', 'TRACE', 'TRACK'].includes(method.toUpperCase())) throw new TypeError(`'${method}' HTTP method is unsupported.`);
        if (METHODS.includes(method.toUpperCase())) method = method.toUpperCase();
      }
      const signal = i.signal !== undefined && i.signal !== null ? i.signal : from ? from.signal : undefined;
      if (signal !== undefined && !(signal instanceof AbortSignalImpl)) {
        throw new TypeError("Failed to construct 'Request': member signal is not of type AbortSignal.");
      }
      requestEnum(i, 'priority', 'auto');
      if (i.cf !== undefined && i.cf !== null) this._cf = cfOf(i.cf, 'RequestInitializerDict');
      else if (from && from._cf !== undefined) this._cf = cfOf(from._cf);
      this._url = url;
      this._method = method;
      // Made when first read: most requests never read theirs.
      this._signal = signal === undefined ? undefined : AbortSignalImpl.any([signal]);
      if (this._mode === 'no-cors' && !['GET', 'HEAD', 'POST'].includes(method)) {
        throw new TypeError(`Failed to construct 'Request': '${method}' is unsupported in no-cors mode.`);
      }
      this._headers = new HeadersImpl(i.headers !== undefined ? i.headers : from ? from._headers : undefined);
      const body = i.body !== undefined ? i.body : null;
      const inputBody = from ? from._body : null;
      if ((body !== null || inputBody !== null) && (method === 'GET' || method === 'HEAD')) {
        throw new TypeError('Request with GET/HEAD method cannot have body.');
      }
      // A stream body needs no `duplex: 'half'`, as on workerd (the
      // standard, and Node, require it): Workers apps forward a request's
      // body without it.
      requestEnum(i, 'duplex', 'half');
      this._body = null;
      this._used = false;
      if (body !== null) {
        setBody(this, body);
      } else if (inputBody !== null) {
        if (unusable(from)) throw new TypeError('Cannot construct a Request with a Request object that has already been used.');
        // The body moves to the new request (a stream through a proxy, as
        // the standard says): the input's is now used.
        if (inputBody instanceof ReadableStreamImpl) {
          const proxy = new TransformStreamImpl();
          quietly(pipe(inputBody, proxy._writable, pipeOptions(undefined)));
          this._body = proxy._readable;
        } else {
          this._body = inputBody;
          from._used = true;
        }
      }
    }
    get url() { return this._url; }
    get method() { return this._method; }
    get headers() { return this._headers; }
    get redirect() { return this._redirect; }
    get signal() {
      if (this._signal === undefined) this._signal = newSignal();
      return this._signal;
    }
    get cache() { return this._cache; }
    get credentials() { return this._credentials; }
    get mode() { return this._mode; }
    get destination() { return ''; }
    get referrer() { return this._referrer === 'no-referrer' ? '' : this._referrer; }
    get referrerPolicy() { return this._referrerPolicy; }
    get integrity() { return this._integrity; }
    get keepalive() { return this._keepalive; }
    get isReloadNavigation() { return false; }
    get isHistoryNavigation() { return false; }
    get duplex() { return 'half'; }
    get cf() { return this._cf; }
    clone() {
      if (unusable(this)) throw new TypeError('Request.clone: Body has already been consumed.');
      const r = Object.create(RequestImpl.prototype);
      // Listing the headers marks them all read (the page varies on them).
      Object.assign(r, this, { _headers: new HeadersImpl(this._headers) });
      if (this._signal !== undefined) r._signal = AbortSignalImpl.any([this._signal]);
      cloneBody(this, r);
      return r;
    }
    get [Symbol.toStringTag]() { return 'Request'; }
  }
  withBody(RequestImpl);
  // What a request the host made (the incoming one) has: the defaults.
  for (const [k, v] of Object.entries({ _referrer: 'about:client', _referrerPolicy: '', _mode: 'cors', _credentials: 'same-origin', _cache: 'default', _integrity: '', _keepalive: false, _cf: undefined })) {
    Object.defineProperty(RequestImpl.prototype, k, { value: v, writable: true, configurable: true });
  }

