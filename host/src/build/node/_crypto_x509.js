// `node:crypto`'s certificates (crypto.js re-exports them): X509Certificate
// and the legacy SPKAC `Certificate`. The host reads the DER
// (web/crypto/x509.rs, `nodeX509` and `nodeSpkac`); this file shows the
// fields as Node does (names one per line, dates as OpenSSL prints them,
// fingerprints in colon hex), matches hosts, e-mail addresses and IPs
// against the names as OpenSSL's X509_check_* do, and verifies a
// signature with the issuer's key through the one-shot `verify`.
import { Buffer } from './buffer.js';
import { isIP } from './net.js';
import { codedError, invalidArgType, invalidArgValue, validateString } from './_errors.js';
import { KeyObject, createPublicKey, hostCall, isBytes } from './_crypto_keys.js';
import { verify } from './_crypto_sign.js';

const node = globalThis.__ssr.node;
const kCert = Symbol('kX509Certificate');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const BYTES = 'of type string or an instance of Buffer, TypedArray, or DataView';

function notACertificate() {
  return codedError(TypeError, 'ERR_INVALID_ARG_VALUE', "The argument 'buffer' is not a valid certificate");
}

// The bytes of `data`, a view or an ArrayBuffer (not copied).
function viewOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

// A certificate's DER from PEM (its first CERTIFICATE block) or DER.
function derOf(bytes) {
  const text = Buffer.from(bytes).toString('latin1');
  const begin = /-----BEGIN (?:X509 |TRUSTED )?CERTIFICATE-----/.exec(text);
  if (begin === null) return bytes;
  const end = text.indexOf('-----END', begin.index + begin[0].length);
  if (end < 0) throw notACertificate();
  const body = text.slice(begin.index + begin[0].length, end).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw notACertificate();
  return new Uint8Array(Buffer.from(body, 'base64'));
}

// The reply's value and its byte parts, by the lengths it lists.
function split(reply) {
  const parts = [];
  let at = 0;
  for (const n of reply.value.parts || []) {
    parts.push(reply.data.subarray(at, at + n));
    at += n;
  }
  return parts;
}

// "Sep  3 21:40:37 2022 GMT", as OpenSSL's ASN1_TIME_print.
function shownTime(seconds) {
  const d = new Date(seconds * 1000);
  const two = (n) => String(n).padStart(2, '0');
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `${MONTHS[d.getUTCMonth()]} ${day} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${d.getUTCFullYear()} GMT`;
}

// Authority information access text ("OCSP - URI:http://...", a line
// each) as lists by method, in the certificate's order, into `into`: the
// legacy object's form (a plain object, as workerd's), and
// `translatePeerCertificate`'s (one with no prototype, as Node's). A key
// is defined, never assigned, so that no text reaches a prototype.
export function infoAccessByMethod(text, into = {}) {
  for (const [, key, raw] of String(text).matchAll(/([^\n:]*):([^\n]*)(?:\n|$)/g)) {
    if (!Object.hasOwn(into, key)) Object.defineProperty(into, key, { value: [], writable: true, enumerable: true, configurable: true });
    into[key].push(raw.startsWith('"') ? JSON.parse(raw) : raw);
  }
  return into;
}

