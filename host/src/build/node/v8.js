// `node:v8`, as `workerd` has it at today's date: an isolate's engine is
// not the app's to see, so every statistic is zero (or empty), the cached
// data's version tag is 0, no snapshot is being built, and what would
// reach into the engine (heap snapshots, flags, coverage, serializers,
// promise hooks, object queries) throws `ERR_METHOD_NOT_IMPLEMENTED`, after
// the arguments are checked as Node checks them.
import { invalidArgType, invalidArgValue, notImplemented, outOfRange, refusing, validateFunction, validateString } from './_errors.js';

export function cachedDataVersionTag() {
  return 0;
}

const zeros = (keys) => Object.fromEntries(keys.map((k) => [k, 0]));

export function getHeapStatistics() {
  return zeros([
    'total_heap_size', 'total_heap_size_executable', 'total_physical_size', 'total_available_size',
    'used_heap_size', 'heap_size_limit', 'malloced_memory', 'peak_malloced_memory', 'does_zap_garbage',
    'number_of_native_contexts', 'number_of_detached_contexts', 'total_global_handles_size',
    'used_global_handles_size', 'external_memory', 'total_allocated_bytes',
  ]);
}

export function getHeapSpaceStatistics() {
  return [];
}

export function getHeapCodeStatistics() {
  return zeros(['code_and_metadata_size', 'bytecode_and_metadata_size', 'external_script_source_size', 'cpu_profiler_metadata_size']);
}

export function getCppHeapStatistics(detailLevel = 'detailed') {
  if (detailLevel !== 'brief' && detailLevel !== 'detailed') {
    throw invalidArgValue('type', detailLevel, "must be one of: 'brief', 'detailed'");
  }
  return {
    ...zeros(['committed_size_bytes', 'resident_size_bytes', 'used_size_bytes']),
    space_statistics: [],
    type_names: [],
    detail_level: detailLevel,
  };
}

// A heap snapshot's options: an object whose two flags, if given, are
// booleans.
function validateSnapshotOptions(options) {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  for (const key of ['exposeInternals', 'exposeNumericValues']) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') {
      throw invalidArgType(`options.${key}`, 'of type boolean', options[key]);
    }
  }
}

export function writeHeapSnapshot(path, options) {
  if (path !== undefined) validateString(path, 'filename');
  validateSnapshotOptions(options);
  throw notImplemented('writeHeapSnapshot');
}

export function getHeapSnapshot(options) {
  validateSnapshotOptions(options);
  throw notImplemented('getHeapSnapshot');
}

export function setFlagsFromString(flags) {
  validateString(flags, 'flags');
  throw notImplemented('setFlagsFromString');
}

export function isStringOneByteRepresentation(content) {
  validateString(content, 'content');
  throw notImplemented('isStringOneByteRepresentation');
}

export function setHeapSnapshotNearHeapLimit(limit) {
  if (typeof limit !== 'number') throw invalidArgType('limit', 'of type number', limit);
  if (!Number.isInteger(limit)) throw outOfRange('limit', 'an integer', limit);
  if (limit < 1 || limit >= 2 ** 32) throw outOfRange('limit', '>= 1 && < 4294967296', limit);
  throw notImplemented('setHeapSnapshotNearHeapLimit');
}

export function queryObjects(ctor, options) {
  validateFunction(ctor, 'constructor');
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw invalidArgType('options', 'of type object', options);
  }
  const format = options === undefined || options.format === undefined ? 'count' : options.format;
  if (format !== 'count' && format !== 'summary') {
    throw invalidArgValue('options.format', format);
  }
  throw notImplemented('queryObjects');
}

export function serialize() {
  throw notImplemented('serialize');
}

export function deserialize() {
  throw notImplemented('deserialize');
}

export function takeCoverage() {
  throw notImplemented('takeCoverage');
}

export function stopCoverage() {
  throw notImplemented('stopCoverage');
}

export class Serializer {
  constructor() {
    throw notImplemented('Serializer');
  }
}

export class Deserializer {
  constructor() {
    throw notImplemented('Deserializer');
  }
}

export class DefaultSerializer extends Serializer {}
export class DefaultDeserializer extends Deserializer {}

export class GCProfiler {
  start() {
    throw notImplemented('GCProfiler.start');
  }

  stop() {
    throw notImplemented('GCProfiler.stop');
  }
}

export const promiseHooks = {
  createHook: refusing('promiseHooks.createHook'),
  onInit: refusing('promiseHooks.onInit'),
  onBefore: refusing('promiseHooks.onBefore'),
  onAfter: refusing('promiseHooks.onAfter'),
  onSettled: refusing('promiseHooks.onSettled'),
};

export const startupSnapshot = {
  addSerializeCallback: refusing('startupSnapshot.addSerializeCallback'),
  addDeserializeCallback: refusing('startupSnapshot.addDeserializeCallback'),
  setDeserializeMainFunction: refusing('startupSnapshot.setDeserializeMainFunction'),
  isBuildingSnapshot() {
    return false;
  },
};

export default {
  DefaultDeserializer, DefaultSerializer, Deserializer, GCProfiler, Serializer, cachedDataVersionTag, deserialize,
  getCppHeapStatistics, getHeapCodeStatistics, getHeapSnapshot, getHeapSpaceStatistics, getHeapStatistics,
  isStringOneByteRepresentation, promiseHooks, queryObjects, serialize, setFlagsFromString,
  setHeapSnapshotNearHeapLimit, startupSnapshot, stopCoverage, takeCoverage, writeHeapSnapshot,
};
