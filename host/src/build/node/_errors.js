// Node's argument errors, as the `node:` modules throw them (host/src/build/
// node.rs): the same class, `code` and message text Node writes, which apps
// and `workerd`'s tests match on. Our modules import them as
// `./_errors.js`.

// Node's errors name their code when shown: `TypeError [ERR_X]: message`.
function shown() {
  return `${this.name} [${this.code}]: ${this.message}`;
}

export function codedError(Kind, code, message) {
  const e = new Kind(message);
  e.code = code;
  Object.defineProperty(e, 'toString', { value: shown, writable: true, configurable: true });
  return e;
}

// What a method that is not implemented throws, as `workerd` throws it.
export const notImplemented = (name) => codedError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', `The ${name} method is not implemented`);

// A function that throws `notImplemented(name)` whenever it is called.
export const refusing = (name) => () => {
  throw notImplemented(name);
};

// What Node's messages say a value was: "Received undefined", "Received an
// instance of Foo", "Received type number (12)".
export function received(value) {
  if (value === null || value === undefined) return `Received ${value}`;
  if (typeof value === 'function') return `Received function ${value.name || '<anonymous>'}`;
  if (typeof value === 'object') {
    const name = value.constructor && value.constructor.name;
    return name ? `Received an instance of ${name}` : 'Received [Object: null prototype]';
  }
  let shown = typeof value === 'string' ? `'${value}'` : typeof value === 'bigint' ? `${value}n` : String(value);
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
  return `Received type ${typeof value} (${shown})`;
}

// `The "name" argument must be of type string. Received ...`: `expected`
// is what Node's message says after "must be" ("of type string", "an
// instance of Buffer, TypedArray, or DataView").
export function invalidArgType(name, expected, value) {
  // Node's wording: `The last argument must be`, `The "x.y" property`,
  // `The "x" argument`.
  const subject = name.endsWith(' argument') ? name : `"${name}" ${name.includes('.') ? 'property' : 'argument'}`;
  return codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `The ${subject} must be ${expected}. ${received(value)}`);
}

export function invalidArgValue(name, value, reason = 'is invalid') {
  const what = name.includes('.') ? 'property' : 'argument';
  let shown = typeof value === 'string' ? `'${value}'` : String(value);
  if (shown.length > 128) shown = `${shown.slice(0, 128)}...`;
  return codedError(TypeError, 'ERR_INVALID_ARG_VALUE', `The ${what} '${name}' ${reason}. Received ${shown}`);
}

export function outOfRange(name, range, value) {
  return codedError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be ${range}. Received ${shownValue(value)}`);
}

function shownValue(value) {
  if (typeof value === 'number') return shownNumber(value);
  if (typeof value === 'bigint') {
    const big = value > 2n ** 32n || value < -(2n ** 32n);
    return `${big ? groupDigits(String(value)) : String(value)}n`;
  }
  return String(value);
}

// Node writes large integers with underscores between thousands.
function shownNumber(n) {
  if (!Number.isInteger(n) || Math.abs(n) < 2 ** 32) return String(n);
  return groupDigits(String(n));
}

// An integer's text (after any sign) in groups of three from the right,
// joined by `_`, as Node's messages and `util.inspect`'s `numericSeparator`
// write it.
export function groupDigits(text) {
  const sign = text.startsWith('-') ? '-' : '';
  const digits = text.slice(sign.length);
  let out = '';
  for (let i = digits.length; i > 0; i -= 3) out = digits.slice(Math.max(0, i - 3), i) + (out ? `_${out}` : '');
  return sign + out;
}

export function validateString(value, name) {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
}

export function validateFunction(value, name) {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
}

// An integer in [min, max]: a non-number is a TypeError, a fraction or a
// value outside is a RangeError, as Node's validateInteger.
export function validateInteger(value, name, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (!Number.isInteger(value)) throw outOfRange(name, 'an integer', value);
  if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
}
