// `node:timers/promises`: Node's promise forms of the timers, over the
// global ones (real time, as on workerd), each cancelled by an
// `AbortSignal` as Node's are: the promise rejects with Node's
// `AbortError`, whose `cause` is the signal's reason.
import { invalidArgType } from './_errors.js';

class AbortError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'AbortError';
    this.code = 'ABORT_ERR';
  }
}

const aborted = (signal) => new AbortError('The operation was aborted', { cause: signal.reason });

// Node's checks of the options (`validateObject`, `validateAbortSignal`,
// `validateBoolean`): its errors, with their codes. Answers the signal.
function checkSignal(options) {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { signal, ref } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgType('options.signal', 'an instance of AbortSignal', signal);
  }
  if (ref !== undefined && typeof ref !== 'boolean') throw invalidArgType('options.ref', 'of type boolean', ref);
  return signal;
}

function wait(set, clear, delay, value, options) {
  let signal;
  try {
    if (delay !== undefined && typeof delay !== 'number') throw invalidArgType('delay', 'of type number', delay);
    signal = checkSignal(options);
  } catch (e) {
    return Promise.reject(e);
  }
  if (signal !== undefined && signal.aborted) return Promise.reject(aborted(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clear(id);
      reject(aborted(signal));
    };
    const id = set(() => {
      if (signal !== undefined) signal.removeEventListener('abort', onAbort);
      resolve(value);
    }, delay);
    if (signal !== undefined) signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function setTimeout(delay, value, options) {
  return wait((f, ms) => globalThis.setTimeout(f, ms), globalThis.clearTimeout, delay, value, options);
}

export function setImmediate(value, options) {
  return wait((f) => globalThis.setImmediate(f), globalThis.clearImmediate, 0, value, options);
}

// An async iterator that gives `value` every `delay` milliseconds, until
// the loop ends or the signal aborts. As Node's: the ticks that came while
// the loop's body ran are all given, one after another, even when the
// signal aborts among them; it throws once they are given.
export async function* setInterval(delay, value, options) {
  if (delay !== undefined && typeof delay !== 'number') throw invalidArgType('delay', 'of type number', delay);
  const signal = checkSignal(options);
  if (signal !== undefined && signal.aborted) throw aborted(signal);
  let ticks = 0;
  let wake = null;
  const id = globalThis.setInterval(() => {
    ticks += 1;
    if (wake !== null) wake();
  }, delay);
  const onAbort = () => {
    globalThis.clearInterval(id);
    if (wake !== null) wake();
  };
  if (signal !== undefined) signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (signal === undefined || !signal.aborted) {
      if (ticks === 0) {
        await new Promise((resolve) => {
          wake = resolve;
        });
        wake = null;
        if (signal !== undefined && signal.aborted) break;
      }
      for (; ticks > 0; ticks--) yield value;
    }
    throw aborted(signal);
  } finally {
    globalThis.clearInterval(id);
    if (signal !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

export const scheduler = {
  wait: (delay, options) => setTimeout(delay, undefined, options),
  yield: () => setImmediate(),
};

export default { setTimeout, setImmediate, setInterval, scheduler };
