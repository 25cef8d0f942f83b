// Deep equality as Node's `assert` and `util.isDeepStrictEqual` compare
// (Node's "Comparison details"), for `node:assert` and `node:util`
// (host/src/build/node.rs):
// - primitives by `Object.is`; objects by their prototype, their type tag
//   and their own enumerable properties, symbols included, in any order;
// - a wrapped primitive (`new Number(1)`) by its value too, a Date by its
//   time, a RegExp by its source, flags and `lastIndex`, an Error by its
//   `name`, `message` (and `cause` and `errors` where it has them), typed
//   arrays and buffers by their bytes, an array's holes as holes;
// - Map keys and Set members unordered, objects among them deeply;
// - a WeakMap, WeakSet or Promise by its properties alone (their contents
//   cannot be seen);
// - a cycle is equal where both sides meet it at the same place.
// `partial` compares only what `expected` has: its properties, its Map
// and Set entries, and its array's elements in their order.
//
// Invariants: nothing here calls a getter twice or changes either value;
// a Proxy is compared through its traps, as the engine reads it.

const toString = Object.prototype.toString;
const isEnumerable = Object.prototype.propertyIsEnumerable;
const hasOwn = Object.prototype.hasOwnProperty;

// The primitive a wrapper holds, and its kind, or undefined: asked of the
// engine (a `valueOf` that answers for the object), not of its tag, which
// code can set.
function boxed(v) {
  for (const [kind, unwrap] of BOXES) {
    try {
      return [kind, unwrap.call(v)];
    } catch {
      // not this kind
    }
  }
  return undefined;
}
const BOXES = [
  ['number', Number.prototype.valueOf],
  ['string', String.prototype.valueOf],
  ['boolean', Boolean.prototype.valueOf],
  ['bigint', BigInt.prototype.valueOf],
  ['symbol', Symbol.prototype.valueOf],
];

const isIndex = (k) => typeof k === 'string' && /^(0|[1-9][0-9]*)$/.test(k) && Number(k) < 2 ** 32 - 1;

// Own enumerable keys: strings, then symbols.
function ownKeys(v, skipIndices) {
  return Reflect.ownKeys(v).filter((k) => isEnumerable.call(v, k) && !(skipIndices && isIndex(k)));
}

function bytesOf(v) {
  return ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v);
}

function sameBytes(a, b) {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

export function isDeepStrictEqual(actual, expected) {
  return equal(actual, expected, false, new Map(), new Map());
}

// Whether `actual` has all of `expected`, deeply (`partialDeepStrictEqual`).
export function isPartialStrictEqual(actual, expected) {
  return equal(actual, expected, true, new Map(), new Map());
}

function equal(a, b, partial, seenA, seenB) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (toString.call(a) !== toString.call(b)) return false;
  // A cycle: equal where both sides come back to the same pair.
  const atA = seenA.get(a);
  const atB = seenB.get(b);
  if (atA !== undefined || atB !== undefined) return atA === atB;
  const depth = seenA.size;
  seenA.set(a, depth);
  seenB.set(b, depth);
  try {
    return same(a, b, partial, seenA, seenB);
  } finally {
    seenA.delete(a);
    seenB.delete(b);
  }
}

function same(a, b, partial, seenA, seenB) {
  const deep = (x, y) => equal(x, y, partial, seenA, seenB);
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return false;
    if (partial) return partialArray(a, b, deep) && sameKeys(a, b, true, partial, deep);
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const inA = hasOwn.call(a, i);
      if (inA !== hasOwn.call(b, i)) return false;
      if (inA && !deep(a[i], b[i])) return false;
    }
    return sameKeys(a, b, true, partial, deep);
  }
  const boxA = boxed(a);
  if (boxA !== undefined) {
    const boxB = boxed(b);
    if (boxB === undefined || boxA[0] !== boxB[0] || !Object.is(boxA[1], boxB[1])) return false;
    return sameKeys(a, b, boxA[0] === 'string', partial, deep);
  }
  if (boxed(b) !== undefined) return false;
  if (a instanceof Date) {
    if (!Object.is(a.getTime(), b.getTime())) return false;
  } else if (a instanceof RegExp) {
    if (a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (a instanceof Error) {
    if (a.message !== b.message || a.name !== b.name) return false;
    if (('cause' in a) !== ('cause' in b) || ('cause' in a && !deep(a.cause, b.cause))) return false;
    if (('errors' in a) !== ('errors' in b) || ('errors' in a && !deep(a.errors, b.errors))) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b)) return false;
    if (partial) {
      if (!partialArray(Array.from(bytesOf(a)), Array.from(bytesOf(b)), Object.is)) return false;
    } else if (!sameBytes(a, b)) {
      return false;
    }
    return sameKeys(a, b, true, partial, deep);
  } else if (a instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && a instanceof SharedArrayBuffer)) {
    if (!sameBytes(a, b)) return false;
  } else if (a instanceof Set) {
    if (!(b instanceof Set) || (!partial && a.size !== b.size) || !sameSet(a, b, partial, deep)) return false;
  } else if (a instanceof Map) {
    if (!(b instanceof Map) || (!partial && a.size !== b.size) || !sameMap(a, b, partial, deep)) return false;
  }
  return sameKeys(a, b, false, partial, deep);
}

// Own enumerable properties, in any order (in `partial`, `expected`'s).
function sameKeys(a, b, skipIndices, partial, deep) {
  const kb = ownKeys(b, skipIndices);
  if (!partial) {
    const ka = ownKeys(a, skipIndices);
    if (ka.length !== kb.length) return false;
  }
  return kb.every((k) => isEnumerable.call(a, k) && deep(a[k], b[k]));
}

// `expected`'s elements, in its order, among `actual`'s.
function partialArray(actual, expected, deep) {
  let at = 0;
  for (const want of expected) {
    while (at < actual.length && !deep(actual[at], want)) at++;
    if (at === actual.length) return false;
    at++;
  }
  return true;
}

const isObject = (v) => typeof v === 'object' && v !== null;

// Each member of `b` found in `a`: a primitive by `has`, an object by a
// deep match not used already.
function sameSet(a, b, partial, deep) {
  const unmatched = [...a].filter(isObject);
  for (const v of b) {
    if (!isObject(v)) {
      if (!a.has(v)) return false;
      continue;
    }
    if (a.has(v)) {
      const i = unmatched.indexOf(v);
      if (i !== -1) unmatched.splice(i, 1);
      continue;
    }
    const i = unmatched.findIndex((u) => deep(u, v));
    if (i === -1) return false;
    unmatched.splice(i, 1);
  }
  return true;
}

function sameMap(a, b, partial, deep) {
  const unmatched = [...a.keys()].filter(isObject);
  for (const [k, v] of b) {
    if (!isObject(k) || a.has(k)) {
      if (!a.has(k) || !deep(a.get(k), v)) return false;
      const i = unmatched.indexOf(k);
      if (i !== -1) unmatched.splice(i, 1);
      continue;
    }
    const i = unmatched.findIndex((u) => deep(u, k) && deep(a.get(u), v));
    if (i === -1) return false;
    unmatched.splice(i, 1);
  }
  return true;
}
