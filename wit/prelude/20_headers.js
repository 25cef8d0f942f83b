//! `Headers`, as the Fetch standard and undici define it.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: fetch/api/headers
//! Test plugin: tests/plugins/headers.js
  // -------------------------------------------- Headers, Blob, FormData,
  // ------------------------------------------------- Request and Response
  // The Fetch standard's classes, with Node's (undici's) behaviour as the
  // reference. A body is a string, bytes or a ReadableStream of bytes (read
  // whole where the host needs it whole). A request's `signal` follows the
  // one it was made with; a `fetch` whose signal aborts rejects with its
  // reason.
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  const encoder = () => new g.TextEncoder();
  const decoder = () => new g.TextDecoder();

  // Header names and values already checked, each with what it became
  // (a lower-case name; a value without the whitespace at its ends): most
  // responses set the same few (`content-type: text/html`), and a regular
  // expression's test costs about 1 us in QuickJS on Wasm, its replace 3
  // (`ssr render --repeat`, a page making Headers in a loop). Bounded:
  // cleared when full, and only short strings are kept.
  const checkedNames = new Map();
  const checkedValues = new Map();
  function remember(map, key, value) {
    if (key.length <= 64) {
      if (map.size >= 256) map.clear();
      map.set(key, value);
    }
    return value;
  }
  const isHttpSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13;
  function headerValue(value) {
    const s = typeof value === 'string' ? value : String(value);
    const known = checkedValues.get(s);
    if (known !== undefined) return known;
    let v = s;
    if (v.length > 0 && (isHttpSpace(v.charCodeAt(0)) || isHttpSpace(v.charCodeAt(v.length - 1)))) {
      v = v.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    }
    if (/[\0\r\n\u0100-\uffff]/.test(v)) throw new TypeError(`Headers.append: "${v}" is an invalid header value.`);
    return remember(checkedValues, s, v);
  }

  // The request headers a render reads become part of its cache key (the
  // host keys the page on their values): a Headers with `_reads` records
  // each name read and '*' when all are listed.
  class HeadersImpl {
    constructor(init) {
      this._list = [];
      this._reads = null;
      if (init === undefined) return;
      if (init === null) throw new TypeError("Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'.");
      if (init instanceof HeadersImpl) {
        if (init._reads) init._reads.add('*');
        this._list = init._list.map(([k, v]) => [k, v]);
      } else if (typeof init !== 'object') {
        throw new TypeError("Headers constructor: expected a record or a sequence of name/value pairs");
      } else if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const p = Array.from(pair);
          if (p.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${p.length}.`);
          this.append(p[0], p[1]);
        }
      } else {
        for (const k of Object.keys(init)) this.append(k, init[k]);
      }
    }
    _name(name, op) {
      const s = typeof name === 'string' ? name : String(name);
      const known = checkedNames.get(s);
      if (known !== undefined) return known;
      if (!TOKEN.test(s)) throw new TypeError(`Headers.${op}: "${s}" is an invalid header name.`);
      return remember(checkedNames, s, s.toLowerCase());
    }
    _read(name) {
      if (this._reads) this._reads.add(name);
      return name;
    }
    // A fetched response's headers, and an error's or a redirect's, are
    // immutable (the Fetch standard's guard), as on Workers.
    _mutable(op) {
      if (this._immutable) throw new TypeError(`Headers.${op}: these headers are immutable (a fetched response's: copy them with new Response(body, response))`);
    }
    append(name, value) {
      this._mutable('append');
      const n = this._name(name, 'append');
      this._list.push([n, headerValue(value)]);
    }
    delete(name) {
      this._mutable('delete');
      const n = this._name(name, 'delete');
      this._list = this._list.filter(([k]) => k !== n);
    }
    // Lists that every request walks are walked by index: a destructured
    // pair takes QuickJS through the iterator protocol
    // (docs/development.md, "What the prelude costs a render").
    get(name) {
      const n = this._read(this._name(name, 'get'));
      let out = null;
      for (let i = 0; i < this._list.length; i++) {
        const p = this._list[i];
        if (p[0] === n) out = out === null ? p[1] : `${out}, ${p[1]}`;
      }
      return out;
    }
    getSetCookie() {
      this._read('set-cookie');
      return this._list.filter(([k]) => k === 'set-cookie').map(([, v]) => v);
    }
    has(name) {
      const n = this._read(this._name(name, 'has'));
      for (let i = 0; i < this._list.length; i++) if (this._list[i][0] === n) return true;
      return false;
    }
    set(name, value) {
      this._mutable('set');
      const n = this._name(name, 'set');
      this.delete(n);
      this.append(n, value);
    }
    // The Fetch standard's "sort and combine": by name, a name's values
    // joined, each `set-cookie` apart.
    _sorted() {
      if (this._reads) this._reads.add('*');
      const out = [];
      for (const n of Array.from(new Set(this._list.map(([k]) => k))).sort()) {
        if (n === 'set-cookie') {
          for (const [k, v] of this._list) if (k === n) out.push([n, v]);
        } else {
          out.push([n, this._list.filter(([k]) => k === n).map(([, v]) => v).join(', ')]);
        }
      }
      return out;
    }
    entries() { return headersIterator(this, (p) => [p[0], p[1]]); }
    keys() { return headersIterator(this, (p) => p[0]); }
    values() { return headersIterator(this, (p) => p[1]); }
    forEach(fn, thisArg) {
      for (let i = 0, all = this._sorted(); i < all.length; i++, all = this._sorted()) fn.call(thisArg, all[i][1], all[i][0], this);
    }
    [Symbol.iterator]() { return this.entries(); }
    get [Symbol.toStringTag]() { return 'Headers'; }
  }
  // WebIDL's pair iterator: live, so each step sorts the list as it is
  // then and takes the next index (a header added or removed during the
  // walk moves what comes next, as the standard says).
  const HeadersIteratorPrototype = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())), {
    next: {
      value() {
        const it = headersIterators.get(this);
        if (it === undefined) throw new TypeError("Illegal invocation: next() of a Headers iterator");
        const all = it.headers._sorted();
        if (it.at >= all.length) return { value: undefined, done: true };
        return { value: it.pick(all[it.at++]), done: false };
      },
      writable: true,
      configurable: true,
      enumerable: true,
    },
    [Symbol.toStringTag]: { value: 'Headers Iterator', configurable: true },
  });
  const headersIterators = new WeakMap();
  function headersIterator(headers, pick) {
    const it = Object.create(HeadersIteratorPrototype);
    headersIterators.set(it, { headers, pick, at: 0 });
    return it;
  }

