// What `workerd` refuses, refused alike (issue 56): running a process,
// code from a string, or a thread. Each line is the error's name, code
// and message.
import { exec, execSync, spawn } from 'node:child_process';
import vm from 'vm';
import { Worker } from 'node:worker_threads';

export default {
  fetch() {
    const out = [];
    const t = (name, f) => {
      try {
        f();
        out.push(`${name}: no error`);
      } catch (e) {
        out.push(`${name}: ${e.name} ${e.code}: ${e.message}`);
      }
    };
    t('exec', () => exec('ls'));
    t('execSync', () => execSync('ls'));
    t('spawn', () => spawn('ls'));
    t('runInNewContext', () => vm.runInNewContext('1'));
    t('Script', () => new vm.Script('1').runInThisContext());
    t('Worker', () => new Worker('x.js'));
    return new Response(out.join('\n'));
  },
};
