// `node:punycode`: RFC 3492's Punycode, written from the RFC, and the
// IDNA label forms (`xn--`) Node's deprecated module gives; `url`'s
// `domainToUnicode` decodes with it. Errors are RangeErrors with Node's
// messages.
const base = 36;
const tMin = 1;
const tMax = 26;
const skew = 38;
const damp = 700;
const initialBias = 72;
const initialN = 128;
const maxInt = 0x7fffffff;

const overflow = () => new RangeError('Overflow: input needs wider integers to process');
const threshold = (k, bias) => (k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias);

// The bias after a delta (RFC 3492, section 6.1).
function adapt(delta, points, first) {
  delta = first ? Math.floor(delta / damp) : delta >> 1;
  delta += Math.floor(delta / points);
  let k = 0;
  while (delta > ((base - tMin) * tMax) >> 1) {
    delta = Math.floor(delta / (base - tMin));
    k += base;
  }
  return k + Math.floor(((base - tMin + 1) * delta) / (delta + skew));
}

// A digit's value from its code unit ('a'-'z' or 'A'-'Z' 0-25, '0'-'9'
// 26-35), and back (lower case).
function digitValue(unit) {
  if (unit >= 0x30 && unit <= 0x39) return unit - 22;
  if (unit >= 0x41 && unit <= 0x5a) return unit - 0x41;
  if (unit >= 0x61 && unit <= 0x7a) return unit - 0x61;
  return base;
}
const digitChar = (d) => String.fromCharCode(d < 26 ? d + 0x61 : d + 22);

export function decode(input) {
  input = String(input);
  const output = [];
  const delimiter = Math.max(input.lastIndexOf('-'), 0);
  for (let j = 0; j < delimiter; j++) {
    if (input.charCodeAt(j) >= 0x80) throw new RangeError('Illegal input >= 0x80 (not a basic code point)');
    output.push(input.charCodeAt(j));
  }
  let n = initialN;
  let bias = initialBias;
  let i = 0;
  for (let at = delimiter > 0 ? delimiter + 1 : 0; at < input.length;) {
    const before = i;
    for (let w = 1, k = base; ; k += base) {
      if (at >= input.length) throw new RangeError('Invalid input');
      const digit = digitValue(input.charCodeAt(at++));
      if (digit >= base) throw new RangeError('Invalid input');
      if (digit > Math.floor((maxInt - i) / w)) throw overflow();
      i += digit * w;
      const t = threshold(k, bias);
      if (digit < t) break;
      if (w > Math.floor(maxInt / (base - t))) throw overflow();
      w *= base - t;
    }
    const length = output.length + 1;
    bias = adapt(i - before, length, before === 0);
    if (Math.floor(i / length) > maxInt - n) throw overflow();
    n += Math.floor(i / length);
    i %= length;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

export function encode(input) {
  const points = ucs2.decode(String(input));
  let output = '';
  for (const c of points) if (c < 0x80) output += String.fromCharCode(c);
  const basic = output.length;
  if (basic > 0) output += '-';
  let n = initialN;
  let delta = 0;
  let bias = initialBias;
  for (let handled = basic; handled < points.length;) {
    let m = maxInt;
    for (const c of points) if (c >= n && c < m) m = c;
    if (m - n > Math.floor((maxInt - delta) / (handled + 1))) throw overflow();
    delta += (m - n) * (handled + 1);
    n = m;
    for (const c of points) {
      if (c < n && ++delta > maxInt) throw overflow();
      if (c !== n) continue;
      let q = delta;
      for (let k = base; ; k += base) {
        const t = threshold(k, bias);
        if (q < t) break;
        output += digitChar(t + ((q - t) % (base - t)));
        q = Math.floor((q - t) / (base - t));
      }
      output += digitChar(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return output;
}

// Each label of a domain (or of an email address's domain part), mapped.
function mapDomain(domain, label) {
  const [local, host] = domain.includes('@') ? [domain.slice(0, domain.lastIndexOf('@') + 1), domain.slice(domain.lastIndexOf('@') + 1)] : ['', domain];
  return local + host.replace(/[\x2E\u3002\uFF0E\uFF61]/g, '.').split('.').map(label).join('.');
}

export const toASCII = (domain) => mapDomain(String(domain), (label) => (/[^\0-\x7f]/.test(label) ? `xn--${encode(label)}` : label));
export const toUnicode = (domain) => mapDomain(String(domain), (label) => (/^xn--/i.test(label) ? decode(label.slice(4).toLowerCase()) : label));

// Strings as code points and back, as Node's `punycode.ucs2`.
export const ucs2 = {
  decode: (string) => Array.from(String(string), (c) => c.codePointAt(0)),
  encode: (points) => String.fromCodePoint(...points),
};

export default { decode, encode, toASCII, toUnicode, ucs2 };
