// `node:v8`, `node:trace_events` and `node:wasi` as workerd has them: the
// engine is not the app's to see, so every statistic is zero, nothing is
// traced, no WebAssembly runs, and what would reach into the engine is
// refused once its arguments pass Node's checks (tests/all/node_modules.rs
// compares with workerd's answer).
import v8 from 'node:v8';
import traceEvents from 'node:trace_events';
import { WASI } from 'node:wasi';

export default {
  fetch() {
    const tried = (f) => {
      try {
        return ['returned', f()];
      } catch (e) {
        return [e.name, e.code, e.message];
      }
    };
    const tracing = traceEvents.createTracing({ categories: ['node.fs', 'v8'], other: 1 });
    const before = [tracing.enabled, tracing.categories];
    const calls = [tracing.enable(), tracing.enabled, tracing.disable(), tracing.enabled];
    return new Response(JSON.stringify({
      v8: {
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
      },
      traceEvents: {
        keys: Object.keys(traceEvents),
        tracing: [Object.prototype.toString.call(tracing), Object.keys(tracing), before, calls, tracing.constructor.name],
        enabled: [traceEvents.getEnabledCategories(), traceEvents.getEnabledCategories(123, {})],
        refused: ['invalid', null, 123, [], {}, { categories: [] }, { categories: 'x' }, { categories: [1] }, { categories: ['a', null] }, { categories: undefined }]
          .map((input) => tried(() => traceEvents.createTracing(input) && 'made')),
        empty: tried(() => traceEvents.createTracing({ categories: [''] }).categories),
      },
      wasi: [
        undefined, { version: 'preview1' }, 'x', null, { version: 'v1' }, { version: null }, {},
        { version: 'unstable', args: {} }, { version: 'unstable', env: [] }, { version: 'unstable', preopens: 1 },
        { version: 'unstable', stdin: -1 }, { version: 'unstable', stdout: 'x' }, { version: 'unstable', stderr: 2 ** 31 },
        { version: 'unstable', returnOnExit: 1 }, { version: 'unstable', args: ['a'], env: {}, preopens: {}, stdin: 0, returnOnExit: true },
      ].map((options) => tried(() => new WASI(options)))
        .concat([WASI.prototype.getImportObject.call({}), tried(() => WASI.prototype.start.call({}, {}))]),
    }));
  },
};
