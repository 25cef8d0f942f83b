//! `Blob`, `File` and `FormData`.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: FileAPI/blob
//! Test plugin: tests/plugins/handler.js
  // A body's bytes as a new Uint8Array (strings as UTF-8).
  function bytesOf(part) {
    if (typeof part === 'string') return encoder().encode(part);
    if (part instanceof BlobImpl) return part._bytes;
    if (part instanceof ArrayBuffer) return new Uint8Array(part.slice(0));
    if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer.slice(part.byteOffset, part.byteOffset + part.byteLength));
    return encoder().encode(String(part));
  }
  function concat(chunks) {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out;
  }

  // WebIDL's [Clamp] long long (Blob.slice's offsets): the nearest
  // integer, a tie to the even one.
  function clampInteger(v) {
    const n = Number(v);
    if (Number.isNaN(n)) return 0;
    if (!Number.isFinite(n)) return n > 0 ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER;
    const f = Math.floor(n);
    const d = n - f;
    const r = d < 0.5 ? f : d > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
    return r === 0 ? 0 : r;
  }
  const isBytes = (p) => p instanceof BlobImpl || p instanceof ArrayBuffer || ArrayBuffer.isView(p);
  class BlobImpl {
    // As the File API says: the parts are converted in order (each a
    // buffer, a Blob or a string), then the options, `endings` before
    // `type`; with `endings: 'native'` a string's line breaks are LF.
    constructor(parts = undefined, options = undefined) {
      let items = [];
      if (parts !== undefined) {
        if ((typeof parts !== 'object' && typeof parts !== 'function') || parts === null || typeof parts[Symbol.iterator] !== 'function') {
          throw new TypeError("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
        }
        items = Array.from(parts, (p) => (isBytes(p) ? p : `${p}`));
      }
      if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw new TypeError("Failed to construct 'Blob': The provided value is not of type 'BlobPropertyBag'.");
      }
      const givenEndings = options == null ? undefined : options.endings;
      const endings = givenEndings === undefined ? 'transparent' : `${givenEndings}`;
      if (endings !== 'transparent' && endings !== 'native') {
        throw new TypeError(`Failed to construct 'Blob': The provided value '${endings}' is not a valid enum value of type EndingType.`);
      }
      const givenType = options == null ? undefined : options.type;
      const type = givenType === undefined ? '' : `${givenType}`;
      const native = endings === 'native';
      this._bytes = concat(items.map((p) => bytesOf(native && typeof p === 'string' ? p.replace(/\r\n?/g, '\n') : p)));
      this._type = /^[\u0020-\u007e]*$/.test(type) ? type.toLowerCase() : '';
    }
    get size() { return this._bytes.length; }
    get type() { return this._type; }
    slice(start = undefined, end = undefined, type = undefined) {
      const size = this.size;
      const at = (v, absent) => {
        if (v === undefined) return absent;
        const i = clampInteger(v);
        return i < 0 ? Math.max(size + i, 0) : Math.min(i, size);
      };
      const from = at(start, 0);
      const to = at(end, size);
      const b = new BlobImpl([], { type: type === undefined ? '' : `${type}` });
      b._bytes = this._bytes.slice(from, Math.max(from, to));
      return b;
    }
    // A new byte stream each call, read 64 KiB at a time.
    stream() {
      const bytes = this._bytes;
      let at = 0;
      return new ReadableStreamImpl({
        type: 'bytes',
        pull(c) {
          if (at >= bytes.length) {
            c.close();
            const pending = c.byobRequest;
            if (pending) pending.respond(0);
            return;
          }
          const n = Math.min(65536, bytes.length - at);
          c.enqueue(bytes.slice(at, at + n));
          at += n;
        },
      });
    }
    text() { return Promise.resolve(decoder().decode(this._bytes)); }
    arrayBuffer() { return Promise.resolve(this._bytes.slice().buffer); }
    bytes() { return Promise.resolve(this._bytes.slice()); }
    get [Symbol.toStringTag]() { return 'Blob'; }
  }
  // File: its name and `lastModified` (WebIDL's `long long`: read once, a
  // number that is not finite is 0, a BigInt refused), as on `workerd`.
  class FileImpl extends BlobImpl {
    #name;
    #lastModified;
    constructor(parts, name, options = undefined) {
      if (arguments.length < 2) {
        throw new TypeError(`Failed to construct 'File': 2 arguments required, but only ${arguments.length} present.`);
      }
      super(parts, options);
      this.#name = `${name}`;
      const given = options === undefined || options === null ? undefined : options.lastModified;
      if (given === undefined) {
        this.#lastModified = Date.now();
      } else {
        // ToNumber, as WebIDL converts: a BigInt is a TypeError (`Number()`
        // would take it).
        const n = +given;
        this.#lastModified = Number.isFinite(n) ? Math.trunc(n) : 0;
      }
    }
    get name() {
      if (!(#name in this)) throw new TypeError('Illegal invocation');
      return this.#name;
    }
    get lastModified() {
      if (!(#name in this)) throw new TypeError('Illegal invocation');
      return this.#lastModified;
    }
    get [Symbol.toStringTag]() { return 'File'; }
  }
  // Its attributes are enumerable, as WebIDL's are.
  for (const key of ['name', 'lastModified']) {
    Object.defineProperty(FileImpl.prototype, key, { ...Object.getOwnPropertyDescriptor(FileImpl.prototype, key), enumerable: true });
  }

  class FormDataImpl {
    constructor(form) {
      if (form !== undefined) throw new TypeError("FormData constructor: a form element is not available on a server; build it with append()");
      this._list = [];
    }
    _entry(value, filename) {
      if (!(value instanceof BlobImpl)) return String(value);
      if (value instanceof FileImpl && filename === undefined) return value;
      return new FileImpl([value], filename === undefined ? 'blob' : String(filename), { type: value.type });
    }
    append(name, value, filename) { this._list.push([String(name), this._entry(value, filename)]); }
    delete(name) { this._list = this._list.filter(([k]) => k !== String(name)); }
    get(name) { const p = this._list.find(([k]) => k === String(name)); return p ? p[1] : null; }
    getAll(name) { return this._list.filter(([k]) => k === String(name)).map(([, v]) => v); }
    has(name) { return this._list.some(([k]) => k === String(name)); }
    set(name, value, filename) {
      const n = String(name);
      const i = this._list.findIndex(([k]) => k === n);
      const entry = [n, this._entry(value, filename)];
      if (i < 0) this._list.push(entry);
      else this._list = this._list.filter(([k], j) => j <= i || k !== n).map((p, j) => (j === i ? entry : p));
    }
    *entries() { for (const [k, v] of this._list) yield [k, v]; }
    *keys() { for (const [k] of this._list) yield k; }
    *values() { for (const [, v] of this._list) yield v; }
    forEach(fn, thisArg) { for (const [k, v] of this._list) fn.call(thisArg, v, k, this); }
    [Symbol.iterator]() { return this.entries(); }
    get [Symbol.toStringTag]() { return 'FormData'; }
  }

