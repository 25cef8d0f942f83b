// `node:os`: the machine as `workerd` describes it to a Worker, which is
// nothing of the host's: one CPU of no model, no memory figures, no
// network interfaces, `/tmp/` as home and temporary directory. The
// constants are `workerd`'s, made from node/workerd.json (build/node.rs).
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
export const userInfo = () => ({});

function checkPid(pid) {
  if (typeof pid !== 'number') {
    const e = new TypeError(`The "pid" argument must be of type number. Received ${pid === undefined ? 'undefined' : typeof pid}`);
    e.code = 'ERR_INVALID_ARG_TYPE';
    throw e;
  }
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
  if (typeof priority !== 'number') checkPid(undefined);
}

export default {
  EOL, devNull, availableParallelism, arch, cpus, endianness, freemem, totalmem, homedir, tmpdir, hostname, loadavg, machine,
  networkInterfaces, platform, release, version, type, uptime, userInfo, getPriority, setPriority,
};
