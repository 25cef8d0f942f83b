// A renderer that takes its V8 worker process down (issue 36): one
// allocation V8 cannot satisfy inside a builtin aborts the process, whatever
// the heap cap. `?how=` picks the way; without it, the page counts the
// renders of this instance (its warm state). `hook-<name>` asks a worker
// built with the feature `test-hooks` to misbehave so (the system calls a
// compromised worker could try, a broken channel).
let renders = 0;
export function render(req) {
  renders += 1;
  const how = req.query?.how ?? '';
  if (how === 'fill') new Array(5e8).fill(0);
  if (how === 'concat') 'xy'.repeat(2 ** 27).split('');
  if (how === 'spin') {
    const until = Date.now() + Number(req.query.ms ?? 20);
    while (Date.now() < until);
  }
  if (how.startsWith('hook-')) console.log(`ssr-test-hook:${how.slice(5)}`);
  return { body: `renders ${renders}`, cache: 'no-store' };
}
