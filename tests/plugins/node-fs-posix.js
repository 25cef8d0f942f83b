// `node:fs` past whole files (issue 56): descriptors with a position and
// open flags, hard and symbolic links, times, `/dev`, directory handles,
// glob, and the stream forms. `tests/all/node_modules.rs` compares the
// answer with workerd's for the same module.
import fs from 'node:fs';
import { open } from 'node:fs/promises';

const code = (f) => {
  try {
    return String(f());
  } catch (e) {
    return e.code;
  }
};

export default {
  async fetch() {
    const out = [];
    const fd = fs.openSync('/tmp/f.txt', 'w+');
    fs.writeSync(fd, 'hello world');
    const buf = Buffer.alloc(5);
    out.push(`read ${fs.readSync(fd, buf, 0, 5, 6)} ${buf}`);
    fs.writeSync(fd, 'HELLO', 0);
    fs.ftruncateSync(fd, 8);
    out.push(`fd ${fs.readFileSync('/tmp/f.txt', 'utf8')} ${fs.fstatSync(fd).size}`);
    fs.closeSync(fd);
    out.push(`closed ${code(() => fs.fstatSync(fd))} ${code(() => fs.openSync('/tmp/f.txt', 'wx'))}`);
    const a = fs.openSync('/tmp/f.txt', 'a');
    fs.writeSync(a, '!', 0);
    fs.closeSync(a);
    out.push(`append ${fs.readFileSync('/tmp/f.txt', 'utf8')}`);
    fs.linkSync('/tmp/f.txt', '/tmp/hard.txt');
    fs.symlinkSync('/tmp/f.txt', '/tmp/soft.txt');
    out.push(`links ${fs.statSync('/tmp/f.txt').nlink} ${fs.lstatSync('/tmp/soft.txt').isSymbolicLink()} ${fs.readlinkSync('/tmp/soft.txt')} ${fs.readFileSync('/tmp/soft.txt', 'utf8')} ${fs.realpathSync('/tmp/soft.txt')}`);
    fs.unlinkSync('/tmp/f.txt');
    out.push(`unlinked ${fs.readFileSync('/tmp/hard.txt', 'utf8')} ${code(() => fs.readFileSync('/tmp/soft.txt'))}`);
    fs.utimesSync('/tmp/hard.txt', 1000, new Date(2000000));
    out.push(`times ${fs.statSync('/tmp/hard.txt').atimeMs} ${fs.statSync('/tmp/hard.txt').mtimeMs}`);
    out.push(`dev ${fs.readdirSync('/dev')} ${fs.readFileSync('/dev/null').length} ${code(() => fs.writeFileSync('/dev/full', 'x'))}`);
    out.push(`read-only ${code(() => fs.writeFileSync('/bundle/x', 'x'))} ${code(() => fs.mkdirSync('/dev/x'))} ${code(() => fs.accessSync('/', fs.constants.W_OK))}`);
    fs.mkdirSync('/tmp/d/e', { recursive: true });
    fs.writeFileSync('/tmp/d/one.js', '1');
    fs.writeFileSync('/tmp/d/e/two.js', '2');
    fs.writeFileSync('/tmp/d/e/three.txt', '3');
    out.push(`glob ${fs.globSync('**/*.js', { cwd: '/tmp/d' })}`);
    const dir = fs.opendirSync('/tmp/d');
    const names = [];
    for (let e = dir.readSync(); e !== null; e = dir.readSync()) names.push(`${e.name}:${e.isDirectory()}`);
    dir.closeSync();
    out.push(`dir ${names}`);
    fs.cpSync('/tmp/d', '/tmp/c', { recursive: true });
    out.push(`cp ${fs.readdirSync('/tmp/c/e')} ${code(() => fs.cpSync('/tmp/d', '/tmp/x'))}`);
    await new Promise((resolve, reject) => {
      const w = fs.createWriteStream('/tmp/s.txt');
      w.on('finish', resolve);
      w.on('error', reject);
      w.write('streamed ');
      w.end('text');
    });
    let read = '';
    for await (const chunk of fs.createReadStream('/tmp/s.txt', { encoding: 'utf8', highWaterMark: 4, start: 2 })) read += chunk;
    out.push(`streams ${read}`);
    const handle = await open('/tmp/s.txt', 'r+');
    await handle.write('S');
    out.push(`handle ${await handle.readFile('utf8')} ${(await handle.stat()).size}`);
    await handle.close();
    // A FileHandle as a stream's `fd`, closed with it; options inherited.
    const reopened = await open('/tmp/s.txt', 'r');
    const closed = new Promise((resolve) => reopened.on('close', resolve));
    let fromHandle = '';
    for await (const chunk of fs.createReadStream(null, { fd: reopened, encoding: 'utf8' })) fromHandle += chunk;
    await closed;
    let inherited = '';
    for await (const chunk of fs.createReadStream('/tmp/s.txt', { __proto__: { start: 1, end: 3 } })) inherited += chunk;
    out.push(`handle stream ${fromHandle} ${reopened.fd} ${inherited}`);
    return new Response(out.join('\n'));
  },
};
