// Workers' byte streams, IdentityTransformStream and FixedLengthStream:
// what each side gives, the writes' timing, and the errors, compared with
// workerd's answer (tests/all/workers.rs).
export default {
  async fetch() {
    const out = {};
    const bytes = (...b) => new Uint8Array(b);
    const wait = (p) => Promise.race([p, new Promise((r) => setTimeout(() => r('pending'), 50))]);
    const shown = (v) => (v && typeof v === 'object' ? { done: v.done, value: v.value && Array.from(v.value) } : v);
    // Each step's outcome, in order, a step at a time.
    const steps = async (list) => {
      const got = [];
      for (const step of list) {
        got.push(await wait(step().then((v) => ['ok', shown(v)], (e) => ['rejected', `${e.name}: ${e.message}`])));
      }
      return got;
    };
    const probe = async (name, f) => {
      try {
        out[name] = await f();
      } catch (e) {
        out[name] = `threw ${e.name}: ${e.message}`;
      }
    };
    await probe('classes', () => [
      Object.getPrototypeOf(IdentityTransformStream.prototype) === TransformStream.prototype,
      Object.getPrototypeOf(FixedLengthStream.prototype) === IdentityTransformStream.prototype,
      new FixedLengthStream(1) instanceof TransformStream,
      IdentityTransformStream.length,
      FixedLengthStream.length,
    ]);
    await probe('bytes, views and text', async () => {
      const t = new IdentityTransformStream();
      const w = t.writable.getWriter();
      w.write(bytes(1, 2, 3));
      w.write(new Uint16Array([258]));
      w.write(bytes());
      w.write(new Uint8Array([9, 8, 7, 6]).subarray(1, 3).buffer);
      w.write('hé');
      w.close();
      return Array.from(new Uint8Array(await new Response(t.readable).arrayBuffer()));
    });
    await probe('a write waits for its read', () => {
      const t = new IdentityTransformStream();
      const w = t.writable.getWriter();
      const written = w.write(bytes(1));
      const r = t.readable.getReader();
      return steps([() => written, () => r.read(), () => written, () => r.read()]);
    });
    await probe('a byob read', () => {
      const t = new IdentityTransformStream();
      const r = t.readable.getReader({ mode: 'byob' });
      t.writable.getWriter().write(bytes(1, 2, 3, 4, 5));
      return steps([() => r.read(new Uint8Array(2)), () => r.read(new Uint8Array(8))]);
    });
    await probe('the high-water mark', () => {
      const w = new IdentityTransformStream({ highWaterMark: 4 }).writable.getWriter();
      const before = w.desiredSize;
      w.write(bytes(1, 2, 3));
      return [before, w.desiredSize, new IdentityTransformStream().writable.getWriter().desiredSize];
    });
    await probe('not bytes', () => {
      const t = new IdentityTransformStream();
      return steps([() => t.writable.getWriter().write(5)]);
    });
    await probe('exactly the length', () => {
      const t = new FixedLengthStream(3);
      const w = t.writable.getWriter();
      const r = t.readable.getReader();
      const written = w.write(bytes(1, 2, 3));
      const closed = w.close();
      return steps([() => r.read(), () => r.read(), () => written, () => closed]);
    });
    await probe('too many', () => {
      const t = new FixedLengthStream(3);
      const w = t.writable.getWriter();
      const r = t.readable.getReader();
      const a = w.write(bytes(1, 2));
      const b = w.write(bytes(3, 4));
      return steps([() => r.read(), () => r.read(), () => a, () => b]);
    });
    await probe('too few', () => {
      const t = new FixedLengthStream(3n);
      const w = t.writable.getWriter();
      const r = t.readable.getReader();
      w.write(bytes(1));
      const closed = w.close();
      return steps([() => r.read(), () => r.read(), () => closed]);
    });
    await probe('canceled', () => {
      const t = new IdentityTransformStream();
      const w = t.writable.getWriter();
      return steps([() => t.readable.cancel(new Error('why')), () => w.write(bytes(1)), () => w.closed]);
    });
    await probe('aborted', () => {
      const t = new IdentityTransformStream();
      const r = t.readable.getReader();
      return steps([() => t.writable.getWriter().abort(new Error('boom')), () => r.read()]);
    });
    for (const [name, arg] of [['negative', -1], ['not an integer', 1.5], ['text', 'x'], ['none', undefined]]) {
      await probe(`length ${name}`, () => {
        new FixedLengthStream(arg);
        return 'made';
      });
    }
    await probe('a response body', async () => {
      const t = new FixedLengthStream(2);
      const response = new Response(t.readable);
      const w = t.writable.getWriter();
      w.write(bytes(65, 66));
      w.close();
      return [[...response.headers], await response.text()];
    });
    return new Response(JSON.stringify(out, null, 1));
  },
};
