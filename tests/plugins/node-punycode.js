// `node:punycode`, and `node:url`'s IDNA and HTTP-options helpers built on
// it (tests/all/node_modules.rs compares the answer with workerd's).
import punycode from 'node:punycode';
import { domainToASCII, domainToUnicode, urlToHttpOptions } from 'node:url';

const caught = (fn) => {
  try {
    return fn();
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
};

export default {
  async fetch() {
    const out = [];
    const words = ['ü', 'Bücher', '日本語', '𩸽', 'Goethe'];
    out.push(`encode: ${words.map((w) => punycode.encode(w)).join(' ')}`);
    out.push(`decode: ${words.map((w) => punycode.decode(punycode.encode(w))).join(' ')}`);
    out.push(`domains: ${punycode.toASCII('mañana.com')} ${punycode.toUnicode('xn--maana-pta.com')} ${punycode.toASCII('user@bücher.de')} ${punycode.ucs2.decode('𝌆a')}`);
    out.push(`refused: ${caught(() => punycode.decode('\u0080-'))} | ${caught(() => punycode.decode('a-!'))}`);
    out.push(`url: ${domainToASCII('новини.com')} ${domainToUnicode('xn--b1amarcd.com')} ${domainToUnicode('ıíd')} ${domainToASCII('xn--iñvalid.com') === ''}`);
    const options = urlToHttpOptions(new URL('http://user:pass@[::1]:21/a?b=1#c'));
    const copied = urlToHttpOptions({ ...new URL('http://x/') });
    out.push(`http options: ${options.hostname} ${options.port} ${options.path} ${options.auth} ${copied.port} ${JSON.stringify(copied.path)}`);
    return new Response(out.join('\n'));
  },
};
