// The event classes workerd has beyond Event and ErrorEvent, reportError
// and the global scope's origin: what each makes, its defaults, and what
// it refuses, compared with workerd's answer (tests/all/workers.rs).
export default {
  async fetch() {
    const out = {};
    const probe = (name, f) => {
      try {
        out[name] = f();
      } catch (e) {
        out[name] = `threw ${e.name}: ${e.message}`;
      }
    };
    probe('origin', () => [typeof origin, origin]);
    probe('CustomEvent', () => {
      const e = new CustomEvent('x', { detail: { a: 1 }, cancelable: true });
      return [e.type, e.detail, e.cancelable, e instanceof Event, Object.prototype.toString.call(e), CustomEvent.length, new CustomEvent('y').detail];
    });
    probe('CustomEvent dispatched', () => {
      const t = new EventTarget();
      let got = null;
      t.addEventListener('ping', (e) => { got = [e.type, e.detail, e.target === t]; });
      t.dispatchEvent(new CustomEvent('ping', { detail: 42 }));
      return got;
    });
    probe('CustomEvent without a type', () => new CustomEvent());
    probe('MessageEvent', () => {
      const e = new MessageEvent('message', { data: { n: 5 }, origin: 'https://a.example', lastEventId: 7 });
      return [e.type, e.data, e.origin, e.lastEventId, e.source, e.ports, MessageEvent.length, e instanceof Event];
    });
    probe('MessageEvent defaults', () => {
      const e = new MessageEvent('m');
      return [e.data, e.origin, e.lastEventId, e.source, e.ports];
    });
    probe('CloseEvent', () => {
      const e = new CloseEvent('close', { code: 1001, reason: 'away', wasClean: true });
      const d = new CloseEvent('c');
      return [e.type, e.code, e.reason, e.wasClean, d.code, d.reason, d.wasClean];
    });
    for (const name of ['PromiseRejectionEvent', 'ExtendableEvent', 'FetchEvent', 'ScheduledEvent', 'TailEvent', 'TraceEvent']) {
      probe(name, () => [typeof globalThis[name], globalThis[name].prototype instanceof Event, new globalThis[name]('x')]);
    }
    probe('runtime events extend ExtendableEvent', () => ['FetchEvent', 'ScheduledEvent'].map((n) => globalThis[n].prototype instanceof ExtendableEvent));
    probe('reportError', () => {
      let seen = null;
      const listener = (e) => {
        seen = [e.constructor.name, e.message, e.error && e.error.message];
        e.preventDefault();
      };
      addEventListener('error', listener);
      const returned = reportError(new Error('boom'));
      removeEventListener('error', listener);
      return [returned === undefined, seen, reportError.length];
    });
    return new Response(JSON.stringify(out, null, 1));
  },
};
