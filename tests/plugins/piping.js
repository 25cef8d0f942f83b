// pipeTo and pipeThrough at the Streams standard's edges (issue 34),
// compared byte for byte with Node's (tests/all/streams.rs): closes and
// errors carried forward and backward, the prevent* options, an abort
// signal, a destination that is already closed, backpressure, and tee.
const settled = (p) => p.then(() => 'resolved', (e) => `rejected ${e && e.name ? e.name : e}`);
const tick = () => new Promise((r) => setTimeout(r, 0));

function recorder(log, strategy) {
  return new WritableStream({
    write(chunk) { log.push(`write ${chunk}`); },
    close() { log.push('close'); },
    abort(reason) { log.push(`abort ${reason}`); },
  }, strategy);
}
function source(log, chunks, end) {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      if (end === 'close') c.close();
      if (end === 'error') c.error('broken');
    },
    cancel(reason) { log.push(`cancel ${reason && reason.name ? reason.name : reason}`); },
  });
}

export async function render() {
  const out = {};
  for (const end of ['close', 'error']) {
    for (const prevent of [false, true]) {
      const log = [];
      const options = end === 'close' ? { preventClose: prevent } : { preventAbort: prevent };
      const result = await settled(source(log, ['a', 'b'], end).pipeTo(recorder(log), options));
      out[`source ${end}s, prevent ${prevent}`] = [result, log];
    }
  }

  // The destination errors: the source is cancelled unless preventCancel.
  for (const preventCancel of [false, true]) {
    const log = [];
    const dest = new WritableStream({ write() { throw new RangeError('full'); } });
    const result = await settled(source(log, ['a', 'b'], 'open').pipeTo(dest, { preventCancel }));
    out[`destination errors, preventCancel ${preventCancel}`] = [result, log];
  }

  // A destination already closed: the pipe rejects and cancels the source.
  {
    const log = [];
    const dest = recorder(log);
    await dest.close();
    const src = source(log, ['a'], 'open');
    out.closedDestination = [await settled(src.pipeTo(dest)), log, src.locked, dest.locked];
  }

  // An abort signal, before and during the pipe.
  {
    const log = [];
    const result = await settled(source(log, ['a'], 'open').pipeTo(recorder(log), { signal: AbortSignal.abort('stop') }));
    out.abortedBefore = [result, log];
    const controller = new AbortController();
    const log2 = [];
    const piping = settled(source(log2, ['x'], 'open').pipeTo(recorder(log2), { signal: controller.signal }));
    await tick();
    controller.abort('enough');
    out.abortedDuring = [await piping, log2];
  }

  // Bad options are refused at once.
  out.badSignal = await settled(new ReadableStream().pipeTo(new WritableStream(), { signal: 'no' }));
  const locked = new ReadableStream();
  locked.getReader();
  out.locked = await settled(locked.pipeTo(new WritableStream()));
  try {
    locked.pipeThrough(new TransformStream());
    out.pipeThroughLocked = 'no error';
  } catch (e) {
    out.pipeThroughLocked = e.name;
  }

  // Backpressure: a destination that wants one chunk at a time is written
  // no faster than it takes them.
  {
    const log = [];
    let release;
    const dest = new WritableStream({
      write(chunk) {
        log.push(`write ${chunk}`);
        return new Promise((r) => { release = r; });
      },
    }, { highWaterMark: 1 });
    let pulls = 0;
    const src = new ReadableStream({ pull(c) { pulls += 1; c.enqueue(pulls); if (pulls === 5) c.close(); } }, { highWaterMark: 0 });
    const piping = src.pipeTo(dest);
    for (let i = 0; i < 3; i++) await tick();
    log.push(`pulled ${pulls}`);
    for (let i = 0; i < 5; i++) {
      release();
      for (let j = 0; j < 3; j++) await tick();
    }
    out.backpressure = [await settled(piping), log];
  }

  // tee: the source is cancelled with both reasons once both branches
  // are; an error reaches both branches at once.
  {
    let why;
    const [a, b] = new ReadableStream({ cancel(reason) { why = reason; } }).tee();
    const first = settled(a.cancel('one'));
    await tick();
    const before = why;
    const second = settled(b.cancel('two'));
    out.teeCancel = [before, await first, await second, why];
    let fail;
    const [x, y] = new ReadableStream({ start(c) { fail = c; } }).tee();
    const xr = x.getReader();
    const yr = y.getReader();
    fail.error('broken');
    out.teeError = [await settled(xr.closed), await settled(yr.read())];
    const [p, q] = source([], ['c'], 'close').tee();
    const pr = p.getReader();
    out.teeRead = [await pr.read(), await pr.read(), await q.getReader().read()];
  }

  // pipeThrough a TransformStream.
  const upper = new TransformStream({ transform(chunk, c) { c.enqueue(String(chunk).toUpperCase()); } });
  const reader = source([], ['a', 'b'], 'close').pipeThrough(upper).getReader();
  const got = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
  out.pipeThrough = got;
  return JSON.stringify(out, null, 1);
}
