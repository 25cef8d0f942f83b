// Hostile and buggy behaviour, one per path, for the containment tests
// (tests/all/hostile.rs). `/ok` is the benign path, to check that the tenant
// recovers after each attack.
export async function render(request) {
  switch (request.path) {
    case '/loop': for (;;) {}
    case '/async-loop': for (;;) await null;
    case '/timer-loop': return new Promise(() => { const again = () => setTimeout(again, 0); again(); });
    case '/never': return new Promise(() => {});
    case '/interval-forever': return new Promise(() => setInterval(() => {}, 0));
    case '/timer-2-31': return new Promise((resolve) => setTimeout(resolve, 2 ** 31));
    case '/timers-100k': {
      for (let i = 0; i < 100000; i++) setTimeout(() => {}, 1 + (i % 1000));
      return 'all set';
    }
    case '/memory-bomb': { const keep = []; for (;;) keep.push(new Array(100000).fill(1.5)); }
    case '/recursion': { const f = (n) => f(n + 1) + 1; return String(f(0)); }
    case '/big-output': return 'x'.repeat((Number(request.query.mib) || 16) << 20);
    case '/output': return 'x'.repeat(Number(request.query.bytes));
    case '/says-out-of-memory': {
      // An ordinary exception that reads like QuickJS's own when an
      // allocation fails: it is a script error, not the memory cap.
      const e = new Error('out of memory');
      e.name = 'InternalError';
      throw e;
    }
    case '/allocate': {
      // Holds `mib` MiB of doubles at once, 1 MiB at a time.
      const keep = [];
      for (let i = 0; i < Number(request.query.mib); i++) keep.push(new Array(131072).fill(i + 0.5));
      return 'allocated';
    }
    case '/hoard': {
      // Keeps `mib` more MiB in a global: a reused instance holds it after
      // the render.
      globalThis.hoard ??= [];
      for (let i = 0; i < Number(request.query.mib); i++) globalThis.hoard.push(new Array(131072).fill(i + 0.5));
      return `hoarding ${globalThis.hoard.length} MiB`;
    }
    case '/buffers': {
      // Keeps `mib` MiB of ArrayBuffers, written so that they are resident.
      const keep = [];
      for (let i = 0; i < Number(request.query.mib); i++) keep.push(new Uint8Array(1 << 20).fill(i + 1));
      return `buffers ${keep.length} MiB`;
    }
    case '/wasm-memory': {
      // 512 MiB of WebAssembly memory: past the tenant's limit.
      const m = new WebAssembly.Memory({ initial: 8192 });
      new Uint8Array(m.buffer).fill(1);
      return 'wasm memory';
    }
    case '/ambient': {
      // No files, environment, network or modules to load: report what exists.
      const found = {
        process: typeof process, require: typeof require,
        XMLHttpRequest: typeof XMLHttpRequest, Deno: typeof Deno, std: typeof std, os: typeof os,
      };
      // `WebSocket` exists, but opens no connection to an origin this
      // tenant was not granted: `error`, then `close` 1006.
      const socket = await new Promise((resolve) => {
        let ws;
        try { ws = new WebSocket('ws://127.0.0.1:1/'); } catch (_) { resolve('refused'); return; }
        ws.addEventListener('open', () => resolve('opened'));
        ws.addEventListener('close', (e) => resolve(e.code === 1006 ? 'refused' : `closed ${e.code}`));
      });
      let imported = 'refused';
      // Through eval, so `ssr build` does not take it for an import to bundle.
      try { await (0, eval)('imp' + "ort('fs')"); imported = 'loaded'; } catch (_) {}
      // `fetch` exists, but this tenant was granted no origin.
      let fetched = 'refused';
      try { await fetch('http://127.0.0.1:1/'); fetched = 'fetched'; } catch (e) { if (!(e instanceof TypeError)) fetched = String(e); }
      return JSON.stringify({ found, imported, fetched, socket });
    }
    default: return 'ok';
  }
}
