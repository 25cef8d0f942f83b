// node:crypto's X509Certificate and Certificate (SPKAC), as code written
// for Node uses them (tests/all/node_modules.rs compares the answer with
// workerd's). The certificates are this test's own, made with OpenSSL for
// it: a P-256 CA, and a leaf it signed with SHA-384 that names hosts
// (one a wildcard), IPv4 and IPv6 addresses, an e-mail address, extended
// key usages and OCSP and CA Issuers locations.
import { Buffer } from 'node:buffer';
import * as crypto from 'node:crypto';

const CA = `-----BEGIN CERTIFICATE-----
MIIBxDCCAWugAwIBAgIURk7nPcXHFBnbM0CZhdSE6sL9BDQwCgYIKoZIzj0EAwIw
NzELMAkGA1UEBhMCTloxEjAQBgNVBAoMCXNzciB0ZXN0czEUMBIGA1UEAwwLc3Ny
IHRlc3QgQ0EwIBcNMjYxMjAyMDYxNzM4WhgPMjEyNjExMDgwNjE3MzhaMDcxCzAJ
BgNVBAYTAk5aMRIwEAYDVQQKDAlzc3IgdGVzdHMxFDASBgNVBAMMC3NzciB0ZXN0
IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEsjXP7jRrh3misGgxiyw47Kyw
aEQh6tJPiBrTlXnhQbey00cZAmhUkPE4lZwi1le4+vHeALj7D8gGsdttrAFN2KNT
MFEwHQYDVR0OBBYEFCmEMsdxdLuqBUULI7QwmSrxrStnMB8GA1UdIwQYMBaAFCmE
MsdxdLuqBUULI7QwmSrxrStnMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwID
RwAwRAIgPvTQV/gW5S8CfeYHW78SNXcjjBuIimdO2o+mKrAXU0UCIFEDgSKIppOI
OmuaucBsvQioHI1t5MCDyVSAXyhsgtUa
-----END CERTIFICATE-----
`;
const LEAF = `-----BEGIN CERTIFICATE-----
MIIC2DCCAn6gAwIBAgIUIwBvvRWeWm4E3sM0vV5OolIfw84wCgYIKoZIzj0EAwMw
NzELMAkGA1UEBhMCTloxEjAQBgNVBAoMCXNzciB0ZXN0czEUMBIGA1UEAwwLc3Ny
IHRlc3QgQ0EwIBcNMjYxMjAyMDYxNzM4WhgPMjEyNjExMDgwNjE3MzhaMG0xCzAJ
BgNVBAYTAk5aMQ4wDAYDVQQIDAVPdGFnbzESMBAGA1UECgwJc3NyIHRlc3RzMRkw
FwYDVQQDDBBhcHAuZXhhbXBsZS50ZXN0MR8wHQYJKoZIhvcNAQkBFhBvcHNAZXhh
bXBsZS50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEY5USsDX8AwoGrxJz
V2uAWinL2hQAJTqqm5jFRDL2oC5SCMq1NdPwoih5LCwhi1Q6syxoFZdn5TfqVYh9
OGK0A6OCAS4wggEqMFwGA1UdEQRVMFOCEGFwcC5leGFtcGxlLnRlc3SCEiouY2Ru
LmV4YW1wbGUudGVzdIcEfwAAAYcQIAENuAAAAAAAAAAAAAAACoETQWxlcnRzQEV4
YW1wbGUuVGVzdDAdBgNVHSUEFjAUBggrBgEFBQcDAQYIKwYBBQUHAwIwYAYIKwYB
BQUHAQEEVDBSMCUGCCsGAQUFBzABhhlodHRwOi8vb2NzcC5leGFtcGxlLnRlc3Qv
MCkGCCsGAQUFBzAChh1odHRwOi8vY2EuZXhhbXBsZS50ZXN0L2NhLnBlbTAJBgNV
HRMEAjAAMB0GA1UdDgQWBBSBBeZgcmprZu7fuPEXZIYaxeTi3zAfBgNVHSMEGDAW
gBQphDLHcXS7qgVFCyO0MJkq8a0rZzAKBggqhkjOPQQDAwNIADBFAiEA6dmh7I6C
bgYeAP+h73f/2Ii0fFEzU8MhrwVvFrPP6XcCIB6bCWIVv1t5ONCn6zEs+HBhiEJB
gdnPwcWFVGLIRuHy
-----END CERTIFICATE-----
`;
const LEAF_KEY = `-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIFehdLna+FqsqTYc54HcRfmWPuVvlNFzBgPOnycIHWLKoAoGCCqGSM49
AwEHoUQDQgAEY5USsDX8AwoGrxJzV2uAWinL2hQAJTqqm5jFRDL2oC5SCMq1NdPw
oih5LCwhi1Q6syxoFZdn5TfqVYh9OGK0Aw==
-----END EC PRIVATE KEY-----`;

