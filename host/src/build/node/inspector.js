// `node:inspector`, as `workerd` has it: no debugger can attach to a
// tenant, so opening, closing and waiting do nothing (`open` gives a
// disposable), `url()` is undefined, the inspector's console does nothing,
// and a `Session` or a `Network` event throws `ERR_METHOD_NOT_IMPLEMENTED`.
import EventEmitter from './events.js';
import { notImplemented, refusing } from './_errors.js';

export class Session extends EventEmitter {
  constructor() {
    super();
    throw notImplemented('Session');
  }
  connect() { throw notImplemented('Session.connect'); }
  connectToMainThread() { throw notImplemented('Session.connectToMainThread'); }
  disconnect() { throw notImplemented('Session.disconnect'); }
  post() { throw notImplemented('Session.post'); }
}

export const close = () => {};
export const open = () => ({ [Symbol.dispose]: async () => {} });
export const url = () => undefined;
export const waitForDebugger = () => {};

export const console = {};
for (const name of ['debug', 'error', 'info', 'log', 'warn', 'dir', 'dirxml', 'table', 'trace', 'group', 'groupCollapsed',
  'groupEnd', 'clear', 'count', 'countReset', 'assert', 'profile', 'profileEnd', 'time', 'timeLog', 'timeStamp']) {
  console[name] = () => {};
}

export const Network = {};
for (const name of ['requestWillBeSent', 'dataReceived', 'responseReceived', 'loadingFinished', 'loadingFailed']) {
  Network[name] = refusing(`Network.${name}`);
}

export default { Session, close, open, url, waitForDebugger, console, Network };
