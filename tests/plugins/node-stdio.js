// `process.stdout`, `stderr` and `stdin` (tests/all/node_modules.rs): what
// is written goes to the tenant's log a line at a time, a character
// written in halves arrives whole, and stdin ends at once.
import process from 'node:process';
export default {
  async fetch() {
    process.stdout.write('one\ntw');
    process.stdout.write('o\n');
    process.stdout.write('\uD83D');
    await new Promise((r) => setTimeout(r, 5));
    process.stdout.write('\uDE00 whole\n');
    process.stdout.write('SGVsbG8h', 'base64');
    process.stdout.write('\n');
    process.stderr.write(new Uint8Array([101, 114, 114, 10]));
    console.log('lone \uD83D half');
    process.stdout.write('no newline');
    await new Promise((r) => setTimeout(r, 5));
    let ended = false;
    process.stdin.on('data', () => {}).on('end', () => { ended = true; });
    await new Promise((r) => setTimeout(r, 5));
    return new Response(`${process.stdout.fd} ${process.stderr.fd} ${process.stdin.fd} ${ended}`);
  },
};
