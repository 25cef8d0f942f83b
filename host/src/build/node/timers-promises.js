// `node:timers/promises`: Node's promise forms of the timers, over the
// global ones (real time, as on workerd), each cancelled by an
// `AbortSignal` as Node's are: the promise rejects with Node's
// `AbortError`, whose `cause` is the signal's reason.
class AbortError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'AbortError';
    this.code = 'ABORT_ERR';
  }
}

const aborted = (signal) => new AbortError('The operation was aborted', { cause: signal.reason });

function checkSignal(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw new TypeError('The "options" argument must be of type object');
  }
  const { signal } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError('The "options.signal" property must be an instance of AbortSignal');
  }
  return signal;
}

function wait(set, clear, delay, value, options) {
  let signal;
  try {
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
// the loop ends or the signal aborts.
export async function* setInterval(delay, value, options) {
  const signal = checkSignal(options);
  if (signal !== undefined && signal.aborted) throw aborted(signal);
  let ticks = 0;
  let wake = null;
  const id = globalThis.setInterval(() => {
    ticks += 1;
    if (wake !== null) wake();
  }, delay);
  const onAbort = () => {
    if (wake !== null) wake();
  };
  if (signal !== undefined) signal.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal !== undefined && signal.aborted) throw aborted(signal);
      if (ticks === 0) {
        await new Promise((resolve) => {
          wake = resolve;
        });
        wake = null;
        continue;
      }
      ticks -= 1;
      yield value;
    }
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
