// The Node modules of processes, threads, terminals and debuggers a Worker
// has none of, as code written for Node probes them: what they answer and
// what they refuse (tests/all/node_modules.rs compares the answer with
// workerd's).
import * as threads from 'node:worker_threads';
import cluster from 'node:cluster';
import repl from 'node:repl';
import inspector from 'node:inspector';
import readline from 'node:readline';
import * as readlinePromises from 'node:readline/promises';

const caught = (fn) => {
  try {
    const value = fn();
    return `ok ${value === undefined ? 'undefined' : typeof value}`;
  } catch (e) {
    return `${e.name} ${e.code ?? ''}`.trim();
  }
};

export default {
  async fetch() {
    const out = [];
    out.push(`threads: ${threads.isMainThread} ${threads.threadId} ${threads.parentPort} ${threads.workerData} ${threads.MessageChannel === MessageChannel} ${String(threads.SHARE_ENV)}`);
    threads.setEnvironmentData('k', { v: 1 });
    out.push(`environment: ${JSON.stringify(threads.getEnvironmentData('k'))} ${threads.getEnvironmentData('none')} ${threads.receiveMessageOnPort(new MessageChannel().port1)}`);
    out.push(`worker: ${caught(() => new threads.Worker('w.js'))} ${caught(() => new threads.BroadcastChannel('b'))} ${caught(() => threads.postMessageToThread(1, 'm'))}`);
    const refused = await threads.Worker.prototype.terminate.call({}).then(() => 'no error', (e) => e.code);
    out.push(`terminate: ${refused}`);
    out.push(`cluster: ${cluster.isPrimary} ${cluster.isWorker} ${JSON.stringify(cluster.workers)} ${cluster.schedulingPolicy} ${caught(() => cluster.fork())}`);
    const worker = new cluster.Worker();
    out.push(`cluster worker: ${worker.isDead()} ${worker.send('m')} ${worker.disconnect() === worker} ${worker.process === process}`);
    out.push(`repl: ${caught(() => repl.start())} ${new repl.Recoverable(new Error('x')) instanceof SyntaxError} ${repl.REPL_MODE_STRICT.toString()} ${repl.builtinModules.includes('fs')} ${repl.builtinModules.some((m) => m.startsWith('_'))}`);
    out.push(`inspector: ${inspector.url()} ${typeof inspector.open()[Symbol.dispose]} ${caught(() => inspector.console.log('x'))} ${caught(() => new inspector.Session())} ${caught(() => inspector.Network.dataReceived({}))}`);
    const rl = readline.createInterface({ input: null });
    let answer = null;
    rl.question('name? ', (a) => {
      answer = a;
    });
    out.push(`readline: ${rl.terminal} ${JSON.stringify(answer)} ${readline.cursorTo(process.stdout, 0)} ${JSON.stringify(await readlinePromises.createInterface().question('q'))}`);
    return new Response(out.join('\n'));
  },
};
