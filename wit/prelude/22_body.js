//! The Fetch standard's body: extracting one, the Body mixin, multipart
//! forms.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: fetch/api/body
//! Test plugin: tests/plugins/bodies.js
  // The Fetch standard's "extract a body": [body, content type or null],
  // the body a string or a Uint8Array that no one else holds.
  function extractBody(body) {
    if (typeof body === 'string') return [body, 'text/plain;charset=UTF-8'];
    if (body instanceof URLSearchParamsImpl || (g.URLSearchParams && body instanceof g.URLSearchParams)) {
      return [body.toString(), 'application/x-www-form-urlencoded;charset=UTF-8'];
    }
    if (body instanceof BlobImpl) return [body._bytes.slice(), body.type || null];
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return [bytesOf(body), null];
    if (body instanceof FormDataImpl) {
      const boundary = `----ssrFormBoundary${Math.random().toString(16).slice(2)}${Math.random().toString(16).slice(2)}`;
      const escape = (s) => s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
      const chunks = [];
      for (const [name, value] of body._list) {
        let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(name)}"`;
        if (typeof value === 'string') {
          chunks.push(bytesOf(`${head}\r\n\r\n${value.replace(/\r(?!\n)|(?<!\r)\n/g, '\r\n')}\r\n`));
        } else {
          head += `; filename="${escape(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`;
          chunks.push(bytesOf(head), value._bytes, bytesOf('\r\n'));
        }
      }
      chunks.push(bytesOf(`--${boundary}--\r\n`));
      return [concat(chunks), `multipart/form-data; boundary=${boundary}`];
    }
    if (body instanceof ReadableStreamImpl) {
      if (body._disturbed || body.locked) throw new TypeError('Response body object should not be disturbed or locked');
      return [body, null];
    }
    return [String(body), 'text/plain;charset=UTF-8'];
  }

  // The Body mixin of Request and Response. `_body` is null, a string, a
  // Uint8Array or a ReadableStream (read whole here); `_used` is set once a
  // method has read it.
  // `bodyUsed` is the Fetch standard's "disturbed"; a body is unusable
  // when disturbed or locked to a reader.
  function streamUsed(b) { return b instanceof ReadableStreamImpl && b._disturbed; }
  const bodyMethods = {
    _take() {
      if (this._used || streamUsed(this._body) || (this._body instanceof ReadableStreamImpl && this._body.locked)) {
        return Promise.reject(new TypeError('Body is unusable: Body has already been read'));
      }
      this._used = this._body !== null;
      if (this._body instanceof ReadableStreamImpl) return readAllBytes(this._body, 'reading the body');
      return Promise.resolve(this._body);
    },
    text() { return this._take().then((b) => (b === null ? '' : typeof b === 'string' ? b : decoder().decode(b))); },
    bytes() { return this._take().then((b) => (b === null ? new Uint8Array(0) : typeof b === 'string' ? encoder().encode(b) : b.slice())); },
    arrayBuffer() { return this.bytes().then((b) => b.buffer); },
    json() { return this.text().then((t) => JSON.parse(t)); },
    blob() { return this.bytes().then((b) => new BlobImpl([b], { type: this.headers.get('content-type') || '' })); },
    // The body is read first, so that its stream's error is what a
    // failed read rejects with; then its type decides.
    formData() {
      const given = this.headers.get('content-type') || '';
      const type = given.toLowerCase();
      return this.bytes().then((b) => {
        if (type.startsWith('application/x-www-form-urlencoded')) {
          const form = new FormDataImpl();
          for (const [k, v] of new URLSearchParamsImpl(decoder().decode(b))) form.append(k, v);
          return form;
        }
        if (type.startsWith('multipart/form-data')) return parseMultipart(b, given);
        throw new TypeError(`formData() reads application/x-www-form-urlencoded or multipart/form-data bodies; this one is ${given ? `"${given}"` : 'untyped'}`);
      });
    },
  };
  function parseMultipart(bytes, type) {
    const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
    if (!m) throw new TypeError('formData(): the multipart/form-data body has no boundary');
    // Latin-1 keeps one character per byte, so offsets map back to bytes.
    const text = Array.from(bytes, (c) => String.fromCharCode(c)).join('');
    const form = new FormDataImpl();
    const parts = text.split(`--${m[1] || m[2]}`);
    if (parts.length < 2 || !parts[parts.length - 1].startsWith('--')) throw new TypeError('formData(): the multipart/form-data body does not end with its boundary');
    for (const part of parts.slice(1, -1)) {
      const split = part.indexOf('\r\n\r\n');
      if (split < 0) continue;
      const head = part.slice(2, split);
      const content = part.slice(split + 4, part.length - 2);
      const name = /name="([^"]*)"/i.exec(head);
      if (!name) continue;
      const filename = /filename="([^"]*)"/i.exec(head);
      const raw = Uint8Array.from(content, (c) => c.charCodeAt(0));
      if (filename) {
        const ct = /content-type:\s*([^\r\n]*)/i.exec(head);
        form.append(name[1], new FileImpl([raw], filename[1], { type: ct ? ct[1] : '' }));
      } else {
        form.append(name[1], decoder().decode(raw));
      }
    }
    return form;
  }
  function withBody(C) {
    for (const [name, fn] of Object.entries(bodyMethods)) {
      Object.defineProperty(C.prototype, name, { value: fn, writable: true, configurable: true });
    }
    Object.defineProperty(C.prototype, 'bodyUsed', { get() { return this._used || streamUsed(this._body); }, configurable: true });
    // A string or bytes become a byte stream (BYOB readers can read it, as
    // the Fetch standard says) of one chunk when first asked for. The bytes
    // are the body's own copy, so the stream may take (transfer) them.
    Object.defineProperty(C.prototype, 'body', {
      get() {
        const b = this._body;
        if (b === null || b instanceof ReadableStreamImpl) return b;
        this._body = bytesStream(typeof b === 'string' ? encoder().encode(b) : b);
        // A body read whole was read through a reader, which keeps it.
        if (this._used) {
          this._body.getReader();
          this._body._disturbed = true;
        }
        return this._body;
      },
      configurable: true,
    });
  }
  // A byte stream of `bytes` (which it takes: a chunk's buffer moves to
  // its reader), in one chunk, none when empty; its length known.
  function bytesStream(bytes) {
    const length = bytes.byteLength;
    const stream = new ReadableStreamImpl({
      type: 'bytes',
      start(c) {
        if (length > 0) c.enqueue(bytes);
        c.close();
      },
    });
    knownLengths.set(stream, length);
    return stream;
  }
  // Sets `_body`, and the content type the body implies unless set.
  function setBody(target, body) {
    target._body = null;
    target._used = false;
    if (body === undefined || body === null) return;
    const [bytes, type] = extractBody(body);
    target._body = bytes;
    if (type !== null && !target._headers.has('content-type')) target._headers.append('content-type', type);
  }

