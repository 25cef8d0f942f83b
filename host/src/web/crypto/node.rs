//! What `node:crypto` asks beyond Web Crypto, on the same crates and the
//! same canonical material (PKCS #8 for a private key, SPKI for a public
//! one; see `mod.rs`):
//! - keys as Node reads and writes them: PEM and DER in PKCS #1, PKCS #8
//!   (encrypted with a passphrase too), SEC1, SPKI, the public key of an
//!   X.509 certificate, and OpenSSL's older encrypted PEM
//!   (`Proc-Type: 4,ENCRYPTED`); the types `rsa`, `ec` (P-256, P-384,
//!   P-521), `ed25519`, `x25519` and `dsa` (read and written, not used),
//!   which are `workerd`'s. Others (RSA-PSS keys, DH, Ed448, X448,
//!   secp256k1) are refused as `workerd` refuses them;
//! - signatures with Node's options (RSA padding and PSS salt length,
//!   ECDSA in DER or IEEE P1363);
//! - RSA encryption with each of Node's paddings (PKCS #1 v1.5, OAEP,
//!   none), both ways;
//! - `createCipheriv`'s modes, one call per `update`. The host keeps no
//!   state: the prelude carries a stream's from call to call (CBC's last
//!   block, a CTR or GCM position, OFB's feedback block, and the
//!   ciphertext a GCM tag covers), and does the block padding.
//!
//! Invariants, beside `mod.rs`'s:
//! - a key that does not parse fails with `workerd`'s message, "Failed to
//!   parse private key" or "Failed to parse public key";
//! - every loop is bounded by its input, and the work a key's own
//!   parameters ask for (an encrypted key's PBKDF2 iterations or scrypt
//!   cost, RSA key generation) is capped as `mod.rs`'s are.

use super::*;
use crate::artifact::unhex;
use aes::cipher::consts::U16;
use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockDecrypt, BlockEncrypt, BlockSizeUser, KeyInit as _};

/// The RSA modulus sizes `generateKeyPair` makes: Node's floor, and a
/// ceiling that keeps the host's search for primes to about a second.
pub const NODE_RSA_BITS: std::ops::RangeInclusive<usize> = 512..=4096;

const PRIVATE_FAILED: &str = "Failed to parse private key";
const PUBLIC_FAILED: &str = "Failed to parse public key";

/// Runs one `node*` call of `mod.rs`'s `call`.
pub(super) fn call<'a>(a: &Args, part: &dyn Fn(usize) -> &'a [u8]) -> Result<Reply, String> {
    match a.op.as_str() {
        "nodeImport" => {
            let pass = a.has_passphrase.then(|| part(1));
            let key = import(a, part(0), pass)?;
            Ok(Reply {
                value: key.shown()?.to_string(),
                data: key.der,
            })
        }
        "nodePublic" => {
            let key = Key::of(a, part(0))?;
            Ok(bytes(key.public()?.der))
        }
        "nodeExport" => Ok(bytes(export(a, part(0), part(1))?)),
        "nodeGenerateRsa" => generate_rsa(a),
        "nodeSign" => Ok(bytes(sign(a, part(0), part(1))?)),
        "nodeVerify" => Ok(value(Value::Bool(verify(a, part(0), part(1), part(2))?))),
        "nodeRsa" => Ok(bytes(rsa_crypt(a, part(0), part(1), part(2))?)),
        "nodeCipher" => cipher(a, part(0), part(1), part(2), part(3), part(4)),
        "nodeDh" => dh::diffie_hellman(a, part),
        "nodePrime" => dh::prime(a, part),
        "nodeEcdh" => {
            let out = with_curve!(a.curve.as_str(), ec => ec::ecdh(&a.mode, &a.format, part(0), part(1)))?;
            let value =
                json!({ "parts": out.iter().map(Vec::len).collect::<Vec<_>>() }).to_string();
            Ok(Reply {
                value,
                data: out.concat(),
            })
        }
        op => Err(format!("crypto: no operation \"{op}\"")),
    }
}

// DER: just enough to walk Node's key containers and write the few it
// writes that the crates do not.

/// One DER element: its tag, its contents, and all of it.
pub(super) struct Tlv<'a> {
    pub(super) tag: u8,
    pub(super) body: &'a [u8],
    pub(super) whole: &'a [u8],
}

/// The first element of `input` and what follows it.
fn tlv(input: &[u8]) -> Option<(Tlv<'_>, &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (first as usize, rest)
    } else {
        let n = (first & 0x7f) as usize;
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| acc << 8 | *b as usize);
        (len, &rest[n..])
    };
    if rest.len() < len {
        return None;
    }
    let head = input.len() - rest.len();
    Some((
        Tlv {
            tag,
            body: &rest[..len],
            whole: &input[..head + len],
        },
        &rest[len..],
    ))
}

/// The elements of a SEQUENCE's contents.
pub(super) fn items(mut body: &[u8]) -> Option<Vec<Tlv<'_>>> {
    let mut out = Vec::new();
    while !body.is_empty() {
        let (item, rest) = tlv(body)?;
        out.push(item);
        body = rest;
    }
    Some(out)
}

/// The one SEQUENCE `der` is, as its elements.
pub(super) fn sequence(der: &[u8]) -> Option<Vec<Tlv<'_>>> {
    match tlv(der)? {
        (t, []) if t.tag == 0x30 => items(t.body),
        _ => None,
    }
}

fn write_tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = body.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(body);
    out
}

/// An unsigned INTEGER.
fn write_uint(n: &rsa::BigUint) -> Vec<u8> {
    let mut body = n.to_bytes_be();
    if body[0] & 0x80 != 0 {
        body.insert(0, 0);
    }
    write_tlv(0x02, &body)
}

/// An INTEGER's value, if it is a non-negative one.
fn read_uint(t: &Tlv) -> Option<rsa::BigUint> {
    (t.tag == 0x02 && !t.body.is_empty() && t.body[0] & 0x80 == 0)
        .then(|| rsa::BigUint::from_bytes_be(t.body))
}

// The algorithm identifiers, as OBJECT IDENTIFIER contents.
const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_EC: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_DSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];
const OID_X25519: &[u8] = &[0x2b, 0x65, 0x6e];
/// The NIST curves: OID, Web Crypto's name, Node's (OpenSSL's) name.
const CURVES: [(&[u8], &str, &str); 3] = [
    (
        &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
        "P-256",
        "prime256v1",
    ),
    (&[0x2b, 0x81, 0x04, 0x00, 0x22], "P-384", "secp384r1"),
    (&[0x2b, 0x81, 0x04, 0x00, 0x23], "P-521", "secp521r1"),
];

/// A key's type (Node's `asymmetricKeyType`) and, for `ec`, its curve,
/// from its AlgorithmIdentifier; `None` for a type `workerd` refuses.
fn key_type(algorithm: &Tlv) -> Option<(&'static str, &'static str)> {
    let parts = items(algorithm.body)?;
    let oid = parts.first().filter(|t| t.tag == 0x06)?.body;
    match oid {
        OID_RSA => Some(("rsa", "")),
        OID_DSA => Some(("dsa", "")),
        OID_ED25519 => Some(("ed25519", "")),
        OID_X25519 => Some(("x25519", "")),
        OID_EC => {
            let curve = parts.get(1).filter(|t| t.tag == 0x06)?.body;
            CURVES
                .iter()
                .find(|(oid, _, _)| *oid == curve)
                .map(|(_, name, _)| ("ec", *name))
        }
        _ => None,
    }
}

