// HTMLRewriter as Workers have it: each handler kind and each change a
// handler makes, async handlers, selectors, errors, and the response it
// gives. Compared with workerd's answer (tests/all/workers.rs).
const PAGE = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html><head><title>T &amp; t</title><!-- head note --></head>
<body class="b">
<div id="a" class="x y" data-k="v">one <b>two</b> three</div>
<p class="keep">para<!-- inner --></p>
<ul><li>1</li><li class="odd">2</li><li>3</li></ul>
<a href="http://example.com/x.PNG">link</a><img src="i.png"><br/>
<svg><circle r="1"/></svg>
<span data-remove>gone</span><em data-unwrap>kept</em><section>old</section>
</body></html>`;

const page = (init) => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'x-kept': 'yes', 'content-length': String(PAGE.length) }, status: 203, ...init });
const catching = (f) => {
  try {
    return ['returned', f()];
  } catch (e) {
    return [e.name, e.message];
  }
};

class Collector {
  constructor() { this.seen = []; }
  element(el) {
    this.seen.push([el.tagName, [...el.attributes], el.namespaceURI, el.removed]);
  }
}

async function transforms() {
  const out = {};
  const collector = new Collector();
  const texts = [];
  const comments = [];
  let doctype = null;
  let kept = null;
  const rewritten = new HTMLRewriter()
    .on('*', collector)
    .on('div#a', {
      element(el) {
        el.setAttribute('data-new', 'n<"&>');
        el.setAttribute('class', 'z');
        el.removeAttribute('data-k');
        kept = [el.getAttribute('CLASS'), el.hasAttribute('data-k'), el.getAttribute('nope'), [...el.attributes]];
        el.before('<i>before</i>', { html: true });
        el.after('<after & text>');
        el.prepend('[pre]');
        el.append('<u>app</u>', { html: true });
      },
      text(t) { texts.push([t.text, t.lastInTextNode]); },
    })
    .on('p.keep', {
      comments(c) {
        comments.push([c.text, c.removed]);
        c.text = ' changed ';
        c.after('<after-comment>', { html: true });
      },
    })
    .on('li:nth-child(2)', { element(el) { el.setInnerContent('<b>two</b>', { html: true }); } })
    .on('li:not(.odd)', { element(el) { el.tagName = 'LI-X'; } })
    .on('a[href$=".png" i]', { element(el) { el.setAttribute('href', el.getAttribute('href').replace('http:', 'https:')); } })
    .on('img', { element(el) { el.replace('<picture></picture>', { html: true }); } })
    .on('[data-remove]', { element(el) { el.remove(); } })
    .on('[data-unwrap]', { element(el) { el.removeAndKeepContent(); } })
    .on('section', {
      element(el) {
        el.onEndTag((end) => {
          end.before('!', { html: false });
          end.after('<hr>', { html: true });
          end.name = 'article';
        });
        el.tagName = 'article';
      },
    })
    .onDocument({
      doctype(d) { doctype = [d.name, d.publicId, d.systemId]; },
      comments(c) { if (c.text.includes('head')) c.remove(); },
      end(end) { end.append('<!-- appended -->', { html: true }); },
    })
    .transform(page());
  out.status = [rewritten.status, rewritten.headers.get('x-kept'), rewritten.headers.get('content-length'), rewritten.headers.get('content-type')];
  out.body = await rewritten.text();
  out.seen = collector.seen;
  out.kept = kept;
  out.texts = texts.map(([t, last]) => `${t}|${last}`).join('');
  out.comments = comments;
  out.doctype = doctype;
  return out;
}

async function asyncHandlers() {
  const order = [];
  const res = new HTMLRewriter()
    .on('li', {
      async element(el) {
        order.push(`start ${el.getAttribute('class')}`);
        await new Promise((r) => setTimeout(r, 5));
        await Promise.resolve();
        el.setAttribute('data-later', 'yes');
        order.push('end');
      },
    })
    .on('p', { element(el) { el.append(new Response('<s>streamed</s>'), { html: true }); el.append(' then'); } })
    .on('section', { element(el) { el.setInnerContent(new Response('from a stream').body); } })
    .transform(page());
  return { body: await res.text(), order };
}

async function tokensOutliveNothing() {
  let saved;
  await new HTMLRewriter().on('div', { element(el) { saved = el; } }).transform(page()).text();
  return [catching(() => saved.tagName), catching(() => saved.setAttribute('a', 'b'))];
}

async function errors() {
  const out = {};
  out.selectors = ['div:hover', '', 'div >', 'a[', 'svg|rect', ':not(:not(p))', '##a', 'p::before', 'div:first-child', 'p:nth-of-type(2n+1)', 'a[href*="x"]', 'div ~ p', 'div + p']
    .map((s) => catching(() => { new HTMLRewriter().on(s, {}); return 'ok'; }));
  out.transform = [
    catching(() => new HTMLRewriter().transform('not a response')),
    catching(() => new HTMLRewriter().transform(Response.error())),
  ];
  const empty = new Response(null, { status: 204 });
  out.nullBody = new HTMLRewriter().on('*', {}).transform(empty) === empty;
  const badName = [];
  await new HTMLRewriter().on('div', {
    element(el) {
      badName.push(catching(() => el.setAttribute('a b', 'x')));
      badName.push(catching(() => { el.tagName = ''; }));
      badName.push(catching(() => { el.tagName = 'a b'; }));
    },
  }).on('p', { comments(c) { badName.push(catching(() => c.replace(new Response('x')))); badName.push(catching(() => { c.text = 'a-->b'; })); } })
    .transform(page()).text();
  out.badName = badName;
  const throwing = new HTMLRewriter().on('li', { element() { throw new RangeError('from the handler'); } }).transform(page());
  out.thrown = await throwing.text().then(() => 'no error', (e) => [e.name, e.message]);
  const rejecting = new HTMLRewriter().on('li', { async element() { await null; throw new Error('async boom'); } }).transform(page());
  out.rejected = await rejecting.text().then(() => 'no error', (e) => [e.name, e.message]);
  out.voidEndTag = [];
  await new HTMLRewriter().on('br', { element(el) { out.voidEndTag.push(catching(() => el.onEndTag(() => {}))); } }).transform(page()).text();
  return out;
}

async function streaming() {
  // A large body in many chunks, through two rewriters in a row.
  const enc = new TextEncoder();
  const chunks = [];
  for (let i = 0; i < 600; i++) chunks.push(`<p id="p${i}">paragraph ${i} <a href="/${i}">link</a></p>`);
  const body = new ReadableStream({
    start(c) {
      for (let i = 0; i < chunks.length; i += 7) c.enqueue(enc.encode(chunks.slice(i, i + 7).join('').replace('<p id', '<p  id')));
      c.close();
    },
  });
  let links = 0;
  const first = new HTMLRewriter().on('a', { element(el) { links++; el.setAttribute('rel', 'nofollow'); } }).transform(new Response(body));
  const second = new HTMLRewriter().on('p', { text(t) { if (t.lastInTextNode) t.after('.'); } }).transform(first);
  const text = await second.text();
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) >>> 0;
  return { links, length: text.length, hash, head: text.slice(0, 120) };
}

async function shape() {
  const r = new HTMLRewriter();
  return {
    type: typeof HTMLRewriter,
    chain: r.on('a', {}) === r && r.onDocument({}) === r,
    tag: Object.prototype.toString.call(r),
    proto: Object.getOwnPropertyNames(HTMLRewriter.prototype).sort(),
    globals: ['Element', 'EndTag', 'Comment', 'Text', 'Doctype', 'DocumentEnd'].map((n) => typeof globalThis[n]),
  };
}

export default {
  async fetch(req) {
    // The rewritten page itself, as a server sends it.
    if (new URL(req.url).pathname === '/served') {
      return new HTMLRewriter()
        .on('a', { element(el) { el.setAttribute('rel', 'nofollow'); el.after('<b>added</b>', { html: true }); } })
        .on('[data-remove]', { async element(el) { await new Promise((r) => setTimeout(r, 20)); el.remove(); } })
        .transform(page());
    }
    const result = {
      transforms: await transforms(),
      async: await asyncHandlers(),
      gone: await tokensOutliveNothing(),
      errors: await errors(),
      streaming: await streaming(),
      shape: await shape(),
    };
    return new Response(JSON.stringify(result), { headers: { 'content-type': 'application/json' } });
  },
};
