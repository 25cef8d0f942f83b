// AbortController, AbortSignal, EventTarget, Event and DOMException, as
// apps use them (issue 33), compared byte for byte with Node's own
// (tests/all/workers.rs).
// AbortSignal.any as the DOM standard has it now (newer than Node 20's):
// every dependent is marked aborted before any abort event fires, and one
// made of a dependent follows that one's sources.
function anyOrder() {
  const root = new AbortController();
  const firstAny = AbortSignal.any([root.signal]);
  const secondAny = AbortSignal.any([firstAny]);
  const order = [];
  root.signal.addEventListener('abort', () => order.push(`root sees second aborted: ${secondAny.aborted}`));
  firstAny.addEventListener('abort', () => order.push('first'));
  secondAny.addEventListener('abort', () => order.push('second'));
  root.abort('why');
  return JSON.stringify([order, secondAny.reason]);
}

export async function render(request) {
  if (request.query?.only === 'any') return anyOrder();
  const out = {};
  const c = new AbortController();
  const seen = [];
  c.signal.addEventListener('abort', (e) => seen.push([e.type, e.isTrusted, e.target === c.signal, e.eventPhase, e.cancelable, e.bubbles]));
  c.signal.onabort = (e) => seen.push(['onabort', e.type]);
  out.before = [c.signal.aborted, c.signal.reason];
  c.abort();
  c.abort('again');
  const r = c.signal.reason;
  out.after = [c.signal.aborted, r instanceof DOMException, r instanceof Error, r.name, r.message, r.code, seen];
  try {
    c.signal.throwIfAborted();
  } catch (e) {
    out.thrown = e === r;
  }
  const custom = AbortSignal.abort('why');
  out.custom = [custom.aborted, custom.reason];
  const t = AbortSignal.timeout(10);
  out.timeoutBefore = t.aborted;
  await new Promise((ok) => setTimeout(ok, 50));
  out.timeout = [t.aborted, t.reason.name, t.reason.message, t.reason.code];
  const a = new AbortController();
  const b = new AbortController();
  const any = AbortSignal.any([a.signal, b.signal]);
  b.abort('b first');
  a.abort('a');
  out.any = [any.aborted, any.reason];
  out.anyDone = AbortSignal.any([AbortSignal.abort('x')]).reason;
  try {
    new AbortSignal();
  } catch (e) {
    out.ctor = e.name;
  }

  const target = new EventTarget();
  const calls = [];
  const once = () => calls.push('once');
  target.addEventListener('ping', once, { once: true });
  target.addEventListener('ping', once, { once: true });
  target.addEventListener('ping', { handleEvent: (e) => calls.push(`obj:${e.type}`) });
  target.addEventListener('pong', (e) => {
    calls.push('stop');
    e.stopImmediatePropagation();
  });
  target.addEventListener('pong', () => calls.push('never'));
  const ctl = new AbortController();
  target.addEventListener('ping', () => calls.push('signalled'), { signal: ctl.signal });
  target.dispatchEvent(new Event('ping'));
  ctl.abort();
  target.dispatchEvent(new Event('ping'));
  target.dispatchEvent(new Event('pong'));
  const cancel = new Event('x', { cancelable: true });
  target.addEventListener('x', (e) => e.preventDefault());
  out.events = [calls, target.dispatchEvent(cancel), cancel.defaultPrevented];
  const ev = new Event('z', { bubbles: true });
  out.event = [ev.type, ev.bubbles, ev.cancelable, ev.composed, ev.eventPhase, ev.target, ev.isTrusted, Event.AT_TARGET, ev.defaultPrevented];

  const d = new DOMException('bad', 'SyntaxError');
  out.dom = [d.name, d.message, d.code, DOMException.SYNTAX_ERR, d instanceof Error, Object.prototype.toString.call(d), String(d),
    new DOMException().name, new DOMException('m').message, new DOMException('q', 'Custom').code, DOMException.DATA_CLONE_ERR];

  const req = new Request('http://x.test/');
  out.request = [req.signal instanceof AbortSignal, req.signal.aborted];
  const rc = new AbortController();
  const r2 = new Request('http://x.test/', { signal: rc.signal });
  rc.abort('gone');
  out.requestFollows = [r2.signal.aborted, r2.signal.reason, r2.signal === rc.signal];
  try {
    await fetch('http://x.test/', { signal: AbortSignal.abort('early') });
  } catch (e) {
    out.fetch = e;
  }
  return JSON.stringify(out);
}
