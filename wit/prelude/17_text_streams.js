//! `TextEncoderStream` and `TextDecoderStream`.
//!
//! Defines: none
//! Host calls: none
//! Rust: host/src/web/text.rs
//! WPT: encoding
//! Test plugin: tests/plugins/streams.js
  class TextEncoderStreamImpl extends TransformStreamImpl {
    constructor() {
      const enc = new g.TextEncoder();
      // A high surrogate ending a chunk waits for the low one that may
      // start the next (the Encoding Standard's "pending high surrogate").
      let high = '';
      super({
        transform(chunk, c) {
          let s = high + String(chunk);
          high = '';
          const last = s.charCodeAt(s.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            high = s.slice(-1);
            s = s.slice(0, -1);
          }
          if (s !== '') c.enqueue(enc.encode(s));
        },
        flush(c) {
          if (high !== '') c.enqueue(enc.encode(high));
        },
      });
    }
    get encoding() { return 'utf-8'; }
    get [Symbol.toStringTag]() { return 'TextEncoderStream'; }
  }

  class TextDecoderStreamImpl extends TransformStreamImpl {
    constructor(label = 'utf-8', options = {}) {
      const dec = new g.TextDecoder(label, options);
      super({
        transform(chunk, c) {
          if (!(chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk))) {
            throw new TypeError('TextDecoderStream: a chunk must be an ArrayBuffer or a view of one');
          }
          const s = dec.decode(chunk, { stream: true });
          if (s !== '') c.enqueue(s);
        },
        flush(c) {
          const s = dec.decode();
          if (s !== '') c.enqueue(s);
        },
      });
      this._decoder = dec;
    }
    get encoding() { return this._decoder.encoding; }
    get fatal() { return this._decoder.fatal; }
    get ignoreBOM() { return this._decoder.ignoreBOM; }
    get [Symbol.toStringTag]() { return 'TextDecoderStream'; }
  }

