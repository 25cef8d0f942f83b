//! `Response`.
//!
//! Defines: none
//! Host calls: none
//! Rust: none
//! WPT: fetch/api/response
//! Test plugin: tests/plugins/bodies.js
  const NULL_BODY = [101, 103, 204, 205, 304];
  const REDIRECTS = [301, 302, 303, 307, 308];
  class ResponseImpl {
    constructor(body = null, init = {}) {
      const status = init.status === undefined ? 200 : Number(init.status);
      // A WebSocket's end answers a request to upgrade (`25_websocket.js`),
      // with status 101 alone, as on workerd.
      const webSocket = init.webSocket === undefined || init.webSocket === null ? null : init.webSocket;
      if (webSocket !== null && !(webSocket instanceof WebSocketImpl)) {
        throw new TypeError("Failed to construct 'Response': Failed to read the 'webSocket' property from 'ResponseInit': parameter is not of type 'WebSocket'.");
      }
      if (webSocket !== null) {
        if (status !== 101) throw new RangeError('Responses with a WebSocket must have status code 101.');
      } else if (!Number.isInteger(status) || status < 200 || status > 599) {
        throw new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`);
      }
      this._webSocket = webSocket;
      this._status = status;
      this._statusText = init.statusText === undefined ? '' : String(init.statusText);
      // The reason-phrase production: tabs, spaces and visible Latin-1.
      if (this._statusText !== '' && !/^[\t\x20-\x7e\x80-\xff]*$/.test(this._statusText)) throw new TypeError(`Response constructor: "${this._statusText}" is an invalid statusText`);
      this._headers = new HeadersImpl(init.headers);
      if (init.cf !== undefined && init.cf !== null) this._cf = cfOf(init.cf, 'ResponseInitializerDict');
      this._type = 'default';
      this._urlList = [];
      if (body !== null && body !== undefined && NULL_BODY.includes(status)) {
        throw new TypeError(`Response constructor: Invalid response status code ${status}`);
      }
      setBody(this, body);
    }
    static error() {
      const r = new ResponseImpl(null, { status: 200 });
      r._status = 0;
      r._type = 'error';
      r._headers._immutable = true;
      return r;
    }
    static redirect(url, status = 302) {
      let href;
      try {
        href = new URLImpl(String(url)).href;
      } catch (_) {
        throw new TypeError(`Failed to parse URL from ${String(url)}`);
      }
      if (!REDIRECTS.includes(status)) throw new RangeError(`Invalid status code ${status}`);
      const r = new ResponseImpl(null, { status });
      r._headers.set('location', href);
      return r;
    }
    static json(data, init = {}) {
      const text = JSON.stringify(data);
      if (text === undefined) throw new TypeError('Value is not JSON serializable');
      const r = new ResponseImpl(text, init);
      r._headers.set('content-type', init.headers && new HeadersImpl(init.headers).get('content-type') || 'application/json');
      return r;
    }
    get status() { return this._status; }
    get ok() { return this._status >= 200 && this._status <= 299; }
    get statusText() { return this._statusText; }
    get headers() { return this._headers; }
    get type() { return this._type; }
    get url() { return this._urlList.length ? this._urlList[this._urlList.length - 1] : ''; }
    get redirected() { return this._urlList.length > 1; }
    get cf() { return this._cf; }
    get webSocket() { return this._webSocket; }
    clone() {
      if (this._used || streamUsed(this._body)) throw new TypeError('Response.clone: Body has already been consumed.');
      const r = new ResponseImpl(null, { status: 200 });
      Object.assign(r, this, { _headers: new HeadersImpl(this._headers), _urlList: this._urlList.slice() });
      cloneBody(this, r);
      return r;
    }
    get [Symbol.toStringTag]() { return 'Response'; }
  }
  withBody(ResponseImpl);
  Object.defineProperty(ResponseImpl.prototype, '_cf', { value: undefined, writable: true, configurable: true });
  Object.defineProperty(ResponseImpl.prototype, '_webSocket', { value: null, writable: true, configurable: true });