/// A key as `node:crypto` holds it.
struct Key {
    /// `private` or `public`.
    kind: &'static str,
    /// `rsa`, `ec`, `ed25519`, `x25519` or `dsa`.
    ty: &'static str,
    /// An `ec` key's curve (`P-256`...).
    curve: &'static str,
    /// PKCS #8 or SPKI.
    der: Vec<u8>,
}

impl Key {
    /// A key the prelude holds: its kind, and its material (read again).
    fn of(a: &Args, der: &[u8]) -> Result<Key, String> {
        match a.kind.as_str() {
            "private" => private_pkcs8(der),
            _ => public_spki(der),
        }
        .ok_or_else(|| operation_error("the key's material is not one node:crypto made"))
    }

    /// The Web Crypto algorithm whose code serves this type in `keys.rs`.
    fn args(&self, op: &str, format: &str) -> Args {
        Args {
            op: op.into(),
            alg: match self.ty {
                "rsa" => "RSA-OAEP",
                "ec" => "ECDSA",
                "ed25519" => "Ed25519",
                _ => "X25519",
            }
            .into(),
            curve: self.curve.into(),
            kind: self.kind.into(),
            format: format.into(),
            ..Args::default()
        }
    }

    /// Its public half (itself, for a public key).
    fn public(self) -> Result<Key, String> {
        if self.kind == "public" {
            return Ok(self);
        }
        let der = match self.ty {
            "dsa" => dsa_public_of(&self.der).ok_or_else(|| data_error(PRIVATE_FAILED))?,
            _ => keys::public_of(&self.args("public", ""), &self.der)?,
        };
        Ok(Key {
            kind: "public",
            der,
            ..self
        })
    }

    /// What `asymmetricKeyType` and `asymmetricKeyDetails` show.
    fn shown(&self) -> Result<Value, String> {
        let details = match self.ty {
            "rsa" => {
                use rsa::traits::PublicKeyParts;
                let key = match self.kind {
                    "private" => rsa::RsaPublicKey::from(keys::rsa_private(&self.der)?),
                    _ => keys::rsa_public(&self.der)?,
                };
                json!({ "modulusLength": key.n().bits(), "publicExponent": key.e().to_str_radix(16) })
            }
            "ec" => {
                let name = CURVES.iter().find(|c| c.1 == self.curve).map(|c| c.2);
                json!({ "namedCurve": name })
            }
            "dsa" => {
                let (p, q, _) = dsa_params(&self.der).ok_or_else(|| data_error(PRIVATE_FAILED))?;
                json!({ "modulusLength": p.bits(), "divisorLength": q.bits() })
            }
            _ => json!({}),
        };
        Ok(json!({ "kind": self.kind, "type": self.ty, "details": details }))
    }
}

/// A PKCS #8 key of a type `workerd` takes, canonical.
fn private_pkcs8(der: &[u8]) -> Option<Key> {
    let parts = sequence(der)?;
    canonical("private", key_type(parts.get(1)?)?, "pkcs8", der)
}

/// An SPKI key of a type `workerd` takes, canonical.
fn public_spki(der: &[u8]) -> Option<Key> {
    let parts = sequence(der)?;
    canonical("public", key_type(parts.first()?)?, "spki", der)
}

/// A `format` (`pkcs8` or `spki`) key of a type, read again by the code
/// that serves its type, so that one key has one form.
fn canonical(
    kind: &'static str,
    (ty, curve): (&'static str, &'static str),
    format: &str,
    der: &[u8],
) -> Option<Key> {
    let der = match ty {
        "rsa" => keys::rsa_import(format, der, None).ok()?.1,
        "ec" => {
            with_curve!(curve, ec => ec::import(format, der, None))
                .ok()?
                .1
        }
        "ed25519" => keys::ed25519_import(format, der, None).ok()?.1,
        "x25519" => okp::curve("X25519").ok()?.import(format, der, None).ok()?.1,
        _ => {
            dsa_params(der)?;
            der.to_vec()
        }
    };
    Some(Key {
        kind,
        ty,
        curve,
        der,
    })
}

/// PKCS #1's `RSAPrivateKey`, as PKCS #8.
fn rsa_pkcs1_private(der: &[u8]) -> Option<Key> {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs8::EncodePrivateKey;
    let key = rsa::RsaPrivateKey::from_pkcs1_der(der).ok()?;
    key.validate().ok()?;
    let der = key.to_pkcs8_der().ok()?.as_bytes().to_vec();
    Some(Key {
        kind: "private",
        ty: "rsa",
        curve: "",
        der,
    })
}

/// PKCS #1's `RSAPublicKey`, as SPKI.
fn rsa_pkcs1_public(der: &[u8]) -> Option<Key> {
    use rsa::pkcs1::DecodeRsaPublicKey;
    use rsa::pkcs8::EncodePublicKey;
    let key = rsa::RsaPublicKey::from_pkcs1_der(der).ok()?;
    let der = key.to_public_key_der().ok()?.into_vec();
    Some(Key {
        kind: "public",
        ty: "rsa",
        curve: "",
        der,
    })
}

/// SEC1's `ECPrivateKey` on a NIST curve, as PKCS #8. Its curve is its
/// parameters' OID, or where it has none, the one its key's size fits.
fn ec_sec1_private(der: &[u8]) -> Option<Key> {
    let parts = sequence(der)?;
    let curve = match parts.iter().find(|t| t.tag == 0xa0) {
        Some(params) => {
            let (oid, _) = tlv(params.body)?;
            CURVES.iter().find(|c| c.0 == oid.body)?.1
        }
        None => match parts.get(1).filter(|t| t.tag == 0x04)?.body.len() {
            32 => "P-256",
            48 => "P-384",
            66 => "P-521",
            _ => return None,
        },
    };
    let der = with_curve!(curve, ec => ec::from_sec1(der)).ok()?;
    Some(Key {
        kind: "private",
        ty: "ec",
        curve,
        der,
    })
}

/// A SEC1 key with its curve named in its parameters, as OpenSSL writes
/// it (the crate leaves them out).
fn sec1_named(sec1: &[u8], curve: &str) -> Option<Vec<u8>> {
    let parts = sequence(sec1)?;
    let oid = CURVES.iter().find(|c| c.1 == curve)?.0;
    let mut body = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if i == 2 && part.tag != 0xa0 {
            body.extend(write_tlv(0xa0, &write_tlv(0x06, oid)));
        }
        body.extend_from_slice(part.whole);
    }
    if parts.len() == 2 {
        body.extend(write_tlv(0xa0, &write_tlv(0x06, oid)));
    }
    Some(write_tlv(0x30, &body))
}

// DSA: read, written and measured, not used (as on `workerd`).

