//! `fetch`: data: URLs here, every other request by the host under the
//! tenant's grant (or, through a service binding, as that service's own
//! request); the globals of the Fetch standard.
//!
//! Defines: fetch, Headers, Blob, File, FormData, Request, Response
//! Host calls: fetch, fetch-abort, object, service
//! Rust: host/src/web/fetch.rs
//! WPT: none
//! Test plugin: tests/plugins/fetcher.js
  // ------------------------------------------------------------------ fetch
  // The host makes the request (`calls::FETCH`), to an origin the tenant
  // was granted, and the driver delivers what it sends (`arrived`): the
  // response's head, with its body whole when the origin declared a short
  // one, or else the body's chunks as they arrive, into the response's
  // byte stream, and its end. The request stays in `inflight` until its
  // body has ended, so the engine waits for it; cancelling the body, or
  // the request's signal, aborts it in the host.
  // The Fetch standard's data: URL processor: answered here, as on
  // Workers; a data: URL reaches no network and needs no grant.
  function dataResponse(req) {
    const url = req._url.replace(/#.*$/s, '').slice('data:'.length);
    const comma = url.indexOf(',');
    if (comma < 0) throw new TypeError(`fetch of a data: URL without a comma: ${req._url.slice(0, 64)}`);
    let type = url.slice(0, comma).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
    let bytes = percentDecode(url.slice(comma + 1));
    const base64 = /;[\t\n\f\r ]*base64[\t\n\f\r ]*$/i.exec(type);
    if (base64) {
      type = type.slice(0, base64.index);
      let text;
      try {
        text = g.atob(Array.from(bytes, (c) => String.fromCharCode(c)).join(""));
      } catch {
        throw new TypeError('fetch of a data: URL whose base64 is not valid');
      }
      bytes = Uint8Array.from(text, (c) => c.charCodeAt(0));
    }
    if (type.startsWith(';')) type = `text/plain${type}`;
    if (!/^[^\s/;]+\/[^\s/;]+/.test(type)) type = 'text/plain;charset=US-ASCII';
    const r = new ResponseImpl(req._method === 'HEAD' ? null : bytes, { status: 200, statusText: 'OK', headers: [['content-type', type]] });
    r._urlList = [req._url];
    r._type = 'basic';
    r._headers._immutable = true;
    return r;
  }
  function percentDecode(text) {
    const out = [];
    const utf8 = encoder().encode(text);
    for (let i = 0; i < utf8.length; i++) {
      const hex = utf8[i] === 0x25 && i + 2 < utf8.length ? String.fromCharCode(utf8[i + 1], utf8[i + 2]) : '';
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 2;
      } else out.push(utf8[i]);
    }
    return Uint8Array.from(out);
  }
  function fetchImpl(input, init) {
    return fetchThrough(null, input, init, 0);
  }
  // A fetch over the network, or (`binding`, a service binding's name) one
  // the host renders as that service's own request (`calls::SERVICE`,
  // `31_services.js`), from an `env` `level` calls to the app itself deep,
  // or (`binding` `{object, id, name}`) one a Durable Object's instance
  // answers (`calls::OBJECT`, `31_durable_objects.js`); each answers as a
  // fetch.
  function fetchThrough(binding, input, init, level, method = undefined) {
    return new Promise((ok) => {
      const req = new RequestImpl(input, init === undefined ? {} : init);
      // A method `fetch` forbids, sent by `node:http`'s client.
      if (method !== undefined) req._method = method;
      // A stream body is read whole before the request goes.
      const b = req._body;
      ok(b instanceof ReadableStreamImpl ? readAllBytes(b, 'fetch').then((bytes) => [req, bytes]) : [req, b]);
    }).then(([req, b]) => new Promise((resolve, reject) => {
      const signal = req._signal;
      if (signal !== undefined && signal.aborted) throw signal.reason;
      if (binding === null && req._url.startsWith('data:')) {
        resolve(dataResponse(req));
        return;
      }
      if (binding === null && (req._headers.get('upgrade') || '').toLowerCase() === 'websocket') {
        resolve(fetchWebSocket(req));
        return;
      }
      if (typeof binding === 'object' && binding !== null && (req._headers.get('upgrade') || '').toLowerCase() === 'websocket') {
        resolve(objectWebSocket(binding, req));
        return;
      }
      const body = b === null ? undefined : typeof b === 'string' ? encoder().encode(b) : b;
      const headers = req._headers._list.map(([k, v]) => [k, v]);
      const args = { method: req._method, url: req._url, headers, redirect: req._redirect, stream: true };
      const id = binding === null
        ? host('fetch', args, body).value
        : typeof binding === 'object'
          ? host('object', { op: 'fetch', binding: binding.object, id: binding.id, name: binding.name, method: req._method, url: req._url, headers }, body).value
          : host('service', { binding, method: req._method, url: req._url, headers, depth: serviceDepth + level }, body).value;
      const p = { resolve, reject, method: req._method, body: undefined, object: binding !== null && typeof binding === 'object' };
      inflight.set(id, p);
      // An aborted signal ends the host's request at once, and errors a
      // body still arriving.
      if (signal !== undefined) {
        signal.addEventListener('abort', () => {
          if (!abortInHost(id, p)) return;
          if (p.body === undefined) reject(signal.reason);
          else p.body.error(signal.reason);
        }, { once: true });
      }
    }));
  }
  // What the engine's wait brought: `fetch-wait`'s reply as JSON, and its
  // bytes (a timer's wait brings nothing).
  function arrived(text, data) {
    const value = JSON.parse(text);
    if (value.id !== undefined) fetched(value, data);
    if (value.socket !== undefined) socketEvent(value, data);
    if (value.gone && leaving !== null) {
      const r = leaving;
      leaving = null;
      signalAbort(r.signal, new DOMEx('The client went away before the response was complete', 'AbortError'));
    }
  }
  // Settles the promise of the request whose head came, or feeds its
  // streamed body.
  function fetched(v, data) {
    const p = inflight.get(v.id);
    if (p === undefined) return;
    if (p.op) {
      inflight.delete(v.id);
      if (v.error !== undefined) p.reject(new Error(v.error));
      else p.resolve([v.answer, data]);
      return;
    }
    if (p.body !== undefined) {
      if (v.chunk) {
        if (data.byteLength > 0) p.body.enqueue(data);
        return;
      }
      inflight.delete(v.id);
      if (v.end) p.body.close();
      else p.body.error(new TypeError(v.error));
      return;
    }
    if (!v.streamed) inflight.delete(v.id);
    if (v.error !== undefined) {
      p.reject(p.object ? objectFailure(v.error) : new TypeError(v.error));
      return;
    }
    const r = new ResponseImpl(null, { status: 200 });
    r._status = v.status;
    r._statusText = v.statusText;
    for (const [k, val] of v.headers) r._headers._list.push([k, val]);
    r._urlList = v.urls;
    r._type = 'basic';
    r._headers._immutable = true;
    r._body = NULL_BODY.includes(v.status) || p.method === 'HEAD' ? null : v.streamed ? arrivingBody(v.id, p) : data;
    p.resolve(r);
  }
  // The byte stream a streamed body's chunks go into as they arrive.
  function arrivingBody(id, p) {
    return new ReadableStreamImpl({
      type: 'bytes',
      start(c) {
        p.body = c;
      },
      cancel() {
        abortInHost(id, p);
      },
    });
  }
  // A binding's call (`calls::KV`, `calls::D1`): answered by the host
  // through the engine's wait, like a request, or at once (`{answer}` or
  // `{error}` in place of an id), as `[answer, bytes]`; its error rejects
  // as an `Error` in the host's words (Cloudflare's).
  function hostOp(name, args, bytes) {
    return new Promise((resolve, reject) => {
      const { value, data } = host(name, args, bytes);
      if (typeof value !== 'object' || value === null) inflight.set(value, { op: true, resolve, reject });
      else if (value.error !== undefined) reject(new Error(value.error));
      else resolve([value.answer, data]);
    });
  }
  // Ends request `id` (whose entry is `p`) in the host, its connection
  // closed, if it is still in flight: whether it was.
  function abortInHost(id, p) {
    if (inflight.get(id) !== p) return false;
    inflight.delete(id);
    host('fetch-abort', id);
    return true;
  }

  defineMissing('fetch', fetchImpl);
  defineMissing('Headers', HeadersImpl);
  defineMissing('Blob', BlobImpl);
  defineMissing('File', FileImpl);
  defineMissing('FormData', FormDataImpl);
  defineMissing('Request', RequestImpl);
  defineMissing('Response', ResponseImpl);

