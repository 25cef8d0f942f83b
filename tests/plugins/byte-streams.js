// Byte streams, BYOB readers, TransformStream and ReadableStream.from at
// the Streams standard's edges (issue 34), compared byte for byte with
// Node's (tests/all/streams.rs): reads into the reader's own buffer with
// `respond`, `respondWithNewView` and `min`, elements cut across chunks,
// buffers transferred (detached) as they are handed over, auto-allocated
// chunks for a default reader, a byte stream's tee, a transformer's
// backpressure, `cancel` and `terminate`, async iteration's order, and the
// queuing strategies.
const settled = (p) => p.then((v) => `resolved ${show(v)}`, (e) => `rejected ${e && e.name ? e.name : e}`);
const tick = () => new Promise((r) => setTimeout(r, 0));
function show(v) {
  if (v === undefined) return 'undefined';
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}[${Array.from(v instanceof DataView ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : v).join(',')}]@${v.byteOffset}/${v.buffer.byteLength}`;
  if (v && typeof v === 'object' && 'done' in v) return `{${show(v.value)}, done: ${v.done}}`;
  return JSON.stringify(v);
}
const attempt = (f) => {
  try {
    return `ok ${show(f())}`;
  } catch (e) {
    return `threw ${e.name}`;
  }
};

async function byob() {
  const out = {};
  // respond(): the source writes into the reader's view.
  let log = [];
  let rs = new ReadableStream({
    type: 'bytes',
    pull(c) {
      const v = c.byobRequest.view;
      log.push(`pull ${v.constructor.name} ${v.byteOffset}+${v.byteLength}`);
      for (let i = 0; i < 3; i++) v[i] = 10 + i;
      c.byobRequest.respond(3);
    },
  });
  let reader = rs.getReader({ mode: 'byob' });
  const buffer = new ArrayBuffer(8);
  const first = await reader.read(new Uint8Array(buffer, 2, 4));
  out.respond = [show(first), `given buffer now ${buffer.byteLength} bytes`, log];

  // min: a read waits until it has that many elements.
  log = [];
  let n = 0;
  rs = new ReadableStream({
    type: 'bytes',
    pull(c) {
      n += 1;
      log.push(`pull ${n}`);
      c.enqueue(new Uint8Array([n, n]));
      if (n === 3) c.close();
    },
  });
  reader = rs.getReader({ mode: 'byob' });
  out.min = [show(await reader.read(new Uint8Array(8), { min: 5 })), show(await reader.read(new Uint8Array(8))), log];

  // Elements cut across chunks: a Uint16Array view gets whole elements, the
  // odd byte waits for the next read.
  rs = new ReadableStream({
    type: 'bytes',
    start(c) {
      c.enqueue(new Uint8Array([1, 2, 3]));
      c.enqueue(new Uint8Array([4]));
      c.close();
    },
  });
  reader = rs.getReader({ mode: 'byob' });
  out.elements = [show(await reader.read(new Uint16Array(4))), show(await reader.read(new Uint16Array(4))), show(await reader.read(new Uint16Array(4)))];

  // A stream closed with half an element pending is an error.
  rs = new ReadableStream({
    type: 'bytes',
    pull(c) {
      c.byobRequest.view[0] = 7;
      c.byobRequest.respond(1);
      out.halfClose = attempt(() => c.close());
    },
  });
  reader = rs.getReader({ mode: 'byob' });
  out.halfRead = await settled(reader.read(new Uint16Array(2)));

  // respondWithNewView(): the source hands back a view of the same buffer.
  rs = new ReadableStream({
    type: 'bytes',
    pull(c) {
      const v = c.byobRequest.view;
      const mine = new Uint8Array(v.buffer, v.byteOffset, 2);
      mine.set([42, 43]);
      c.byobRequest.respondWithNewView(mine);
    },
  });
  reader = rs.getReader({ mode: 'byob' });
  out.newView = show(await reader.read(new Uint8Array(5)));

  // The refusals, in the standard's order.
  reader = new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' });
  out.refusals = [
    await settled(reader.read(new Uint8Array(0))),
    await settled(reader.read(new Uint8Array(4), { min: 0 })),
    await settled(reader.read(new Uint8Array(4), { min: 5 })),
    await settled(reader.read('not a view')),
    attempt(() => new ReadableStream().getReader({ mode: 'byob' })),
    attempt(() => new ReadableStream({ type: 'bytes' }).getReader({ mode: 'other' })),
    attempt(() => new ReadableStream({ type: 'bytes' }, { size: () => 1 })),
    attempt(() => new ReadableStream({ type: 'bytes', autoAllocateChunkSize: 0 })),
    attempt(() => new ReadableStream({ type: 'other' })),
  ];
  // releaseLock() with a read pending rejects it.
  reader = new ReadableStream({ type: 'bytes' }).getReader({ mode: 'byob' });
  const pending = settled(reader.read(new Uint8Array(4)));
  reader.releaseLock();
  out.released = await pending;
  return out;
}

async function defaultReaders() {
  const out = {};
  // enqueue() transfers the chunk's buffer: the source can no longer touch it.
  const chunk = new Uint8Array([1, 2, 3]);
  let rs = new ReadableStream({ type: 'bytes', start(c) { c.enqueue(chunk); c.close(); } });
  out.transferred = chunk.buffer.byteLength;
  let reader = rs.getReader();
  out.read = [show(await reader.read()), show(await reader.read())];

  // autoAllocateChunkSize: a default reader's read gets a byobRequest.
  const log = [];
  rs = new ReadableStream({
    type: 'bytes',
    autoAllocateChunkSize: 16,
    pull(c) {
      const v = c.byobRequest.view;
      log.push(`${v.byteLength} bytes offered`);
      v.set([5, 6]);
      c.byobRequest.respond(2);
    },
  });
  reader = rs.getReader();
  out.autoAllocate = [show(await reader.read()), log];

  // A byte stream's tee: both branches get the bytes, as copies.
  rs = new ReadableStream({
    type: 'bytes',
    start(c) {
      c.enqueue(new Uint8Array([1, 2]));
      c.enqueue(new Uint8Array([3]));
      c.close();
    },
  });
  const [a, b] = rs.tee();
  const ra = a.getReader({ mode: 'byob' });
  const rb = b.getReader();
  out.tee = [
    show(await ra.read(new Uint8Array(4))),
    show(await rb.read()),
    show(await rb.read()),
    show(await ra.read(new Uint8Array(4))),
    show(await ra.read(new Uint8Array(4))),
    show(await rb.read()),
  ];
  return out;
}

async function transforms() {
  const out = {};
  // Backpressure: a write waits until the readable side is read.
  const log = [];
  const ts = new TransformStream({
    transform(chunk, c) {
      log.push(`transform ${chunk}`);
      c.enqueue(chunk.toUpperCase());
    },
    flush() { log.push('flush'); },
  });
  const writer = ts.writable.getWriter();
  const reader = ts.readable.getReader();
  const w1 = writer.write('a');
  await tick();
  log.push(`desiredSize ${writer.desiredSize}`);
  const w2 = writer.write('b');
  await tick();
  log.push(`read ${show(await reader.read())}`);
  await w1;
  log.push(`read ${show(await reader.read())}`);
  await w2;
  writer.close();
  log.push(`read ${show(await reader.read())}`);
  out.backpressure = log;

  // The transformer's cancel runs once, whichever side goes first.
  for (const side of ['readable', 'writable']) {
    const calls = [];
    const t = new TransformStream({ cancel(reason) { calls.push(`cancel ${reason}`); } });
    await tick();
    const first = side === 'readable' ? t.readable.cancel('r1') : t.writable.abort('w1');
    const second = side === 'readable' ? t.writable.abort('w2') : t.readable.cancel('r2');
    out[`cancel via ${side}`] = [await settled(first), await settled(second), calls];
  }

  // terminate(): the readable side closes, the writable side errors.
  const t = new TransformStream({
    transform(chunk, c) {
      c.enqueue(chunk);
      c.terminate();
    },
  });
  const tw = t.writable.getWriter();
  const tr = t.readable.getReader();
  const written = settled(tw.write('x'));
  out.terminate = [show(await tr.read()), show(await tr.read()), await written, await settled(tw.closed)];

  // A transform that throws errors both sides with it.
  const bad = new TransformStream({ transform() { throw new RangeError('no'); } });
  const bw = bad.writable.getWriter();
  // (The write waits for a read: the readable side has no room.)
  out.throws = await Promise.all([settled(bw.write('x')), settled(bad.readable.getReader().read())]);
  out.refusals = [
    attempt(() => new TransformStream({ readableType: 'bytes' })),
    attempt(() => new TransformStream({ writableType: 'bytes' })),
    attempt(() => new TransformStream(null)),
  ];
  return out;
}

async function iteration() {
  const out = {};
  // ReadableStream.from: sync and async iterables; cancel calls return().
  const log = [];
  async function* gen() {
    try {
      yield 1;
      yield 2;
      yield 3;
    } finally {
      log.push('generator closed');
    }
  }
  const rs = ReadableStream.from(gen());
  const reader = rs.getReader();
  log.push(show(await reader.read()));
  await reader.cancel('enough');
  out.fromAsync = log;
  const chunks = [];
  for await (const c of ReadableStream.from(['a', 'b'])) chunks.push(c);
  out.fromSync = chunks;
  out.fromRefusals = [attempt(() => ReadableStream.from(5)), attempt(() => ReadableStream.from(null))];

  // The async iterator: next() after return() waits for it, then is done.
  const order = [];
  const it = new ReadableStream({ start(c) { c.enqueue('x'); } })[Symbol.asyncIterator]();
  const ret = it.return('bye').then((r) => order.push(`return ${show(r)}`));
  const next = it.next().then((r) => order.push(`next ${show(r)}`));
  await Promise.all([ret, next]);
  out.iteratorOrder = order;
  // preventCancel keeps the stream open for another reader.
  const kept = new ReadableStream({ start(c) { c.enqueue('y'); c.enqueue('z'); } });
  for await (const c of kept.values({ preventCancel: true })) {
    out.firstChunk = c;
    break;
  }
  out.afterBreak = [kept.locked, show(await kept.getReader().read())];
  return out;
}

// structuredClone's `transfer` detaches what it moves (on V8 10.2, by the
// host's native detach).
function transfers() {
  const buffer = new Uint8Array([1, 2, 3]).buffer;
  const view = new Uint8Array(buffer);
  const copy = structuredClone({ buffer }, { transfer: [buffer] });
  return [buffer.byteLength, view.length, copy.buffer.byteLength, attempt(() => structuredClone(buffer))];
}

function strategies() {
  const count = new CountQueuingStrategy({ highWaterMark: false });
  const bytes = new ByteLengthQueuingStrategy({ highWaterMark: '8' });
  return {
    count: [count.highWaterMark, count.size.name, count.size.length, count.size === new CountQueuingStrategy({ highWaterMark: 1 }).size],
    bytes: [bytes.highWaterMark, bytes.size(new Uint8Array(5)), bytes.size.name],
    refusals: [attempt(() => new CountQueuingStrategy()), attempt(() => new CountQueuingStrategy(true)), attempt(() => new ByteLengthQueuingStrategy({}))],
  };
}

export async function render() {
  const out = {
    byob: await byob(),
    defaultReaders: await defaultReaders(),
    transforms: await transforms(),
    iteration: await iteration(),
    strategies: strategies(),
    transfers: transfers(),
  };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(out, null, 1) };
}
