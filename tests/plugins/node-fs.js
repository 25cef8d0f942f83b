// `node:fs` (issue 56): a file system in the instance's memory, `/tmp`
// writable, emptied when each render ends. `/ops`: the common calls and
// their errors; `/write` then `/read`: a file written in one request is
// gone in the next; `/big`: a gibibyte meets the memory limit; `/huge`: a
// file of a gibibyte is refused as on `workerd`.
import fs, { promises as fsp } from 'node:fs';
import { readFile } from 'fs/promises';
import { Buffer } from 'node:buffer';

const code = (f) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return `${e.code} ${e.message}`;
  }
};

export default {
  async fetch(request) {
    const url = new URL(request.url);
    switch (url.pathname) {
      case '/write':
        fs.writeFileSync('/tmp/note.txt', 'kept?');
        return new Response(`wrote ${fs.readFileSync('/tmp/note.txt', 'utf8')}`);
      case '/read':
        return new Response(`exists ${fs.existsSync('/tmp/note.txt')}`);
      case '/big':
        fs.writeFileSync('/tmp/big', Buffer.alloc(1 << 30));
        return new Response('wrote a gibibyte');
      case '/huge':
        // A size past a file's limit, which takes no buffer to ask for.
        fs.writeFileSync('/tmp/huge', '');
        try {
          fs.truncateSync('/tmp/huge', 1 << 30);
          return new Response('grew to a gibibyte');
        } catch (e) {
          return new Response(`${e.code} ${e.message}`);
        }
      default: {
        const out = [];
        fs.mkdirSync('/tmp/a/b', { recursive: true });
        fs.writeFileSync('/tmp/a/b/c.txt', 'héllo');
        fs.appendFileSync('/tmp/a/b/c.txt', ' world');
        out.push(fs.readFileSync('/tmp/a/b/c.txt', 'utf8'));
        out.push(`size ${fs.statSync('/tmp/a/b/c.txt').size} file ${fs.statSync('/tmp/a/b/c.txt').isFile()} dir ${fs.statSync('/tmp/a').isDirectory()}`);
        out.push(`readdir ${fs.readdirSync('/tmp/a/b')} ${fs.readdirSync('/tmp', { withFileTypes: true }).map((d) => `${d.name}:${d.isDirectory()}`)}`);
        fs.renameSync('/tmp/a/b/c.txt', '/tmp/a/d.txt');
        fs.copyFileSync('/tmp/a/d.txt', '/tmp/e.txt');
        out.push(`renamed ${fs.existsSync('/tmp/a/b/c.txt')} ${await readFile('/tmp/e.txt', 'utf8')}`);
        out.push(code(() => fs.readFileSync('/tmp/missing')));
        out.push(code(() => fs.writeFileSync('/etc/passwd', 'x')));
        out.push(code(() => fs.mkdirSync('/tmp/a')));
        out.push(code(() => fs.rmdirSync('/tmp/a')));
        out.push(code(() => fs.readFileSync('/tmp/a')));
        fs.rmSync('/tmp/a', { recursive: true });
        out.push(`removed ${fs.existsSync('/tmp/a')} ${fs.readdirSync('/tmp')}`);
        out.push(await new Promise((resolve) => fs.readFile('/tmp/e.txt', 'utf8', (err, text) => resolve(`callback ${err} ${text}`))));
        out.push(await fsp.unlink('/tmp/e.txt').then(() => `unlinked ${fs.existsSync('/tmp/e.txt')}`));
        return new Response(out.join('\n'));
      }
    }
  },
};
