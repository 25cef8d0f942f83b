//! `MessageChannel` and `MessagePort`, delivered as tasks.
//!
//! Defines: MessagePort, MessageChannel
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/buffers.js
  // --------------------------------------------------------- MessageChannel
  class MessagePort {
    constructor() {
      this.onmessage = null;
      this._peer = null;
      this._listeners = [];
      this._closed = false;
    }
    // `transfer` (a list, or `{ transfer }`) moves its buffers into the
    // message, detaching them here, even when no one is on the other end.
    postMessage(data, options = undefined) {
      const list = options === undefined || options === null ? [] : Symbol.iterator in Object(options) ? options : options.transfer;
      const message = structuredCloneImpl(data, list === undefined ? [] : Array.from(list));
      const peer = this._peer;
      if (this._closed || peer === null) return;
      addTimer(() => peer._dispatch({ data: message, target: peer, type: 'message' }), 0, [], false);
    }
    addEventListener(type, fn) {
      if (type === 'message' && typeof fn === 'function') this._listeners.push(fn);
    }
    removeEventListener(type, fn) {
      if (type === 'message') this._listeners = this._listeners.filter((l) => l !== fn);
    }
    start() {}
    close() { this._closed = true; }
    _dispatch(event) {
      if (this._closed) return;
      if (typeof this.onmessage === 'function') this.onmessage(event);
      for (const l of this._listeners) l(event);
    }
  }
  class MessageChannel {
    constructor() {
      this.port1 = new MessagePort();
      this.port2 = new MessagePort();
      this.port1._peer = this.port2;
      this.port2._peer = this.port1;
    }
  }
  defineMissing('MessagePort', MessagePort);
  defineMissing('MessageChannel', MessageChannel);

