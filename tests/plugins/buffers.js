// Buffers at the web platform's edges (issue 34; WPT `encoding/` and
// `FileAPI/` found them): WebAssembly's memories, globals and tables (and
// no code), a buffer transferred through a MessagePort, a detached or
// shared buffer read as a BufferSource, and Blob's stream(), slice() and
// options. tests/all/web_platform.rs checks each line on both engines.
const lines = [];
const say = (name, f) => {
  try {
    lines.push(`${name}: ${f()}`);
  } catch (e) {
    lines.push(`${name}: ${e.name}: ${e.message}`);
  }
};

export default {
  async fetch() {
    say('memory', () => {
      const m = new WebAssembly.Memory({ initial: 1, maximum: 2 });
      const before = m.buffer;
      new Uint8Array(before)[9] = 7;
      const old = m.grow(1);
      return [old, m.buffer.byteLength, before.byteLength, new Uint8Array(m.buffer)[9]].join(' ');
    });
    say('memory past its maximum', () => new WebAssembly.Memory({ initial: 1, maximum: 1 }).grow(1));
    // Past the tenant's memory, as any buffer: a RangeError, the server unhurt.
    lines.push(`memory of 4 GiB: ${(() => { try { return new WebAssembly.Memory({ initial: 65536 }).buffer.byteLength; } catch (e) { return e.name; } })()}`);
    say('shared memory', () => new WebAssembly.Memory({ shared: true, initial: 0, maximum: 0 }).buffer.constructor.name);
    say('shared memory without a maximum', () => new WebAssembly.Memory({ shared: true, initial: 1 }));
    say('globals', () => {
      const i = new WebAssembly.Global({ value: 'i32', mutable: true }, 1.9);
      i.value = 2 ** 31;
      return [i.value, new WebAssembly.Global({ value: 'i64' }, 5).value, new WebAssembly.Global({ value: 'f32' }, 0.1).value].join(' ');
    });
    say('immutable global', () => { new WebAssembly.Global({ value: 'f64' }, 1).value = 2; });
    say('table', () => {
      const t = new WebAssembly.Table({ element: 'externref', initial: 1 }, 'a');
      t.grow(2, 'b');
      return [t.length, t.get(0), t.get(2)].join(' ');
    });
    say('module', () => new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
    lines.push(`instantiate: ${await WebAssembly.instantiate(new Uint8Array(8)).then(() => 'ran', (e) => e.name)}`);

    say('postMessage transfers', () => {
      const buffer = new ArrayBuffer(4);
      new MessageChannel().port1.postMessage(buffer, [buffer]);
      const other = new ArrayBuffer(2);
      new MessageChannel().port1.postMessage({ other }, { transfer: [other] });
      return [buffer.byteLength, buffer.detached, other.detached].join(' ');
    });
    say('decode a detached view', () => {
      const buffer = new ArrayBuffer(3);
      const view = new Uint8Array(buffer, 1, 1);
      view[0] = 65;
      structuredClone(buffer, { transfer: [buffer] });
      return JSON.stringify(new TextDecoder().decode(view) + new TextDecoder().decode(buffer));
    });
    say('decode a shared view', () => {
      const view = new Uint8Array(new SharedArrayBuffer(4)).fill(0x41);
      return new TextDecoder().decode(view.subarray(1)) + new TextDecoder('utf-16le').decode(view);
    });
    say('encodeInto a detached view', () => {
      const buffer = new ArrayBuffer(10);
      const view = new Uint8Array(buffer);
      structuredClone(buffer, { transfer: [buffer] });
      return JSON.stringify(new TextEncoder().encodeInto('test', view));
    });

    const abc = new Blob(['ab', new Uint8Array([99, 100])]);
    say('blob slice', () => [[1.5], [2.5], [0.5], [0, 1.5], [0, 2.5], [-2.5], [NaN, 3]].map((a) => abc.slice(...a).size).join(' '));
    lines.push(`blob stream: ${await new Response(abc.stream()).text()} ${abc.stream() !== abc.stream()}`);
    {
      const reader = new Blob(['xyz']).stream().getReader({ mode: 'byob' });
      const first = await reader.read(new Uint8Array(2));
      const second = await reader.read(new Uint8Array(2));
      const end = await reader.read(new Uint8Array(2));
      lines.push(`blob byob: ${new TextDecoder().decode(first.value)} ${new TextDecoder().decode(second.value)} ${end.done}`);
    }
    lines.push(`blob endings: ${JSON.stringify(await new Blob(['a\r\nb\rc\n'], { endings: 'native' }).text())} ${JSON.stringify(await new Blob(['a\r\n'], { endings: 'transparent' }).text())}`);
    say('blob with options 123', () => new Blob([], 123));
    say('blob with bad endings', () => new Blob([], { endings: 'crlf' }));
    say('blob reads endings before type', () => {
      const read = [];
      new Blob([], { get type() { read.push('type'); return ''; }, get endings() { read.push('endings'); return undefined; } });
      return read.join(' ');
    });
    return new Response(lines.join('\n'));
  },
};
