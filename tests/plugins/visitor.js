// A test renderer for what a shared cache must never mix up between
// visitors. The path picks what it does with the request; every page carries
// a random number, so equal bodies mean one render. `?ms=N` spins first.
export function render(request) {
  const h = request.headers;
  const ms = Number(request.query.ms ?? 0);
  const start = Date.now();
  while (Date.now() - start < ms) {}
  const rand = Math.random();
  switch (request.path) {
    // Greets the user its cookie names and hands out a session cookie.
    case '/login':
      return {
        headers: { 'set-cookie': `session=${h.cookie ?? 'none'}-SECRET` },
        body: `<p>hello ${h.cookie ?? 'anonymous'} ${rand}</p>`,
        cache: 60,
      };
    // A personal page that only reads the cookie: nothing declared.
    case '/me':
      return `<p>user=${h.cookie ?? '-'} ${rand}</p>`;
    // Reads the cookie only when a query flag says so, and declares
    // nothing: two pages of one tenant that depend on different headers.
    case '/maybe':
      return `<p>${request.query.personal ? `user=${h.cookie ?? '-'}` : 'public'} ${rand}</p>`;
    // Declares its vary list.
    case '/declared':
      return { body: `<p>user=${h.cookie ?? '-'} ${rand}</p>`, vary: ['cookie'] };
    // Builds links from the Host header.
    case '/canon':
      return `<script src="//${h.host}/app.js"></script><p>${rand}</p>`;
    case '/lang':
      return `<p>lang=${h['accept-language'] ?? '-'} ${rand}</p>`;
    // Lists every header.
    case '/all':
      return `<pre>${JSON.stringify(h)} ${rand}</pre>`;
    // Tests for a header's presence.
    case '/has':
      return `<p>${'x-beta' in h ? 'beta' : 'stable'} ${rand}</p>`;
    // `?code=N` as its status, with a body.
    case '/status':
      return { status: Number(request.query.code), body: `<p>status ${request.query.code}</p>` };
    // A TTL of its own: may be shared with requests carrying credentials.
    case '/public':
      return { body: `<p>public ${rand}</p>`, cache: 60 };
    // `?kib=N` of text, for the byte budget and compression; `?nostore=1`
    // is never kept.
    default:
      return {
        body: `<p>${request.path} ${rand}</p>` + 'x'.repeat(Number(request.query.kib ?? 0) * 1024),
        cache: request.query.nostore ? 'no-store' : undefined,
      };
  }
}
