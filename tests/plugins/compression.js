// CompressionStream and DecompressionStream (issue 34): round trips in
// every format, data Node's zlib made, and the TypeErrors the Compression
// Standard gives bad data (Node 20 accepts trailing data and strings, so
// tests/all/web_platform.rs holds these to the standard, not to Node);
// `?part=bomb` inflates 32 MiB from a few KiB, a chunk at a time.
const hex = (s) => new Uint8Array(s.match(/../g).map((h) => parseInt(h, 16)));
// 'hello world' as Node's zlib writes it, in each format.
const NODE = {
  gzip: '1f8b0800000000000003cb48cdc9c95728cf2fca49010085114a0d0b000000',
  deflate: '789ccb48cdc9c95728cf2fca4901001a0b045d',
  'deflate-raw': 'cb48cdc9c95728cf2fca490100',
};

async function pipe(chunks, stream) {
  const out = [];
  const done = new Response(new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  }).pipeThrough(stream)).arrayBuffer();
  return new Uint8Array(await done, 0);
}

async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return `${e.name}`;
  }
}

async function bomb() {
  const zeros = new Uint8Array(32 << 20);
  const packed = await pipe([zeros], new CompressionStream('gzip'));
  const reader = new ReadableStream({ start(c) { c.enqueue(packed); c.close(); } }).pipeThrough(new DecompressionStream('gzip')).getReader();
  let total = 0;
  let largest = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    largest = Math.max(largest, value.length);
  }
  return `packed ${packed.length < 100000} total ${total} largest ${largest <= 1 << 20}`;
}

// Each format's 'hello world' from Node, broken where that format checks.
function corrupted(format) {
  const b = hex(NODE[format]);
  if (format === 'gzip') b[b.length - 6] ^= 0xff; // its CRC-32
  if (format === 'deflate') b[b.length - 1] ^= 0xff; // its Adler-32
  if (format === 'deflate-raw') b[0] = 0xff; // a reserved block type
  return b;
}

export async function render(request) {
  if (request.query?.part === 'bomb') return bomb();
  const text = 'hello world, '.repeat(2000);
  const bytes = new TextEncoder().encode(text);
  const lines = [];
  for (const format of ['gzip', 'deflate', 'deflate-raw']) {
    const packed = await pipe([bytes.subarray(0, 5), bytes.subarray(5, 9000), bytes.subarray(9000)], new CompressionStream(format));
    // Fed back a byte at a time, as a slow network would.
    const pieces = Array.from(packed, (b) => new Uint8Array([b]));
    const back = new TextDecoder().decode(await pipe(pieces, new DecompressionStream(format)));
    const node = new TextDecoder().decode(await pipe([hex(NODE[format])], new DecompressionStream(format)));
    const nothing = await pipe([], new CompressionStream(format));
    const unpacked = new TextDecoder().decode(await pipe([nothing], new DecompressionStream(format)));
    lines.push([
      format,
      packed.length < bytes.length / 10 && back === text,
      node,
      `empty:${JSON.stringify(unpacked)}`,
      await attempt(() => pipe([], new DecompressionStream(format))),
      await attempt(() => pipe([hex(`${NODE[format]}00`)], new DecompressionStream(format))),
      await attempt(() => pipe([hex(NODE[format]).subarray(0, 8)], new DecompressionStream(format))),
      await attempt(() => pipe([corrupted(format)], new DecompressionStream(format))),
      await attempt(() => pipe(['text'], new CompressionStream(format))),
    ].join(' '));
  }
  lines.push(await attempt(() => new CompressionStream('brotli')));
  return lines.join('\n');
}
