// `node:trace_events` as workerd has it: tracing objects that trace
// nothing, and Node's argument checks (tests/all/node_modules.rs compares
// with workerd's answer).
import traceEvents from 'node:trace_events';

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
      keys: Object.keys(traceEvents),
      tracing: [Object.prototype.toString.call(tracing), Object.keys(tracing), before, calls, tracing.constructor.name],
      enabled: [traceEvents.getEnabledCategories(), traceEvents.getEnabledCategories(123, {})],
      refused: ['invalid', null, 123, [], {}, { categories: [] }, { categories: 'x' }, { categories: [1] }, { categories: ['a', null] }, { categories: undefined }]
        .map((input) => tried(() => traceEvents.createTracing(input) && 'made')),
      empty: tried(() => traceEvents.createTracing({ categories: [''] }).categories),
    }));
  },
};
