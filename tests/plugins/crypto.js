// A test renderer of Web Crypto's random half, which the host's `random`
// capability serves: /draw draws, /errors misuses it, /top-level says what a
// call at the bundle's top level (at build time) got.
let atTopLevel = 'allowed';
try {
  crypto.randomUUID();
} catch (e) {
  atTopLevel = `${e.name}: ${e.message}`;
}

function failure(f) {
  try {
    f();
    return 'no error';
  } catch (e) {
    return e.name;
  }
}

export function render(request) {
  switch (request.path) {
    case '/draw': {
      const words = new Uint32Array(8);
      const big = new BigUint64Array(2);
      return JSON.stringify({
        uuid: crypto.randomUUID(),
        words: Array.from(crypto.getRandomValues(words)),
        same: crypto.getRandomValues(words) === words,
        big: Array.from(crypto.getRandomValues(big), String),
        full: crypto.getRandomValues(new Uint8Array(65536)).some((b) => b !== 0),
      });
    }
    case '/errors':
      return JSON.stringify({
        float: failure(() => crypto.getRandomValues(new Float32Array(4))),
        view: failure(() => crypto.getRandomValues(new DataView(new ArrayBuffer(4)))),
        plain: failure(() => crypto.getRandomValues([1, 2, 3])),
        quota: failure(() => crypto.getRandomValues(new Uint8Array(65537))),
      });
    default:
      return atTopLevel;
  }
}
