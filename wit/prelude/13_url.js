//! `URL` and `URLSearchParams`: the state here, parsing by the host.
//!
//! Defines: URLSearchParams, URL
//! Host calls: url
//! Rust: host/src/web/url.rs
//! WPT: url
//! Test plugin: tests/plugins/web-platform.js
  // ------------------------------------------------------- URL, URLSearchParams
  // WHATWG URL and URLSearchParams (checked by WPT's url/). The state lives
  // here; every parse, setter and form-encoding step is the host's
  // (`calls::URL`: the `url` crate, host/src/web/url.rs), which
  // implements the standard. Strings cross as USVStrings: a lone surrogate
  // becomes U+FFFD, as WebIDL converts them.
  // (`usv`: 00_core.js.)
  // The host's answer, or null for a URL that does not parse. Pure, so the
  // top level may call it.
  function urlCall(args) {
    const [ok, text] = hostCall('url', JSON.stringify(args));
    if (ok) return JSON.parse(text);
    if (text.startsWith('Invalid')) return null;
    throw new TypeError(text);
  }
  const clip = (s) => JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}...` : s);
  // A URL's attributes, in the order the host gives them.
  const [HREF, ORIGIN, PROTOCOL, USERNAME, PASSWORD, HOST, HOSTNAME, PORT, PATHNAME, SEARCH, HASH] = Array.from({ length: 11 }, (_, i) => i);
  const internal = Symbol('internal');
  function parseQuery(s) { return s === '' ? [] : urlCall({ op: 'params', query: s }); }
  function parseURL(url, base) {
    return urlCall({ op: 'parse', input: usv(url), base: base === undefined ? null : usv(base) });
  }
  function needArgs(args, n, what) {
    if (args.length < n) throw new TypeError(`Failed to execute '${what}': ${n} argument${n > 1 ? 's' : ''} required, but only ${args.length} present.`);
  }

  let attachParams; // (url, search) => a URLSearchParams updating url
  let reparseParams; // (params, search) => void
  let searchUpdated; // (url, query) => void
  class URLSearchParamsImpl {
    #list = [];
    #url = null;
    constructor(init = '') {
      if (init === internal) return;
      if ((typeof init === 'object' && init !== null) || typeof init === 'function') {
        const iterator = init[Symbol.iterator];
        if (iterator !== undefined && iterator !== null) {
          if (typeof iterator !== 'function') throw new TypeError("Failed to construct 'URLSearchParams': The object's @@iterator property is not callable.");
          for (const pair of init) {
            if ((typeof pair !== 'object' || pair === null) && typeof pair !== 'function') {
              throw new TypeError("Failed to construct 'URLSearchParams': The provided value cannot be converted to a sequence.");
            }
            const p = Array.from(pair);
            if (p.length !== 2) throw new TypeError("Failed to construct 'URLSearchParams': Sequence initializer must only contain pair elements");
            this.#list.push([usv(p[0]), usv(p[1])]);
          }
        } else {
          for (const k of Reflect.ownKeys(init)) {
            const d = Reflect.getOwnPropertyDescriptor(init, k);
            if (d === undefined || !d.enumerable) continue;
            const name = usv(k);
            const value = usv(init[k]);
            const at = this.#list.findIndex(([n]) => n === name);
            if (at < 0) this.#list.push([name, value]);
            else this.#list[at][1] = value;
          }
        }
      } else {
        const s = usv(init);
        this.#list = parseQuery(s.startsWith('?') ? s.slice(1) : s);
      }
    }
    static {
      attachParams = (url, search) => {
        const p = new URLSearchParamsImpl(internal);
        p.#url = url;
        p.#list = parseQuery(search.slice(1));
        return p;
      };
      reparseParams = (p, search) => { p.#list = parseQuery(search.slice(1)); };
    }
    #update() { if (this.#url !== null) searchUpdated(this.#url, this.toString()); }
    get size() { return this.#list.length; }
    append(name, value) { needArgs(arguments, 2, 'append'); this.#list.push([usv(name), usv(value)]); this.#update(); }
    delete(name, value) {
      needArgs(arguments, 1, 'delete');
      const n = usv(name);
      const v = value === undefined ? undefined : usv(value);
      this.#list = this.#list.filter(([k, x]) => !(k === n && (v === undefined || x === v)));
      this.#update();
    }
    get(name) { needArgs(arguments, 1, 'get'); const n = usv(name); const p = this.#list.find(([k]) => k === n); return p ? p[1] : null; }
    getAll(name) { needArgs(arguments, 1, 'getAll'); const n = usv(name); return this.#list.filter(([k]) => k === n).map(([, v]) => v); }
    has(name, value) {
      needArgs(arguments, 1, 'has');
      const n = usv(name);
      const v = value === undefined ? undefined : usv(value);
      return this.#list.some(([k, x]) => k === n && (v === undefined || x === v));
    }
    set(name, value) {
      needArgs(arguments, 2, 'set');
      const n = usv(name);
      const v = usv(value);
      const i = this.#list.findIndex(([k]) => k === n);
      if (i < 0) this.#list.push([n, v]);
      else this.#list = this.#list.filter(([k], j) => j <= i || k !== n).map((p, j) => (j === i ? [n, v] : p));
      this.#update();
    }
    sort() {
      // Array.prototype.sort is stable; `<` compares code units, as asked.
      this.#list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.#update();
    }
    forEach(fn, thisArg) {
      if (typeof fn !== 'function') throw new TypeError("Failed to execute 'forEach' on 'URLSearchParams': The callback provided as parameter 1 is not a function.");
      for (let i = 0; i < this.#list.length; i++) fn.call(thisArg, this.#list[i][1], this.#list[i][0], this);
    }
    *keys() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0]; }
    *values() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1]; }
    *entries() { for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]; }
    toString() { return this.#list.length === 0 ? '' : urlCall({ op: 'form', list: this.#list }); }
  }
  Object.defineProperty(URLSearchParamsImpl.prototype, Symbol.iterator, { value: URLSearchParamsImpl.prototype.entries, writable: true, configurable: true });
  Object.defineProperty(URLSearchParamsImpl.prototype, Symbol.toStringTag, { value: 'URLSearchParams', configurable: true });

  class URLImpl {
    #c;
    #params = null;
    constructor(url, base) {
      if (url === internal) { this.#c = base; return; }
      needArgs(arguments, 1, 'URL');
      const c = parseURL(url, base);
      if (c === null) throw new TypeError(`Invalid URL: ${clip(usv(url))}${base === undefined ? '' : ` against ${clip(usv(base))}`}`);
      this.#c = c;
    }
    static {
      searchUpdated = (url, query) => { url.#c = urlCall({ op: 'set', href: url.#c[HREF], field: 'search', value: query }); };
    }
    static parse(url, base) {
      needArgs(arguments, 1, 'parse');
      const c = parseURL(url, base);
      return c === null ? null : new URLImpl(internal, c);
    }
    static canParse(url, base) { needArgs(arguments, 1, 'canParse'); return parseURL(url, base) !== null; }
    #set(field, value) {
      const c = urlCall({ op: 'set', href: this.#c[HREF], field, value: usv(value) });
      if (c === null) throw new TypeError(`Invalid URL: ${clip(usv(value))}`);
      this.#c = c;
      if (this.#params !== null && (field === 'href' || field === 'search')) reparseParams(this.#params, c[SEARCH]);
    }
    get href() { return this.#c[HREF]; }
    set href(v) { this.#set('href', v); }
    get origin() { return this.#c[ORIGIN]; }
    get protocol() { return this.#c[PROTOCOL]; }
    set protocol(v) { this.#set('protocol', v); }
    get username() { return this.#c[USERNAME]; }
    set username(v) { this.#set('username', v); }
    get password() { return this.#c[PASSWORD]; }
    set password(v) { this.#set('password', v); }
    get host() { return this.#c[HOST]; }
    set host(v) { this.#set('host', v); }
    get hostname() { return this.#c[HOSTNAME]; }
    set hostname(v) { this.#set('hostname', v); }
    get port() { return this.#c[PORT]; }
    set port(v) { this.#set('port', v); }
    get pathname() { return this.#c[PATHNAME]; }
    set pathname(v) { this.#set('pathname', v); }
    get search() { return this.#c[SEARCH]; }
    set search(v) { this.#set('search', v); }
    get searchParams() {
      if (this.#params === null) this.#params = attachParams(this, this.#c[SEARCH]);
      return this.#params;
    }
    get hash() { return this.#c[HASH]; }
    set hash(v) { this.#set('hash', v); }
    toString() { return this.#c[HREF]; }
    toJSON() { return this.#c[HREF]; }
  }
  Object.defineProperty(URLImpl.prototype, Symbol.toStringTag, { value: 'URL', configurable: true });
  for (const name of ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'searchParams', 'hash']) {
    Object.defineProperty(URLImpl.prototype, name, Object.assign(Object.getOwnPropertyDescriptor(URLImpl.prototype, name), { enumerable: true }));
  }
  defineMissing('URLSearchParams', URLSearchParamsImpl);
  defineMissing('URL', URLImpl);

