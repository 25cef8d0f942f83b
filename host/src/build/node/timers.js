// `node:timers`: Node's timer functions over the prelude's global ones
// (which wait in real time, as on workerd: wit/prelude/02_timers.js); with
// `nodejs_compat` they are the global ones too, as on workerd. `setTimeout`
// and `setInterval` give a `Timeout`, `setImmediate` an `Immediate`, as
// Node's do; each `clear*` takes one of them or a global timer's id.
import * as promises from './timers-promises.js';

// The prelude's global timers, taken before `nodejs_compat` puts this
// module's in their places on the global object (build/bundle.rs).
const host = {
  setTimeout: globalThis.setTimeout,
  setInterval: globalThis.setInterval,
  setImmediate: globalThis.setImmediate,
  clearTimeout: globalThis.clearTimeout,
  clearInterval: globalThis.clearInterval,
  clearImmediate: globalThis.clearImmediate,
};

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
    this[ID] = (repeat ? host.setInterval : host.setTimeout)(callback, after, ...args);
  }

  // Starts the timer again from now, with its delay.
  refresh() {
    host.clearTimeout(this[ID]);
    const set = this._repeat ? host.setInterval : host.setTimeout;
    this[ID] = set(this._onTimeout, this._idleTimeout, ...this._args);
    return this;
  }

  close() {
    host.clearTimeout(this[ID]);
    return this;
  }

  [Symbol.toPrimitive]() {
    return this[ID];
  }

  [Symbol.dispose]() {
    this.close();
  }
}

class Immediate extends Handle {
  constructor(callback, args) {
    super();
    this._onImmediate = callback;
    this[ID] = host.setImmediate(callback, ...args);
  }

  [Symbol.dispose]() {
    host.clearImmediate(this[ID]);
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
  host.clearTimeout(idOf(timer));
}

export function clearInterval(timer) {
  host.clearInterval(idOf(timer));
}

export function clearImmediate(immediate) {
  host.clearImmediate(idOf(immediate));
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
