// `node:tty` as workerd has it: no terminal, streams that say so
// (tests/all/node_modules.rs compares with workerd's answer).
import tty from 'node:tty';
import { Readable } from 'node:stream';

export default {
  fetch() {
    const exports = Object.keys(tty);
    const r = new tty.ReadStream(0);
    const w = new tty.WriteStream(1, {});
    const called = [];
    const cursor = [
      w.cursorTo(10, 5),
      w.cursorTo(0, 0, () => called.push('cursorTo')),
      w.cursorTo(0, () => called.push('cursorTo, two')),
      w.moveCursor(-1, 0, () => called.push('moveCursor')),
      w.clearLine(1, () => called.push('clearLine')),
      w.clearScreenDown(() => called.push('clearScreenDown')),
    ];
    return new Response(JSON.stringify({
      isatty: [0, 1, 2, 3, -1, 0.5, NaN, Infinity, '1'].map((fd) => tty.isatty(fd)),
      read: [r.fd, r.isRaw, r.isTTY, r.setRawMode(true) === r, r.isRaw, r.setRawMode(0).isRaw, r instanceof Readable],
      write: [w.fd, w.columns, w.rows, w.isTTY, w.getColorDepth(), w.getColorDepth({}), w.hasColors(), w.hasColors(256), w.getWindowSize(), w._refreshSize()],
      cursor,
      called,
      withoutNew: [tty.ReadStream(2).fd, tty.WriteStream(2).fd],
      exports,
      writeProto: Object.getOwnPropertyNames(tty.WriteStream.prototype),
      readProto: Object.getOwnPropertyNames(tty.ReadStream.prototype),
    }));
  },
};
