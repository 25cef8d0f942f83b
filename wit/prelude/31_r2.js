//! R2: `env.X` of each bucket the app's wrangler config binds
//! (`r2_buckets`), an `R2Bucket` whose calls the host answers from the
//! server's store, through the engine's wait like a request. Bodies go a
//! piece at a time both ways: a large object is read as its stream is
//! pulled, and a stream is written as it is read.
//!
//! Defines: none
//! Host calls: r2
//! Rust: host/src/bindings/r2/mod.rs
//! WPT: none
//! Test plugin: tests/plugins/r2.js
  // ---------------------------------------------------------------- R2
  // Arguments are converted and checked here, as `workerd` does, with its
  // TypeErrors; the host checks every limit again and refuses in R2's
  // words (`put: The specified object name is not valid. (10020)`), as an
  // `Error`.
  const makeR2 = Symbol('r2');
  // A streamed body goes to the host in pieces of about this size.
  const R2_PIECE = 256 * 1024;
  const R2_CHECKSUMS = [['md5', 'MD5', 16], ['sha1', 'SHA-1', 20], ['sha256', 'SHA-256', 32], ['sha384', 'SHA-384', 48], ['sha512', 'SHA-512', 64]];
  const R2_HTTP = [['contentType', 'content-type'], ['contentLanguage', 'content-language'], ['contentDisposition', 'content-disposition'], ['contentEncoding', 'content-encoding'], ['cacheControl', 'cache-control']];
  function r2Unhex(hex) {
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
    return out.buffer;
  }

  // `httpMetadata` as the host keeps it: from an object, or from Headers.
  function r2Http(h) {
    if (h === undefined || h === null) return undefined;
    const out = {};
    if (h instanceof HeadersImpl) {
      for (const [field, header] of R2_HTTP) {
        const v = h.get(header);
        if (v !== null) out[field] = v;
      }
      const expires = h.get('expires');
      if (expires !== null && !Number.isNaN(Date.parse(expires))) out.cacheExpiry = Date.parse(expires);
      return out;
    }
    for (const [field] of R2_HTTP) if (h[field] !== undefined) out[field] = String(h[field]);
    if (h.cacheExpiry !== undefined) out.cacheExpiry = h.cacheExpiry instanceof Date ? h.cacheExpiry.getTime() : Number(h.cacheExpiry);
    return out;
  }
  function r2Custom(c) {
    if (c === undefined || c === null) return undefined;
    return Object.entries(c).map(([k, v]) => [String(k), String(v)]);
  }
  // The one checksum a put may give: `[name, hex]`.
  function r2Checksum(o) {
    const given = R2_CHECKSUMS.filter(([name]) => o[name] !== undefined);
    if (given.length === 0) return undefined;
    if (given.length > 1) throw new TypeError('You cannot specify multiple hashing algorithms.');
    const [name, shown, bytes] = given[0];
    const v = o[name];
    if (typeof v === 'string') {
      if (v.length !== bytes * 2 || /[^0-9a-fA-F]/.test(v)) throw new TypeError(`${shown} is ${bytes * 2} hex characters, not ${v.length}`);
      return [name, v.toLowerCase()];
    }
    const b = bufferSourceBytes(v);
    if (b.byteLength !== bytes) throw new TypeError(`${shown} is ${bytes} bytes, not ${b.byteLength}`);
    return [name, hexOf(b)];
  }
  // An etag condition: `*`, or unquoted tags (a header's are quoted).
  function r2Etags(v, header) {
    if (v === undefined || v === null) return undefined;
    const list = Array.isArray(v) ? v : header ? String(v).split(',') : [v];
    return list.map((t) => {
      let s = String(t).trim();
      if (s === '*') return {};
      let weak = false;
      if (header) {
        if (s.startsWith('W/')) {
          weak = true;
          s = s.slice(2);
        }
        if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) s = s.slice(1, -1);
      } else if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
        throw new TypeError(`Conditional ETag should not be wrapped in quotes (${s}).`);
      }
      return { value: s, weak };
    });
  }
  function r2Conditions(c) {
    if (c === undefined || c === null) return undefined;
    const out = {};
    if (c instanceof HeadersImpl) {
      const get = (n) => c.get(n);
      if (get('if-match') !== null) out.etagMatches = r2Etags(get('if-match'), true);
      if (get('if-none-match') !== null) out.etagDoesNotMatch = r2Etags(get('if-none-match'), true);
      if (get('if-modified-since') !== null) out.uploadedAfter = Date.parse(get('if-modified-since'));
      if (get('if-unmodified-since') !== null) out.uploadedBefore = Date.parse(get('if-unmodified-since'));
      out.secondsGranularity = true;
      return out;
    }
    if (c.etagMatches !== undefined) out.etagMatches = r2Etags(c.etagMatches, false);
    if (c.etagDoesNotMatch !== undefined) out.etagDoesNotMatch = r2Etags(c.etagDoesNotMatch, false);
    if (c.uploadedBefore !== undefined) out.uploadedBefore = new Date(c.uploadedBefore).getTime();
    if (c.uploadedAfter !== undefined) out.uploadedAfter = new Date(c.uploadedAfter).getTime();
    if (c.secondsGranularity !== undefined) out.secondsGranularity = Boolean(c.secondsGranularity);
    return out;
  }
  function r2Range(args, r) {
    if (r === undefined || r === null) return;
    if (r instanceof HeadersImpl) {
      const h = r.get('range');
      if (h !== null) args.rangeHeader = h;
      return;
    }
    if (typeof r !== 'object') throw new TypeError("Incorrect type for the 'range' field on 'GetOptions': the provided value is not of type 'Range or Headers'.");
    const out = {};
    for (const k of ['offset', 'length', 'suffix']) if (r[k] !== undefined) out[k] = Number(r[k]);
    if (out.suffix !== undefined && (out.offset !== undefined || out.length !== undefined)) throw new TypeError('Suffix is incompatible with offset.');
    if (out.offset < 0) throw new RangeError(`Invalid range. Starting offset (${out.offset}) must be greater than or equal to 0.`);
    if (out.length < 0) throw new RangeError(`Invalid range. Length (${out.length}) must be greater than or equal to 0.`);
    args.range = out;
  }
  // A value to put: its bytes, or a stream of known length.
  function r2Value(v, what) {
    if (v === null || v === undefined) return new Uint8Array(0);
    if (typeof v === 'string') return new TextEncoderImpl().encode(v);
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return bufferSourceBytes(v);
    if (v instanceof BlobImpl) return v._bytes;
    if (v instanceof ReadableStreamImpl) {
      if (!knownLengths.has(v)) throw new TypeError('Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)');
      return v;
    }
    throw new TypeError(`Failed to execute '${what}' on 'R2Bucket': parameter 2 is not of type 'JsReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'.`);
  }

  class R2Checksums {
    constructor(token, list) {
      if (token !== makeR2) throw new TypeError('Illegal constructor');
      for (const [name] of R2_CHECKSUMS) {
        const found = list.find(([n]) => n === name);
        if (found !== undefined) this[name] = r2Unhex(found[1]);
      }
    }
    toJSON() {
      const out = {};
      for (const [name] of R2_CHECKSUMS) if (this[name] !== undefined) out[name] = hexOf(new Uint8Array(this[name]));
      return out;
    }
  }
  class HeadResult {
    constructor(token) {
      if (token !== makeR2) throw new TypeError('Illegal constructor');
    }
    writeHttpMetadata(headers) {
      const h = this.httpMetadata;
      for (const [field, header] of R2_HTTP) if (h[field] !== undefined) headers.set(header, h[field]);
      if (h.cacheExpiry !== undefined) headers.set('expires', h.cacheExpiry.toUTCString());
    }
  }
  class GetResult extends HeadResult {
    #body;
    constructor(token, body) {
      super(token);
      this.#body = body;
    }
    get body() { return this.#body; }
    get bodyUsed() { return this.#body._disturbed === true; }
    #bytes() {
      if (this.#body._disturbed || this.#body.locked) return Promise.reject(new TypeError('Body has already been used. It can only be used once. Use tee() first if you need to read it twice.'));
      return readAllBytes(this.#body, 'reading the object');
    }
    async arrayBuffer() { return (await this.#bytes()).buffer; }
    async bytes() { return this.#bytes(); }
    async text() { return new TextDecoderImpl().decode(await this.#bytes()); }
    async json() { return JSON.parse(await this.text()); }
    async blob() {
      const type = this.httpMetadata.contentType;
      return new BlobImpl([await this.#bytes()], { type: type === undefined ? '' : type });
    }
  }
  // An object as the host answered it (`Object::shown`).
  function r2Object(a, made) {
    const o = made === undefined ? new HeadResult(makeR2) : made;
    o.key = a.key;
    o.version = a.version;
    o.size = a.size;
    o.etag = a.etag;
    o.httpEtag = `"${a.etag}"`;
    o.checksums = new R2Checksums(makeR2, a.checksums);
    o.uploaded = new Date(a.uploaded);
    const http = {};
    for (const [field] of R2_HTTP) if (a.http[field] !== undefined) http[field] = a.http[field];
    if (a.http.cacheExpiry !== undefined) http.cacheExpiry = new Date(a.http.cacheExpiry);
    o.httpMetadata = http;
    o.customMetadata = Object.fromEntries(a.custom);
    if (a.range !== undefined) o.range = { offset: a.range.offset, length: a.range.length };
    o.storageClass = '';
    return o;
  }

  class R2MultipartUpload {
    #binding;
    constructor(token, binding, key, uploadId) {
      if (token !== makeR2) throw new TypeError('Illegal constructor');
      this.#binding = binding;
      Object.defineProperty(this, 'key', { value: key, enumerable: true });
      Object.defineProperty(this, 'uploadId', { value: uploadId, enumerable: true });
    }
    async uploadPart(partNumber, value) {
      const n = Number(partNumber);
      if (!(n >= 1 && n <= 10000) || !Number.isInteger(n)) throw new TypeError(`Part number must be between 1 and 10000 (inclusive). Actual value was: ${partNumber}`);
      const bytes = r2Value(value, 'uploadPart');
      const [part] = await r2Send(this.#binding, { op: 'uploadPart', key: this.key, uploadId: this.uploadId, part: n }, bytes);
      return { partNumber: part.partNumber, etag: part.etag };
    }
    async abort() {
      await r2Call(this.#binding, { op: 'abort', key: this.key, uploadId: this.uploadId });
    }
    async complete(parts) {
      const list = Array.from(parts, (p) => [Number(p.partNumber), String(p.etag)]);
      const [o] = await r2Call(this.#binding, { op: 'complete', key: this.key, uploadId: this.uploadId, parts: list });
      return r2Object(o);
    }
  }

  class R2Bucket {
    #name;
    constructor(token, name) {
      if (token !== makeR2) throw new TypeError('Illegal constructor');
      this.#name = name;
    }
    async head(key) {
      const [o] = await r2Call(this.#name, { op: 'head', key: String(key) });
      return o === null ? null : r2Object(o);
    }
    async get(key, options) {
      const args = { op: 'get', key: String(key) };
      const o = options === undefined || options === null ? {} : options;
      r2Range(args, o.range);
      const onlyIf = r2Conditions(o.onlyIf);
      if (onlyIf !== undefined) args.onlyIf = onlyIf;
      const [a, data] = await r2Call(this.#name, args);
      if (a === null) return null;
      if (!a.body) return r2Object(a.object);
      const length = a.object.range.length;
      const body = a.handle === undefined ? bytesStream(data) : r2Arriving(this.#name, a.handle);
      knownLengths.set(body, length);
      return r2Object(a.object, new GetResult(makeR2, body));
    }
    async put(key, value, options) {
      const o = options === undefined || options === null ? {} : options;
      const args = { op: 'put', key: String(key) };
      const http = r2Http(o.httpMetadata);
      if (http !== undefined) args.http = http;
      const custom = r2Custom(o.customMetadata);
      if (custom !== undefined) args.custom = custom;
      const onlyIf = r2Conditions(o.onlyIf);
      if (onlyIf !== undefined) args.onlyIf = onlyIf;
      const checksum = r2Checksum(o);
      if (checksum !== undefined) args.checksum = checksum;
      const [a] = await r2Send(this.#name, args, r2Value(value, 'put'));
      return a === null ? null : r2Object(a);
    }
    async delete(keys) {
      const list = Array.isArray(keys) ? keys.map(String) : [String(keys)];
      await r2Call(this.#name, { op: 'delete', keys: list });
    }
    async list(options) {
      const o = options === undefined || options === null ? {} : options;
      const args = { op: 'list' };
      for (const k of ['prefix', 'cursor', 'delimiter', 'startAfter']) if (o[k] !== undefined && o[k] !== null) args[k] = String(o[k]);
      if (o.limit !== undefined && o.limit !== null) args.limit = Number(o.limit);
      args.include = [];
      for (const i of o.include === undefined ? [] : o.include) {
        if (i !== 'httpMetadata' && i !== 'customMetadata') throw new RangeError(`Unsupported include value ${i}`);
        args.include.push(i);
      }
      const [v] = await r2Call(this.#name, args);
      const out = { objects: v.objects.map((x) => r2Object(x)), truncated: v.truncated };
      if (v.cursor !== undefined) out.cursor = v.cursor;
      out.delimitedPrefixes = v.delimitedPrefixes;
      return out;
    }
    async createMultipartUpload(key, options) {
      const o = options === undefined || options === null ? {} : options;
      const args = { op: 'createMultipartUpload', key: String(key) };
      const http = r2Http(o.httpMetadata);
      if (http !== undefined) args.http = http;
      const custom = r2Custom(o.customMetadata);
      if (custom !== undefined) args.custom = custom;
      const [id] = await r2Call(this.#name, args);
      return new R2MultipartUpload(makeR2, this.#name, args.key, id);
    }
    resumeMultipartUpload(key, uploadId) {
      return new R2MultipartUpload(makeR2, this.#name, String(key), String(uploadId));
    }
  }
  // One call of the host's (`calls::R2`) on binding `name`: `[answer,
  // bytes]`.
  function r2Call(name, args, bytes) {
    return hostOp('r2', Object.assign({ binding: name }, args), bytes);
  }
  // A call whose bytes are `value`'s: whole, or a stream's a piece at a
  // time (`write`), then `finish`.
  async function r2Send(name, args, value) {
    if (!(value instanceof ReadableStreamImpl)) return r2Call(name, Object.assign(args, { size: value.byteLength }), value);
    const [started] = await r2Call(name, Object.assign(args, { size: knownLengths.get(value), stream: true }));
    const handle = started.handle;
    const reader = value.getReader();
    let pieces = [];
    let held = 0;
    const flush = async () => {
      if (held === 0) return;
      const bytes = concat(pieces);
      pieces = [];
      held = 0;
      await r2Call(name, { op: 'write', handle }, bytes);
    };
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      const bytes = typeof chunk === 'string' ? new TextEncoderImpl().encode(chunk) : bufferSourceBytes(chunk);
      pieces.push(bytes);
      held += bytes.byteLength;
      if (held >= R2_PIECE) await flush();
    }
    await flush();
    return r2Call(name, { op: 'finish', handle });
  }
  // A body the host holds, read a piece at a time as it is pulled.
  function r2Arriving(name, handle) {
    let more = true;
    return new ReadableStreamImpl({
      type: 'bytes',
      async pull(c) {
        if (!more) return;
        const [next, bytes] = await r2Call(name, { op: 'read', handle });
        more = next;
        if (bytes.byteLength > 0) c.enqueue(bytes);
        if (!more) c.close();
      },
    });
  }
  for (const C of [R2Bucket, R2MultipartUpload, R2Checksums, HeadResult, GetResult]) {
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: C.name, configurable: true });
  }
  const r2Bucket = (name) => new R2Bucket(makeR2, name);
