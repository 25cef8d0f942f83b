// `node:_stream_readable`: Node's old name of `stream.Readable`.
import { Readable } from './stream.js';

export { Readable };
export const { ReadableState } = Readable;
export const { from, fromWeb, toWeb, wrap } = Readable;
export default Readable;
