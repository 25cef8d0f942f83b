// `node:os`: the machine as `workerd` describes it to a Worker, which is
// nothing of the host's: one CPU of no model, no memory figures, no
// network interfaces, `/tmp/` as home and temporary directory. The
// constants are `workerd`'s, made from node/workerd.json (build/node.rs).
import { Buffer } from './buffer.js';
import { invalidArgType, invalidArgValue } from './_errors.js';

export const EOL = '\n';
export const devNull = '/dev/null';
export const availableParallelism = () => 1;
export const arch = () => 'x64';
export const cpus = () => [];
export const endianness = () => 'LE';
export const freemem = () => 0;
export const totalmem = () => 0;
export const homedir = () => '/tmp/';
export const tmpdir = () => '/tmp/';
export const hostname = () => 'localhost';
export const loadavg = () => [0, 0, 0];
export const machine = () => 'x86_64';
export const networkInterfaces = () => ({});
export const platform = () => 'linux';
export const release = () => '';
export const version = () => '';
export const type = () => 'Linux';
export const uptime = () => 0;

// Nobody's: `workerd` answers an empty object, after Node's checks.
export function userInfo(options) {
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw invalidArgType('options', 'of type object', options);
  }
  const encoding = options && options.encoding;
  if (encoding !== undefined && encoding !== 'buffer' && !(typeof encoding === 'string' && Buffer.isEncoding(encoding))) {
    throw invalidArgValue('options.encoding', encoding, 'is invalid encoding');
  }
  return {};
}

function checkPid(pid, name = 'pid') {
  if (typeof pid !== 'number') throw invalidArgType(name, 'of type number', pid);
}

// There is one process, at the normal priority, which cannot change.
export function getPriority(pid = 0) {
  checkPid(pid);
  return 0;
}

export function setPriority(pid, priority) {
  if (priority === undefined) {
    priority = pid;
    pid = 0;
  }
  checkPid(pid);
  checkPid(priority, 'priority');
}

export default {
  EOL, devNull, availableParallelism, arch, cpus, endianness, freemem, totalmem, homedir, tmpdir, hostname, loadavg, machine,
  networkInterfaces, platform, release, version, type, uptime, userInfo, getPriority, setPriority,
};
