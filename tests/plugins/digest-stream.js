// crypto.DigestStream as Workers have it: every hash it names, bytes and
// text written, piped into, aborted, empty; compared with workerd's answer
// (tests/all/workers.rs).
const caught = async (f) => { try { return ['ok', await f()]; } catch (e) { return [e.name, e.message]; } };
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
export default { async fetch() {
  const out = {};
  out.shape = [typeof crypto.DigestStream, crypto.DigestStream.name, crypto.DigestStream.length, Object.getOwnPropertyNames(crypto.DigestStream.prototype).sort(), Object.getPrototypeOf(crypto.DigestStream.prototype).constructor.name];
  for (const alg of ['SHA-256', 'sha-1', { name: 'SHA-512' }, 'MD5', 'SHA-384']) {
    const ds = new crypto.DigestStream(alg);
    const w = ds.getWriter();
    await w.write(new TextEncoder().encode('hello '));
    await w.write(new Uint8Array([119, 111, 114, 108, 100]));
    await w.close();
    out[JSON.stringify(alg)] = [hex(await ds.digest), typeof ds.bytesWritten, String(ds.bytesWritten), ds.digest instanceof Promise];
  }
  out.errors = [
    await caught(() => new crypto.DigestStream('SHA-3')),
    await caught(() => new crypto.DigestStream()),
    await caught(async () => { const ds = new crypto.DigestStream('SHA-256'); const w = ds.getWriter(); await w.write('text'); }),
    await caught(async () => { const ds = new crypto.DigestStream('SHA-256'); const w = ds.getWriter(); w.abort(new Error('gone')); return await ds.digest; }),
  ];
  const piped = new crypto.DigestStream('SHA-256');
  await new Response('piped body').body.pipeTo(piped);
  out.piped = hex(await piped.digest);
  const empty = new crypto.DigestStream('SHA-256'); await empty.getWriter().close(); out.empty = hex(await empty.digest);
  return new Response(JSON.stringify(out));
} };
