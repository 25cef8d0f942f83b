// `node:v8` as workerd has it: zeros for every statistic, and what would
// reach into the engine refused after its arguments are checked
// (tests/all/node_modules.rs compares with workerd's answer).
import v8 from 'node:v8';

export default {
  fetch() {
    const tried = (f) => {
      try {
        return ['returned', f()];
      } catch (e) {
        return [e.name, e.code];
      }
    };
    return new Response(JSON.stringify({
      tag: v8.cachedDataVersionTag(),
      heap: v8.getHeapStatistics(),
      spaces: v8.getHeapSpaceStatistics(),
      code: v8.getHeapCodeStatistics(),
      cpp: [v8.getCppHeapStatistics(), v8.getCppHeapStatistics('brief').detail_level],
      snapshot: v8.startupSnapshot.isBuildingSnapshot(),
      refused: [
        () => v8.getCppHeapStatistics('invalid'),
        () => v8.writeHeapSnapshot(),
        () => v8.writeHeapSnapshot(123),
        () => v8.writeHeapSnapshot('x', { exposeInternals: 'no' }),
        () => v8.getHeapSnapshot('invalid'),
        () => v8.getHeapSnapshot({}),
        () => v8.setFlagsFromString('--expose-gc'),
        () => v8.setFlagsFromString(),
        () => v8.isStringOneByteRepresentation(1),
        () => v8.setHeapSnapshotNearHeapLimit(1),
        () => v8.setHeapSnapshotNearHeapLimit(-1),
        () => v8.setHeapSnapshotNearHeapLimit('x'),
        () => new v8.Serializer(),
        () => new v8.DefaultDeserializer(new Uint8Array(1)),
        () => v8.serialize({}),
        () => new v8.GCProfiler().start(),
        () => v8.promiseHooks.onInit(),
        () => v8.queryObjects(Object),
        () => v8.queryObjects('x'),
        () => v8.queryObjects(Object, 'x'),
        () => v8.queryObjects(Object, { format: 'x' }),
        () => v8.takeCoverage(),
        () => v8.startupSnapshot.addSerializeCallback(() => {}),
      ].map(tried),
    }));
  },
};
