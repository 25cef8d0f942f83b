// `node:_stream_writable`: Node's old name of `stream.Writable`.
import { Writable } from './stream.js';

export { Writable };
export const { WritableState } = Writable;
export const { fromWeb, toWeb } = Writable;
export default Writable;
