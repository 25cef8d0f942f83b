// `node:_stream_duplex`: Node's old name of `stream.Duplex`.
import { Duplex } from './stream.js';

export { Duplex };
export const { from, fromWeb, toWeb } = Duplex;
export default Duplex;
