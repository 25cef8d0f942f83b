// `node:stream/consumers`: a whole stream read into one value. Takes
// anything async-iterable (a Node stream, a web `ReadableStream`, an
// async generator) of strings or bytes.
import { Buffer } from './buffer.js';

async function chunks(stream) {
  const out = [];
  const iterable = stream !== null && typeof stream === 'object' && typeof stream[Symbol.asyncIterator] !== 'function' && typeof stream.getReader === 'function'
    ? readAll(stream)
    : stream;
  for await (const chunk of iterable) {
    out.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk.buffer ?? chunk));
  }
  return out;
}

async function* readAll(stream) {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export async function buffer(stream) {
  return Buffer.concat(await chunks(stream));
}

export async function arrayBuffer(stream) {
  const b = await buffer(stream);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

export async function blob(stream) {
  return new Blob(await chunks(stream));
}

export async function text(stream) {
  return new TextDecoder().decode(await buffer(stream));
}

export async function json(stream) {
  return JSON.parse(await text(stream));
}

export default { arrayBuffer, blob, buffer, json, text };
