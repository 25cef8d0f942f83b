// `node:tty`, as `workerd` has it: a Worker has no terminal, so `isatty`
// is false for every descriptor (libraries that pick colours, such as
// `supports-color`, ask at import time), and the two streams are there for
// code that makes or checks them: a `ReadStream` is never raw until told,
// a `WriteStream` has no size (0 columns, 0 rows), 8 colours' depth and no
// colours, and its cursor calls do nothing and call back. `workerd`'s
// streams are `net.Socket`s; `ssr` has no sockets (docs/compatibility.md),
// so these are `stream.Duplex`es.
import { Duplex } from './stream.js';

export function isatty(fd) {
  return false;
}

// A cursor call's optional callback: the last function among its
// arguments, called at once; the call answers false (nothing to wait for).
function noCursor(args) {
  const callback = args.findLast((a) => typeof a === 'function');
  if (callback !== undefined) callback();
  return false;
}

export function ReadStream(fd, options) {
  if (!(this instanceof ReadStream)) return new ReadStream(fd, options);
  Duplex.call(this, options);
  this.fd = fd;
  this.isRaw = false;
  this.isTTY = false;
}
Object.setPrototypeOf(ReadStream.prototype, Duplex.prototype);
Object.setPrototypeOf(ReadStream, Duplex);
// The flag is kept as given, as on workerd (`setRawMode(0).isRaw` is 0).
ReadStream.prototype.setRawMode = function setRawMode(flag) {
  this.isRaw = flag;
  return this;
};

export function WriteStream(fd, options) {
  if (!(this instanceof WriteStream)) return new WriteStream(fd, options);
  Duplex.call(this, options);
  this.fd = fd;
  this.columns = 0;
  this.rows = 0;
}
Object.setPrototypeOf(WriteStream.prototype, Duplex.prototype);
Object.setPrototypeOf(WriteStream, Duplex);
Object.assign(WriteStream.prototype, {
  isTTY: true,
  getColorDepth() { return 8; },
  hasColors() { return false; },
  _refreshSize() {},
  cursorTo(...args) { return noCursor(args); },
  moveCursor(...args) { return noCursor(args); },
  clearLine(...args) { return noCursor(args); },
  clearScreenDown(...args) { return noCursor(args); },
  getWindowSize() { return [this.columns, this.rows]; },
});

export default { isatty, ReadStream, WriteStream };
