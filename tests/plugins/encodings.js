// TextDecoder beyond UTF-8 (issue 34): labels, legacy and CJK encodings,
// UTF-16, streams cut inside a character, fatal mode and BOMs, each answer
// printed and compared byte for byte with Node 20's ICU-backed decoder
// (tests/all/web_platform.rs). Where ICU departs from the Encoding
// Standard (x-user-defined, windows-1252's 0x80-0x9F, a lone EUC-KR 0x80),
// `?part=standard` prints ours for the test to hold to the standard.
const hex = (s) => s.split(' ').map((h) => parseInt(h, 16));

function attempt(f) {
  try {
    return f();
  } catch (e) {
    return `${e.name}`;
  }
}

function standard() {
  const decode = (enc, bytes, fatal = false) => attempt(() => Array.from(new TextDecoder(enc, { fatal }).decode(new Uint8Array(hex(bytes))), (c) => c.codePointAt(0).toString(16)).join(' '));
  return [
    decode('windows-1252', '80 8a 9f'),
    decode('x-user-defined', '41 80 ff'),
    decode('euc-kr', '80'),
    decode('euc-kr', '80', true),
  ].join('; ');
}

export function render(request) {
  if (request.query?.part === 'standard') return standard();
  const labels = ['latin1', ' SJIS\n', 'GBK', 'big5', 'euc-kr', 'KOI8-R', 'utf-16', 'UTF-16BE', 'iso-2022-jp', 'unicode-1-1-utf-8', 'bogus', 'utf-7']
    .map((l) => [l, attempt(() => new TextDecoder(l).encoding)]);
  const samples = [
    ['windows-1252', '41 e9 ff'],
    ['iso-8859-2', 'a1 b1 e8'],
    ['koi8-r', 'e4 d2 d5 c7'],
    ['shift_jis', '93 fa 96 7b 8c ea 82 a0'],
    ['euc-jp', 'c6 fc cb dc b8 ec'],
    ['gbk', 'd6 d0 ce c4'],
    ['gb18030', '81 30 81 30 d6 d0'],
    ['big5', 'a4 a4 a4 e5'],
    ['euc-kr', 'c7 d1 b1 db'],
    ['iso-2022-jp', '1b 24 42 46 7c 4b 5c 1b 28 42 41'],
    ['utf-16le', 'ff fe 41 00 3d d8 00 de'],
    ['utf-16be', 'fe ff 00 41 d8 3d de 00'],
    ['utf-16le', '41 00 00 d8 42 00'],
  ].map(([enc, bytes]) => [enc, bytes, attempt(() => new TextDecoder(enc).decode(new Uint8Array(hex(bytes))))]);
  // Every cut of the stream gives the same text as the whole.
  const streams = [
    ['shift_jis', '41 93 fa 96 7b 42'],
    ['gb18030', '81 30 81 30 43'],
    ['utf-16le', '3d d8 00 de 41 00'],
    ['iso-2022-jp', '1b 24 42 46 7c 1b 28 42 41'],
    ['utf-8', 'ef bb bf e6 97 a5 f0 9f 98 80'],
  ].map(([enc, bytes]) => {
    const all = hex(bytes);
    const cuts = [];
    for (let at = 0; at <= all.length; at++) {
      const d = new TextDecoder(enc);
      cuts.push(d.decode(new Uint8Array(all.slice(0, at)), { stream: true }) + d.decode(new Uint8Array(all.slice(at))));
    }
    return [enc, cuts.every((c) => c === cuts[0]), cuts[0]];
  });
  const fatal = [
    ['shift_jis', 'ff'],
    ['euc-kr', 'c7'],
    ['utf-16le', '00 d8'],
    ['utf-8', 'e0 80 41'],
    ['utf-8', 'ed a0 80'],
    ['iso-8859-6', 'a1'],
  ].map(([enc, bytes]) => [enc, bytes, attempt(() => new TextDecoder(enc, { fatal: true }).decode(new Uint8Array(hex(bytes)))), new TextDecoder(enc).decode(new Uint8Array(hex(bytes)))]);
  const boms = [
    new TextDecoder().decode(new Uint8Array(hex('ef bb bf ef bb bf 41'))),
    new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array(hex('ef bb bf 41'))),
    new TextDecoder('utf-16le').decode(new Uint8Array(hex('fe ff 41 00'))),
    new TextDecoder('utf-16be', { ignoreBOM: true }).decode(new Uint8Array(hex('fe ff 00 41'))),
  ].map((s) => Array.from(s, (c) => c.codePointAt(0).toString(16)).join(' '));
  const attributes = (({ encoding, fatal: f, ignoreBOM }) => [encoding, f, ignoreBOM])(new TextDecoder('Shift_JIS', { fatal: 1, ignoreBOM: 'yes' }));
  return JSON.stringify({ labels, samples, streams, fatal, boms, attributes }, null, 1);
}
