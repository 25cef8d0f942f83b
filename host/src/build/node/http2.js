// `node:http2`: a Worker serves and fetches HTTP/2 through the runtime,
// not through this module. Its settings helpers answer as workerd's do:
// no settings, and an empty packed form; the rest throws workerd's "not
// implemented" (build/node.rs).
import { Buffer } from './buffer.js';

export const getDefaultSettings = () => ({});
export const getPackedSettings = () => Buffer.alloc(0);
export const getUnpackedSettings = () => ({});

export default { getDefaultSettings, getPackedSettings, getUnpackedSettings };
