//! `TextEncoder` and `TextDecoder`: UTF-8 here, every other encoding by the
//! host.
//!
//! Defines: TextEncoder, TextDecoder
//! Host calls: text-decode
//! Rust: host/src/web/text.rs
//! WPT: encoding
//! Test plugin: tests/plugins/encodings.js
  // ------------------------------------------------------- TextEncoder/Decoder
  // TextEncoder: UTF-8 by QuickJS's native encoder where the engine has
  // one, here elsewhere; `encodeInto` here on both (QuickJS's refuses it).
  const NativeEncoder = typeof g.TextEncoder === 'function' ? new g.TextEncoder() : null;
  // UTF-8 of `s`, a USVString (`usv`: no lone surrogates), into `out` as
  // far as `room` allows: how many UTF-16 units it read, and bytes it wrote.
  function utf8Into(s, out, room) {
    let read = 0;
    let written = 0;
    while (read < s.length) {
      const c = s.codePointAt(read);
      const size = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      if (written + size > room) break;
      if (size === 1) out[written] = c;
      else if (size === 2) { out[written] = 0xc0 | (c >> 6); out[written + 1] = 0x80 | (c & 63); }
      else if (size === 3) { out[written] = 0xe0 | (c >> 12); out[written + 1] = 0x80 | ((c >> 6) & 63); out[written + 2] = 0x80 | (c & 63); }
      else { out[written] = 0xf0 | (c >> 18); out[written + 1] = 0x80 | ((c >> 12) & 63); out[written + 2] = 0x80 | ((c >> 6) & 63); out[written + 3] = 0x80 | (c & 63); }
      written += size;
      read += c > 0xffff ? 2 : 1;
    }
    return { read, written };
  }
  class TextEncoderImpl {
    get encoding() { return 'utf-8'; }
    encode(input = '') {
      const s = usv(input);
      if (NativeEncoder !== null) return NativeEncoder.encode(s);
      const out = new Uint8Array(s.length * 3);
      return out.slice(0, utf8Into(s, out, out.length).written);
    }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) throw new TypeError("Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.");
      return utf8Into(usv(source), destination, destination.length);
    }
  }
  Object.defineProperty(TextEncoderImpl, 'name', { value: 'TextEncoder' });
  Object.defineProperty(TextEncoderImpl.prototype, Symbol.toStringTag, { value: 'TextEncoder', configurable: true });
  Object.defineProperty(g, 'TextEncoder', { value: TextEncoderImpl, writable: true, configurable: true, enumerable: false });

  // TextDecoder (checked by WPT's encoding/): UTF-8 is decoded here (a
  // whole decode by QuickJS's native decoder where the engine has one);
  // every other encoding of the Encoding Standard by the host
  // (`calls::TEXT_DECODE`: encoding_rs, host/src/web/text.rs).
  const NativeDecoder = typeof g.TextDecoder === 'function' ? g.TextDecoder : null;
  let nativeUtf8 = null;
  const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
  // Labels the host named, by label (only those that name an encoding).
  const labelNames = new Map();
  function encodingOf(label) {
    const l = label.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase();
    if (UTF8_LABELS.includes(l)) return 'utf-8';
    if (labelNames.has(l)) return labelNames.get(l);
    const name = textCall({ op: 'label', label: l }).value;
    if (name !== null) labelNames.set(l, name);
    return name;
  }
  // A call to a capability whose refusals read `"<Error name>: ..."`
  // (`calls::TEXT_DECODE`, `calls::COMPRESS`, `calls::INTL`): that error
  // is thrown.
  function namedCall(name, args, bytes) {
    const [ok, text, data] = hostCall(name, JSON.stringify(args), bytes);
    if (ok) return { value: JSON.parse(text), data };
    throw namedError(text);
  }
  function namedError(text) {
    const m = /^(TypeError|RangeError|Error): ([\s\S]*)$/.exec(text);
    return m ? new ({ TypeError, RangeError, Error }[m[1]])(m[2]) : new TypeError(text);
  }
  const textCall = (args, bytes) => namedCall('text-decode', args, bytes);
  // The bytes of a BufferSource, as WebIDL reads one: none when its buffer
  // was detached (transferred away).
  function bufferSourceBytes(input) {
    if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer)) {
      return input.detached === true ? new Uint8Array(0) : new Uint8Array(input);
    }
    if (ArrayBuffer.isView(input)) {
      return input.buffer.detached === true ? new Uint8Array(0) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    }
    throw new TypeError("Failed to execute 'decode' on 'TextDecoder': The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
  }
  class TextDecoderImpl {
    #encoding;
    #fatal;
    #ignoreBOM;
    // UTF-8 streaming: the bytes of a sequence cut at the last call's end,
    // and whether a stream is under way (a BOM is looked for at its start).
    #pending = null;
    #midStream = false;
    // Other encodings: the host's open stream.
    #stream = null;
    constructor(label = 'utf-8', options = undefined) {
      if (options !== undefined && options !== null && typeof options !== 'object' && typeof options !== 'function') {
        throw new TypeError("Failed to construct 'TextDecoder': The provided value is not of type 'TextDecoderOptions'");
      }
      const name = encodingOf(`${label}`);
      if (name === null || name === 'replacement') throw new RangeError(`Failed to construct 'TextDecoder': The encoding label provided ('${label}') is invalid.`);
      this.#encoding = name;
      this.#fatal = !!(options && options.fatal);
      this.#ignoreBOM = !!(options && options.ignoreBOM);
    }
    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    // With `{ stream: true }` a sequence cut at the end of `input` waits for
    // the next call, and a BOM is looked for at the stream's start only.
    decode(input = undefined, options = undefined) {
      const bytes = input === undefined ? new Uint8Array(0) : bufferSourceBytes(input);
      const stream = !!(options && options.stream);
      if (this.#encoding !== 'utf-8') {
        const id = this.#stream;
        // A call that throws ends the stream (the host dropped it).
        this.#stream = null;
        const { value } = textCall({ op: 'decode', encoding: this.#encoding, fatal: this.#fatal, ignoreBOM: this.#ignoreBOM, stream, id }, bytes);
        this.#stream = value.id;
        return value.text;
      }
      let b = bytes;
      if (this.#pending) {
        const joined = new Uint8Array(this.#pending.length + b.length);
        joined.set(this.#pending);
        joined.set(b, this.#pending.length);
        b = joined;
        this.#pending = null;
      }
      if (stream) {
        const cut = incompleteTail(b);
        if (cut < b.length) {
          this.#pending = b.slice(cut);
          b = b.subarray(0, cut);
        }
      }
      // A BOM cut between calls is still the stream's start.
      const atStart = !this.#midStream;
      this.#midStream = stream && (this.#midStream || b.length > 0);
      let i = 0;
      if (atStart && !this.#ignoreBOM && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) i = 3;
      if (NativeDecoder !== null && !this.#fatal) {
        nativeUtf8 = nativeUtf8 || new NativeDecoder('utf-8', { ignoreBOM: true });
        const view = i === 0 ? b : b.subarray(i);
        // The native decoder takes no view of a SharedArrayBuffer.
        return nativeUtf8.decode(view.buffer instanceof ArrayBuffer ? view : view.slice());
      }
      // Without a native decoder (V8), a long text is the host's to decode:
      // built a character at a time here, 8 MiB took seconds and the heap.
      if (b.length - i > 4096) {
        return textCall({ op: 'decode', encoding: 'utf-8', fatal: this.#fatal, ignoreBOM: true, stream: false, id: null }, b.subarray(i)).value.text;
      }
      return decodeUtf8(b, i, this.#fatal);
    }
  }
  Object.defineProperty(TextDecoderImpl, 'name', { value: 'TextDecoder' });
  Object.defineProperty(TextDecoderImpl.prototype, Symbol.toStringTag, { value: 'TextDecoder', configurable: true });
  // What the Encoding Standard's UTF-8 decoder allows after lead byte `x`:
  // `[need, lo, hi]`, the continuation bytes it needs and the bounds of the
  // first (which make every overlong form, surrogate and value past
  // U+10FFFF an error at once), or null for a byte that cannot lead.
  function utf8Lead(x) {
    if (x >= 0xc2 && x < 0xe0) return [1, 0x80, 0xbf];
    if (x >= 0xe0 && x < 0xf0) return [2, x === 0xe0 ? 0xa0 : 0x80, x === 0xed ? 0x9f : 0xbf];
    if (x >= 0xf0 && x < 0xf5) return [3, x === 0xf0 ? 0x90 : 0x80, x === 0xf4 ? 0x8f : 0xbf];
    return null;
  }
  function decodeUtf8(b, from, fatal) {
    let s = '';
    let i = from;
    const bad = () => {
      if (fatal) throw new TypeError('The encoded data was not valid utf-8');
      return 0xfffd;
    };
    while (i < b.length) {
      const x = b[i];
      if (x < 0x80) {
        s += String.fromCharCode(x);
        i++;
        continue;
      }
      const lead = utf8Lead(x);
      if (lead === null) {
        s += String.fromCharCode(bad());
        i++;
        continue;
      }
      const [need, lo, hi] = lead;
      // A sequence broken off becomes one U+FFFD for the bytes read so far.
      let c = x & (0x3f >> need);
      let j = 1;
      for (; j <= need; j++) {
        const y = b[i + j];
        if (y === undefined || y < (j === 1 ? lo : 0x80) || y > (j === 1 ? hi : 0xbf)) break;
        c = (c << 6) | (y & 63);
      }
      if (j <= need) {
        s += String.fromCharCode(bad());
        i += j;
        continue;
      }
      i += need + 1;
      s += String.fromCodePoint(c);
    }
    return s;
  }
  // Where an unfinished UTF-8 sequence starts at the end of `b` (its length
  // if none): a lead byte whose sequence needs more bytes than follow it,
  // followed only by bytes its sequence can go on with.
  function incompleteTail(b) {
    for (let k = 1; k <= 3 && k <= b.length; k++) {
      const x = b[b.length - k];
      if (x < 0x80) return b.length;
      if (x >= 0xc0) {
        const lead = utf8Lead(x);
        if (lead === null || lead[0] < k) return b.length;
        const y = b[b.length - k + 1];
        if (k >= 2 && (y < lead[1] || y > lead[2])) return b.length;
        return b.length - k;
      }
    }
    return b.length;
  }
  // Always ours: QuickJS's own knows UTF-8 only, and no streams.
  Object.defineProperty(g, 'TextDecoder', { value: TextDecoderImpl, writable: true, configurable: true, enumerable: false });