const shownName = (pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('\n');

// The legacy object's form of a name: a key per attribute, an array where
// one repeats.
function nameObject(pairs) {
  const out = {};
  for (const [k, v] of pairs) {
    if (!Object.prototype.hasOwnProperty.call(out, k)) out[k] = v;
    else if (Array.isArray(out[k])) out[k].push(v);
    else out[k] = [out[k], v];
  }
  return out;
}

function fingerprintOf(raw, hash) {
  return Buffer.from(node.digest(hash, raw)).toString('hex').toUpperCase().replace(/..(?!$)/g, '$&:');
}

// A string argument with no NUL in it (OpenSSL's checks refuse one, and
// `workerd` throws a plain Error).
function checkedName(value, name) {
  validateString(value, name);
  if (value.includes('\0')) throw new Error(`Invalid ${name}`);
  return value;
}

const CHECK_SUBJECT = ['default', 'always', 'never'];
function checkOptions(options) {
  if (options === undefined) return { subject: 'default', wildcards: true, partialWildcards: true, multiLabelWildcards: false, singleLabelSubdomains: false };
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { subject = 'default', wildcards = true, partialWildcards = true, multiLabelWildcards = false, singleLabelSubdomains = false } = options;
  if (!CHECK_SUBJECT.includes(subject)) throw invalidArgValue('options.subject', subject);
  for (const [key, value] of Object.entries({ wildcards, partialWildcards, multiLabelWildcards, singleLabelSubdomains })) {
    if (typeof value !== 'boolean') throw invalidArgType(`options.${key}`, 'of type boolean', value);
  }
  return { subject, wildcards, partialWildcards, multiLabelWildcards, singleLabelSubdomains };
}

// Whether a certificate's DNS name (`pattern`, perhaps with a wildcard)
// covers `host`, by OpenSSL's rules for the given options.
function hostMatches(pattern, host, o) {
  const p = pattern.toLowerCase().replace(/\.$/, '');
  const h = host.toLowerCase().replace(/\.$/, '');
  if (o.singleLabelSubdomains && p.startsWith('.')) return h.endsWith(p) && !h.slice(0, -p.length).includes('.') && h.length > p.length;
  const star = p.indexOf('*');
  if (star < 0 || !o.wildcards) return p === h;
  const labels = p.split('.');
  // A wildcard only in the first label, of a name of at least three labels.
  if (p.indexOf('*', star + 1) >= 0 || star > labels[0].length || labels.length < 3) return p === h;
  if (!o.partialWildcards && labels[0] !== '*') return p === h;
  const rest = p.slice(labels[0].length);
  if (!h.endsWith(rest)) return false;
  const first = h.slice(0, h.length - rest.length);
  if (first.length === 0 || (!o.multiLabelWildcards && first.includes('.'))) return false;
  const [before, after] = labels[0].split('*');
  return first.length >= before.length + after.length && first.startsWith(before) && first.endsWith(after);
}

// An IP address as the host shows a certificate's: IPv4 dotted, IPv6 as
// eight capital hex groups.
function ipText(ip) {
  if (isIP(ip) === 4) return ip.split('.').map(Number).join('.');
  let [head, tail] = ip.includes('::') ? ip.split('::') : [ip, null];
  const groups = (s) => (s ? s.split(':') : []).flatMap((g) => (g.includes('.') ? ipv4Groups(g) : [g]));
  const a = groups(head);
  const b = tail === null ? [] : groups(tail);
  const all = tail === null ? a : [...a, ...Array(8 - a.length - b.length).fill('0'), ...b];
  return all.map((g) => parseInt(g, 16).toString(16).toUpperCase()).join(':');
}
function ipv4Groups(v4) {
  const [a, b, c, d] = v4.split('.').map(Number);
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

export class X509Certificate {
  constructor(buffer) {
    if (typeof buffer !== 'string' && !isBytes(buffer)) throw invalidArgType('buffer', BYTES, buffer);
    const bytes = typeof buffer === 'string' ? new Uint8Array(Buffer.from(buffer)) : viewOf(buffer);
    if (bytes.length === 0) throw notACertificate();
    let reply;
    try {
      reply = hostCall({ op: 'nodeX509' }, [derOf(bytes)]);
    } catch {
      throw notACertificate();
    }
    const [raw, tbs, spki, signature] = split(reply);
    this[kCert] = { ...reply.value, raw, tbs, spki, signature, publicKey: undefined, prints: {} };
  }

  get ca() { return this[kCert].ca === true; }
  get subject() { return shownName(this[kCert].subject); }
  get issuer() { return shownName(this[kCert].issuer); }
  get subjectAltName() { return this[kCert].subjectAltName; }
  get infoAccess() { return this[kCert].infoAccess; }
  get keyUsage() { return this[kCert].keyUsage; }
  get issuerCertificate() { return undefined; }
  get serialNumber() { return this[kCert].serialNumber; }
  get validFrom() { return shownTime(this[kCert].notBefore); }
  get validTo() { return shownTime(this[kCert].notAfter); }
  get validFromDate() { return new Date(this[kCert].notBefore * 1000); }
  get validToDate() { return new Date(this[kCert].notAfter * 1000); }
  get raw() { return Buffer.from(this[kCert].raw); }
  get fingerprint() { return this.#print('SHA-1'); }
  get fingerprint256() { return this.#print('SHA-256'); }
  get fingerprint512() { return this.#print('SHA-512'); }

  #print(hash) {
    const prints = this[kCert].prints;
    if (prints[hash] === undefined) prints[hash] = fingerprintOf(this[kCert].raw, hash);
    return prints[hash];
  }

  get publicKey() {
    const cert = this[kCert];
    if (cert.publicKey === undefined) cert.publicKey = createPublicKey({ key: Buffer.from(cert.spki), format: 'der', type: 'spki' });
    return cert.publicKey;
  }

  checkHost(name, options) {
    checkedName(name, 'name');
    const o = checkOptions(options);
    const cert = this[kCert];
    const dns = cert.names.filter(([type]) => type === 'dns').map(([, v]) => v);
    if (o.subject !== 'never') {
      const viaSubject = o.subject === 'always' || dns.length === 0;
      if (viaSubject) {
        const found = cert.subject.find(([k, v]) => k === 'CN' && hostMatches(v, name, o));
        if (found) return found[1];
      }
    }
    return dns.find((d) => hostMatches(d, name, o));
  }

  checkEmail(email, options) {
    checkedName(email, 'email');
    const o = checkOptions(options);
    const cert = this[kCert];
    const same = (v) => {
      const at = v.lastIndexOf('@');
      const at2 = email.lastIndexOf('@');
      return at > 0 && at2 > 0 && v.slice(0, at) === email.slice(0, at2) && v.slice(at).toLowerCase() === email.slice(at2).toLowerCase();
    };
    // workerd answers with the address asked about, and reads the
    // subject's only where the certificate lists no address.
    const listed = cert.names.filter(([type]) => type === 'email').map(([, v]) => v);
    const names = listed.length > 0 || o.subject === 'never' ? listed : cert.subject.filter(([k]) => k === 'emailAddress').map(([, v]) => v);
    return names.some(same) ? email : undefined;
  }

  checkIP(ip) {
    validateString(ip, 'ip');
    if (isIP(ip) === 0) throw new Error('Invalid IP');
    const text = ipText(ip);
    return this[kCert].names.some(([type, v]) => type === 'ip' && v === text) ? ip : undefined;
  }

  checkIssued(otherCert) {
    if (!(otherCert instanceof X509Certificate)) throw invalidArgType('otherCert', 'an instance of X509Certificate', otherCert);
    const a = this[kCert];
    const b = otherCert[kCert];
    if (JSON.stringify(a.issuer) !== JSON.stringify(b.subject)) return false;
    return a.authorityKeyId === undefined || b.subjectKeyId === undefined || a.authorityKeyId === b.subjectKeyId;
  }

  checkPrivateKey(pkey) {
    if (!(pkey instanceof KeyObject) || pkey.type !== 'private') throw invalidArgType('pkey', 'an instance of KeyObject', pkey);
    const mine = this.publicKey.export({ type: 'spki', format: 'der' });
    return Buffer.compare(createPublicKey(pkey).export({ type: 'spki', format: 'der' }), mine) === 0;
  }

  verify(pkey) {
    if (!(pkey instanceof KeyObject)) throw invalidArgType('pkey', 'an instance of KeyObject', pkey);
    if (pkey.type !== 'public') throw codedError(TypeError, 'ERR_INVALID_ARG_TYPE', `Invalid key object type ${pkey.type}, expected public.`);
    const cert = this[kCert];
    if (cert.signatureType === null || (cert.signatureType !== pkey.asymmetricKeyType)) return false;
    try {
      return verify(cert.signatureHash, cert.tbs, { key: pkey, dsaEncoding: 'der' }, cert.signature);
    } catch {
      return false;
    }
  }

  toString() {
    const body = Buffer.from(this[kCert].raw).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
    return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
  }

  toJSON() {
    return this.toString();
  }

  toLegacyObject() {
    const cert = this[kCert];
    const out = {
      subject: nameObject(cert.subject),
      issuer: nameObject(cert.issuer),
      ca: this.ca,
    };
    if (cert.subjectAltName !== undefined) out.subjectaltname = cert.subjectAltName;
    if (cert.infoAccess !== undefined) out.infoAccess = infoAccessByMethod(cert.infoAccess);
    const key = this.publicKey;
    const jwk = key.export({ format: 'jwk' });
    if (jwk.kty === 'RSA') {
      out.modulus = Buffer.from(jwk.n, 'base64url').toString('hex').toUpperCase();
      out.bits = key.asymmetricKeyDetails.modulusLength;
      out.exponent = '0x' + Buffer.from(jwk.e, 'base64url').toString('hex').replace(/^0+/, '');
      out.pubkey = Buffer.from(cert.spki);
    } else if (jwk.kty === 'EC') {
      const x = Buffer.from(jwk.x, 'base64url');
      out.bits = { 'P-256': 256, 'P-384': 384, 'P-521': 521 }[jwk.crv];
      out.pubkey = Buffer.concat([Buffer.from([4]), x, Buffer.from(jwk.y, 'base64url')]);
      out.asn1Curve = key.asymmetricKeyDetails.namedCurve;
      out.nistCurve = jwk.crv;
    }
    out.valid_from = this.validFrom;
    out.valid_to = this.validTo;
    out.fingerprint = this.fingerprint;
    out.fingerprint256 = this.fingerprint256;
    out.fingerprint512 = this.fingerprint512;
    if (cert.keyUsage !== undefined) out.ext_key_usage = cert.keyUsage.slice();
    out.serialNumber = cert.serialNumber;
    out.raw = this.raw;
    return out;
  }
}

// The SPKAC's parts, or null where `spkac` is none; a string is base64,
// as Node takes it.
function spkacOf(spkac, encoding) {
  if (typeof spkac !== 'string' && !isBytes(spkac)) throw invalidArgType('spkac', 'of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView', spkac);
  const text = typeof spkac === 'string' ? spkac : Buffer.from(viewOf(spkac)).toString('latin1');
  const der = new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), typeof spkac === 'string' && encoding ? encoding : 'base64'));
  const reply = hostCall({ op: 'nodeSpkac' }, [der]);
  if (reply.value.parts === undefined) return null;
  const [spki, challenge, signed, signature] = split(reply);
  return { spki, challenge, signed, signature, hash: reply.value.signatureHash };
}

// Netscape's SignedPublicKeyAndChallenge: its key (PEM) and challenge, and
// whether its signature holds. An MD5 signature never does, as on
// `workerd`, whose FIPS build has no MD5.
export function Certificate() {
  if (!new.target) return new Certificate();
}
Certificate.exportChallenge = function exportChallenge(spkac, encoding) {
  const parts = spkacOf(spkac, encoding);
  return parts === null ? Buffer.alloc(0) : Buffer.from(parts.challenge);
};
Certificate.exportPublicKey = function exportPublicKey(spkac, encoding) {
  const parts = spkacOf(spkac, encoding);
  if (parts === null) return Buffer.alloc(0);
  try {
    return Buffer.from(createPublicKey({ key: Buffer.from(parts.spki), format: 'der', type: 'spki' }).export({ type: 'spki', format: 'pem' }));
  } catch {
    return Buffer.alloc(0);
  }
};
Certificate.verifySpkac = function verifySpkac(spkac, encoding) {
  const parts = spkacOf(spkac, encoding);
  if (parts === null || parts.hash === null) return false;
  try {
    const key = createPublicKey({ key: Buffer.from(parts.spki), format: 'der', type: 'spki' });
    return verify(parts.hash, parts.signed, key, parts.signature);
  } catch {
    return false;
  }
};
Certificate.prototype.exportChallenge = Certificate.exportChallenge;
Certificate.prototype.exportPublicKey = Certificate.exportPublicKey;
Certificate.prototype.verifySpkac = Certificate.verifySpkac;
