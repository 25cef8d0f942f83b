// Headers and Response edges (issue 34) that WPT's fetch/api/ found wrong:
// live iteration, values outside Latin-1, a null init, the iterator's
// prototype chain and statusText, compared byte for byte with Node 20
// (tests/all/web_platform.rs).
function attempt(f) {
  try {
    return f();
  } catch (e) {
    return e.name;
  }
}

export function render() {
  const h = new Headers([['b', '2'], ['a', '1'], ['set-cookie', 'x=1'], ['set-cookie', 'y=2'], ['c', '3']]);
  const seen = [];
  for (const [k] of h) {
    seen.push(k);
    if (k === 'a') {
      h.delete('b');
      h.append('aa', 'new');
    }
  }
  const values = [];
  h.forEach((v, k) => values.push(`${k}=${v}`));
  const iterator = new Headers().keys();
  const iteratorProto = Object.getPrototypeOf(Object.getPrototypeOf(iterator)) === Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
  return JSON.stringify({
    seen,
    values,
    iteratorProto,
    spread: [...new Headers({ 'X-B': ' 2 ', 'x-a': '1' }).entries()],
    nullInit: attempt(() => new Headers(null)),
    wide: attempt(() => new Headers([['name', 'value\u0100']])),
    latin1: new Headers([['name', 'caf\u00e9']]).get('name'),
    statusText: attempt(() => new Response('', { statusText: 'bad\n' })),
    goodStatusText: new Response('', { statusText: 'OK\tfine' }).statusText,
  }, null, 1);
}
