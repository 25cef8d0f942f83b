// `node:readline` and `node:readline/promises` (readline-promises.js), as
// `workerd` has them: a Worker has no terminal or standard input, so an
// `Interface` reads nothing and answers every question with '', and the
// cursor functions do nothing and say so (false). One departure:
// `workerd`'s `Interface` iterates '' forever; here it ends at once, as an
// interface over an empty input does.
import { EventEmitter } from './events.js';

// The two modules' `Interface`s: `answer` is how `question` answers.
function interfaceClass(answer) {
  return class Interface extends EventEmitter {
    constructor() {
      super();
      this.terminal = false;
      this.line = '';
      this.cursor = 0;
    }
    getPrompt() { return ''; }
    setPrompt() {}
    prompt() {}
    question(query, options, callback) { return answer(typeof options === 'function' ? options : callback); }
    pause() { return this; }
    resume() { return this; }
    close() {}
    write() {}
    getCursorPos() { return { rows: 0, cols: 0 }; }
    [Symbol.dispose]() {}
    async [Symbol.asyncDispose]() {}
    async *[Symbol.asyncIterator]() {}
  };
}

export const Interface = interfaceClass((callback) => {
  if (typeof callback === 'function') callback('');
});
export const createInterface = () => new Interface();
export const clearLine = () => false;
export const clearScreenDown = () => false;
export const cursorTo = () => false;
export const moveCursor = () => false;
export const emitKeypressEvents = () => {};

const PromisedInterface = interfaceClass(async () => '');
class Readline {
  clearLine() { return this; }
  clearScreenDown() { return this; }
  cursorTo() { return this; }
  moveCursor() { return this; }
  rollback() { return this; }
  async commit() {}
}
export const promises = { Interface: PromisedInterface, Readline, createInterface: () => new PromisedInterface() };

export default { clearLine, clearScreenDown, createInterface, cursorTo, emitKeypressEvents, moveCursor, Interface, promises };
