// `node:assert`: Node's assertions, as `workerd` has them. `assert(value)`
// and `ok`, the equality checks (strict, by `Object.is`, shallow and deep:
// `equal` and `deepEqual` are the strict ones, as on `workerd`),
// `throws`/`rejects` with every form of expectation Node takes (a class,
// a RegExp, a validating function, an object of properties), `match`,
// `fail`, `ifError`, and `AssertionError` with Node's `code`, `actual`,
// `expected` and `operator`. Messages name both values as `util.inspect`
// shows them, without Node's line diff. `assert.strict` (and
// `node:assert/strict`) is the same.
import { inspect } from './util.js';
import { isDeepStrictEqual, isPartialStrictEqual } from './_comparisons.js';

export class AssertionError extends Error {
  constructor(options) {
    const { message, actual, expected, operator } = options ?? {};
    const generated = message === undefined;
    super(generated ? generatedMessage(actual, expected, operator) : String(message));
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
    this.generatedMessage = generated;
  }
}

// A deep comparison's message shows both values whole, each on its own
// line(s), marked `+` (actual) and `-` (expected), as `workerd` writes it.
function generatedMessage(actual, expected, operator) {
  if (operator === 'deepStrictEqual') {
    const shown = (v, mark) => inspect(v, { depth: 1000, compact: true, breakLength: Infinity }).split('\n').map((line) => `${mark} ${line}`).join('\n');
    return `${describeOp(operator)}\n+ actual - expected\n\n${shown(actual, '+')}\n${shown(expected, '-')}\n`;
  }
  return `${describeOp(operator)}\n\n${inspect(actual)}\n\nshould ${operatorText(operator)}\n\n${inspect(expected)}\n`;
}

function describeOp(operator) {
  switch (operator) {
    case 'strictEqual': return 'Expected values to be strictly equal:';
    case 'deepStrictEqual': return 'Expected values to be strictly deep-equal:';
    case 'deepEqual': return 'Expected values to be loosely deep-equal:';
    case '==': return 'Expected values to be loosely equal:';
    default: return `Assertion (${operator}) failed:`;
  }
}

function operatorText(operator) {
  return `satisfy ${operator}`;
}

function fails(actual, expected, message, operator, stackStart) {
  if (message instanceof Error) throw message;
  const e = new AssertionError({ message, actual, expected, operator });
  if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(e, stackStart);
  throw e;
}

function ok(value, message) {
  if (!value) fails(value, true, message ?? (arguments.length === 0 ? 'No value argument passed to `assert.ok()`' : undefined), '==', ok);
}

function strictEqual(actual, expected, message) {
  if (!Object.is(actual, expected)) fails(actual, expected, message, 'strictEqual', strictEqual);
}

function notStrictEqual(actual, expected, message) {
  if (Object.is(actual, expected)) fails(actual, expected, message, 'notStrictEqual', notStrictEqual);
}

function deepStrictEqual(actual, expected, message) {
  if (!isDeepStrictEqual(actual, expected)) fails(actual, expected, message, 'deepStrictEqual', deepStrictEqual);
}

function notDeepStrictEqual(actual, expected, message) {
  if (isDeepStrictEqual(actual, expected)) fails(actual, expected, message, 'notDeepStrictEqual', notDeepStrictEqual);
}

function partialDeepStrictEqual(actual, expected, message) {
  if (!isPartialStrictEqual(actual, expected)) fails(actual, expected, message, 'partialDeepStrictEqual', partialDeepStrictEqual);
}

function match(string, regexp, message) {
  if (!(regexp instanceof RegExp)) throw new TypeError('The "regexp" argument must be an instance of RegExp.');
  if (typeof string !== 'string' || !regexp.test(string)) {
    fails(string, regexp, message ?? `The input did not match the regular expression ${regexp}. Input:\n\n${inspect(string)}\n`, 'match', match);
  }
}

function doesNotMatch(string, regexp, message) {
  if (!(regexp instanceof RegExp)) throw new TypeError('The "regexp" argument must be an instance of RegExp.');
  if (typeof string !== 'string' || regexp.test(string)) {
    fails(string, regexp, message ?? `The input was expected to not match the regular expression ${regexp}. Input:\n\n${inspect(string)}\n`, 'doesNotMatch', doesNotMatch);
  }
}

function fail(message = 'Failed') {
  if (message instanceof Error) throw message;
  const e = new AssertionError({ message, operator: 'fail' });
  e.generatedMessage = message === 'Failed';
  throw e;
}