/// A DSA key's parameters (p, q, g), from its PKCS #8 or SPKI.
fn dsa_params(der: &[u8]) -> Option<(rsa::BigUint, rsa::BigUint, rsa::BigUint)> {
    let parts = sequence(der)?;
    let algorithm = parts.iter().find(|t| t.tag == 0x30)?;
    let params = items(algorithm.body)?;
    let pqg = params.get(1).and_then(|t| sequence(t.whole))?;
    let [p, q, g] = pqg.as_slice() else {
        return None;
    };
    let (p, q, g) = (read_uint(p)?, read_uint(q)?, read_uint(g)?);
    // Bounded: a modulus of at most 10,000 bits (OpenSSL's bound) and a
    // divisor of at most 512 (FIPS 186's are 160 to 256), so making the
    // public key (an exponent below the divisor) is cheap.
    (p.bits() <= 10_000 && q.bits() <= 512 && q.bits() < p.bits()).then_some((p, q, g))
}

/// The AlgorithmIdentifier of DSA with these parameters.
fn dsa_algorithm(p: &rsa::BigUint, q: &rsa::BigUint, g: &rsa::BigUint) -> Vec<u8> {
    let params = write_tlv(
        0x30,
        &[write_uint(p), write_uint(q), write_uint(g)].concat(),
    );
    write_tlv(0x30, &[write_tlv(0x06, OID_DSA), params].concat())
}

/// OpenSSL's `DSA PRIVATE KEY` (version, p, q, g, y, x) as PKCS #8.
fn dsa_traditional(der: &[u8]) -> Option<Key> {
    let parts = sequence(der)?;
    let [version, p, q, g, _y, x] = parts.as_slice() else {
        return None;
    };
    if version.body != [0] {
        return None;
    }
    let (p, q, g, x) = (read_uint(p)?, read_uint(q)?, read_uint(g)?, read_uint(x)?);
    let key = write_tlv(0x04, &write_uint(&x));
    let der = write_tlv(
        0x30,
        &[write_tlv(0x02, &[0]), dsa_algorithm(&p, &q, &g), key].concat(),
    );
    dsa_params(&der)?;
    Some(Key {
        kind: "private",
        ty: "dsa",
        curve: "",
        der,
    })
}

/// A DSA private key's public half: y = g^x mod p.
fn dsa_public_of(der: &[u8]) -> Option<Vec<u8>> {
    let (p, q, g) = dsa_params(der)?;
    let parts = sequence(der)?;
    let (x, _) = tlv(parts.get(2).filter(|t| t.tag == 0x04)?.body)?;
    let x = read_uint(&x)?;
    // x < q, so the exponentiation is bounded by q's size.
    if x >= q {
        return None;
    }
    let y = g.modpow(&x, &p);
    let mut bits = vec![0];
    bits.extend(write_uint(&y));
    Some(write_tlv(
        0x30,
        &[dsa_algorithm(&p, &q, &g), write_tlv(0x03, &bits)].concat(),
    ))
}

// PEM, as OpenSSL reads and writes it: a label, optional headers (the
// older encryption's), base64.

struct Pem {
    label: String,
    headers: Vec<(String, String)>,
    der: Vec<u8>,
}

fn pem_parse(text: &[u8]) -> Option<Pem> {
    let text = std::str::from_utf8(text).ok()?;
    let start = text.find("-----BEGIN ")?;
    let rest = &text[start + 11..];
    let label_end = rest.find("-----")?;
    let label = rest[..label_end].to_string();
    let body_start = &rest[label_end + 5..];
    let end = body_start.find(&format!("-----END {label}-----"))?;
    let mut headers = Vec::new();
    let mut b64 = String::new();
    for line in body_start[..end].lines() {
        let line = line.trim();
        match line.split_once(':') {
            Some((k, v)) if b64.is_empty() => headers.push((k.trim().into(), v.trim().into())),
            _ => b64.push_str(line),
        }
    }
    let der = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
    Some(Pem {
        label,
        headers,
        der,
    })
}

fn pem_write(label: &str, headers: &[(String, String)], der: &[u8]) -> Vec<u8> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\n"));
    }
    if !headers.is_empty() {
        out.push('\n');
    }
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out.into_bytes()
}

/// OpenSSL's EVP_BytesToKey with MD5 and one round: the key of the older
/// PEM encryption, from the passphrase and the IV's first 8 bytes.
fn bytes_to_key(pass: &[u8], salt: &[u8], len: usize) -> Vec<u8> {
    use md5::Digest;
    let mut out = Vec::new();
    let mut last = Vec::new();
    while out.len() < len {
        let mut h = md5::Md5::new();
        h.update(&last);
        h.update(pass);
        h.update(&salt[..8]);
        last = h.finalize().to_vec();
        out.extend_from_slice(&last);
    }
    out.truncate(len);
    out
}

/// The AES-CBC key length of an older PEM's `DEK-Info` cipher.
fn legacy_cipher(name: &str) -> Option<usize> {
    match name.to_ascii_uppercase().as_str() {
        "AES-128-CBC" => Some(16),
        "AES-192-CBC" => Some(24),
        "AES-256-CBC" => Some(32),
        _ => None,
    }
}

fn aes_cbc(encrypt: bool, key: &[u8], iv: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    aes_cbc_padded(encrypt, key, iv, data).ok()
}

fn aes_cbc_padded(encrypt: bool, key: &[u8], iv: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    use aes::cipher::block_padding::Pkcs7;
    use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
    with_aes!(key, A => Ok(if encrypt {
        cbc::Encryptor::<A>::new_from_slices(key, iv)
            .map_err(|e| e.to_string())?
            .encrypt_padded_vec_mut::<Pkcs7>(data)
    } else {
        cbc::Decryptor::<A>::new_from_slices(key, iv)
            .map_err(|e| e.to_string())?
            .decrypt_padded_vec_mut::<Pkcs7>(data)
            .map_err(|e| e.to_string())?
    }))
}

/// An older PEM's body, decrypted with `pass` where its headers say it
/// is encrypted.
fn pem_body(pem: &Pem, pass: Option<&[u8]>) -> Option<Vec<u8>> {
    let header = |name: &str| {
        pem.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    };
    if !header("Proc-Type").is_some_and(|v| v.contains("ENCRYPTED")) {
        return Some(pem.der.clone());
    }
    let (cipher, iv) = header("DEK-Info")?.split_once(',')?;
    let len = legacy_cipher(cipher)?;
    let iv = unhex(iv.trim())?;
    if iv.len() != 16 {
        return None;
    }
    aes_cbc(false, &bytes_to_key(pass?, &iv, len), &iv, &pem.der)
}

/// An encrypted PKCS #8, decrypted, if its key derivation is within the
/// bounds `mod.rs` keeps.
fn pkcs8_decrypt(der: &[u8], pass: &[u8]) -> Option<Vec<u8>> {
    use pkcs8::der::Decode;
    use pkcs8::pkcs5::EncryptionScheme;
    use pkcs8::pkcs5::pbes2::Kdf;
    let info = pkcs8::EncryptedPrivateKeyInfo::from_der(der).ok()?;
    let EncryptionScheme::Pbes2(params) = &info.encryption_algorithm else {
        return None;
    };
    let bounded = match &params.kdf {
        Kdf::Pbkdf2(p) => p.iteration_count <= MAX_ITERATIONS,
        Kdf::Scrypt(s) => {
            let n = s.cost_parameter;
            let (r, p) = (s.block_size as u64, s.parallelization as u64);
            n.saturating_mul(r).saturating_mul(p) <= MAX_SCRYPT_WORK
                && n.saturating_mul(r).saturating_mul(128) <= MAX_SCRYPT_MEMORY
        }
        _ => false,
    };
    if !bounded {
        return None;
    }
    Some(info.decrypt(pass).ok()?.as_bytes().to_vec())
}

