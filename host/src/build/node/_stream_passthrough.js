// `node:_stream_passthrough`: Node's old name of `stream.PassThrough`.
import { PassThrough } from './stream.js';

export { PassThrough };
export default PassThrough;