function ifError(value) {
  if (value !== null && value !== undefined) {
    const e = new AssertionError({ message: `ifError got unwanted exception: ${value && value.message !== undefined ? value.message : inspect(value)}`, actual: value, expected: null, operator: 'ifError' });
    e.generatedMessage = false;
    throw e;
  }
}

// Whether the error `e` is what `expected` describes; throws the
// assertion's error where it is not.
function checkError(e, expected, message, fn) {
  if (expected === undefined) return;
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && e instanceof expected) return;
    if (Error.isPrototypeOf(expected) || expected === Error) {
      fails(e, expected, message ?? `The error is expected to be an instance of "${expected.name}". Received "${e && e.constructor && e.constructor.name}"`, fn.name, fn);
    }
    if (expected.call({}, e) === true) return;
    fails(e, expected, message ?? 'The validation function is expected to return "true". Received false', fn.name, fn);
  }
  if (expected instanceof RegExp) {
    if (expected.test(String(e))) return;
    fails(e, expected, message ?? `The input did not match the regular expression ${expected}. Input:\n\n${inspect(String(e))}\n`, fn.name, fn);
  }
  if (typeof expected === 'object' && expected !== null) {
    for (const key of Reflect.ownKeys(expected)) {
      const want = expected[key];
      const got = e === null || e === undefined ? undefined : e[key];
      const same = want instanceof RegExp && typeof got === 'string' ? want.test(got) : isDeepStrictEqual(got, want);
      if (!same) fails(e, expected, message ?? `Expected values to be strictly deep-equal:\n+ actual - expected\n\n  Comparison {\n+   ${String(key)}: ${inspect(got)}\n-   ${String(key)}: ${inspect(want)}\n  }`, fn.name, fn);
    }
    return;
  }
  throw new TypeError(`The "expected" argument must be of type function or an instance of Error, RegExp, or Object. Received ${inspect(expected)}`);
}

const NOTHING = Symbol('nothing thrown');

function throws(fn, expected, message) {
  if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function.');
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  let thrown = NOTHING;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  if (thrown === NOTHING) fails(undefined, expected, message ?? `Missing expected exception${expected && expected.name ? ` (${expected.name})` : ''}.`, 'throws', throws);
  checkError(thrown, expected, message, throws);
}

function doesNotThrow(fn, expected, message) {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  try {
    fn();
  } catch (e) {
    fails(e, expected, `Got unwanted exception${message ? `: ${message}` : '.'}\nActual message: "${e && e.message}"`, 'doesNotThrow', doesNotThrow);
  }
}

async function rejects(promiseOrFn, expected, message) {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  let thrown = NOTHING;
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
  } catch (e) {
    thrown = e;
  }
  if (thrown === NOTHING) fails(undefined, expected, message ?? `Missing expected rejection${expected && expected.name ? ` (${expected.name})` : ''}.`, 'rejects', rejects);
  checkError(thrown, expected, message, rejects);
}

async function doesNotReject(promiseOrFn, expected, message) {
  if (typeof expected === 'string') [message, expected] = [expected, undefined];
  try {
    await (typeof promiseOrFn === 'function' ? promiseOrFn() : promiseOrFn);
  } catch (e) {
    fails(e, expected, `Got unwanted rejection${message ? `: ${message}` : '.'}\nActual message: "${e && e.message}"`, 'doesNotReject', doesNotReject);
  }
}

// As `workerd`'s: `equal` and `deepEqual` (and their negations) are the
// strict checks under a second name, in `assert` as in `assert/strict`.
const equal = strictEqual;
const notEqual = notStrictEqual;
const deepEqual = deepStrictEqual;
const notDeepEqual = notDeepStrictEqual;

const checks = {
  AssertionError, ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  partialDeepStrictEqual, match, doesNotMatch, fail, ifError, throws, doesNotThrow, rejects, doesNotReject,
};

// An assert function with the checks as its properties.
function make() {
  const assert = (value, message) => {
    if (!value) fails(value, true, message ?? (value === undefined ? 'No value argument passed to `assert.ok()`' : 'The expression evaluated to a falsy value:\n\n  assert(' + inspect(value) + ')\n'), '==', assert);
  };
  return Object.assign(assert, checks);
}

export const strict = make();
strict.strict = strict;

// Node 24's `Assert`: a set of the checks.
export class Assert {
  constructor() {
    Object.assign(this, strict);
  }
}

const assert = make();
assert.strict = strict;
assert.Assert = Assert;
strict.Assert = Assert;

export {
  ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  partialDeepStrictEqual, match, doesNotMatch, fail, ifError, throws, doesNotThrow, rejects, doesNotReject,
};
export default assert;
