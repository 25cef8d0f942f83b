// `node:sys`: Node's old name of `node:util`, the same module.
export {
  MIMEParams, MIMEType, TextDecoder, TextEncoder, _errnoException, _exceptionWithHostPort, _extend, aborted,
  callbackify, convertProcessSignalToExitCode, debug, debuglog, deprecate, diff, format, formatWithOptions,
  getCallSite, getCallSites, getSystemErrorMap, getSystemErrorMessage, getSystemErrorName, inherits, inspect, isArray,
  isBoolean, isBuffer, isDate, isDeepStrictEqual, isError, isFunction, isNull, isNullOrUndefined,
  isNumber, isObject, isPrimitive, isRegExp, isString, isSymbol, isUndefined, log,
  parseArgs, parseEnv, promisify, setTraceSigInt, stripVTControlCharacters, styleText, toUSVString, transferableAbortController,
  transferableAbortSignal, types,
} from './util.js';
export { default } from './util.js';
