// `node:dgram`, as on `workerd`: a Worker sends no UDP, so a socket is made
// (its arguments checked as Node checks them) and does nothing: `bind`,
// `close`, `ref` and `unref` answer the socket, `send` and the settings
// are accepted and dropped, the addresses are empty objects and the sizes
// 0. No datagram leaves the sandbox.
import EventEmitter from './events.js';
import { invalidArgType } from './_errors.js';

function checkArgs(type, callback) {
  if (type === null || (typeof type !== 'string' && typeof type !== 'object') || Array.isArray(type)) {
    throw invalidArgType('type', 'of type string or an instance of Object', type);
  }
  if (callback !== undefined && typeof callback !== 'function') {
    throw invalidArgType('callback', 'of type function', callback);
  }
}

export function Socket(type, callback) {
  if (!(this instanceof Socket)) return new Socket(type, callback);
  checkArgs(type, callback);
  EventEmitter.call(this);
  this.type = typeof type === 'string' ? type : type.type;
  if (callback) this.on('message', callback);
}
Object.setPrototypeOf(Socket.prototype, EventEmitter.prototype);
Object.setPrototypeOf(Socket, EventEmitter);

const self = function () {
  return this;
};
const nothing = () => {};
const zero = () => 0;
Object.assign(Socket.prototype, {
  bind: self,
  ref: self,
  unref: self,
  close(callback) {
    if (typeof callback === 'function') queueMicrotask(callback);
    return this;
  },
  address: () => ({}),
  remoteAddress: () => ({}),
  getRecvBufferSize: zero,
  getSendBufferSize: zero,
  getSendQueueSize: zero,
  getSendQueueCount: zero,
});
for (const name of ['connect', 'disconnect', 'send', 'sendto', 'setBroadcast', 'setTTL', 'setMulticastTTL', 'setMulticastLoopback',
  'setMulticastInterface', 'addMembership', 'dropMembership', 'addSourceSpecificMembership', 'dropSourceSpecificMembership',
  'setRecvBufferSize', 'setSendBufferSize']) {
  Socket.prototype[name] = nothing;
}
// (V8 10.2 has no Symbol.asyncDispose: esbuild's lowering looks for this.)
Socket.prototype[Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')] = async function () {};

export function createSocket(type, callback) {
  return new Socket(type, callback);
}

export default { Socket, createSocket };
