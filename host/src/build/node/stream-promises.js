// `node:stream/promises`: `pipeline` and `finished` as promises.
import { promises } from './stream.js';

export const { pipeline, finished } = promises;
export { promises };
export default { pipeline, finished };
