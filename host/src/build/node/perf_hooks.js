// `node:perf_hooks`: the global `performance` (whose `now()` is
// `Date.now()`, as on workerd) and the Performance classes where the
// engine has them.
const g = globalThis;
export const performance = g.performance;
export const eventLoopUtilization = () => ({ idle: 0, active: 0, utilization: 0 });
export function timerify(fn) {
  if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
  return fn;
}

export default { performance, eventLoopUtilization, timerify };