const caught = (fn) => {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return `${e.name} ${e.code || e.message}`;
  }
};

export default {
  async fetch() {
    const out = [];
    const leaf = new crypto.X509Certificate(LEAF);
    const ca = new crypto.X509Certificate(Buffer.from(CA));
    out.push(`subject: ${JSON.stringify(leaf.subject)}`);
    out.push(`issuer: ${JSON.stringify(leaf.issuer)} ${leaf.issuer === ca.subject}`);
    out.push(`names: ${leaf.subjectAltName}`);
    out.push(`access: ${JSON.stringify(leaf.infoAccess)}`);
    out.push(`usage: ${JSON.stringify(leaf.keyUsage)} ${ca.keyUsage}`);
    out.push(`valid: ${leaf.validFrom.length} ${leaf.validTo.endsWith(' GMT')}`);
    out.push(`serial: ${leaf.serialNumber} ${leaf.ca} ${ca.ca}`);
    out.push(`prints: ${leaf.fingerprint.length} ${leaf.fingerprint256 === crypto.createHash('sha256').update(leaf.raw).digest('hex').toUpperCase().match(/../g).join(':')} ${leaf.fingerprint512.split(':').length}`);
    out.push(`hosts: ${['app.example.test', 'APP.Example.Test', 'x.cdn.example.test', 'a.b.cdn.example.test', 'cdn.example.test', 'other.test'].map((h) => leaf.checkHost(h)).join(' ')}`);
    out.push(`hosts by subject: ${leaf.checkHost('app.example.test', { subject: 'always' })} ${leaf.checkHost('x.cdn.example.test', { wildcards: false })}`);
    out.push(`emails: ${['Alerts@Example.Test', 'Alerts@example.test', 'alerts@example.test', 'ops@example.test'].map((e) => leaf.checkEmail(e)).join(' ')} ${leaf.checkEmail('ops@example.test', { subject: 'always' })}`);
    out.push(`ips: ${['127.0.0.1', '2001:db8::a', '2001:DB8:0:0:0:0:0:a', '::1', '127.0.0.2'].map((ip) => leaf.checkIP(ip)).join(' ')}`);
    out.push(`issued: ${leaf.checkIssued(ca)} ${ca.checkIssued(ca)} ${leaf.checkIssued(leaf)} ${ca.checkIssued(leaf)}`);
    out.push(`verify: ${leaf.verify(ca.publicKey)} ${leaf.verify(leaf.publicKey)} ${ca.verify(ca.publicKey)}`);
    // (workerd 2026-11-17 answers false for the leaf's own key too, where
    // Node answers true, as ssr does.)
    out.push(`private key: ${ca.checkPrivateKey(crypto.createPrivateKey(LEAF_KEY))}`);
    out.push(`key: ${leaf.publicKey.type} ${leaf.publicKey.asymmetricKeyType} ${leaf.publicKey.asymmetricKeyDetails.namedCurve}`);
    const der = new crypto.X509Certificate(leaf.raw);
    out.push(`forms: ${der.serialNumber === leaf.serialNumber} ${leaf.toString() === LEAF} ${leaf.toJSON() === leaf.toString()} ${leaf.raw[0]}`);
    const legacy = leaf.toLegacyObject();
    out.push(`legacy: ${JSON.stringify(legacy.subject)} ${JSON.stringify(legacy.infoAccess)} ${legacy.valid_to === leaf.validTo} ${legacy.serialNumber === leaf.serialNumber} ${legacy.raw.equals(leaf.raw)}`);
    out.push(`refused: ${[
      () => new crypto.X509Certificate('not a certificate'),
      () => new crypto.X509Certificate(Buffer.alloc(0)),
      () => new crypto.X509Certificate(leaf.raw.subarray(0, 100)),
      () => new crypto.X509Certificate(42),
      () => leaf.checkHost('app\0example.test'),
      () => leaf.checkHost('app.example.test', { wildcards: 'yes' }),
      () => leaf.checkIP('[::1]'),
      () => leaf.checkIssued({}),
      () => leaf.verify('key'),
      () => leaf.checkPrivateKey(ca.publicKey),
    ].map(caught).join(', ')}`);
    const spkac = Buffer.from('not an spkac');
    out.push(`spkac: ${crypto.Certificate.verifySpkac(spkac)} ${crypto.Certificate.exportChallenge(spkac).length} ${crypto.Certificate.exportPublicKey(spkac).length} ${caught(() => crypto.Certificate.exportChallenge(1))}`);
    return new Response(out.join('\n'));
  },
};
