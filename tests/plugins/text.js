// Bodies in each of the shapes V8 may hold a string in, to check that every
// engine hands the host the same UTF-8 bytes as Node: ASCII held as one-byte
// or as two-byte characters (a slice of a string that has a non-Latin-1
// character), Latin-1 text (one byte per character in V8, two in UTF-8), and
// text beyond Latin-1, astral characters included, and characters whose low
// byte alone would read as ASCII (U+0141 is not 'A').
const rows = (s) => Array.from({ length: 50 }, (_, i) => `<li>${i}: ${s}</li>`).join('');

export function render(request) {
  switch (request.path) {
    case '/ascii':
      return `<ul>${rows('plain')}</ul>`;
    case '/ascii-two-byte':
      return ('\u20ac' + `<ul>${rows('plain')}</ul>`).slice(1);
    case '/latin1':
      return `<ul>${rows('café crème, 25°')}</ul>`;
    case '/low-bytes-ascii':
      return `<ul>${rows('\u0141\u0140 \u0d3c')}</ul>`;
    default:
      return `<ul>${rows('€ 𝄞 ελληνικά 日本語')}</ul>`;
  }
}
