//! `HTMLRewriter`: Workers' streaming HTML rewriter, as `workerd` has it,
//! on the same parser (`lol_html`, in the host). `transform(response)`
//! gives a response whose body is the old one rewritten as it is read:
//! each piece goes to the host, which answers with every token a handler
//! is wanted for (`scan`); the handlers run here, in order, awaited when
//! they return a promise, and what each changed goes back with the piece
//! (`apply`), which the host rewrites with those changes
//! (host/src/web/rewriter.rs says why in two passes). Two host calls a
//! piece, none a token.
//!
//! A token's getters answer from what the scan said and the handler's own
//! changes; a name a handler sets is checked here, in `lol_html`'s words,
//! so that it throws where it is set. Departures from `workerd`: a
//! `ReadableStream` or `Response` given as content is read whole before
//! the piece is rewritten (`workerd` streams it in; the bytes are the
//! same), and an element inside content another handler removed reads
//! `removed` false (`workerd`: true).
//!
//! Defines: HTMLRewriter
//! Host calls: html-rewriter
//! Rust: host/src/web/rewriter.rs
//! WPT: none
//! Test plugin: tests/plugins/html-rewriter.js
  // ------------------------------------------------ HTMLRewriter
  const rewriterCall = (args, bytes) => namedCall('html-rewriter', args, bytes);
  const TOKEN_GONE = 'This content token is no longer valid. Content tokens are only valid during the execution of the relevant content handler.';
  // The most input one call hands the host: a call answers at once.
  const REWRITE_PIECE = 64 * 1024;

  // A token's own state: whether its handler's turn still runs, what the
  // scan said of it (changed as its handler changes it), the changes made
  // (a promise among them: content still being read), and its rewriter's
  // run (for end-tag handlers).
  const tokenState = new WeakMap();
  function liveToken(token) {
    const t = tokenState.get(token);
    if (t === undefined) throw new TypeError('Illegal invocation');
    if (!t.live) throw new TypeError(TOKEN_GONE);
    return t;
  }
  function tokenChange(token, change, removes = false) {
    const t = liveToken(token);
    t.changes.push(change);
    if (removes) t.state.removed = true;
    return token;
  }
  // The names `lol_html` refuses (host/src/web/rewriter.rs applies what
  // passes), in its words.
  function refuseName(name, what, first) {
    let why = null;
    if (name === '') why = `${what === 'tag' ? 'Tag' : 'Attribute'} name can't be empty.`;
    else if (first && !/^[A-Za-z]/.test(name)) why = 'The first character of the tag name should be an ASCII alphabetical character.';
    else {
      const bad = (what === 'tag' ? /[ \n\r\t\f/>]/ : /[ \n\r\t\f/>=]/).exec(name);
      if (bad !== null) why = `\`${bad[0]}\` character is forbidden in the ${what} name`;
    }
    if (why !== null) throw new TypeError(`Parser error: ${why}`);
  }
  const rewriteContentOptions = (options) => options !== undefined && options !== null && Boolean(options.html);
  // A content change: a string as is, a stream or response once read.
  function contentChange(token, op, content, options, stringsOnly) {
    const t = liveToken(token);
    const html = rewriteContentOptions(options);
    const removes = op === 'replace';
    if (!(content instanceof ReadableStreamImpl || content instanceof ResponseImpl)) {
      return tokenChange(token, { op, content: `${content}`, html }, removes);
    }
    if (stringsOnly) {
      throw new TypeError('Replacing content in HTML comments using a ReadableStream or Response object is not implemented. You must provide a string.');
    }
    const body = content instanceof ResponseImpl ? content : new ResponseImpl(content);
    t.waits = true;
    return tokenChange(token, body.text().then((text) => ({ op, content: text, html })), removes);
  }
  function tokenGetter(token, key) {
    return liveToken(token).state[key];
  }

  class RewriterElement {
    get tagName() { return tokenGetter(this, 'tag'); }
    set tagName(value) {
      const name = `${value}`;
      const t = liveToken(this);
      refuseName(name, 'tag', true);
      t.state.tag = name.toLowerCase();
      tokenChange(this, { op: 'name', value: name });
    }
    get attributes() {
      return tokenGetter(this, 'attrs').map(([name, value]) => [name, value])[Symbol.iterator]();
    }
    get removed() { return tokenGetter(this, 'removed'); }
    get namespaceURI() { return tokenGetter(this, 'ns'); }
    getAttribute(name) {
      const n = `${name}`.toLowerCase();
      const found = tokenGetter(this, 'attrs').find(([k]) => k === n);
      return found === undefined ? null : found[1];
    }
    hasAttribute(name) { return this.getAttribute(name) !== null; }
    setAttribute(name, value) {
      const n = `${name}`;
      const v = `${value}`;
      const t = liveToken(this);
      refuseName(n, 'attribute', false);
      const key = n.toLowerCase();
      const at = t.state.attrs.findIndex(([k]) => k === key);
      if (at === -1) t.state.attrs.push([key, v]);
      else t.state.attrs[at] = [key, v];
      return tokenChange(this, { op: 'setAttribute', name: n, value: v });
    }
    removeAttribute(name) {
      const n = `${name}`;
      const t = liveToken(this);
      t.state.attrs = t.state.attrs.filter(([k]) => k !== n.toLowerCase());
      return tokenChange(this, { op: 'removeAttribute', name: n });
    }
    before(content, options) { return contentChange(this, 'before', content, options); }
    after(content, options) { return contentChange(this, 'after', content, options); }
    prepend(content, options) { return contentChange(this, 'prepend', content, options); }
    append(content, options) { return contentChange(this, 'append', content, options); }
    replace(content, options) { return contentChange(this, 'replace', content, options); }
    setInnerContent(content, options) { return contentChange(this, 'setInnerContent', content, options); }
    remove() { return tokenChange(this, { op: 'remove' }, true); }
    removeAndKeepContent() { return tokenChange(this, { op: 'removeAndKeepContent' }, true); }
    onEndTag(handler) {
      const t = liveToken(this);
      if (typeof handler !== 'function') throw new TypeError("Failed to execute 'onEndTag' on 'Element': parameter 1 is not of type 'Function'.");
      if (!t.state.open) throw new TypeError('Parser error: No end tag.');
      const handlers = t.run.endTags.get(t.state.n);
      if (handlers === undefined) t.run.endTags.set(t.state.n, [handler]);
      else handlers.push(handler);
      tokenChange(this, { op: 'onEndTag' });
    }
    get [Symbol.toStringTag]() { return 'Element'; }
  }
  class RewriterEndTag {
    get name() { return tokenGetter(this, 'name'); }
    set name(value) {
      const name = `${value}`;
      liveToken(this).state.name = name.toLowerCase();
      tokenChange(this, { op: 'name', value: name });
    }
    before(content, options) { return contentChange(this, 'before', content, options); }
    after(content, options) { return contentChange(this, 'after', content, options); }
    remove() { return tokenChange(this, { op: 'remove' }); }
    get [Symbol.toStringTag]() { return 'EndTag'; }
  }
  class RewriterComment {
    get text() { return tokenGetter(this, 'text'); }
    set text(value) {
      const text = `${value}`;
      const t = liveToken(this);
      if (text.includes('-->') || text.includes('--!>') || text.startsWith('>') || text.startsWith('->')) {
        throw new TypeError("Parser error: Comment text shouldn't contain a comment-closing sequence.");
      }
      t.state.text = text;
      tokenChange(this, { op: 'text', value: text });
    }
    get removed() { return tokenGetter(this, 'removed'); }
    before(content, options) { return contentChange(this, 'before', content, options, true); }
    after(content, options) { return contentChange(this, 'after', content, options, true); }
    replace(content, options) { return contentChange(this, 'replace', content, options, true); }
    remove() { return tokenChange(this, { op: 'remove' }, true); }
    get [Symbol.toStringTag]() { return 'Comment'; }
  }
  class RewriterText {
    get text() { return tokenGetter(this, 'text'); }
    get lastInTextNode() { return tokenGetter(this, 'last'); }
    get removed() { return tokenGetter(this, 'removed'); }
    before(content, options) { return contentChange(this, 'before', content, options); }
    after(content, options) { return contentChange(this, 'after', content, options); }
    replace(content, options) { return contentChange(this, 'replace', content, options); }
    remove() { return tokenChange(this, { op: 'remove' }, true); }
    get [Symbol.toStringTag]() { return 'Text'; }
  }
  class RewriterDoctype {
    get name() { return tokenGetter(this, 'name'); }
    get publicId() { return tokenGetter(this, 'publicId'); }
    get systemId() { return tokenGetter(this, 'systemId'); }
    get [Symbol.toStringTag]() { return 'Doctype'; }
  }
  class RewriterDocumentEnd {
    append(content, options) { return contentChange(this, 'append', content, options, true); }
    get [Symbol.toStringTag]() { return 'DocumentEnd'; }
  }
  for (const [c, name] of [[RewriterElement, 'Element'], [RewriterEndTag, 'EndTag'], [RewriterComment, 'Comment'], [RewriterText, 'Text'], [RewriterDoctype, 'Doctype'], [RewriterDocumentEnd, 'DocumentEnd']]) {
    Object.defineProperty(c, 'name', { value: name });
  }
  const TOKEN_CLASSES = { element: RewriterElement, endTag: RewriterEndTag, comments: RewriterComment, text: RewriterText, doctype: RewriterDoctype, end: RewriterDocumentEnd };

  // The handlers `on` and `onDocument` were given, as the host is told of
  // them: each kind a function, or absent.
  const HANDLER_KINDS = { element: ['element', 'comments', 'text'], document: ['doctype', 'comments', 'text', 'end'] };
  function handlersOf(handlers, kinds, what) {
    if (handlers === undefined || handlers === null) return { receiver: handlers, fns: {} };
    if (typeof handlers !== 'object' && typeof handlers !== 'function') {
      throw new TypeError(`Failed to execute '${what}' on 'HTMLRewriter': parameter ${what === 'on' ? 2 : 1} is not of type '${what === 'on' ? 'ElementHandlers' : 'DocumentHandlers'}'.`);
    }
    const fns = {};
    for (const kind of kinds) {
      const f = handlers[kind];
      if (f === undefined) continue;
      if (typeof f !== 'function') throw new TypeError(`The value of "${kind}" is not a function.`);
      fns[kind] = f;
    }
    return { receiver: handlers, fns };
  }

  class HTMLRewriter {
    #element = [];
    #document = [];
    on(selector, handlers) {
      const s = `${selector}`;
      rewriterCall({ op: 'selector', selector: s });
      this.#element.push({ selector: s, ...handlersOf(handlers, HANDLER_KINDS.element, 'on') });
      return this;
    }
    onDocument(handlers) {
      this.#document.push(handlersOf(handlers, HANDLER_KINDS.document, 'onDocument'));
      return this;
    }
    transform(response) {
      if (!(response instanceof ResponseImpl)) {
        throw new TypeError("Failed to execute 'transform' on 'HTMLRewriter': parameter 1 is not of type 'Response'.");
      }
      if (response.type === 'error') throw new TypeError('HTMLRewriter cannot transform an error response');
      if (response.body === null) return response;
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(response.headers.get('content-type') ?? '');
      const run = {
        element: this.#element.slice(),
        document: this.#document.slice(),
        encoding: charset === null ? 'utf-8' : charset[1],
        // Element number (the scan's `n`) to the end-tag handlers
        // registered on it.
        endTags: new Map(),
        id: 0,
      };
      const input = response.body.getReader();
      const out = new ReadableStreamImpl({
        type: 'bytes',
        start() {
          const kinds = (h, all) => Object.fromEntries(all.map((k) => [k, h.fns[k] !== undefined]));
          run.id = rewriterCall({
            op: 'open',
            element: run.element.map((h) => ({ selector: h.selector, ...kinds(h, HANDLER_KINDS.element) })),
            document: run.document.map((h) => kinds(h, HANDLER_KINDS.document)),
            encoding: run.encoding,
          }).value.id;
        },
        async pull(c) {
          const { done, value } = await input.read();
          try {
            if (done) {
              await rewritePiece(run, c, null);
              return c.close();
            }
            const bytes = bufferSourceBytes(typeof value === 'string' ? new TextEncoder().encode(value) : value);
            for (let at = 0; at < bytes.length; at += REWRITE_PIECE) {
              await rewritePiece(run, c, bytes.subarray(at, at + REWRITE_PIECE));
            }
          } catch (e) {
            try { rewriterCall({ op: 'abort', id: run.id }); } catch (_) { /* ended already */ }
            input.cancel(e).catch(() => {});
            throw e;
          }
        },
        cancel(reason) {
          try { rewriterCall({ op: 'abort', id: run.id }); } catch (_) { /* ended already */ }
          return input.cancel(reason);
        },
      });
      // The headers as they were, a length included, as on workerd: the
      // host frames the body it sends itself.
      return new ResponseImpl(out, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    get [Symbol.toStringTag]() { return 'HTMLRewriter'; }
  }

  // One piece (`null`: the end of the input) through both passes: the
  // scan's tokens to their handlers, in order, then their changes back
  // with the piece, whose rewritten bytes are enqueued. A handler that
  // returns no promise (and gave no stream as content) is not awaited.
  async function rewritePiece(run, c, bytes) {
    const end = bytes === null;
    const { events } = rewriterCall({ op: 'scan', id: run.id, end }, end ? undefined : bytes).value;
    const plan = [];
    for (const event of events) {
      // [handler, its `this`] for each plan entry the token makes: the
      // end of an element a handler saw has its end-tag handlers, if any
      // were registered on it.
      let calls;
      if (event.kind === 'endTag') {
        calls = (run.endTags.get(event.of) ?? []).map((handler) => [handler, undefined]);
        run.endTags.delete(event.of);
      } else {
        const h = (event.doc || event.kind === 'doctype' || event.kind === 'end' ? run.document : run.element)[event.h];
        calls = [[h.fns[event.kind], h.receiver]];
      }
      for (const [handler, receiver] of calls) {
        const turn = handleToken(run, handler, receiver, event);
        plan.push(typeof turn.then === 'function' ? await turn : turn);
      }
    }
    const { data } = rewriterCall({ op: 'apply', id: run.id, plan, end });
    if (data.length > 0) c.enqueue(data);
  }

  // Runs `handler` on a token for `event`: the changes it made, or a
  // promise of them when it must be awaited.
  function handleToken(run, handler, receiver, event) {
    const token = new TOKEN_CLASSES[event.kind]();
    const t = { live: true, state: event, changes: [], waits: false, run };
    tokenState.set(token, t);
    let result;
    try {
      result = handler.call(receiver, token);
    } catch (e) {
      t.live = false;
      throw e;
    }
    if ((result === null || (typeof result !== 'object' && typeof result !== 'function') || typeof result.then !== 'function') && !t.waits) {
      t.live = false;
      return t.changes;
    }
    return (async () => {
      try {
        await result;
        const changes = [];
        for (const change of t.changes) changes.push(await change);
        return changes;
      } finally {
        t.live = false;
      }
    })();
  }
  defineMissing('HTMLRewriter', HTMLRewriter);
