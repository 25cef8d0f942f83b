// `node:worker_threads`, as `workerd` has it: this is the main thread and
// the only one (no `Worker` can be made: its constructor and methods
// throw `ERR_METHOD_NOT_IMPLEMENTED`); `MessageChannel` and `MessagePort`
// are the global ones; environment data is kept for the instance; marking
// a value untransferable or uncloneable does nothing, as on `workerd`.
// The plain data (`isMainThread`, `threadId`, ...) is `workerd`'s, made
// beside this file (build/node.rs).
import EventEmitter from './events.js';
import { notImplemented } from './_errors.js';

export class Worker extends EventEmitter {
  constructor() {
    super();
    throw notImplemented('Worker');
  }
  postMessage() {}
  ref() {}
  unref() {}
  async postMessageToThread() { throw notImplemented('Worker.postMessageToThread'); }
  async terminate() { throw notImplemented('Worker.terminate'); }
  async getHeapSnapshot() { throw notImplemented('Worker.getHeapSnapshot'); }
  async getHeapStatistics() { throw notImplemented('Worker.getHeapStatistics'); }
  async cpuUsage() { throw notImplemented('Worker.cpuUsage'); }
  async startCpuProfile() { throw notImplemented('Worker.startCpuProfile'); }
  async startHeapProfile() { throw notImplemented('Worker.startHeapProfile'); }
  async [Symbol.asyncDispose]() { return this.terminate(); }
}

export const { MessageChannel, MessagePort } = globalThis;
export const SHARE_ENV = Symbol.for('nodejs.worker_threads.SHARE_ENV');

const environment = new Map();
export const getEnvironmentData = (key) => environment.get(key);
export function setEnvironmentData(key, value) {
  if (value === undefined) environment.delete(key);
  else environment.set(key, value);
}
export const isMarkedAsUntransferable = () => false;
export const markAsUntransferable = () => {};
export const markAsUncloneable = () => {};
export function moveMessagePortToContext() {
  throw notImplemented('moveMessagePortToContext');
}
// No message is ever waiting: ports deliver asynchronously.
export const receiveMessageOnPort = () => undefined;

export default {
  Worker, MessageChannel, MessagePort, SHARE_ENV, getEnvironmentData, setEnvironmentData, isMarkedAsUntransferable,
  markAsUntransferable, markAsUncloneable, moveMessagePortToContext, receiveMessageOnPort,
};
