// A test renderer exercising the Streams API the prelude provides, compared
// byte for byte with Node's own streams (tests/all/streams.rs). It reports
// what each use of a stream saw; errors by name only (messages differ
// between implementations).
const enc = new TextEncoder();
const dec = new TextDecoder();

async function drain(stream) {
  const reader = stream.getReader();
  const seen = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return seen;
    seen.push(value instanceof Uint8Array ? `bytes:${dec.decode(value)}` : value);
  }
}

const cases = {
  async basic() {
    const s = new ReadableStream({
      start(c) {
        c.enqueue('a');
        c.enqueue('b');
        c.close();
      },
    });
    const locked = s.locked;
    return { locked, seen: await drain(s), after: s.locked };
  },
  async pull() {
    let pulls = 0;
    const s = new ReadableStream({
      pull(c) {
        pulls += 1;
        if (pulls > 3) c.close();
        else c.enqueue(pulls);
      },
    }, { highWaterMark: 0 });
    const before = pulls;
    const seen = await drain(s);
    return { before, seen, pulls };
  },
  async desired() {
    const sizes = [];
    new ReadableStream({
      start(c) {
        sizes.push(c.desiredSize);
        c.enqueue('x');
        sizes.push(c.desiredSize);
        c.enqueue('y');
        sizes.push(c.desiredSize);
      },
    }, { highWaterMark: 2 });
    return sizes;
  },
  async transform() {
    const parts = ['héllo ', 'wörld ', '€𝄞'];
    const s = new ReadableStream({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    });
    const bytes = [];
    const upper = new TransformStream({
      transform(chunk, c) { c.enqueue(chunk.toUpperCase()); },
      flush(c) { c.enqueue('!'); },
    });
    // Split the encoded bytes one by one, so characters cross chunks.
    const splitter = new TransformStream({
      transform(chunk, c) { for (const b of chunk) c.enqueue(new Uint8Array([b])); },
    });
    const out = s
      .pipeThrough(upper)
      .pipeThrough(new TextEncoderStream())
      .pipeThrough(splitter)
      .pipeThrough(new TextDecoderStream());
    for await (const piece of out) bytes.push(piece);
    return bytes.join('');
  },
  async tee() {
    const s = new ReadableStream({
      start(c) {
        c.enqueue(1);
        c.enqueue(2);
        c.close();
      },
    });
    const [a, b] = s.tee();
    return [await drain(a), await drain(b), s.locked];
  },
  async cancel() {
    const log = [];
    const s = new ReadableStream({
      pull(c) { c.enqueue('tick'); },
      cancel(reason) { log.push(`cancel:${reason}`); },
    });
    const r = s.getReader();
    log.push((await r.read()).value);
    await r.cancel('enough');
    log.push(JSON.stringify(await r.read()));
    return log;
  },
  async error() {
    const s = new ReadableStream({
      start(c) {
        c.enqueue('first');
        setTimeout(() => c.error(new RangeError('halfway')), 5);
      },
    });
    const r = s.getReader();
    const first = (await r.read()).value;
    let second;
    try {
      await r.read();
    } catch (e) {
      second = e.name;
    }
    let closed;
    await r.closed.catch((e) => { closed = e.name; });
    return { first, second, closed };
  },
  async writable() {
    const log = [];
    const w = new WritableStream({
      write(chunk) {
        log.push(`write:${chunk}`);
        return new Promise((resolve) => setTimeout(resolve, 1));
      },
      close() { log.push('close'); },
    }, { highWaterMark: 2 });
    const writer = w.getWriter();
    log.push(`size:${writer.desiredSize}`);
    const writes = [writer.write('a'), writer.write('b'), writer.write('c')];
    log.push(`size:${writer.desiredSize}`);
    await writer.ready;
    log.push(`ready:${writer.desiredSize}`);
    await Promise.all(writes);
    await writer.close();
    log.push(`closed`);
    return log;
  },
  async abort() {
    const log = [];
    const w = new WritableStream({ abort(reason) { log.push(`abort:${reason}`); } });
    const writer = w.getWriter();
    await writer.abort('stop');
    try {
      await writer.write('x');
    } catch (e) {
      log.push(e === 'stop' ? 'rejected with the reason' : `rejected:${e}`);
    }
    return log;
  },
  async pipe() {
    const got = [];
    const s = new ReadableStream({
      start(c) {
        c.enqueue('x');
        c.enqueue('y');
        c.close();
      },
    });
    await s.pipeTo(new WritableStream({ write(chunk) { got.push(chunk); } }));
    let failed;
    const bad = new ReadableStream({ start(c) { c.error(new TypeError('broken')); } });
    const aborted = [];
    await bad.pipeTo(new WritableStream({ abort(r) { aborted.push(r.name); } })).catch((e) => { failed = e.name; });
    return { got, failed, aborted };
  },
  async response() {
    const s = new ReadableStream({
      start(c) {
        c.enqueue(enc.encode('<p>one</p>'));
        c.enqueue(enc.encode('<p>two</p>'));
        c.close();
      },
    });
    const r = new Response(s, { headers: { 'content-type': 'text/html' } });
    const used = r.bodyUsed;
    const text = await r.text();
    let again;
    await r.text().catch((e) => { again = e.name; });
    const plain = new Response('plain');
    const body = plain.body;
    const viaBody = await drain(body);
    const copy = new Response(new ReadableStream({ start(c) { c.enqueue(enc.encode('twice')); c.close(); } }));
    const twin = copy.clone();
    return { used, text, again, usedAfter: r.bodyUsed, viaBody, plainUsed: plain.bodyUsed, clones: [await copy.text(), await twin.text()] };
  },
  async iterate() {
    const s = ReadableStream.from ? ReadableStream.from(['p', 'q', 'r']) : null;
    const out = [];
    if (s) for await (const x of s) out.push(x);
    return out;
  },
};

export async function render(req) {
  const name = req.path.slice(1);
  const results = {};
  for (const [k, f] of Object.entries(cases)) {
    if (name === '' || name === k) results[k] = await f();
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(results) };
}