/// `createPrivateKey`/`createPublicKey`: `input` in `a.format` (`pem`,
/// `der` or `jwk`) and `a.ty` (`pkcs1`, `pkcs8`, `sec1`, `spki`, or none),
/// as a key of `a.kind`; a private key given for a public one gives its
/// public half.
fn import(a: &Args, input: &[u8], pass: Option<&[u8]>) -> Result<Key, String> {
    let want_private = a.kind == "private";
    let failed = || {
        data_error(if want_private {
            PRIVATE_FAILED
        } else {
            PUBLIC_FAILED
        })
    };
    let key = match a.format.as_str() {
        "jwk" => jwk_import(a)?,
        "der" => der_import(want_private, &a.ty, input, pass).ok_or_else(failed)?,
        _ => {
            let pem = pem_parse(input).ok_or_else(failed)?;
            let body = pem_body(&pem, pass).ok_or_else(failed)?;
            match pem.label.as_str() {
                "ENCRYPTED PRIVATE KEY" => pass
                    .and_then(|p| pkcs8_decrypt(&body, p))
                    .and_then(|d| private_pkcs8(&d)),
                // Whichever form the body is, as OpenSSL reads it.
                "PRIVATE KEY" | "RSA PRIVATE KEY" | "EC PRIVATE KEY" => {
                    der_import(true, "", &body, None)
                }
                "DSA PRIVATE KEY" => dsa_traditional(&body),
                "PUBLIC KEY" => public_spki(&body),
                "RSA PUBLIC KEY" => rsa_pkcs1_public(&body),
                "CERTIFICATE" => certificate_spki(&body).and_then(public_spki),
                _ => None,
            }
            .ok_or_else(failed)?
        }
    };
    match (want_private, key.kind) {
        (true, "public") => Err(failed()),
        (false, "private") => key.public(),
        _ => Ok(key),
    }
}

/// A DER key: a private one as `ty` says (PKCS #8 alone for `pkcs8`,
/// as Node; else PKCS #8, PKCS #1 or SEC1, whichever it is); a public one
/// as SPKI or PKCS #1, else as a private key.
fn der_import(private: bool, ty: &str, der: &[u8], pass: Option<&[u8]>) -> Option<Key> {
    let decrypted = pass.and_then(|p| pkcs8_decrypt(der, p));
    let der = decrypted.as_deref().unwrap_or(der);
    let as_private = || match ty {
        "pkcs8" => private_pkcs8(der),
        _ => private_pkcs8(der)
            .or_else(|| rsa_pkcs1_private(der))
            .or_else(|| ec_sec1_private(der)),
    };
    if private {
        return as_private();
    }
    match ty {
        "pkcs1" => rsa_pkcs1_public(der),
        _ => public_spki(der),
    }
    .or_else(|| public_spki(der))
    .or_else(|| rsa_pkcs1_public(der))
    .or_else(as_private)
}

/// An X.509 certificate's SubjectPublicKeyInfo.
fn certificate_spki(der: &[u8]) -> Option<&[u8]> {
    let certificate = sequence(der)?;
    let tbs = items(certificate.first().filter(|t| t.tag == 0x30)?.body)?;
    // version [0] (optional), serial, signature, issuer, validity,
    // subject, subjectPublicKeyInfo.
    let skip = usize::from(tbs.first()?.tag == 0xa0);
    tbs.get(skip + 5).filter(|t| t.tag == 0x30).map(|t| t.whole)
}

/// A JWK (the prelude has checked its members as `workerd` names them).
fn jwk_import(a: &Args) -> Result<Key, String> {
    let jwk = a.jwk.as_ref().ok_or_else(|| data_error("no JWK given"))?;
    let text = |k: &str| jwk.get(k).and_then(Value::as_str).unwrap_or("");
    let (ty, curve, (kind, der)) = match text("kty") {
        "RSA" => ("rsa", "", keys::rsa_import("jwk", b"", Some(jwk))?),
        "EC" => {
            let (_, curve, _) = CURVES
                .iter()
                .find(|c| c.1 == text("crv"))
                .ok_or_else(|| data_error(format!("Unsupported JWK EC curve: {}", text("crv"))))?;
            let text = keys::ec_jwk_text(jwk);
            let imported = with_curve!(*curve, ec => ec::import("jwk", b"", Some(&text)))?;
            ("ec", *curve, imported)
        }
        "OKP" => {
            // A private key's `x` is made again from its `d`, as
            // `workerd` reads only `d`.
            let mut jwk = jwk.clone();
            if jwk.contains_key("d") {
                let d = keys::jwk_bytes(&jwk, "d")?;
                let x = match text("crv") {
                    "Ed25519" => <[u8; 32]>::try_from(d.as_slice())
                        .map(|d| {
                            ed25519_dalek::SigningKey::from_bytes(&d)
                                .verifying_key()
                                .to_bytes()
                                .to_vec()
                        })
                        .map_err(|_| data_error("the JWK's \"d\" is not 32 bytes"))?,
                    _ => {
                        let curve = okp::curve("X25519")?;
                        (curve.public_of)(&d)
                    }
                };
                jwk.insert("x".into(), Value::from(B64.encode(x)));
            }
            match text("crv") {
                "Ed25519" => ("ed25519", "", keys::ed25519_import("jwk", b"", Some(&jwk))?),
                "X25519" => (
                    "x25519",
                    "",
                    okp::curve("X25519")?.import("jwk", b"", Some(&jwk))?,
                ),
                other => return Err(data_error(format!("Unsupported JWK OKP curve: {other}"))),
            }
        }
        other => return Err(data_error(format!("Unsupported JWK key type: {other}"))),
    };
    Ok(Key {
        kind: if kind == "private" {
            "private"
        } else {
            "public"
        },
        ty,
        curve,
        der,
    })
}

