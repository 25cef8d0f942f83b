// `node:assert/strict`: `assert.strict`, whose loose checks are strict.
import assert from './assert.js';

const { strict } = assert;
export const {
  Assert, AssertionError, ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual,
  notDeepStrictEqual, partialDeepStrictEqual, match, doesNotMatch, fail, ifError, throws, doesNotThrow, rejects, doesNotReject,
} = strict;
export { strict };
export default strict;
