// `node:timers`: Node's timer functions over the global ones (which wait
// in real time, as on workerd: wit/prelude/02_timers.js). `setTimeout`
// and `setInterval` give a `Timeout`, `setImmediate` an `Immediate`, as
// Node's do; each `clear*` takes one of them or a global timer's id.
import * as promises from './timers-promises.js';

const ID = Symbol('timer id');

// What keeps Node's event loop alive; a render ends when its response
// does, so a reference changes nothing here but what `hasRef` says.
class Handle {
  _ref = true;

  ref() {
    this._ref = true;
    return this;
  }

  unref() {
    this._ref = false;
    return this;
  }

  hasRef() {
    return this._ref;
  }
}

export class Timeout extends Handle {
  constructor(callback, after, args = [], repeat = false) {
    if (typeof callback !== 'function') {
      throw new TypeError('The "callback" argument must be of type function');
    }
    super();
    this._onTimeout = callback;
    this._idleTimeout = after;
    this._args = args;
    this._repeat = repeat;
    this[ID] = (repeat ? globalThis.setInterval : globalThis.setTimeout)(callback, after, ...args);
  }

  // Starts the timer again from now, with its delay.
  refresh() {
    globalThis.clearTimeout(this[ID]);
    const set = this._repeat ? globalThis.setInterval : globalThis.setTimeout;
    this[ID] = set(this._onTimeout, this._idleTimeout, ...this._args);
    return this;
  }

  close() {
    globalThis.clearTimeout(this[ID]);
    return this;
  }

  [Symbol.toPrimitive]() {
    return this[ID];
  }
}

class Immediate extends Handle {
  constructor(callback, args) {
    super();
    this._onImmediate = callback;
    this[ID] = globalThis.setImmediate(callback, ...args);
  }

}

const idOf = (timer) => (timer !== null && typeof timer === 'object' && ID in timer ? timer[ID] : timer);

export function setTimeout(callback, after, ...args) {
  return new Timeout(callback, after, args, false);
}

export function setInterval(callback, repeat, ...args) {
  return new Timeout(callback, repeat, args, true);
}

export function setImmediate(callback, ...args) {
  if (typeof callback !== 'function') {
    throw new TypeError('The "callback" argument must be of type function');
  }
  return new Immediate(callback, args);
}

export function clearTimeout(timer) {
  globalThis.clearTimeout(idOf(timer));
}

export function clearInterval(timer) {
  globalThis.clearInterval(idOf(timer));
}

export function clearImmediate(immediate) {
  globalThis.clearImmediate(idOf(immediate));
}

// Node's legacy ones: `active` restarts a timer, `unenroll` stops it
// (`enroll`, which needs an object of Node's own, is not implemented, as
// on workerd).
export function active(timer) {
  if (timer instanceof Timeout) timer.refresh();
}

export function unenroll(timer) {
  clearTimeout(timer);
}

export { promises };

export default { setTimeout, setInterval, setImmediate, clearTimeout, clearInterval, clearImmediate, active, unenroll, promises };
