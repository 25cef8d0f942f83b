// `performance`'s User Timing and `node:perf_hooks`, as apps and their
// libraries use them. tests/all/node_modules.rs compares `/` with
// workerd's answer, and `/spec` with Node's: there `ssr` follows the User
// Timing standard where workerd does not (docs/compatibility.md).
import * as perfHooks from 'node:perf_hooks';

const caught = (fn) => {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return `${e.name}${e.code ? ` ${e.code}` : ''}`;
  }
};
const tag = (o) => Object.prototype.toString.call(o);

export default {
  async fetch(request) {
    const out = [];
    performance.clearMarks();
    performance.clearMeasures();
    if (new URL(request.url).pathname === '/spec') {
      performance.mark('a', { startTime: 10 });
      performance.mark('b', { startTime: 25 });
      performance.mark('a', { startTime: 12 });
      const latest = [
        performance.measure('between', 'a', 'b'),
        performance.measure('options', { start: 'a', end: 'b' }),
        performance.measure('endAndDuration', { end: 30, duration: 4 }),
      ];
      return new Response(latest.map((m) => `${m.startTime}+${m.duration}`).join(' '));
    }
    performance.clearMeasures();
    const classes = [Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver, PerformanceObserverEntryList, PerformanceResourceTiming];
    out.push(`classes: ${classes.map((c) => c.name).join(' ')}`);
    out.push(`chain: ${performance instanceof Performance} ${performance instanceof EventTarget} ${Object.getPrototypeOf(PerformanceMeasure.prototype) === PerformanceEntry.prototype} ${perfHooks.performance === performance}`);
    out.push(`origin: ${performance.timeOrigin} ${JSON.stringify(performance.toJSON())} ${Math.abs(performance.now() - Date.now()) < 2}`);
    const a = performance.mark('a', { startTime: 10, detail: { step: 1 } });
    const b = performance.mark('b', { startTime: 25 });
    out.push(`marks: ${tag(a)} ${JSON.stringify(a)} ${JSON.stringify(b.toJSON())} ${b.detail}`);
    const measures = [
      performance.measure('between', 'a', 'b'),
      performance.measure('numbers', { start: 5, end: 40, detail: { why: 'test' } }),
      performance.measure('duration', { start: 5, duration: 7 }),
    ];
    out.push(`measures: ${measures.map((m) => `${m.startTime}+${m.duration}`).join(' ')} ${tag(measures[0])} ${JSON.stringify(measures[1].detail)}`);
    const open = performance.measure('open', 'b');
    const unknown = performance.measure('unknown', 'nowhere');
    // Now, by the clock, which may have moved on a millisecond since.
    const recent = (t) => t <= Date.now() && t > Date.now() - 1000;
    out.push(`to now: ${open.startTime} ${recent(open.startTime + open.duration)} ${unknown.startTime} ${recent(unknown.duration)}`);
    out.push(`by name: ${performance.getEntriesByName('a').length} ${performance.getEntriesByName('a', 'measure').length} ${performance.getEntriesByType('measure').length} ${performance.getEntries().length}`);
    performance.clearMarks('a');
    out.push(`cleared: ${performance.getEntries().map((e) => e.name).join(',')}`);
    performance.clearMeasures();
    out.push(`left: ${performance.getEntries().map((e) => `${e.entryType}:${e.name}`).join(',')}`);
    const seen = [];
    const observer = new PerformanceObserver((list) => seen.push(list.getEntries().length));
    observer.observe({ entryTypes: ['mark', 'measure'] });
    performance.mark('observed');
    await new Promise((resolve) => setTimeout(resolve, 5));
    observer.disconnect();
    out.push(`observer: ${seen.length} ${observer.takeRecords().length} ${PerformanceObserver.supportedEntryTypes}`);
    const timing = performance.nodeTiming;
    out.push(`node: ${tag(timing)} ${timing.name} ${Object.keys(timing).sort().join(',')} ${JSON.stringify(timing.toJSON().uvMetricsInfo)}`);
    const counts = performance.eventCounts;
    out.push(`counts: ${tag(counts)} ${counts.size} ${[...counts].length} ${counts.get('click')} ${'set' in counts}`);
    out.push(`hooks: ${Object.keys(perfHooks.constants).length} ${Object.isFrozen(perfHooks.constants)} ${perfHooks.timerify(Math.max) === Math.max} ${JSON.stringify(perfHooks.eventLoopUtilization())}`);
    out.push(`refused: ${[
      () => performance.mark(),
      () => performance.mark('x', 5),
      () => performance.measure('x', { detail: 1 }),
      () => performance.getEntriesByType(),
      () => new PerformanceEntry(),
      () => new PerformanceMeasure(),
      () => new Performance(),
      () => new PerformanceObserver(),
      () => perfHooks.createHistogram(),
      () => perfHooks.monitorEventLoopDelay(),
    ].map(caught).join(', ')}`);
    performance.clearMarks();
    return new Response(out.join('\n'));
  },
};
