// `node:domain`, as on `workerd`: domains exist and do nothing (Node has
// deprecated them; a Worker has no process-wide error to catch). A domain
// is an EventEmitter whose `run` calls its function with the domain as
// `this`, whose `bind` and `intercept` give their callback back as it is,
// and whose `_errorHandler` throws the error it is given. `create` is a
// domain, as `workerd` exports it.
import EventEmitter from './events.js';
import { validateFunction } from './_errors.js';

export class Domain extends EventEmitter {
  enter() {}
  exit() {}
  add() {}
  remove() {}
  run(fn, ...args) {
    validateFunction(fn, 'fn');
    return Reflect.apply(fn, this, args);
  }
  intercept(cb) {
    return cb;
  }
  bind(cb) {
    return cb;
  }
  _errorHandler(err) {
    throw err instanceof Error ? err : new Error(String(err));
  }
}

export function createDomain() {
  return new Domain();
}

export const create = createDomain();
export const active = null;

export default { Domain, active, create, createDomain };
