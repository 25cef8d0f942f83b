// `node:perf_hooks`: the global `performance` and its classes
// (wit/prelude/06_performance.js), Node's constants, and what `workerd`
// gives of the rest: `timerify` returns its function, the event loop's
// utilization is all 0, and histograms are not implemented.
import { notImplemented } from './_errors.js';

const g = globalThis;
export const performance = g.performance;
export const Performance = g.Performance;
export const PerformanceEntry = g.PerformanceEntry;
export const PerformanceMark = g.PerformanceMark;
export const PerformanceMeasure = g.PerformanceMeasure;
export const PerformanceObserver = g.PerformanceObserver;
export const PerformanceObserverEntryList = g.PerformanceObserverEntryList;
export const PerformanceResourceTiming = g.PerformanceResourceTiming;
export const eventLoopUtilization = () => performance.eventLoopUtilization();
export const timerify = (fn) => performance.timerify(fn);

export const createHistogram = () => {
  throw notImplemented('createHistogram');
};
export const monitorEventLoopDelay = () => {
  throw notImplemented('monitorEventLoopDelay');
};

export const constants = Object.freeze({
  NODE_PERFORMANCE_GC_MAJOR: 4,
  NODE_PERFORMANCE_GC_MINOR: 1,
  NODE_PERFORMANCE_GC_INCREMENTAL: 8,
  NODE_PERFORMANCE_GC_WEAKCB: 16,
  NODE_PERFORMANCE_GC_FLAGS_NO: 0,
  NODE_PERFORMANCE_GC_FLAGS_CONSTRUCT_RETAINED: 2,
  NODE_PERFORMANCE_GC_FLAGS_FORCED: 4,
  NODE_PERFORMANCE_GC_FLAGS_SYNCHRONOUS_PHANTOM_PROCESSING: 8,
  NODE_PERFORMANCE_GC_FLAGS_ALL_AVAILABLE_GARBAGE: 16,
  NODE_PERFORMANCE_GC_FLAGS_ALL_EXTERNAL_MEMORY: 32,
  NODE_PERFORMANCE_GC_FLAGS_SCHEDULE_IDLE: 64,
  NODE_PERFORMANCE_ENTRY_TYPE_GC: 0,
  NODE_PERFORMANCE_ENTRY_TYPE_HTTP: 1,
  NODE_PERFORMANCE_ENTRY_TYPE_HTTP2: 2,
  NODE_PERFORMANCE_ENTRY_TYPE_NET: 3,
  NODE_PERFORMANCE_ENTRY_TYPE_DNS: 4,
  NODE_PERFORMANCE_MILESTONE_TIME_ORIGIN_TIMESTAMP: 0,
  NODE_PERFORMANCE_MILESTONE_TIME_ORIGIN: 1,
  NODE_PERFORMANCE_MILESTONE_ENVIRONMENT: 2,
  NODE_PERFORMANCE_MILESTONE_NODE_START: 3,
  NODE_PERFORMANCE_MILESTONE_V8_START: 4,
  NODE_PERFORMANCE_MILESTONE_LOOP_START: 5,
  NODE_PERFORMANCE_MILESTONE_LOOP_EXIT: 6,
  NODE_PERFORMANCE_MILESTONE_BOOTSTRAP_COMPLETE: 7,
});

export default {
  performance, Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver,
  PerformanceObserverEntryList, PerformanceResourceTiming, eventLoopUtilization, timerify, createHistogram,
  monitorEventLoopDelay, constants,
};
