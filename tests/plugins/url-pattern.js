// URLPattern as Workers have it: construction from a string (with a base)
// or an init, its components, test() and exec() with named, numbered,
// optional, repeated and wildcard groups, case, and what it refuses.
// Compared with workerd's answer (tests/all/workers.rs).
const caught = (f) => {
  try {
    return ['returned', f()];
  } catch (e) {
    return [e.name];
  }
};
const COMPONENTS = ['protocol', 'username', 'password', 'hostname', 'port', 'pathname', 'search', 'hash'];
const shape = (p) => [...COMPONENTS.map((c) => p[c]), p.hasRegExpGroups];

// Built at the module's top level, as routers do.
const books = new URLPattern({ pathname: '/books/:id(\\d+)' });

export default {
  async fetch() {
    const patterns = [
      ['https://example.com/books/:id'],
      ['/books/:id?', 'https://example.com'],
      [{ hostname: '{*.}?example.com', pathname: '/*' }],
      [{ protocol: 'http{s}?', port: '8080' }],
      ['/files/:path+'],
      ['/a/:x*/b'],
      ['/(\\d+)/:name([a-z]+)'],
      [{ pathname: '/Case/:v' }, { ignoreCase: true }],
      ['https://user:pass@example.com:443/x?q=1#h'],
      [{ search: 'page=:n', hash: 'top' }],
      [{}],
      [],
      ['*://*/*.png'],
      [{ pathname: '/api/v:version/*', baseURL: 'https://api.example.com' }],
    ].map((args) => caught(() => shape(new URLPattern(...args))));

    const matches = [
      [books, 'https://x.test/books/42'],
      [books, 'https://x.test/books/abc'],
      [books, '/books/7', 'https://y.test'],
      [books, { pathname: '/books/9' }],
      [new URLPattern('/books/:id?', 'https://example.com'), 'https://example.com/books'],
      [new URLPattern('/books/:id?', 'https://example.com'), 'https://example.com/books/1'],
      [new URLPattern({ hostname: '{*.}?example.com' }), 'https://a.b.example.com/x'],
      [new URLPattern({ hostname: '{*.}?example.com' }), 'https://example.com/'],
      [new URLPattern({ hostname: '{*.}?example.com' }), 'https://example.org/'],
      [new URLPattern('/files/:path+', 'https://h'), 'https://h/files/a/b/c.txt'],
      [new URLPattern('/a/:x*/b', 'https://h'), 'https://h/a/b'],
      [new URLPattern('/a/:x*/b', 'https://h'), 'https://h/a/1/2/b'],
      [new URLPattern('/(\\d+)/:name([a-z]+)', 'https://h'), 'https://h/12/abc'],
      [new URLPattern({ pathname: '/Case/:v' }, { ignoreCase: true }), 'https://h/cAsE/X'],
      [new URLPattern({ pathname: '/Case/:v' }), 'https://h/cAsE/X'],
      [new URLPattern({ search: 'page=:n' }), 'https://h/?page=3'],
      [new URLPattern('*://*/*.png'), 'ftp://h.test/img/a.png'],
      [new URLPattern({ protocol: 'http{s}?' }), { protocol: 'https', hostname: 'x' }],
      [new URLPattern({ pathname: '/caf%C3%A9/:x' }), 'https://h/café/1'],
      [new URLPattern({ pathname: '/' }), 'not a url'],
      [new URLPattern({ pathname: '/' }), { pathname: '/', baseURL: 'https://h' }],
    ].map(([p, ...input]) => caught(() => [p.test(...input), p.exec(...input)]));

    const refused = [
      () => new URLPattern('/books/:id('),
      () => new URLPattern('books/:id'),
      () => new URLPattern({ pathname: '/a' }, 'https://base'),
      () => new URLPattern('/(a'),
      () => new URLPattern('/:id/:id'),
      () => new URLPattern(1),
      () => books.test({ pathname: '/' }, 'https://base'),
      () => new URLPattern({ hostname: 'a b' }).hostname,
    ].map(caught);

    const meta = {
      type: typeof URLPattern,
      proto: Object.getOwnPropertyNames(URLPattern.prototype).sort(),
      tag: Object.prototype.toString.call(books),
      inputs: books.exec('https://x.test/books/1').inputs,
      initInputs: books.exec({ pathname: '/books/2' }).inputs,
    };
    return new Response(JSON.stringify({ patterns, matches, refused, meta }), { headers: { 'content-type': 'application/json' } });
  },
};
