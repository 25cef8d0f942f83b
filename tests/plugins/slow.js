// A test renderer that spins for `?ms=N` milliseconds, then answers; a
// `?ttl=S` sets its cache policy, `?vary=1` makes it vary on accept-language.
// `?forever=1` spins until a limit ends it: CPU work that no machine, however
// loaded, finishes within a deadline.
export function render(request) {
  if (request.query.forever) for (;;);
  const ms = Number(request.query.ms ?? 0);
  const start = Date.now();
  while (Date.now() - start < ms) {}
  const body = `<p>slept ${ms} ms for ${request.url}; lang=${request.headers['accept-language'] ?? '-'}; rand=${Math.random()}</p>`.repeat(request.query.big ? 100 : 1);
  const out = { body };
  if (request.query.ttl !== undefined) out.cache = Number(request.query.ttl);
  if (request.query.nostore) out.cache = 'no-store';
  if (request.query.vary) out.vary = ['accept-language'];
  if (request.query.status) out.status = Number(request.query.status);
  return out;
}
