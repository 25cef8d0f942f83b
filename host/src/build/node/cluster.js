// `node:cluster`, as `workerd` has it: this process is the primary and has
// no workers; forking, disconnecting and setting up throw
// `ERR_METHOD_NOT_IMPLEMENTED`, and a `Worker` made by hand is a
// disconnected, dead one. The module's default export is a `Cluster`.
import EventEmitter from './events.js';
import process from './process.js';
import { refusing } from './_errors.js';

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
Cluster.prototype.fork = refusing('cluster.fork');
Cluster.prototype.disconnect = refusing('cluster.disconnect');
Cluster.prototype.setupPrimary = refusing('cluster.setupPrimary');
Cluster.prototype.setupMaster = refusing('cluster.setupWorker');

export default new Cluster();
