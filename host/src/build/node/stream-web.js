// `node:stream/web`: the web streams, which are the global ones (the
// prelude's, or the engine's own), as on workerd.
const g = globalThis;
export const ByteLengthQueuingStrategy = g.ByteLengthQueuingStrategy;
export const CompressionStream = g.CompressionStream;
export const CountQueuingStrategy = g.CountQueuingStrategy;
export const DecompressionStream = g.DecompressionStream;
export const ReadableByteStreamController = g.ReadableByteStreamController;
export const ReadableStream = g.ReadableStream;
export const ReadableStreamBYOBReader = g.ReadableStreamBYOBReader;
export const ReadableStreamBYOBRequest = g.ReadableStreamBYOBRequest;
export const ReadableStreamDefaultController = g.ReadableStreamDefaultController;
export const ReadableStreamDefaultReader = g.ReadableStreamDefaultReader;
export const TextDecoderStream = g.TextDecoderStream;
export const TextEncoderStream = g.TextEncoderStream;
export const TransformStream = g.TransformStream;
export const TransformStreamDefaultController = g.TransformStreamDefaultController;
export const WritableStream = g.WritableStream;
export const WritableStreamDefaultController = g.WritableStreamDefaultController;
export const WritableStreamDefaultWriter = g.WritableStreamDefaultWriter;

export default {
  ByteLengthQueuingStrategy, CompressionStream, CountQueuingStrategy, DecompressionStream, ReadableByteStreamController,
  ReadableStream, ReadableStreamBYOBReader, ReadableStreamBYOBRequest, ReadableStreamDefaultController,
  ReadableStreamDefaultReader, TextDecoderStream, TextEncoderStream, TransformStream, TransformStreamDefaultController,
  WritableStream, WritableStreamDefaultController, WritableStreamDefaultWriter,
};
