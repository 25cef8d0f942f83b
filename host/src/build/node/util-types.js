// `node:util/types` (and `util.types`): what kind of value a value is.
// Built-ins are told by their internal tag, which a subclass or a value
// from another realm keeps; there are no proxies or external values to
// tell apart from JavaScript, so `isProxy` and `isExternal` are false.
const tag = (v) => Object.prototype.toString.call(v).slice(8, -1);
const TypedArray = Object.getPrototypeOf(Uint8Array);
const typedTag = (v) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? v[Symbol.toStringTag] : undefined);
const typed = (name) => (v) => typedTag(v) === name;

export const isAnyArrayBuffer = (v) => v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer);
export const isArrayBuffer = (v) => v instanceof ArrayBuffer;
export const isSharedArrayBuffer = (v) => typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer;
export const isArrayBufferView = (v) => ArrayBuffer.isView(v);
export const isArgumentsObject = (v) => tag(v) === 'Arguments';
export const isTypedArray = (v) => v instanceof TypedArray;
export const isDataView = (v) => v instanceof DataView;
export const isDate = (v) => v instanceof Date;
export const isRegExp = (v) => v instanceof RegExp;
export const isMap = (v) => v instanceof Map;
export const isSet = (v) => v instanceof Set;
export const isWeakMap = (v) => v instanceof WeakMap;
export const isWeakSet = (v) => v instanceof WeakSet;
export const isMapIterator = (v) => tag(v) === 'Map Iterator';
export const isSetIterator = (v) => tag(v) === 'Set Iterator';
export const isPromise = (v) => v instanceof Promise;
export const isProxy = () => false;
export const isExternal = () => false;
export const isNativeError = (v) => v instanceof Error;
export const isAsyncFunction = (v) => typeof v === 'function' && (tag(v) === 'AsyncFunction' || tag(v) === 'AsyncGeneratorFunction');
export const isGeneratorFunction = (v) => typeof v === 'function' && (tag(v) === 'GeneratorFunction' || tag(v) === 'AsyncGeneratorFunction');
export const isGeneratorObject = (v) => tag(v) === 'Generator';
export const isBoxedPrimitive = (v) => v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt || v instanceof Symbol;
export const isNumberObject = (v) => v instanceof Number;
export const isStringObject = (v) => v instanceof String;
export const isBooleanObject = (v) => v instanceof Boolean;
export const isBigIntObject = (v) => v instanceof BigInt;
export const isSymbolObject = (v) => v instanceof Symbol;
export const isModuleNamespaceObject = (v) => tag(v) === 'Module';
export const isKeyObject = (v) => v !== null && typeof v === 'object' && tag(v) === 'KeyObject';
export const isCryptoKey = (v) => typeof CryptoKey !== 'undefined' && v instanceof CryptoKey;
export const isUint8Array = typed('Uint8Array');
export const isUint8ClampedArray = typed('Uint8ClampedArray');
export const isUint16Array = typed('Uint16Array');
export const isUint32Array = typed('Uint32Array');
export const isInt8Array = typed('Int8Array');
export const isInt16Array = typed('Int16Array');
export const isInt32Array = typed('Int32Array');
export const isFloat16Array = typed('Float16Array');
export const isFloat32Array = typed('Float32Array');
export const isFloat64Array = typed('Float64Array');
export const isBigInt64Array = typed('BigInt64Array');
export const isBigUint64Array = typed('BigUint64Array');

export default {
  isAnyArrayBuffer, isArgumentsObject, isArrayBuffer, isArrayBufferView, isAsyncFunction, isBigInt64Array, isBigIntObject,
  isBigUint64Array, isBooleanObject, isBoxedPrimitive, isCryptoKey, isDataView, isDate, isExternal, isFloat16Array,
  isFloat32Array, isFloat64Array, isGeneratorFunction, isGeneratorObject, isInt16Array, isInt32Array, isInt8Array,
  isKeyObject, isMap, isMapIterator, isModuleNamespaceObject, isNativeError, isNumberObject, isPromise, isProxy,
  isRegExp, isSet, isSetIterator, isSharedArrayBuffer, isStringObject, isSymbolObject, isTypedArray, isUint16Array,
  isUint32Array, isUint8Array, isUint8ClampedArray, isWeakMap, isWeakSet,
};