/// `KeyObject.export`: `a.format` `pem` or `der` in `a.ty`, a private key
/// encrypted with `a.cipher` and the passphrase where one is named. (JWK
/// is `keys.rs`'s export, called by the prelude.)
fn export(a: &Args, der: &[u8], pass: &[u8]) -> Result<Vec<u8>, String> {
    let key = Key::of(a, der)?;
    let pem = a.format == "pem";
    let out = |label: &str, der: Vec<u8>| {
        Ok(if pem {
            pem_write(label, &[], &der)
        } else {
            der
        })
    };
    let only = |ty: &str, what: &str| {
        if key.ty == ty {
            Ok(())
        } else {
            Err(error(
                "TypeError",
                format!("{what} can only be used for {} keys", ty.to_uppercase()),
            ))
        }
    };
    match (key.kind, a.ty.as_str()) {
        ("private", "pkcs8") if !a.cipher.is_empty() => {
            let encrypted = pkcs8_encrypt(&key.der, &a.cipher, pass)?;
            out("ENCRYPTED PRIVATE KEY", encrypted)
        }
        ("private", "pkcs8") => out("PRIVATE KEY", key.der),
        ("private", "pkcs1") => {
            use rsa::pkcs1::EncodeRsaPrivateKey;
            only("rsa", "PKCS1")?;
            let body = keys::rsa_private(&key.der)?
                .to_pkcs1_der()
                .map_err(data_error)?
                .as_bytes()
                .to_vec();
            traditional(a, "RSA PRIVATE KEY", body, pass)
        }
        ("private", "sec1") => {
            only("ec", "SEC1")?;
            let body = with_curve!(key.curve, ec => ec::to_sec1(&key.der))?;
            let body = sec1_named(&body, key.curve).ok_or_else(|| data_error(PRIVATE_FAILED))?;
            traditional(a, "EC PRIVATE KEY", body, pass)
        }
        ("public", "spki") => out("PUBLIC KEY", key.der),
        ("public", "pkcs1") => {
            use rsa::pkcs1::EncodeRsaPublicKey;
            only("rsa", "PKCS1")?;
            let body = keys::rsa_public(&key.der)?
                .to_pkcs1_der()
                .map_err(data_error)?
                .into_vec();
            out("RSA PUBLIC KEY", body)
        }
        (kind, ty) => Err(error(
            "TypeError",
            format!("a {kind} key is not exported as \"{ty}\""),
        )),
    }
}

/// A PKCS #1 or SEC1 private key, in PEM encrypted the older way where a
/// cipher is named (as OpenSSL writes them), or in DER.
fn traditional(a: &Args, label: &str, body: Vec<u8>, pass: &[u8]) -> Result<Vec<u8>, String> {
    if a.cipher.is_empty() {
        return Ok(if a.format == "pem" {
            pem_write(label, &[], &body)
        } else {
            body
        });
    }
    if a.format != "pem" {
        return Err(error(
            "TypeError",
            "a cipher is used with PKCS #1 and SEC1 only in PEM",
        ));
    }
    let len = legacy_cipher(&a.cipher).ok_or_else(|| unknown_cipher(&a.cipher))?;
    let mut iv = [0u8; 16];
    getrandom::fill(&mut iv).map_err(operation_error)?;
    let encrypted = aes_cbc(true, &bytes_to_key(pass, &iv, len), &iv, &body)
        .ok_or_else(|| operation_error("the key could not be encrypted"))?;
    let iv_hex: String = iv.iter().map(|b| format!("{b:02X}")).collect();
    let headers = [
        ("Proc-Type".to_string(), "4,ENCRYPTED".to_string()),
        (
            "DEK-Info".to_string(),
            format!("{},{iv_hex}", a.cipher.to_uppercase()),
        ),
    ];
    Ok(pem_write(label, &headers, &encrypted))
}

fn unknown_cipher(name: &str) -> String {
    error(
        "TypeError",
        format!("Unknown cipher \"{name}\" (aes-128-cbc, aes-192-cbc or aes-256-cbc)"),
    )
}

/// PKCS #8 encrypted with PBES2: PBKDF2-SHA256 (2,048 iterations, as
/// OpenSSL's default) and AES-CBC.
fn pkcs8_encrypt(der: &[u8], cipher: &str, pass: &[u8]) -> Result<Vec<u8>, String> {
    use pkcs8::der::Decode;
    use pkcs8::pkcs5::pbes2::{EncryptionScheme, Parameters};
    let mut salt = [0u8; 16];
    let mut iv = [0u8; 16];
    getrandom::fill(&mut salt).map_err(operation_error)?;
    getrandom::fill(&mut iv).map_err(operation_error)?;
    let base = Parameters::pbkdf2_sha256_aes256cbc(2048, &salt, &iv).map_err(operation_error)?;
    let encryption = match legacy_cipher(cipher) {
        Some(16) => EncryptionScheme::Aes128Cbc { iv: &iv },
        Some(24) => EncryptionScheme::Aes192Cbc { iv: &iv },
        Some(_) => EncryptionScheme::Aes256Cbc { iv: &iv },
        None => return Err(unknown_cipher(cipher)),
    };
    let params = Parameters {
        kdf: base.kdf,
        encryption,
    };
    let info = pkcs8::PrivateKeyInfo::from_der(der).map_err(data_error)?;
    Ok(info
        .encrypt_with_params(params, pass)
        .map_err(operation_error)?
        .as_bytes()
        .to_vec())
}

/// `generateKeyPair('rsa')`: Node's sizes within [`NODE_RSA_BITS`], and
/// any odd exponent from 3 to 2^32 - 1 (the prime search ends for an odd
/// one; see `keys.rs`).
fn generate_rsa(a: &Args) -> Result<Reply, String> {
    use rsa::pkcs8::{EncodePrivateKey, EncodePublicKey};
    if !NODE_RSA_BITS.contains(&a.modulus_length) {
        return Err(error(
            "RangeError",
            format!(
                "ssr generates RSA keys of {} to {} bits, not {}",
                NODE_RSA_BITS.start(),
                NODE_RSA_BITS.end(),
                a.modulus_length
            ),
        ));
    }
    let e = rsa::BigUint::from_bytes_be(&a.public_exponent);
    if e < rsa::BigUint::from(3u32)
        || e.to_bytes_be().last().is_some_and(|b| b % 2 == 0)
        || e.bits() > 32
    {
        return Err(error(
            "RangeError",
            format!("an RSA key's publicExponent is odd, from 3 to 2^32 - 1, not {e}"),
        ));
    }
    let key = rsa::RsaPrivateKey::new_with_exp(&mut rand_core::OsRng, a.modulus_length, &e)
        .map_err(operation_error)?;
    let private = key.to_pkcs8_der().map_err(operation_error)?;
    let public = rsa::RsaPublicKey::from(&key)
        .to_public_key_der()
        .map_err(operation_error)?;
    let private = private.as_bytes().to_vec();
    let value = json!({ "parts": [private.len(), public.as_bytes().len()] }).to_string();
    let mut data = private;
    data.extend_from_slice(public.as_bytes());
    Ok(Reply { value, data })
}

/// The PSS salt length Node's option asks for: -1 the digest's length,
/// -2 the most the key allows (for signing; for verifying Node recovers
/// it, tried here as the digest's length, then the most). PKCS #1 v1.5
/// has none (one 0).
fn pss_salts(a: &Args, key_bits: usize) -> Result<Vec<usize>, String> {
    if a.padding != 6 {
        return Ok(vec![0]);
    }
    let hash_len = digest(&a.hash, b"")?.len();
    let most = (key_bits - 1).div_ceil(8).saturating_sub(hash_len + 2);
    Ok(match a.salt {
        Some(n) if n >= 0 => vec![n as usize],
        Some(-1) => vec![hash_len],
        _ if a.op == "nodeVerify" => vec![hash_len, most],
        _ => vec![most],
    })
}

