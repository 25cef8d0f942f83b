// `node:_stream_transform`: Node's old name of `stream.Transform`.
import { Transform } from './stream.js';

export { Transform };
export default Transform;
