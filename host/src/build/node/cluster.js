// `node:cluster`, as `workerd` has it: this process is the primary and has
// no workers; forking, disconnecting and setting up throw
// `ERR_METHOD_NOT_IMPLEMENTED`, and a `Worker` made by hand is a
// disconnected, dead one. The module's default export is a `Cluster`.
import EventEmitter from './events.js';
import process from './process.js';
import { codedError } from './_errors.js';

const notImplemented = (name) => () => {
  throw codedError(Error, 'ERR_METHOD_NOT_IMPLEMENTED', `The cluster.${name} method is not implemented`);
};

export class Worker extends EventEmitter {
  constructor() {
    super();
    this._connected = false;
    this.id = 0;
    this.exitedAfterDisconnect = false;
    this.process = process;
  }
  isConnected() { return this._connected; }
  isDead() { return true; }
  send() { return false; }
  kill() { this._connected = false; }
  destroy() { this._connected = false; }
  disconnect() {
    this._connected = false;
    return this;
  }
}

export class Cluster extends EventEmitter {
  constructor() {
    super();
    Object.assign(this, {
      isMaster: true, isPrimary: true, isWorker: false, SCHED_NONE: 1, SCHED_RR: 2, schedulingPolicy: 2,
      settings: {}, workers: {}, Worker,
    });
  }
}
Cluster.prototype.fork = notImplemented('fork');
Cluster.prototype.disconnect = notImplemented('disconnect');
Cluster.prototype.setupPrimary = notImplemented('setupPrimary');
Cluster.prototype.setupMaster = notImplemented('setupWorker');

export default new Cluster();
