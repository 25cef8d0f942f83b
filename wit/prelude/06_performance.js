//! `performance` and the User Timing classes, as `workerd` has them: the
//! origin is 0, so `now()` is `Date.now()`; marks and measures are kept
//! (at most `timingLimit`, oldest dropped first); the observer, event
//! counts, Node's timing entry and resource timing exist and stay empty.
//!
//! Defines: performance, Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, PerformanceObserver, PerformanceObserverEntryList, PerformanceResourceTiming
//! Host calls: none
//! Rust: none
//! WPT: none
//! Test plugin: tests/plugins/performance.js
  // ------------------------------------------------------------ performance
  // `workerd` replaces the engine's `performance` (QuickJS-ng has one), and
  // so does this: its clock is the one `Date.now()` reads.
  const making = {};
  const entryState = new WeakMap();
  const entryOf = (e) => branded(entryState, e);
  const wrongType = (method, on, n, type) =>
    new TypeError(`Failed to execute '${method}' on '${on}': parameter ${n} is not of type '${type}'.`);
  class PerformanceEntryImpl {
    constructor(key, name, entryType, startTime, duration, detail) {
      if (key !== making) throw new TypeError('Illegal constructor');
      entryState.set(this, { name, entryType, startTime, duration, detail });
    }
    get name() { return entryOf(this).name; }
    get entryType() { return entryOf(this).entryType; }
    get startTime() { return entryOf(this).startTime; }
    get duration() { return entryOf(this).duration; }
    toJSON() {
      const s = entryOf(this);
      const json = { name: s.name, entryType: s.entryType, startTime: s.startTime, duration: s.duration };
      if (s.detail !== null && s.detail !== undefined) json.detail = s.detail;
      return json;
    }
    get [Symbol.toStringTag]() { return 'PerformanceEntry'; }
  }
  // `detail` is kept as given, not cloned (as on `workerd`); it must be an
  // object where one is passed.
  function detailOf(options) {
    const detail = options === undefined || options === null ? undefined : options.detail;
    if (detail !== undefined && detail !== null && typeof detail !== 'object' && typeof detail !== 'function') {
      throw new TypeError("Incorrect type for the 'detail' field on 'Options': the provided value is not of type 'Object'.");
    }
    return detail === undefined ? null : detail;
  }
  class PerformanceMarkImpl extends PerformanceEntryImpl {
    constructor(name, options) {
      if (name === undefined) throw new TypeError("Failed to construct 'PerformanceMark': constructor parameter 1 is not of type 'string'.");
      if (options !== undefined && options !== null && typeof options !== 'object') throw wrongType('construct', 'PerformanceMark', 2, 'Options');
      const startTime = options && options.startTime !== undefined ? Number(options.startTime) : Date.now();
      super(making, String(name), 'mark', startTime, 0, detailOf(options));
    }
    get detail() { return entryOf(this).detail; }
    get [Symbol.toStringTag]() { return 'PerformanceMark'; }
  }
  class PerformanceMeasureImpl extends PerformanceEntryImpl {
    get detail() { return entryOf(this).detail; }
    get [Symbol.toStringTag]() { return 'PerformanceMeasure'; }
  }
  class PerformanceResourceTimingImpl extends PerformanceEntryImpl {
    get [Symbol.toStringTag]() { return 'PerformanceResourceTiming'; }
  }
  for (const field of ['connectEnd', 'connectStart', 'decodedBodySize', 'domainLookupEnd', 'domainLookupStart',
    'encodedBodySize', 'fetchStart', 'initiatorType', 'nextHopProtocol', 'redirectEnd', 'redirectStart',
    'requestStart', 'responseEnd', 'responseStart', 'responseStatus', 'secureConnectionStart', 'transferSize',
    'workerStart']) {
    Object.defineProperty(PerformanceResourceTimingImpl.prototype, field, { get() { entryOf(this); return 0; }, configurable: true, enumerable: true });
  }
  // Node's `performance.nodeTiming`: its milestones are own properties,
  // all 0 (a Worker has no process start to report).
  class PerformanceNodeTiming extends PerformanceEntryImpl {
    constructor() {
      super(making, 'node', 'node', 0, 0, null);
      const uvMetricsInfo = { loopCount: 0, events: 0, eventsWaiting: 0 };
      Object.assign(this, { uvMetricsInfo, idleTime: 0, loopExit: 0, loopStart: 0, environment: 0, bootstrapComplete: 0, v8Start: 0, nodeStart: 0 });
    }
    toJSON() {
      const { uvMetricsInfo, idleTime, loopExit, loopStart, environment, bootstrapComplete, v8Start, nodeStart } = this;
      return { ...super.toJSON(), nodeStart, v8Start, bootstrapComplete, environment, loopStart, loopExit, idleTime, uvMetricsInfo: { ...uvMetricsInfo } };
    }
    get [Symbol.toStringTag]() { return 'PerformanceNodeTiming'; }
  }
  // A read-only, always empty map: no event is counted outside a browser.
  class EventCounts {
    get size() { return 0; }
    get() { return undefined; }
    has() { return false; }
    entries() { return new Map().entries(); }
    keys() { return new Map().keys(); }
    values() { return new Map().values(); }
    forEach() {}
    [Symbol.iterator]() { return this.entries(); }
    get [Symbol.toStringTag]() { return 'EventCounts'; }
  }
  class PerformanceObserverEntryListImpl {
    constructor() { throw new TypeError('Illegal constructor'); }
  }
  for (const method of ['getEntries', 'getEntriesByName', 'getEntriesByType']) {
    PerformanceObserverEntryListImpl.prototype[method] = () => [];
  }
  // As on `workerd`, observing is accepted and never reports: entries are
  // read with `getEntries*`.
  class PerformanceObserverImpl {
    constructor(callback) {
      if (typeof callback !== 'function') throw new TypeError("Failed to construct 'PerformanceObserver': constructor parameter 1 is not of type 'Value'.");
    }
    observe() {}
    disconnect() {}
    takeRecords() { return []; }
    static get supportedEntryTypes() { return ['measure', 'mark']; }
    get [Symbol.toStringTag]() { return 'PerformanceObserver'; }
  }
  // The marks and measures, in the order made; a Worker's instance lives on
  // across requests, so the list is bounded.
  const timingLimit = 10000;
  const timings = [];
  function keepTiming(e) {
    if (timings.length >= timingLimit) timings.shift();
    timings.push(e);
    return e;
  }
  const clearTimings = (type, name) => {
    for (let i = timings.length - 1; i >= 0; i--) {
      const s = entryOf(timings[i]);
      if (s.entryType === type && (name === undefined || s.name === String(name))) timings.splice(i, 1);
    }
  };
  // A measure's end point: a mark's name is its latest start time, as on
  // `workerd` an unknown name is `fallback`; a number is itself.
  function timeOf(point, fallback) {
    if (typeof point === 'number') return point;
    if (typeof point !== 'string') return fallback;
    for (let i = timings.length - 1; i >= 0; i--) {
      const s = entryOf(timings[i]);
      if (s.entryType === 'mark' && s.name === point) return s.startTime;
    }
    return fallback;
  }
  function stringArg(value, method, n) {
    if (value === undefined) throw wrongType(method, 'Performance', n, 'string');
    return String(value);
  }
  class PerformanceImpl extends EventTargetImpl {
    constructor(key) {
      if (key !== making) throw new TypeError('Illegal constructor');
      super();
    }
    get timeOrigin() { return 0; }
    now() { return Date.now(); }
    get eventCounts() { return new EventCounts(); }
    get nodeTiming() { return new PerformanceNodeTiming(); }
    mark(name, options) {
      name = stringArg(name, 'mark', 1);
      if (options !== undefined && options !== null && typeof options !== 'object') throw wrongType('mark', 'Performance', 2, 'Options');
      return keepTiming(new PerformanceMarkImpl(name, options === null ? undefined : options));
    }
    // `measure(name)`, `measure(name, startMark, endMark)` or
    // `measure(name, { start, end, duration, detail })`.
    measure(name, startOrOptions, endMark) {
      name = stringArg(name, 'measure', 1);
      const now = Date.now();
      let start;
      let end;
      let detail = null;
      if (startOrOptions !== null && typeof startOrOptions === 'object') {
        const { start: from, end: to, duration } = startOrOptions;
        detail = detailOf(startOrOptions);
        end = to === undefined ? undefined : timeOf(to, now);
        if (from !== undefined) start = timeOf(from, 0);
        else start = end !== undefined && duration !== undefined ? end - Number(duration) : 0;
        if (end === undefined) end = duration === undefined ? now : start + Number(duration);
      } else {
        start = startOrOptions === undefined ? 0 : timeOf(String(startOrOptions), 0);
        end = endMark === undefined ? now : timeOf(String(endMark), now);
      }
      return keepTiming(new PerformanceMeasureImpl(making, name, 'measure', start, end - start, detail));
    }
    getEntries() { return timings.slice(); }
    getEntriesByName(name, type) {
      name = stringArg(name, 'getEntriesByName', 1);
      return timings.filter((e) => entryOf(e).name === name && (type === undefined || entryOf(e).entryType === String(type)));
    }
    getEntriesByType(type) {
      type = stringArg(type, 'getEntriesByType', 1);
      return timings.filter((e) => entryOf(e).entryType === type);
    }
    clearMarks(name) { clearTimings('mark', name); }
    clearMeasures(name) { clearTimings('measure', name); }
    clearResourceTimings() {}
    setResourceTimingBufferSize() {}
    markResourceTiming() {}
    toJSON() { return { timeOrigin: 0 }; }
    eventLoopUtilization() { return { idle: 0, active: 0, utilization: 0 }; }
    timerify(fn) {
      if (typeof fn !== 'function') throw new TypeError('The "fn" argument must be of type function');
      return fn;
    }
    get [Symbol.toStringTag]() { return 'Performance'; }
  }
  // Replaced, not defined where missing (QuickJS-ng has a `performance`).
  const replaced = { writable: true, configurable: true, enumerable: false };
  for (const [value, name] of [[PerformanceImpl, 'Performance'], [PerformanceEntryImpl, 'PerformanceEntry'],
    [PerformanceMarkImpl, 'PerformanceMark'], [PerformanceMeasureImpl, 'PerformanceMeasure'],
    [PerformanceObserverImpl, 'PerformanceObserver'], [PerformanceObserverEntryListImpl, 'PerformanceObserverEntryList'],
    [PerformanceResourceTimingImpl, 'PerformanceResourceTiming']]) {
    Object.defineProperty(value, 'name', { value: name });
  }
  Object.defineProperty(g, 'Performance', { ...replaced, value: PerformanceImpl });
  Object.defineProperty(g, 'PerformanceEntry', { ...replaced, value: PerformanceEntryImpl });
  Object.defineProperty(g, 'PerformanceMark', { ...replaced, value: PerformanceMarkImpl });
  Object.defineProperty(g, 'PerformanceMeasure', { ...replaced, value: PerformanceMeasureImpl });
  Object.defineProperty(g, 'PerformanceObserver', { ...replaced, value: PerformanceObserverImpl });
  Object.defineProperty(g, 'PerformanceObserverEntryList', { ...replaced, value: PerformanceObserverEntryListImpl });
  Object.defineProperty(g, 'PerformanceResourceTiming', { ...replaced, value: PerformanceResourceTimingImpl });
  Object.defineProperty(g, 'performance', { ...replaced, value: new PerformanceImpl(making) });