/// What `sign.rs`'s RSA signatures take for Node's padding (6 is PSS) and
/// a salt length.
fn rsa_args(a: &Args, salt_length: usize) -> Args {
    let alg = if a.padding == 6 {
        "RSA-PSS"
    } else {
        "RSASSA-PKCS1-v1_5"
    };
    Args {
        alg: alg.into(),
        hash: a.hash.clone(),
        salt_length,
        ..Args::default()
    }
}

/// `sign` and `Sign.sign`: `a.ty` the key's type, `a.hash` the digest
/// (empty for Ed25519), `a.padding` 6 for RSA-PSS, `a.dsa_encoding`.
fn sign(a: &Args, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    match a.ty.as_str() {
        "rsa" => {
            use rsa::traits::PublicKeyParts;
            let bits = keys::rsa_private(key)?.n().bits();
            let salt = pss_salts(a, bits)?[0];
            sign::rsa_sign(&rsa_args(a, salt), key, data)
        }
        "ec" => {
            let p1363 =
                with_curve!(a.curve.as_str(), ec => ec::sign(key, &digest(&a.hash, data)?))?;
            match a.dsa_encoding.as_str() {
                "ieee-p1363" => Ok(p1363),
                _ => with_curve!(a.curve.as_str(), ec => ec::der_signature(&p1363)),
            }
        }
        "ed25519" => sign::sign(&ed25519_args(), key, data, b""),
        "dsa" => Err(error(
            "Error",
            "Signing with DSA keys is not currently supported",
        )),
        other => Err(error(
            "Error",
            format!("a {other} key cannot sign (Operation not supported for this key type)"),
        )),
    }
}

fn ed25519_args() -> Args {
    Args {
        alg: "Ed25519".into(),
        ..Args::default()
    }
}

