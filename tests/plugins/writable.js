// WritableStream at the Streams standard's edges (issue 34), compared byte
// for byte with Node's (tests/all/streams.rs): an abort waits for the write
// in flight and calls the sink's abort once; the controller's signal; a
// close fulfils a waiting writer's ready; errors from the sink and from
// the strategy; the order promises settle in.
const tick = () => new Promise((r) => setTimeout(r, 0));
const settled = (p) => p.then((v) => `fulfilled ${v}`, (e) => `rejected ${e && e.name ? `${e.name} ${e.message}` : e}`);

export async function render() {
  const out = {};

  // An abort during a write: the sink's abort waits for the write.
  {
    const log = [];
    let finish;
    const ws = new WritableStream({
      write(chunk, c) {
        log.push(`write ${chunk}`);
        c.signal.addEventListener('abort', () => log.push(`signal ${c.signal.reason}`));
        return new Promise((r) => { finish = r; });
      },
      abort(reason) { log.push(`abort ${reason}`); },
    });
    const writer = ws.getWriter();
    const written = settled(writer.write('a'));
    await tick();
    const aborted = settled(writer.abort('stop'));
    const later = settled(writer.write('b'));
    await tick();
    log.push('write still in flight');
    finish();
    out.abortDuringWrite = [await written, await aborted, await later, await settled(writer.closed), log];
  }

  // close() while the writer waits (a high-water mark of 0).
  {
    const ws = new WritableStream({}, { highWaterMark: 0 });
    const writer = ws.getWriter();
    const order = [];
    writer.ready.then(() => order.push('ready'));
    writer.closed.then(() => order.push('closed'));
    const closing = writer.close().then(() => order.push('close'));
    await closing;
    await tick();
    out.closeWhileWaiting = [order, writer.desiredSize];
  }

  // The order a stream's promises settle in when its sink's close fails.
  {
    const order = [];
    const ws = new WritableStream({ close() { throw new RangeError('no close'); } });
    const writer = ws.getWriter();
    writer.closed.catch((e) => order.push(`closed ${e.name}`));
    writer.ready.then(() => order.push('ready'));
    await writer.close().catch((e) => order.push(`close ${e.name}`));
    await tick();
    out.failedClose = [order, await settled(writer.ready), await settled(ws.abort('late'))];
  }

  // The sink's write fails: later writes and close reject with its error.
  {
    const ws = new WritableStream({ write() { return Promise.reject(new TypeError('disk full')); } });
    const writer = ws.getWriter();
    out.failedWrite = [await settled(writer.write(1)), await settled(writer.write(2)), await settled(writer.close()),
      writer.desiredSize, await settled(writer.ready)];
  }

  // A strategy whose size throws errors the stream.
  {
    const ws = new WritableStream({}, { size() { throw new SyntaxError('bad size'); } });
    const writer = ws.getWriter();
    out.badSize = [await settled(writer.write('x')), await settled(writer.closed)];
  }

  // A writer released while a write is pending, and a new one.
  {
    let finish;
    const ws = new WritableStream({ write() { return new Promise((r) => { finish = r; }); } });
    const first = ws.getWriter();
    const pending = settled(first.write('a'));
    await tick();
    first.releaseLock();
    const second = ws.getWriter();
    finish();
    out.released = [await pending, await settled(first.closed), await settled(first.write('b')), second.desiredSize];
  }
  return JSON.stringify(out, null, 1);
}