fn verify(a: &Args, key: &[u8], signature: &[u8], data: &[u8]) -> Result<bool, String> {
    match a.ty.as_str() {
        "rsa" => {
            use rsa::traits::PublicKeyParts;
            let bits = keys::rsa_public(key)?.n().bits();
            for salt in pss_salts(a, bits)? {
                if sign::rsa_verify(&rsa_args(a, salt), key, signature, data)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        "ec" => {
            let p1363 = match a.dsa_encoding.as_str() {
                "ieee-p1363" => Some(signature.to_vec()),
                _ => {
                    with_curve!(a.curve.as_str(), ec => Ok::<_, String>(ec::p1363_signature(signature)))?
                }
            };
            let Some(p1363) = p1363 else {
                return Ok(false);
            };
            with_curve!(a.curve.as_str(), ec => ec::verify(key, &digest(&a.hash, data)?, &p1363))
        }
        "ed25519" => sign::verify(&ed25519_args(), key, signature, data, b""),
        "dsa" => Err(error(
            "Error",
            "Verifying with DSA keys is not currently supported",
        )),
        other => Err(error(
            "Error",
            format!("a {other} key cannot verify (Operation not supported for this key type)"),
        )),
    }
}

/// `publicEncrypt` and the rest (`a.mode`), with `a.padding` 1 (PKCS #1
/// v1.5), 3 (none) or 4 (OAEP, `a.hash` its digest, `label` its label).
fn rsa_crypt(a: &Args, key: &[u8], data: &[u8], label: &[u8]) -> Result<Vec<u8>, String> {
    use rsa::hazmat::{rsa_decrypt_and_check, rsa_encrypt};
    use rsa::traits::PublicKeyParts;
    let fail = |what: &str| error("Error", what);
    let private = || keys::rsa_private(key);
    let public = || match a.kind.as_str() {
        "private" => keys::rsa_private(key).map(rsa::RsaPublicKey::from),
        _ => keys::rsa_public(key),
    };
    // The bare operation, on exactly the modulus's size.
    let sized = |n: rsa::BigUint, k: usize| {
        let mut out = n.to_bytes_be();
        if out.len() > k {
            return Err(fail("data too large for modulus"));
        }
        let mut padded = vec![0; k - out.len()];
        padded.append(&mut out);
        Ok(padded)
    };
    // RSA_NO_PADDING's input: exactly the modulus's size, and below it.
    let bare = |n: &rsa::BigUint| {
        let value = rsa::BigUint::from_bytes_be(data);
        if data.len() != n.bits().div_ceil(8) {
            Err(fail(
                "data size does not match the modulus (RSA_NO_PADDING)",
            ))
        } else if &value >= n {
            Err(fail("data too large for modulus"))
        } else {
            Ok(value)
        }
    };
    let label = || {
        String::from_utf8(label.to_vec())
            .map_err(|_| fail("ssr takes an OAEP label that is UTF-8 text"))
    };
    match (a.mode.as_str(), a.padding) {
        ("publicEncrypt", 4) => {
            let key = public()?;
            let l = label()?;
            with_hash!(a.hash.as_str(), H => key
                .encrypt(&mut rand_core::OsRng, oaep::<H>(l), data)
                .map_err(|e| fail(&e.to_string())))
        }
        ("privateDecrypt", 4) => {
            let key = private()?;
            let l = label()?;
            with_hash!(a.hash.as_str(), H => key
                .decrypt(oaep::<H>(l), data)
                .map_err(|_| fail("Decryption failed (oaep decoding error)")))
        }
        ("publicEncrypt", 1) => public()?
            .encrypt(&mut rand_core::OsRng, rsa::Pkcs1v15Encrypt, data)
            .map_err(|e| fail(&e.to_string())),
        ("privateDecrypt", 1) => private()?
            .decrypt(rsa::Pkcs1v15Encrypt, data)
            .map_err(|_| fail("Decryption failed (pkcs1 padding error)")),
        ("privateEncrypt", 1) => private()?
            .sign(rsa::Pkcs1v15Sign::new_unprefixed(), data)
            .map_err(|e| fail(&e.to_string())),
        ("publicDecrypt", 1) => {
            let key = public()?;
            let k = key.size();
            let m = rsa_encrypt(&key, &rsa::BigUint::from_bytes_be(data))
                .map_err(|e| fail(&e.to_string()))?;
            let em = sized(m, k)?;
            // 00 01 FF...FF 00 data, with at least 8 bytes of FF.
            let ones = em.iter().skip(2).take_while(|b| **b == 0xff).count();
            if em.len() < 11 || em[0] != 0 || em[1] != 1 || ones < 8 || em.get(2 + ones) != Some(&0)
            {
                return Err(fail("Decryption failed (pkcs1 padding error)"));
            }
            Ok(em[3 + ones..].to_vec())
        }
        ("publicEncrypt" | "publicDecrypt", 3) => {
            let key = public()?;
            let m = bare(key.n())?;
            sized(
                rsa_encrypt(&key, &m).map_err(|e| fail(&e.to_string()))?,
                key.size(),
            )
        }
        ("privateDecrypt" | "privateEncrypt", 3) => {
            let key = private()?;
            let c = bare(key.n())?;
            let m = rsa_decrypt_and_check(&key, Some(&mut rand_core::OsRng), &c)
                .map_err(|e| fail(&e.to_string()))?;
            sized(m, key.size())
        }
        (mode, padding) => Err(fail(&format!(
            "{mode} does not take the padding {padding} (RSA_PKCS1_PADDING 1, RSA_NO_PADDING 3, RSA_PKCS1_OAEP_PADDING 4)"
        ))),
    }
}

fn oaep<H>(label: String) -> rsa::Oaep
where
    H: 'static + sha2::Digest + sha2::digest::DynDigest + Send + Sync,
{
    if label.is_empty() {
        rsa::Oaep::new::<H>()
    } else {
        rsa::Oaep::new_with_label::<H, _>(label)
    }
}

/// `createCipheriv`'s modes (`a.mode`), one step each; the prelude keeps
/// the state between steps:
/// - `ecb`, `cbc`: whole blocks, unpadded (CBC's `iv` is the last
///   ciphertext block before these);
/// - `ctr`: the keystream from `iv` as a 128-bit counter, at byte
///   `a.position`;
/// - `ofb`: `iv` the current feedback block, `a.position` the bytes of it
///   used (16 at the start); the answer ends with the next feedback block;
/// - `gcm`: GCM's counter-mode part at byte `a.position`, for the IV `iv`;
///   `gcmTag`: the tag over `aad` and the whole ciphertext `data`,
///   `a.length` bytes;
/// - `chacha20-poly1305`: one whole message, sealed (the answer ends
///   with the tag) or opened against `tag`, as `workerd`'s AEAD does it.
fn cipher(
    a: &Args,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    aad: &[u8],
    tag: &[u8],
) -> Result<Reply, String> {
    if a.mode == "chacha20-poly1305" {
        return chacha(a, key, iv, data, aad, tag).map(bytes);
    }
    with_aes!(key, A => {
        let aes = A::new_from_slice(key).map_err(operation_error)?;
        block_mode(a, &aes, iv, data, aad)
    })
}

/// One AES key's block cipher.
trait Aes: BlockEncrypt + BlockDecrypt + BlockSizeUser<BlockSize = U16> {}
impl<A: BlockEncrypt + BlockDecrypt + BlockSizeUser<BlockSize = U16>> Aes for A {}

fn block_mode<A: Aes>(
    a: &Args,
    aes: &A,
    iv: &[u8],
    data: &[u8],
    aad: &[u8],
) -> Result<Reply, String> {
    type Block = GenericArray<u8, U16>;
    let encrypt = |b: &mut [u8; 16]| aes.encrypt_block(Block::from_mut_slice(b));
    let block =
        |b: &[u8]| <[u8; 16]>::try_from(b).map_err(|_| operation_error("a block is 16 bytes"));
    let whole = || {
        if data.len().is_multiple_of(16) {
            Ok(())
        } else {
            Err(operation_error("whole blocks only"))
        }
    };
    let mut out = data.to_vec();
    match a.mode.as_str() {
        "ecb" => {
            whole()?;
            for chunk in out.chunks_mut(16) {
                let b = Block::from_mut_slice(chunk);
                if a.encrypt {
                    aes.encrypt_block(b)
                } else {
                    aes.decrypt_block(b)
                }
            }
        }
        "cbc" => {
            whole()?;
            let mut chain = block(iv)?;
            for chunk in out.chunks_mut(16) {
                if a.encrypt {
                    chunk.iter_mut().zip(chain).for_each(|(c, p)| *c ^= p);
                    aes.encrypt_block(Block::from_mut_slice(chunk));
                    chain.copy_from_slice(chunk);
                } else {
                    let next = block(chunk)?;
                    aes.decrypt_block(Block::from_mut_slice(chunk));
                    chunk.iter_mut().zip(chain).for_each(|(c, p)| *c ^= p);
                    chain = next;
                }
            }
        }
        "ctr" | "gcm" => {
            let start = if a.mode == "ctr" {
                u128::from_be_bytes(block(iv)?)
            } else {
                u128::from_be_bytes(gcm_j0(aes, iv))
            };
            keystream(&mut out, a.position, |index| {
                let counter = if a.mode == "ctr" {
                    start.wrapping_add(index as u128)
                } else {
                    // inc32: the low 32 bits count, from J0 + 1.
                    let low = (start as u32).wrapping_add(1).wrapping_add(index as u32);
                    (start & !0xffff_ffff) | low as u128
                };
                let mut b = counter.to_be_bytes();
                encrypt(&mut b);
                b
            });
        }
        "ofb" => {
            let mut feedback = block(iv)?;
            let mut used = a.position.min(16) as usize;
            for byte in out.iter_mut() {
                if used == 16 {
                    encrypt(&mut feedback);
                    used = 0;
                }
                *byte ^= feedback[used];
                used += 1;
            }
            out.extend_from_slice(&feedback);
        }
        "gcmTag" => {
            let mut j0 = gcm_j0(aes, iv);
            encrypt(&mut j0);
            let mut s = ghash_of(aes, aad, data);
            s.iter_mut().zip(j0).for_each(|(t, m)| *t ^= m);
            return Ok(bytes(s[..a.length.clamp(1, 16)].to_vec()));
        }
        other => return Err(not_supported(format!("no cipher mode \"{other}\""))),
    }
    Ok(bytes(out))
}

/// XORs `data` with a block keystream, starting `position` bytes into it;
/// `block(i)` is the keystream's block `i`.
fn keystream(data: &mut [u8], position: u64, block: impl Fn(u64) -> [u8; 16]) {
    let mut index = position / 16;
    let mut offset = (position % 16) as usize;
    let mut rest = data;
    while !rest.is_empty() {
        let stream = block(index);
        let n = rest.len().min(16 - offset);
        let (head, tail) = rest.split_at_mut(n);
        head.iter_mut()
            .zip(&stream[offset..])
            .for_each(|(b, k)| *b ^= k);
        rest = tail;
        index += 1;
        offset = 0;
    }
}

/// GCM's hash key H = E(0) and GHASH over `aad` and `text`, each padded,
/// then their bit lengths.
fn ghash_of<A: Aes>(aes: &A, aad: &[u8], text: &[u8]) -> [u8; 16] {
    use ghash::universal_hash::UniversalHash;
    let mut h = [0u8; 16];
    aes.encrypt_block(GenericArray::from_mut_slice(&mut h));
    let mut g = ghash::GHash::new(&h.into());
    g.update_padded(aad);
    g.update_padded(text);
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&((aad.len() as u64) * 8).to_be_bytes());
    lengths[8..].copy_from_slice(&((text.len() as u64) * 8).to_be_bytes());
    g.update(&[lengths.into()]);
    g.finalize().into()
}

/// GCM's pre-counter block J0: the IV and 1 for a 12-byte IV, else GHASH
/// of the IV.
fn gcm_j0<A: Aes>(aes: &A, iv: &[u8]) -> [u8; 16] {
    if iv.len() == 12 {
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(iv);
        j0[15] = 1;
        return j0;
    }
    ghash_of(aes, b"", iv)
}

fn chacha(
    a: &Args,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    aad: &[u8],
    tag: &[u8],
) -> Result<Vec<u8>, String> {
    use chacha20poly1305::aead::{Aead, KeyInit, Payload};
    let cipher = chacha20poly1305::ChaCha20Poly1305::new_from_slice(key)
        .map_err(|_| error("Error", "Invalid key length"))?;
    if iv.len() != 12 {
        return Err(error("Error", "Invalid initialization vector"));
    }
    let nonce = chacha20poly1305::Nonce::from_slice(iv);
    if a.encrypt {
        let mut out = cipher
            .encrypt(nonce, Payload { msg: data, aad })
            .map_err(operation_error)?;
        // The tag, as long as asked (16 by default).
        let keep = out.len() - 16 + a.length.clamp(1, 16);
        out.truncate(keep);
        return Ok(out);
    }
    if tag.len() != 16 {
        return Err(error("Error", "Invalid authentication tag length"));
    }
    let mut sealed = data.to_vec();
    sealed.extend_from_slice(tag);
    cipher
        .decrypt(nonce, Payload { msg: &sealed, aad })
        .map_err(|_| {
            operation_error(
                "Decryption failed: Incorrect key/IV or corrupted ciphertext/authentication tag provided.",
            )
        })
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use crate::artifact::hex;

    fn run(args: Value, parts: &[&[u8]]) -> Result<Reply, String> {
        let mut args = args;
        args["parts"] = json!(parts.iter().map(|p| p.len()).collect::<Vec<_>>());
        super::super::call(&args.to_string(), &parts.concat())
    }

    fn unhex(text: &str) -> Vec<u8> {
        super::unhex(text).unwrap()
    }

    /// One block mode step over `data`, its hex.
    fn step(mode: &str, key: &str, iv: &str, data: &str, position: u64) -> String {
        let args = json!({"op": "nodeCipher", "mode": mode, "encrypt": true, "position": position, "length": 16});
        let out = run(args, &[&unhex(key), &unhex(iv), &unhex(data), b"", b""]).unwrap();
        hex(&out.data)
    }

    fn cipher_modes_match_the_nist_vectors_from_any_position() {
        // NIST SP 800-38A, F.1.1, F.2.1, F.4.1 and F.5.1 (AES-128).
        let key = "2b7e151628aed2a6abf7158809cf4f3c";
        let iv = "000102030405060708090a0b0c0d0e0f";
        let p1 = "6bc1bee22e409f96e93d7e117393172a";
        let p2 = "ae2d8a571e03ac9c9eb76fac45af8e51";
        assert_eq!(
            step("ecb", key, "", p1, 0),
            "3ad77bb40d7a3660a89ecaf32466ef97"
        );
        assert_eq!(
            step("cbc", key, iv, p1, 0),
            "7649abac8119b246cee98e9b12e9197d"
        );
        // OFB: the answer ends with the feedback block the next step takes.
        let ofb = step("ofb", key, iv, &format!("{p1}{p2}"), 16);
        assert_eq!(
            &ofb[..64],
            "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"
        );
        let counter = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
        assert_eq!(
            step("ctr", key, counter, p2, 16),
            "9806f66b7970fdff8617187bb9fffdff"
        );
        // Seven bytes into the second block: the keystream's bytes 23..
        assert_eq!(
            step("ctr", key, counter, &p2[14..], 23),
            "ff8617187bb9fffdff"
        );
        // The GCM specification's test cases 1 and 2 (a zero key and IV).
        let zero = "00000000000000000000000000000000";
        let tag = |text: &str| {
            let args = json!({"op": "nodeCipher", "mode": "gcmTag", "length": 16});
            hex(&run(
                args,
                &[&unhex(zero), &unhex(&zero[..24]), &unhex(text), b"", b""],
            )
            .unwrap()
            .data)
        };
        assert_eq!(tag(""), "58e2fccefa7e3061367f1d57a4e7455a");
        let c = step("gcm", zero, &zero[..24], zero, 0);
        assert_eq!(c, "0388dace60b6a392f328c2b971b2fe78");
        assert_eq!(tag(&c), "ab6e47d42cec13bdf53a67b21257bddf");
    }

    fn node_keys_go_round_every_form_and_bad_input_is_refused_not_panicked_on() {
        let pair = run(
            json!({"op": "nodeGenerateRsa", "modulusLength": 1024, "publicExponent": [1, 0, 1]}),
            &[],
        )
        .unwrap();
        let n = serde_json::from_str::<Value>(&pair.value).unwrap()["parts"][0]
            .as_u64()
            .unwrap() as usize;
        let private = &pair.data[..n];
        let export = |ty: &str, format: &str, cipher: &str| {
            let args = json!({"op": "nodeExport", "kind": "private", "type": ty, "format": format, "cipher": cipher});
            run(args, &[private, b"pass"]).unwrap().data
        };
        let import = |format: &str, ty: &str, input: &[u8], pass: Option<&[u8]>| {
            let args = json!({"op": "nodeImport", "kind": "private", "format": format, "type": ty, "hasPassphrase": pass.is_some()});
            run(args, &[input, pass.unwrap_or_default()])
        };
        for (ty, format, cipher) in [
            ("pkcs8", "pem", ""),
            ("pkcs8", "der", ""),
            ("pkcs1", "pem", ""),
            ("pkcs1", "der", ""),
            ("pkcs8", "pem", "aes-128-cbc"),
            ("pkcs1", "pem", "aes-256-cbc"),
        ] {
            let out = export(ty, format, cipher);
            let pass = (!cipher.is_empty()).then_some(&b"pass"[..]);
            let again = import(format, ty, &out, pass).unwrap();
            assert_eq!(again.data, private, "{ty} {format} {cipher}");
            if pass.is_some() {
                let err = import(format, ty, &out, Some(b"wrong")).unwrap_err();
                assert_eq!(err, format!("DataError: {PRIVATE_FAILED}"));
            }
        }
        // Every cut of a key, and bytes that are no key: an error each.
        let der = export("pkcs8", "der", "");
        let mut noise = 0x2545_f491_4f6c_dd1du64;
        for cut in (0..der.len()).step_by(7) {
            noise ^= noise << 13;
            noise ^= noise >> 7;
            noise ^= noise << 17;
            let mut bad = der[..cut].to_vec();
            bad.extend(noise.to_be_bytes());
            for format in ["der", "pem"] {
                assert!(import(format, "", &bad, None).is_err());
            }
        }
    }

    fn an_encrypted_key_that_asks_for_unbounded_work_is_refused_before_any() {
        use pkcs8::der::Encode;
        use pkcs8::pkcs5::pbes2::Parameters;
        let (salt, iv) = ([1u8; 16], [2u8; 16]);
        let params = Parameters::pbkdf2_sha256_aes256cbc(50_000_000, &salt, &iv).unwrap();
        let info = pkcs8::EncryptedPrivateKeyInfo {
            encryption_algorithm: params.into(),
            encrypted_data: &[0u8; 64],
        };
        let der = info.to_der().unwrap();
        let args = json!({"op": "nodeImport", "kind": "private", "format": "der", "type": "pkcs8", "hasPassphrase": true});
        let err = run(args, &[&der, b"pass"]).unwrap_err();
        assert_eq!(err, format!("DataError: {PRIVATE_FAILED}"));
    }

    crate::unit_tests!(
        cipher_modes_match_the_nist_vectors_from_any_position,
        node_keys_go_round_every_form_and_bad_input_is_refused_not_panicked_on,
        an_encrypted_key_that_asks_for_unbounded_work_is_refused_before_any
    );
}
