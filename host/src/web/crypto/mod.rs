//! Web Crypto's `crypto.subtle`, done by the host (`calls::CRYPTO`) with the
//! RustCrypto crates, so that both engines run the same audited code and
//! neither interprets a cipher in JavaScript.
//!
//! The prelude does what the Web Crypto spec asks of the caller's side:
//! normalizing algorithms, usages, `extractable`, JWK `alg`/`use`/`ext`
//! checks, and the `CryptoKey` objects. It asks the host only for the
//! arithmetic. The host keeps no state: a key travels with each call as its
//! canonical material, which is what [`import`] returns:
//! - a secret key (HMAC, KMAC, AES, ChaCha20-Poly1305, PBKDF2, HKDF): its
//!   raw bytes;
//! - a private key (ECDSA, ECDH, Ed25519, Ed448, X25519, X448, RSA): PKCS #8
//!   DER;
//! - a public key: SubjectPublicKeyInfo DER.
//!
//! Invariants:
//! - Every call is pure but for `generate`, the randomized signatures
//!   (ECDSA, RSA-PSS) and RSA-OAEP's encryption, which draw from the
//!   operating system's generator.
//! - A failure is `"<DOMException name>: <message>"`, the name being the
//!   one the spec gives (`DataError` for bad key material, `OperationError`
//!   for a failed decryption, `NotSupportedError` for an algorithm or
//!   parameter outside the list in `docs/compatibility.md`); the prelude
//!   rejects with that `DOMException`. Nothing here panics on input.
//! - Bounded: one call's work is bounded by its input, except PBKDF2's
//!   iterations and RSA's key generation, which are capped
//!   ([`MAX_ITERATIONS`], [`RSA_BITS`]).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use contract::Reply;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The most PBKDF2 iterations one call runs: a render's CPU is shared, and
/// OWASP's 2023 advice for PBKDF2-HMAC-SHA256 is 600,000.
pub const MAX_ITERATIONS: u32 = 1_000_000;

/// The RSA modulus sizes `generateKey` makes (larger keys take seconds).
pub const RSA_BITS: [usize; 3] = [1024, 2048, 3072];

/// One call, as the prelude sends it: `op` and what it needs; the byte
/// arguments come concatenated in the call's data, `parts` giving their
/// lengths.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Args {
    op: String,
    /// The normalized algorithm name (`HMAC`, `AES-GCM`, `ECDSA`...).
    alg: String,
    /// The hash's name, where the algorithm takes one (`SHA-256`).
    hash: String,
    /// An EC key's `namedCurve`.
    curve: String,
    /// `raw`, `pkcs8`, `spki` or `jwk`, for `import` and `export`.
    format: String,
    /// The given key's type: `secret`, `private` or `public`.
    kind: String,
    parts: Vec<usize>,
    /// The key to import, for `format: "jwk"`.
    jwk: Option<Map<String, Value>>,
    salt_length: usize,
    tag_length: Option<usize>,
    iterations: u32,
    /// Bits: of a derived output, of a generated secret key, or of
    /// AES-CTR's counter.
    length: usize,
    /// The bits of an agreed secret wanted, where given (`agree`).
    bits: Option<usize>,
    modulus_length: usize,
    public_exponent: Vec<u8>,
}

fn error(name: &str, message: impl std::fmt::Display) -> String {
    format!("{name}: {message}")
}
fn data_error(message: impl std::fmt::Display) -> String {
    error("DataError", message)
}
fn operation_error(message: impl std::fmt::Display) -> String {
    error("OperationError", message)
}
fn not_supported(message: impl std::fmt::Display) -> String {
    error("NotSupportedError", message)
}

fn bytes(data: Vec<u8>) -> Reply {
    Reply {
        value: String::new(),
        data,
    }
}

fn value(v: Value) -> Reply {
    Reply {
        value: v.to_string(),
        data: Vec::new(),
    }
}

/// Runs one `crypto` call (see [`Args`]).
pub fn call(args: &str, data: &[u8]) -> Result<Reply, String> {
    let a: Args =
        serde_json::from_str(args).map_err(|e| format!("crypto: bad arguments {args:?}: {e}"))?;
    let parts = split(data, &a.parts)?;
    let part = |i: usize| parts.get(i).copied().unwrap_or_default();
    match a.op.as_str() {
        "digest" if a.hash.starts_with("cSHAKE") => {
            Ok(bytes(cshake(&a.hash, a.length, part(0), part(1), part(2))?))
        }
        "digest" => Ok(bytes(digest(&a.hash, part(0))?)),
        "sign" => Ok(bytes(sign(&a, part(0), part(1), part(2))?)),
        "verify" => Ok(value(Value::Bool(verify(
            &a,
            part(0),
            part(1),
            part(2),
            part(3),
        )?))),
        "encrypt" => Ok(bytes(cipher(&a, true, part(0), part(1), part(2), part(3))?)),
        "decrypt" => Ok(bytes(cipher(
            &a,
            false,
            part(0),
            part(1),
            part(2),
            part(3),
        )?)),
        "derive" => Ok(bytes(derive(&a, part(0), part(1), part(2))?)),
        "agree" => Ok(bytes(agree(&a, part(0), part(1))?)),
        "import" => import(&a, part(0)).map_err(|e| {
            let what = format!("the {} key data is not a valid {} key: ", a.format, a.alg);
            e.replacen("DataError: ", &format!("DataError: {what}"), 1)
        }),
        "export" => export(&a, part(0)),
        "public" => Ok(bytes(public_of(&a, part(0))?)),
        "encapsulate" => Ok(bytes(mlkem::encapsulate(&a.alg, part(0))?)),
        "decapsulate" => Ok(bytes(mlkem::decapsulate(&a.alg, part(0), part(1))?)),
        "generate" => generate(&a),
        op => Err(format!("crypto: no operation \"{op}\"")),
    }
}

/// `data` cut into the lengths `parts` gives, which must add up to it.
fn split<'a>(data: &'a [u8], parts: &[usize]) -> Result<Vec<&'a [u8]>, String> {
    let total = parts.iter().try_fold(0usize, |sum, n| sum.checked_add(*n));
    if total != Some(data.len()) {
        return Err(format!(
            "crypto: the parts {parts:?} do not add up to the {} bytes given",
            data.len()
        ));
    }
    let mut rest = data;
    Ok(parts
        .iter()
        .map(|n| {
            let (head, tail) = rest.split_at(*n);
            rest = tail;
            head
        })
        .collect())
}

/// Runs `$body` with `$m` the module of the NIST curve `$curve` names.
macro_rules! with_curve {
    ($curve:expr, $m:ident => $body:expr) => {
        match $curve {
            "P-256" => {
                use ec256 as $m;
                $body
            }
            "P-384" => {
                use ec384 as $m;
                $body
            }
            "P-521" => {
                use ec521 as $m;
                $body
            }
            other => Err(unknown_curve(other)),
        }
    };
}

/// Runs `$body` with `$h` the hash type named by `$name`.
macro_rules! with_hash {
    ($name:expr, $h:ident => $body:expr) => {
        match $name {
            "SHA-1" => {
                type $h = sha1::Sha1;
                $body
            }
            "SHA-256" => {
                type $h = sha2::Sha256;
                $body
            }
            "SHA-384" => {
                type $h = sha2::Sha384;
                $body
            }
            "SHA-512" => {
                type $h = sha2::Sha512;
                $body
            }
            other => Err(not_supported(format!(
                "the hash \"{other}\" is not supported (SHA-1, SHA-256, SHA-384 or SHA-512)"
            ))),
        }
    };
}

/// `MD5` is for `node:crypto`'s `createHash` and `createHmac` alone: the
/// prelude's `crypto.subtle` names only the SHA hashes (its `HASHES`).
fn digest(hash: &str, data: &[u8]) -> Result<Vec<u8>, String> {
    use sha2::Digest;
    match hash {
        "MD5" => Ok(md5::Md5::digest(data).to_vec()),
        "SHA3-256" => Ok(sha3::Sha3_256::digest(data).to_vec()),
        "SHA3-384" => Ok(sha3::Sha3_384::digest(data).to_vec()),
        "SHA3-512" => Ok(sha3::Sha3_512::digest(data).to_vec()),
        _ => with_hash!(hash, H => Ok(H::digest(data).to_vec())),
    }
}

/// cSHAKE128 or cSHAKE256 (NIST SP 800-185): `bits` of output (a whole
/// number of bytes) of `data`, with the function name and customization.
fn cshake(
    name: &str,
    bits: usize,
    data: &[u8],
    function: &[u8],
    custom: &[u8],
) -> Result<Vec<u8>, String> {
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    if !bits.is_multiple_of(8) {
        return Err(operation_error(format!(
            "{name}'s length is a whole number of bytes, not {bits} bits"
        )));
    }
    let mut out = vec![0; bits / 8];
    macro_rules! run {
        ($core:ty, $xof:ty) => {{
            let mut x = <$xof>::from_core(<$core>::new_with_function_name(function, custom));
            x.update(data);
            x.finalize_xof().read(&mut out);
        }};
    }
    match name {
        "cSHAKE128" => run!(sha3::CShake128Core, sha3::CShake128),
        "cSHAKE256" => run!(sha3::CShake256Core, sha3::CShake256),
        other => return Err(not_supported(format!("the hash \"{other}\""))),
    }
    Ok(out)
}

/// KMAC128 or KMAC256 (NIST SP 800-185, section 4): cSHAKE of the key
/// padded to the rate, the data and the output's length, named "KMAC".
fn kmac(
    name: &str,
    key: &[u8],
    data: &[u8],
    custom: &[u8],
    bits: usize,
) -> Result<Vec<u8>, String> {
    if bits == 0 || !bits.is_multiple_of(8) {
        return Err(operation_error(format!(
            "{name}'s length is a whole, non-zero number of bytes, not {bits} bits"
        )));
    }
    let (hash, rate) = match name {
        "KMAC128" => ("cSHAKE128", 168),
        "KMAC256" => ("cSHAKE256", 136),
        other => return Err(not_supported(format!("{other} is not KMAC"))),
    };
    // left_encode and right_encode: an integer's big-endian bytes (at least
    // one) with their count before or after them.
    let bytes_of = |n: usize| {
        let b = n.to_be_bytes();
        let skip = b.iter().take_while(|x| **x == 0).count().min(b.len() - 1);
        b[skip..].to_vec()
    };
    let left = |n: usize| [vec![bytes_of(n).len() as u8], bytes_of(n)].concat();
    let mut input = left(rate);
    input.extend(left(key.len() * 8));
    input.extend_from_slice(key);
    input.resize(input.len().div_ceil(rate) * rate, 0);
    input.extend_from_slice(data);
    // right_encode(bits): the length's bytes, then their count.
    let length = bytes_of(bits);
    let count = length.len() as u8;
    input.extend(length);
    input.push(count);
    cshake(hash, bits, &input, b"KMAC", custom)
}

fn hmac(hash: &str, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    use hmac::Mac;
    if hash == "MD5" {
        let mut mac = hmac::Hmac::<md5::Md5>::new_from_slice(key).map_err(data_error)?;
        mac.update(data);
        return Ok(mac.finalize().into_bytes().to_vec());
    }
    with_hash!(hash, H => {
        let mut mac = hmac::Hmac::<H>::new_from_slice(key).map_err(data_error)?;
        mac.update(data);
        Ok(mac.finalize().into_bytes().to_vec())
    })
}

/// `extra` is Ed448's context or KMAC's customization.
fn sign(a: &Args, key: &[u8], data: &[u8], extra: &[u8]) -> Result<Vec<u8>, String> {
    match a.alg.as_str() {
        "HMAC" => hmac(&a.hash, key, data),
        "KMAC128" | "KMAC256" => kmac(&a.alg, key, data, extra, a.length),
        "Ed448" => {
            let secret = okp::ED448.private(key)?;
            let signature = okp::ed448_signing(&secret)
                .sign_ctx(extra, data)
                .map_err(|e| operation_error(format!("Ed448 cannot sign: {e}")))?;
            Ok(signature.to_bytes().to_vec())
        }
        "Ed25519" => {
            use ed25519_dalek::Signer;
            use ed25519_dalek::pkcs8::DecodePrivateKey;
            let key = ed25519_dalek::SigningKey::from_pkcs8_der(key).map_err(data_error)?;
            Ok(key.sign(data).to_bytes().to_vec())
        }
        "ECDSA" => with_curve!(a.curve.as_str(), ec => ec::sign(key, &digest(&a.hash, data)?)),
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => rsa_sign(a, key, data),
        other => Err(not_supported(format!("{other} cannot sign"))),
    }
}

fn verify(
    a: &Args,
    key: &[u8],
    signature: &[u8],
    data: &[u8],
    extra: &[u8],
) -> Result<bool, String> {
    // A MAC is checked by making it again, compared in constant time.
    let same = |mac: Vec<u8>| {
        use subtle::ConstantTimeEq;
        mac.len() == signature.len() && bool::from(mac.ct_eq(signature))
    };
    match a.alg.as_str() {
        "HMAC" => Ok(same(hmac(&a.hash, key, data)?)),
        "KMAC128" | "KMAC256" => Ok(same(kmac(&a.alg, key, data, extra, a.length)?)),
        "Ed448" => {
            let public = okp::ED448.public(key)?;
            let key = okp::ed448_verifying(&public)
                .ok_or_else(|| data_error("not an Ed448 public key"))?;
            if extra.len() > 255 {
                return Err(operation_error("Ed448's context is at most 255 bytes"));
            }
            let Ok(signature) = ed448_goldilocks::Signature::from_slice(signature) else {
                return Ok(false);
            };
            Ok(key.verify_ctx(&signature, extra, data).is_ok())
        }
        "Ed25519" => {
            use ed25519_dalek::pkcs8::DecodePublicKey;
            let key = ed25519_dalek::VerifyingKey::from_public_key_der(key).map_err(data_error)?;
            let Ok(signature) = ed25519_dalek::Signature::from_slice(signature) else {
                return Ok(false);
            };
            Ok(key.verify_strict(data, &signature).is_ok())
        }
        "ECDSA" => {
            with_curve!(a.curve.as_str(), ec => ec::verify(key, &digest(&a.hash, data)?, signature))
        }
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => rsa_verify(a, key, signature, data),
        other => Err(not_supported(format!("{other} cannot verify"))),
    }
}

fn unknown_curve(curve: &str) -> String {
    not_supported(format!(
        "the curve \"{curve}\" is not supported (P-256, P-384 or P-521)"
    ))
}

/// One NIST curve's ECDSA, ECDH and key formats; the curves differ only in
/// their crate and field size.
macro_rules! ec_curve {
    ($module:ident, $krate:ident, $name:literal, $field:literal) => {
        mod $module {
            use super::{Reply, data_error, operation_error};
            use $krate::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
            use $krate::ecdsa::{Signature, SigningKey, VerifyingKey};
            use $krate::elliptic_curve::sec1::ToEncodedPoint;
            use $krate::pkcs8::{
                DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey,
            };
            use $krate::{PublicKey, SecretKey};

            fn private(der: &[u8]) -> Result<SecretKey, String> {
                SecretKey::from_pkcs8_der(der).map_err(data_error)
            }
            fn public(der: &[u8]) -> Result<PublicKey, String> {
                PublicKey::from_public_key_der(der).map_err(data_error)
            }
            /// A hash shorter than the field, as its integer: ECDSA takes
            /// the hash's leftmost bits, and the crate refuses one shorter
            /// than half the field (SHA-1 on P-384, SHA-256 on P-521).
            fn field(prehash: &[u8]) -> Vec<u8> {
                let mut out = vec![0; $field - prehash.len().min($field)];
                out.extend_from_slice(prehash);
                out
            }

            pub fn sign(der: &[u8], prehash: &[u8]) -> Result<Vec<u8>, String> {
                let key = SigningKey::from_bytes(&private(der)?.to_bytes()).map_err(data_error)?;
                let signature: Signature =
                    key.sign_prehash(&field(prehash)).map_err(operation_error)?;
                Ok(signature.to_bytes().to_vec())
            }

            pub fn verify(der: &[u8], prehash: &[u8], signature: &[u8]) -> Result<bool, String> {
                let key =
                    VerifyingKey::from_affine(*public(der)?.as_affine()).map_err(data_error)?;
                let Ok(signature) = Signature::from_slice(signature) else {
                    return Ok(false);
                };
                Ok(key.verify_prehash(&field(prehash), &signature).is_ok())
            }

            /// ECDH: the shared point's x coordinate.
            pub fn agree(private_der: &[u8], public_der: &[u8]) -> Result<Vec<u8>, String> {
                let secret = private(private_der)?;
                let shared = $krate::ecdh::diffie_hellman(
                    secret.to_nonzero_scalar(),
                    public(public_der)?.as_affine(),
                );
                Ok(shared.raw_secret_bytes().to_vec())
            }

            /// The SPKI of a private key's public half.
            pub fn public_of(der: &[u8]) -> Result<Vec<u8>, String> {
                let key = private(der)?.public_key();
                Ok(key.to_public_key_der().map_err(data_error)?.into_vec())
            }

            /// `(kind, canonical DER)` from `raw` (a public point), `spki`,
            /// `pkcs8` or a JWK.
            pub fn import(
                format: &str,
                input: &[u8],
                jwk: Option<&str>,
            ) -> Result<(&'static str, Vec<u8>), String> {
                let private_der = |k: SecretKey| k.to_pkcs8_der().map(|d| d.as_bytes().to_vec());
                let public_der = |k: PublicKey| k.to_public_key_der().map(|d| d.into_vec());
                match (format, jwk) {
                    ("raw", _) => PublicKey::from_sec1_bytes(input)
                        .map_err(|_| data_error(concat!("not a ", $name, " point")))
                        .and_then(|k| public_der(k).map_err(data_error))
                        .map(|d| ("public", d)),
                    ("spki", _) => public_der(public(input)?)
                        .map_err(data_error)
                        .map(|d| ("public", d)),
                    ("pkcs8", _) => private_der(private(input)?)
                        .map_err(data_error)
                        .map(|d| ("private", d)),
                    ("jwk", Some(text)) if text.contains("\"d\"") => SecretKey::from_jwk_str(text)
                        .map_err(|_| data_error(concat!("not a ", $name, " private JWK")))
                        .and_then(|k| private_der(k).map_err(data_error))
                        .map(|d| ("private", d)),
                    ("jwk", Some(text)) => PublicKey::from_jwk_str(text)
                        .map_err(|_| data_error(concat!("not a ", $name, " public JWK")))
                        .and_then(|k| public_der(k).map_err(data_error))
                        .map(|d| ("public", d)),
                    (other, _) => Err(super::bad_format(other)),
                }
            }

            pub fn export(kind: &str, format: &str, der: &[u8]) -> Result<Reply, String> {
                let jwk = |text: &str| Reply {
                    value: text.to_string(),
                    data: Vec::new(),
                };
                match (kind, format) {
                    ("public", "raw") => Ok(super::bytes(
                        public(der)?.to_encoded_point(false).as_bytes().to_vec(),
                    )),
                    ("public", "spki") | ("private", "pkcs8") => Ok(super::bytes(der.to_vec())),
                    ("public", "jwk") => Ok(jwk(&public(der)?.to_jwk_string())),
                    ("private", "jwk") => Ok(jwk(&private(der)?.to_jwk_string())),
                    _ => Err(super::bad_export(kind, format)),
                }
            }

            /// A new pair: (PKCS #8, SPKI).
            pub fn generate() -> Result<(Vec<u8>, Vec<u8>), String> {
                let key = SecretKey::random(&mut rand_core::OsRng);
                let public = key
                    .public_key()
                    .to_public_key_der()
                    .map_err(operation_error)?;
                let private = key.to_pkcs8_der().map_err(operation_error)?;
                Ok((private.as_bytes().to_vec(), public.into_vec()))
            }
        }
    };
}

ec_curve!(ec256, p256, "P-256", 32);
ec_curve!(ec384, p384, "P-384", 48);
ec_curve!(ec521, p521, "P-521", 66);

/// The keys that are plain byte strings in the PKCS #8 and SPKI forms of
/// RFC 8410 (OIDs 1.3.101.110, .111 and .113): X25519 by curve25519-dalek's
/// Montgomery arithmetic, X448 by the `x448` crate, Ed448 by
/// `ed448-goldilocks`. The DER is made here because no crate in the tree
/// writes all three. (Ed25519 keeps ed25519-dalek's own PKCS #8.)
mod okp {
    use super::{B64, Map, Reply, Value, bad_export, bad_format, data_error, json};
    use base64::Engine as _;
    use rsa::pkcs8::der::{Decode, asn1::OctetStringRef};
    use rsa::pkcs8::{PrivateKeyInfo, spki::SubjectPublicKeyInfoRef};

    /// Diffie-Hellman: the shared secret of a secret and a public key.
    type Agree = fn(&[u8], &[u8]) -> Vec<u8>;

    /// One curve: its Web Crypto name, its OID's last arc, its keys' length
    /// in bytes and how a public key follows from a private one.
    pub struct Curve {
        pub name: &'static str,
        arc: u8,
        len: usize,
        pub public_of: fn(&[u8]) -> Vec<u8>,
        /// Whether bytes are a public key (a point that decodes, for Ed448).
        valid: fn(&[u8]) -> bool,
        /// The shared secret of a secret and a public key (X25519, X448).
        shared: Option<Agree>,
    }

    pub const X25519: Curve = Curve {
        name: "X25519",
        arc: 110,
        len: 32,
        public_of: |secret| {
            let secret = <[u8; 32]>::try_from(secret).unwrap_or_default();
            curve25519_dalek::montgomery::MontgomeryPoint::mul_base_clamped(secret)
                .to_bytes()
                .to_vec()
        },
        valid: |_| true,
        shared: Some(|secret, public| {
            let point = <[u8; 32]>::try_from(public).unwrap_or_default();
            let secret = <[u8; 32]>::try_from(secret).unwrap_or_default();
            curve25519_dalek::montgomery::MontgomeryPoint(point)
                .mul_clamped(secret)
                .to_bytes()
                .to_vec()
        }),
    };
    pub const X448: Curve = Curve {
        name: "X448",
        arc: 111,
        len: 56,
        public_of: |secret| {
            let secret = <[u8; 56]>::try_from(secret).unwrap_or([0; 56]);
            x448::x448_unchecked(secret, x448::X448_BASEPOINT_BYTES).to_vec()
        },
        valid: |_| true,
        shared: Some(|secret, public| {
            x448::x448_unchecked(
                <[u8; 56]>::try_from(secret).unwrap_or([0; 56]),
                <[u8; 56]>::try_from(public).unwrap_or([0; 56]),
            )
            .to_vec()
        }),
    };
    pub const ED448: Curve = Curve {
        name: "Ed448",
        arc: 113,
        len: 57,
        public_of: |secret| ed448_signing(secret).verifying_key().to_bytes().to_vec(),
        valid: |public| ed448_verifying(public).is_some(),
        shared: None,
    };

    pub fn ed448_signing(secret: &[u8]) -> ed448_goldilocks::SigningKey {
        let secret = <[u8; 57]>::try_from(secret).unwrap_or([0; 57]);
        ed448_goldilocks::SigningKey::from(&ed448_goldilocks::SecretKey::from(secret))
    }
    pub fn ed448_verifying(public: &[u8]) -> Option<ed448_goldilocks::VerifyingKey> {
        let public = <[u8; 57]>::try_from(public).ok()?;
        ed448_goldilocks::VerifyingKey::from_bytes(&public).ok()
    }

    impl Curve {
        fn bytes(&self, b: &[u8], what: &str) -> Result<Vec<u8>, String> {
            if b.len() != self.len || (what == "public key" && !(self.valid)(b)) {
                return Err(data_error(format!(
                    "not an {} {what} ({} bytes)",
                    self.name, self.len
                )));
            }
            Ok(b.to_vec())
        }
        fn oid_is_mine(&self, oid: &[u8]) -> Result<(), String> {
            if oid != [0x2b, 0x65, self.arc] {
                return Err(data_error(format!(
                    "not an {} key (its OID is not 1.3.101.{})",
                    self.name, self.arc
                )));
            }
            Ok(())
        }
        /// The DER of the curve's AlgorithmIdentifier (its OID, no parameters).
        fn algorithm(&self) -> [u8; 7] {
            [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, self.arc]
        }
        pub fn spki(&self, public: &[u8]) -> Vec<u8> {
            let n = self.len as u8;
            [
                &[0x30, n + 10],
                &self.algorithm()[..],
                &[0x03, n + 1, 0x00],
                public,
            ]
            .concat()
        }
        fn pkcs8(&self, secret: &[u8]) -> Vec<u8> {
            let n = self.len as u8;
            let version = [0x30, n + 14, 0x02, 0x01, 0x00];
            [
                &version[..],
                &self.algorithm(),
                &[0x04, n + 2, 0x04, n],
                secret,
            ]
            .concat()
        }
        /// The public key of a canonical SPKI.
        pub fn public(&self, der: &[u8]) -> Result<Vec<u8>, String> {
            let info = SubjectPublicKeyInfoRef::from_der(der).map_err(data_error)?;
            self.oid_is_mine(info.algorithm.oid.as_bytes())?;
            self.bytes(info.subject_public_key.raw_bytes(), "public key")
        }
        /// The secret's bytes of a PKCS #8 key.
        pub fn private(&self, der: &[u8]) -> Result<Vec<u8>, String> {
            let info = PrivateKeyInfo::from_der(der).map_err(data_error)?;
            self.oid_is_mine(info.algorithm.oid.as_bytes())?;
            let inner = OctetStringRef::from_der(info.private_key).map_err(data_error)?;
            self.bytes(inner.as_bytes(), "private key")
        }

        pub fn import(
            &self,
            format: &str,
            input: &[u8],
            jwk: Option<&Map<String, Value>>,
        ) -> Result<(&'static str, Vec<u8>), String> {
            match (format, jwk) {
                ("raw", _) => Ok(("public", self.spki(&self.bytes(input, "public key")?))),
                ("spki", _) => Ok(("public", self.spki(&self.public(input)?))),
                ("pkcs8", _) => Ok(("private", self.pkcs8(&self.private(input)?))),
                ("jwk", Some(j)) => {
                    if j.get("kty").and_then(Value::as_str) != Some("OKP")
                        || j.get("crv").and_then(Value::as_str) != Some(self.name)
                    {
                        return Err(data_error(format!(
                            "an {} JWK has kty \"OKP\" and crv \"{}\"",
                            self.name, self.name
                        )));
                    }
                    let x = self.bytes(&super::jwk_bytes(j, "x")?, "public key")?;
                    if !j.contains_key("d") {
                        return Ok(("public", self.spki(&x)));
                    }
                    let d = self.bytes(&super::jwk_bytes(j, "d")?, "private key")?;
                    if (self.public_of)(&d) != x {
                        return Err(data_error(
                            "the JWK's \"x\" is not the public half of its \"d\"",
                        ));
                    }
                    Ok(("private", self.pkcs8(&d)))
                }
                (other, _) => Err(bad_format(other)),
            }
        }

        pub fn export(&self, kind: &str, format: &str, der: &[u8]) -> Result<Reply, String> {
            match (kind, format) {
                ("public", "spki") | ("private", "pkcs8") => Ok(super::bytes(der.to_vec())),
                ("public", "raw") => Ok(super::bytes(self.public(der)?)),
                ("public", "jwk") => Ok(super::value(
                    json!({"kty": "OKP", "crv": self.name, "x": B64.encode(self.public(der)?)}),
                )),
                ("private", "jwk") => {
                    let d = self.private(der)?;
                    Ok(super::value(json!({
                        "kty": "OKP", "crv": self.name,
                        "x": B64.encode((self.public_of)(&d)), "d": B64.encode(&d),
                    })))
                }
                _ => Err(bad_export(kind, format)),
            }
        }

        /// A new pair: (PKCS #8, SPKI).
        pub fn generate(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
            let mut secret = vec![0; self.len];
            getrandom::fill(&mut secret).map_err(super::operation_error)?;
            Ok((self.pkcs8(&secret), self.spki(&(self.public_of)(&secret))))
        }

        /// The X25519 or X448 shared secret; all zeros (a public key of small
        /// order) is refused, as the spec asks.
        pub fn agree(&self, private_der: &[u8], public_der: &[u8]) -> Result<Vec<u8>, String> {
            let Some(agree) = self.shared else {
                return Err(super::not_supported(format!(
                    "{} cannot agree on a secret",
                    self.name
                )));
            };
            let shared = agree(&self.private(private_der)?, &self.public(public_der)?);
            if shared.iter().all(|b| *b == 0) {
                return Err(super::operation_error(
                    "the public key is of small order: the shared secret would be zero",
                ));
            }
            Ok(shared)
        }
    }

    /// The curve `alg` names.
    pub fn curve(alg: &str) -> Result<&'static Curve, String> {
        [&X25519, &X448, &ED448]
            .into_iter()
            .find(|c| c.name == alg)
            .ok_or_else(|| super::not_supported(format!("{alg} is not a curve of RFC 8410")))
    }
}

/// ML-KEM (FIPS 203) by RustCrypto's `ml-kem`: a private key is its 64-byte
/// seed, in the seed-only PKCS #8 of the IETF's ML-KEM certificates draft
/// (`[0] IMPLICIT OCTET STRING`); a public key is its encapsulation key in
/// an SPKI. OIDs 2.16.840.1.101.3.4.4.1, .2 and .3.
mod mlkem {
    use super::{Reply, bad_export, bad_format, data_error, operation_error};
    use ml_kem::{Decapsulate, DecapsulationKey, Encapsulate, EncapsulationKey, KeyExport};
    use rsa::pkcs8::der::{Decode, Encode, asn1::BitStringRef};
    use rsa::pkcs8::spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
    use rsa::pkcs8::{ObjectIdentifier, PrivateKeyInfo};

    /// Runs `$body` with `$p` the parameter set `$alg` names.
    macro_rules! with_params {
        ($alg:expr, $p:ident => $body:expr) => {
            match $alg {
                "ML-KEM-512" => {
                    type $p = ml_kem::MlKem512;
                    $body
                }
                "ML-KEM-768" => {
                    type $p = ml_kem::MlKem768;
                    $body
                }
                "ML-KEM-1024" => {
                    type $p = ml_kem::MlKem1024;
                    $body
                }
                other => Err(super::not_supported(format!("{other} is not ML-KEM"))),
            }
        };
    }

    fn oid(alg: &str) -> ObjectIdentifier {
        match alg {
            "ML-KEM-512" => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.1"),
            "ML-KEM-768" => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.2"),
            _ => ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.4.3"),
        }
    }
    fn identifier(alg: &str) -> AlgorithmIdentifierRef<'static> {
        AlgorithmIdentifierRef {
            oid: oid(alg),
            parameters: None,
        }
    }

    /// Whether a key's algorithm is `alg`'s OID, without parameters.
    fn mine(alg: &str, algorithm: &AlgorithmIdentifierRef<'_>) -> Result<(), String> {
        if algorithm.oid != oid(alg) || algorithm.parameters.is_some() {
            return Err(data_error(format!(
                "not an {alg} key (its OID is not {})",
                oid(alg)
            )));
        }
        Ok(())
    }

    /// An encapsulation key checked (FIPS 203's modulus check), as an SPKI.
    fn spki(alg: &str, key: &[u8]) -> Result<Vec<u8>, String> {
        with_params!(alg, P => {
            let array = key.try_into().map_err(|_| data_error(format!("an {alg} public key is not {} bytes", key.len())))?;
            EncapsulationKey::<P>::new(array)
                .map(|_| ())
                .map_err(|_| data_error(format!("not an {alg} public key")))
        })?;
        let info = SubjectPublicKeyInfoRef {
            algorithm: identifier(alg),
            subject_public_key: BitStringRef::from_bytes(key).map_err(data_error)?,
        };
        info.to_der().map_err(data_error)
    }
    fn pkcs8(alg: &str, seed: &[u8]) -> Result<Vec<u8>, String> {
        if seed.len() != 64 {
            return Err(data_error(format!(
                "an {alg} seed is 64 bytes, not {}",
                seed.len()
            )));
        }
        let inner = [&[0x80, 0x40][..], seed].concat();
        PrivateKeyInfo::new(identifier(alg), &inner)
            .to_der()
            .map_err(data_error)
    }
    fn public(alg: &str, der: &[u8]) -> Result<Vec<u8>, String> {
        let info = SubjectPublicKeyInfoRef::from_der(der).map_err(data_error)?;
        mine(alg, &info.algorithm)?;
        Ok(info.subject_public_key.raw_bytes().to_vec())
    }
    /// The seed of a PKCS #8 key in the seed-only form.
    fn seed(alg: &str, der: &[u8]) -> Result<Vec<u8>, String> {
        let info = PrivateKeyInfo::from_der(der).map_err(data_error)?;
        mine(alg, &info.algorithm)?;
        match info.private_key {
            [0x80, 0x40, seed @ ..] if seed.len() == 64 => Ok(seed.to_vec()),
            _ => Err(data_error(format!(
                "an {alg} private key here is its 64-byte seed (the seed-only PKCS #8 form)"
            ))),
        }
    }
    /// The encapsulation key of a seed.
    fn public_of_seed(alg: &str, seed: &[u8]) -> Result<Vec<u8>, String> {
        let seed = ml_kem::Seed::try_from(seed).map_err(|_| data_error("a seed is 64 bytes"))?;
        with_params!(alg, P => Ok(DecapsulationKey::<P>::from_seed(seed).encapsulation_key().to_bytes().to_vec()))
    }

    pub fn import(
        alg: &str,
        format: &str,
        input: &[u8],
    ) -> Result<(&'static str, Vec<u8>), String> {
        match format {
            "raw" => Ok(("public", spki(alg, input)?)),
            "spki" => Ok(("public", spki(alg, &public(alg, input)?)?)),
            "raw-seed" => Ok(("private", pkcs8(alg, input)?)),
            "pkcs8" => Ok(("private", pkcs8(alg, &seed(alg, input)?)?)),
            other => Err(bad_format(other)),
        }
    }

    pub fn export(alg: &str, kind: &str, format: &str, der: &[u8]) -> Result<Reply, String> {
        match (kind, format) {
            ("public", "spki") | ("private", "pkcs8") => Ok(super::bytes(der.to_vec())),
            ("public", "raw") => Ok(super::bytes(public(alg, der)?)),
            ("private", "raw-seed") => Ok(super::bytes(seed(alg, der)?)),
            _ => Err(bad_export(kind, format)),
        }
    }

    /// A new pair: (PKCS #8, SPKI).
    pub fn generate(alg: &str) -> Result<(Vec<u8>, Vec<u8>), String> {
        let mut seed = [0; 64];
        getrandom::fill(&mut seed).map_err(operation_error)?;
        Ok((pkcs8(alg, &seed)?, spki(alg, &public_of_seed(alg, &seed)?)?))
    }

    /// The SPKI of a private key's public half.
    pub fn public_of(alg: &str, der: &[u8]) -> Result<Vec<u8>, String> {
        spki(alg, &public_of_seed(alg, &seed(alg, der)?)?)
    }

    /// A new shared key and its ciphertext, one after the other.
    pub fn encapsulate(alg: &str, public_der: &[u8]) -> Result<Vec<u8>, String> {
        let key = public(alg, public_der)?;
        with_params!(alg, P => {
            let array = key.as_slice().try_into().map_err(|_| data_error(format!("not an {alg} public key")))?;
            let key = EncapsulationKey::<P>::new(array).map_err(|_| data_error(format!("not an {alg} public key")))?;
            let (ciphertext, shared) = key.encapsulate();
            Ok([shared.as_slice(), ciphertext.as_slice()].concat())
        })
    }

    /// The shared key a ciphertext holds (a wrong one gives another key, as
    /// ML-KEM's implicit rejection does; a wrong length is refused).
    pub fn decapsulate(
        alg: &str,
        private_der: &[u8],
        ciphertext: &[u8],
    ) -> Result<Vec<u8>, String> {
        let seed = ml_kem::Seed::try_from(seed(alg, private_der)?.as_slice())
            .map_err(|_| data_error("a seed is 64 bytes"))?;
        with_params!(alg, P => {
            let key = DecapsulationKey::<P>::from_seed(seed);
            key.decapsulate_slice(ciphertext)
                .map(|shared| shared.to_vec())
                .map_err(|_| operation_error(format!("not an {alg} ciphertext ({} bytes)", ciphertext.len())))
        })
    }
}

/// getPublicKey: the SPKI of a private key's public half.
fn public_of(a: &Args, der: &[u8]) -> Result<Vec<u8>, String> {
    use rsa::pkcs8::EncodePublicKey;
    match a.alg.as_str() {
        "ECDSA" | "ECDH" => with_curve!(a.curve.as_str(), ec => ec::public_of(der)),
        "Ed25519" => {
            use ed25519_dalek::pkcs8::DecodePrivateKey;
            let key = ed25519_dalek::SigningKey::from_pkcs8_der(der).map_err(data_error)?;
            Ok(key
                .verifying_key()
                .to_public_key_der()
                .map_err(data_error)?
                .into_vec())
        }
        "X25519" | "X448" | "Ed448" => {
            let curve = okp::curve(&a.alg)?;
            Ok(curve.spki(&(curve.public_of)(&curve.private(der)?)))
        }
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" | "RSA-OAEP" => {
            Ok(rsa::RsaPublicKey::from(rsa_private(der)?)
                .to_public_key_der()
                .map_err(data_error)?
                .into_vec())
        }
        alg if alg.starts_with("ML-KEM") => mlkem::public_of(alg, der),
        other => Err(not_supported(format!("{other} has no public key"))),
    }
}

fn bad_format(format: &str) -> String {
    not_supported(format!("the key format \"{format}\" does not apply here"))
}

fn bad_export(kind: &str, format: &str) -> String {
    error(
        "InvalidAccessError",
        format!("a {kind} key cannot be exported as \"{format}\""),
    )
}

fn rsa_private(der: &[u8]) -> Result<rsa::RsaPrivateKey, String> {
    use rsa::pkcs8::DecodePrivateKey;
    rsa::RsaPrivateKey::from_pkcs8_der(der).map_err(data_error)
}

fn rsa_public(der: &[u8]) -> Result<rsa::RsaPublicKey, String> {
    use rsa::pkcs8::DecodePublicKey;
    rsa::RsaPublicKey::from_public_key_der(der).map_err(data_error)
}

fn rsa_sign(a: &Args, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    let key = rsa_private(key)?;
    let hashed = digest(&a.hash, data)?;
    with_hash!(a.hash.as_str(), H => if a.alg == "RSA-PSS" {
        key.sign_with_rng(
            &mut rand_core::OsRng,
            rsa::Pss::new_with_salt::<H>(a.salt_length),
            &hashed,
        )
        .map_err(operation_error)
    } else {
        key.sign(rsa::Pkcs1v15Sign::new::<H>(), &hashed)
            .map_err(operation_error)
    })
}

fn rsa_verify(a: &Args, key: &[u8], signature: &[u8], data: &[u8]) -> Result<bool, String> {
    let key = rsa_public(key)?;
    let hashed = digest(&a.hash, data)?;
    with_hash!(a.hash.as_str(), H => Ok(if a.alg == "RSA-PSS" {
        key.verify(rsa::Pss::new_with_salt::<H>(a.salt_length), &hashed, signature)
            .is_ok()
    } else {
        key.verify(rsa::Pkcs1v15Sign::new::<H>(), &hashed, signature)
            .is_ok()
    }))
}

/// Runs `$body` with `$a` the AES block cipher of `$key`'s length.
macro_rules! with_aes {
    ($key:expr, $a:ident => $body:expr) => {
        match $key.len() {
            16 => {
                type $a = aes::Aes128;
                $body
            }
            24 => {
                type $a = aes::Aes192;
                $body
            }
            32 => {
                type $a = aes::Aes256;
                $body
            }
            n => Err(aes_length(n)),
        }
    };
}

/// The AES modes, ChaCha20-Poly1305 and RSA-OAEP. `iv` is the iv, or
/// AES-CTR's counter block; `aad` is the AEADs' additional data, or
/// RSA-OAEP's label. AES-KW is reached through `wrapKey` and `unwrapKey`.
fn cipher(
    a: &Args,
    encrypt: bool,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    data: &[u8],
) -> Result<Vec<u8>, String> {
    let failed = || {
        operation_error(
            "the data could not be decrypted (wrong key or parameters, or altered data)",
        )
    };
    match a.alg.as_str() {
        "AES-GCM" => {
            use aes::cipher::consts::{U12, U16, U32};
            let tag = a.tag_length.unwrap_or(128);
            if ![32, 64, 96, 104, 112, 120, 128].contains(&tag) {
                return Err(operation_error(format!(
                    "AES-GCM's tagLength is 32, 64, 96, 104, 112, 120 or 128, not {tag}"
                )));
            }
            with_aes!(key, A => match iv.len() {
                12 => gcm::<A, U12>(encrypt, key, iv, aad, data, tag / 8),
                16 => gcm::<A, U16>(encrypt, key, iv, aad, data, tag / 8),
                32 => gcm::<A, U32>(encrypt, key, iv, aad, data, tag / 8),
                n => Err(not_supported(format!(
                    "AES-GCM takes an iv of 12, 16 or 32 bytes here, not {n}"
                ))),
            })
        }
        "AES-CBC" => {
            use aes::cipher::block_padding::Pkcs7;
            use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit};
            if iv.len() != 16 {
                return Err(operation_error(format!(
                    "AES-CBC takes a 16-byte iv, not {} bytes",
                    iv.len()
                )));
            }
            with_aes!(key, A => if encrypt {
                Ok(cbc::Encryptor::<A>::new_from_slices(key, iv)
                    .map_err(data_error)?
                    .encrypt_padded_vec_mut::<Pkcs7>(data))
            } else {
                cbc::Decryptor::<A>::new_from_slices(key, iv)
                    .map_err(data_error)?
                    .decrypt_padded_vec_mut::<Pkcs7>(data)
                    .map_err(|_| failed())
            })
        }
        "AES-CTR" => with_aes!(key, A => ctr::<A>(key, iv, a.length, data)),
        "AES-OCB" => with_aes!(key, A => ocb::<A>(a, encrypt, key, iv, aad, data)),
        "ChaCha20-Poly1305" => {
            use chacha20poly1305::KeyInit;
            if iv.len() != 12 {
                return Err(operation_error(format!(
                    "ChaCha20-Poly1305 takes a 12-byte iv, not {} bytes",
                    iv.len()
                )));
            }
            if a.tag_length.is_some_and(|t| t != 128) {
                return Err(operation_error("ChaCha20-Poly1305's tagLength is 128"));
            }
            let c = chacha20poly1305::ChaCha20Poly1305::new_from_slice(key)
                .map_err(|_| data_error("a ChaCha20-Poly1305 key is 256 bits"))?;
            seal_or_open(&c, encrypt, iv, aad, data)
        }
        "AES-KW" => with_aes!(key, A => {
            let kek = aes_kw::Kek::<A>::try_from(key).map_err(data_error)?;
            if !data.len().is_multiple_of(8) || data.len() < if encrypt { 16 } else { 24 } {
                return Err(operation_error(format!(
                    "AES-KW wraps whole 8-byte blocks, at least 16 bytes, not {} bytes",
                    data.len()
                )));
            }
            if encrypt {
                kek.wrap_vec(data).map_err(operation_error)
            } else {
                kek.unwrap_vec(data).map_err(|_| failed())
            }
        }),
        "RSA-OAEP" => {
            let label = String::from_utf8(aad.to_vec())
                .map_err(|_| not_supported("RSA-OAEP takes a label of UTF-8 text here"))?;
            with_hash!(a.hash.as_str(), H => {
                let padding = rsa::Oaep::new_with_label::<H, _>(&label);
                if encrypt {
                    rsa_public(key)?
                        .encrypt(&mut rand_core::OsRng, padding, data)
                        .map_err(operation_error)
                } else {
                    rsa_private(key)?.decrypt(padding, data).map_err(|_| failed())
                }
            })
        }
        other => Err(not_supported(format!("{other} cannot encrypt or decrypt"))),
    }
}

/// AES-GCM with an `N`-byte iv and a `tag`-byte tag. The crate's tags are
/// 12 to 16 bytes, so the tag is always made whole and cut: GCM's shorter
/// tags are the whole tag's first bytes.
fn gcm<A, N>(
    encrypt: bool,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    data: &[u8],
    tag: usize,
) -> Result<Vec<u8>, String>
where
    A: aes::cipher::BlockCipher
        + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>
        + aes::cipher::BlockEncrypt
        + aes::cipher::KeyInit,
    N: aes::cipher::ArrayLength<u8>,
{
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    use subtle::ConstantTimeEq;
    let c = aes_gcm::AesGcm::<A, N>::new_from_slice(key).map_err(data_error)?;
    let nonce = aes_gcm::Nonce::<N>::from_slice(iv);
    let seal = |buf: &mut Vec<u8>| {
        c.encrypt_in_place_detached(nonce, aad, buf)
            .map_err(|_| operation_error("the data is too long for AES-GCM"))
    };
    let mut out = data.to_vec();
    if encrypt {
        let whole = seal(&mut out)?;
        out.extend_from_slice(&whole[..tag]);
        return Ok(out);
    }
    let failed = || {
        operation_error(
            "the data could not be decrypted (wrong key, iv, additionalData or tagLength, or altered data)",
        )
    };
    let Some(cut) = data.len().checked_sub(tag) else {
        return Err(failed());
    };
    let given = out.split_off(cut);
    if tag == 16 {
        return c
            .decrypt_in_place_detached(nonce, aad, &mut out, aes_gcm::Tag::from_slice(&given))
            .map(|()| out)
            .map_err(|_| failed());
    }
    // A shorter tag: the keystream is its own inverse, so sealing the
    // ciphertext gives the plaintext, and sealing that gives the
    // ciphertext again with its whole tag, to compare.
    seal(&mut out)?;
    let mut again = out.clone();
    let whole = seal(&mut again)?;
    if bool::from(whole[..tag].ct_eq(&given)) {
        Ok(out)
    } else {
        Err(failed())
    }
}

/// AES-OCB (RFC 7253): an iv of 6 to 15 bytes (the crate's range) and the
/// tag the algorithm asks for (64, 96 or 128 bits).
fn ocb<A>(
    a: &Args,
    encrypt: bool,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    data: &[u8],
) -> Result<Vec<u8>, String>
where
    A: aes::cipher::BlockCipher
        + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>
        + aes::cipher::BlockEncrypt
        + aes::cipher::BlockDecrypt
        + aes::cipher::KeyInit,
{
    use aes::cipher::consts::{U6, U7, U8, U9, U10, U11, U12, U13, U14, U15, U16};
    use ocb3::aead::KeyInit;
    let tag = a.tag_length.unwrap_or(128);
    macro_rules! run {
        ($n:ty, $t:ty) => {
            seal_or_open(
                &ocb3::Ocb3::<A, $n, $t>::new_from_slice(key).map_err(data_error)?,
                encrypt,
                iv,
                aad,
                data,
            )
        };
    }
    macro_rules! with_tag {
        ($n:ty) => {
            match tag {
                64 => run!($n, U8),
                96 => run!($n, U12),
                128 => run!($n, U16),
                other => Err(operation_error(format!(
                    "AES-OCB's tagLength is 64, 96 or 128, not {other}"
                ))),
            }
        };
    }
    match iv.len() {
        6 => with_tag!(U6),
        7 => with_tag!(U7),
        8 => with_tag!(U8),
        9 => with_tag!(U9),
        10 => with_tag!(U10),
        11 => with_tag!(U11),
        12 => with_tag!(U12),
        13 => with_tag!(U13),
        14 => with_tag!(U14),
        15 => with_tag!(U15),
        n => Err(operation_error(format!(
            "AES-OCB takes an iv of 6 to 15 bytes here, not {n}"
        ))),
    }
}

/// An AEAD whose ciphertext is followed by its whole tag: sealed, or
/// checked and opened. `iv` is the cipher's nonce size (the caller checks).
fn seal_or_open<C: aes_gcm::aead::AeadInPlace>(
    c: &C,
    encrypt: bool,
    iv: &[u8],
    aad: &[u8],
    data: &[u8],
) -> Result<Vec<u8>, String> {
    use aes::cipher::Unsigned;
    let nonce = aes_gcm::aead::Nonce::<C>::from_slice(iv);
    let mut out = data.to_vec();
    if encrypt {
        let tag = c
            .encrypt_in_place_detached(nonce, aad, &mut out)
            .map_err(|_| operation_error("the data is too long for this cipher"))?;
        out.extend_from_slice(&tag);
        return Ok(out);
    }
    let failed = || {
        operation_error(
            "the data could not be decrypted (wrong key, iv, additionalData or tagLength, or altered data)",
        )
    };
    let cut = data
        .len()
        .checked_sub(C::TagSize::USIZE)
        .ok_or_else(failed)?;
    let given = out.split_off(cut);
    c.decrypt_in_place_detached(
        nonce,
        aad,
        &mut out,
        aes_gcm::aead::Tag::<C>::from_slice(&given),
    )
    .map(|()| out)
    .map_err(|_| failed())
}

/// AES-CTR: the counter block's rightmost `bits` bits count the blocks and
/// wrap; more blocks than they can count would reuse the keystream, which
/// the spec refuses.
fn ctr<A>(key: &[u8], counter: &[u8], bits: usize, data: &[u8]) -> Result<Vec<u8>, String>
where
    A: aes::cipher::BlockEncrypt
        + aes::cipher::KeyInit
        + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>,
{
    let Ok(start) = <[u8; 16]>::try_from(counter) else {
        return Err(operation_error(format!(
            "AES-CTR takes a 16-byte counter, not {} bytes",
            counter.len()
        )));
    };
    if bits == 0 || bits > 128 {
        return Err(operation_error(format!(
            "AES-CTR's length is 1 to 128 bits, not {bits}"
        )));
    }
    let blocks = data.len().div_ceil(16) as u128;
    if bits < 128 && blocks > 1u128 << bits {
        return Err(operation_error(format!(
            "{blocks} blocks would wrap a {bits}-bit counter and repeat the keystream"
        )));
    }
    let cipher = A::new_from_slice(key).map_err(data_error)?;
    let mask = if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    let mut n = u128::from_be_bytes(start);
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks(16) {
        let mut block = aes::Block::from(n.to_be_bytes());
        cipher.encrypt_block(&mut block);
        out.extend(chunk.iter().zip(block.iter()).map(|(d, k)| d ^ k));
        n = (n & !mask) | (n.wrapping_add(1) & mask);
    }
    Ok(out)
}

fn aes_length(bytes: usize) -> String {
    data_error(format!(
        "an AES key is 128, 192 or 256 bits, not {}",
        bytes * 8
    ))
}

/// ECDH and X25519: the shared secret of a private key and another's
/// public key, its first `bits` bits (all of it when `bits` is absent).
fn agree(a: &Args, private: &[u8], public: &[u8]) -> Result<Vec<u8>, String> {
    let mut secret = match a.alg.as_str() {
        "ECDH" => with_curve!(a.curve.as_str(), ec => ec::agree(private, public))?,
        "X25519" | "X448" => okp::curve(&a.alg)?.agree(private, public)?,
        other => return Err(not_supported(format!("{other} cannot agree on a secret"))),
    };
    let Some(bits) = a.bits else {
        return Ok(secret);
    };
    if bits > secret.len() * 8 {
        return Err(operation_error(format!(
            "{} gives {} bits, fewer than the {bits} asked for",
            a.alg,
            secret.len() * 8
        )));
    }
    secret.truncate(bits.div_ceil(8));
    if bits % 8 != 0 {
        let last = secret.len() - 1;
        secret[last] &= 0xffu8 << (8 - bits % 8);
    }
    Ok(secret)
}

/// PBKDF2 and HKDF: `length` bits from `key`, `salt` and HKDF's `info`.
fn derive(a: &Args, key: &[u8], salt: &[u8], info: &[u8]) -> Result<Vec<u8>, String> {
    if !a.length.is_multiple_of(8) {
        return Err(operation_error(format!(
            "length must be a multiple of 8, not {}",
            a.length
        )));
    }
    let mut out = vec![0; a.length / 8];
    if out.is_empty() {
        return Ok(out);
    }
    match a.alg.as_str() {
        "PBKDF2" => {
            if a.iterations == 0 || a.iterations > MAX_ITERATIONS {
                return Err(operation_error(format!(
                    "iterations must be 1 to {MAX_ITERATIONS}, not {}",
                    a.iterations
                )));
            }
            with_hash!(a.hash.as_str(), H => {
                pbkdf2::pbkdf2_hmac::<H>(key, salt, a.iterations, &mut out);
                Ok(())
            })?;
        }
        "HKDF" => with_hash!(a.hash.as_str(), H => hkdf::Hkdf::<H>::new(Some(salt), key)
            .expand(info, &mut out)
            .map_err(|_| operation_error("HKDF cannot derive that many bits with this hash")))?,
        other => return Err(not_supported(format!("{other} cannot derive bits"))),
    }
    Ok(out)
}

/// The JWK member `name`, base64url-decoded.
fn jwk_bytes(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    let text = jwk
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| data_error(format!("the JWK has no \"{name}\"")))?;
    B64.decode(text.trim_end_matches('='))
        .map_err(|e| data_error(format!("the JWK's \"{name}\" is not base64url: {e}")))
}

/// Imports `input` (or `jwk`) as an `alg` key: its kind, what the
/// `CryptoKey`'s algorithm shows of it, and its canonical material.
fn import(a: &Args, input: &[u8]) -> Result<Reply, String> {
    let (kind, der, shown) = match a.alg.as_str() {
        "ECDSA" | "ECDH" => {
            if let Some(j) = &a.jwk {
                let crv = j.get("crv").and_then(Value::as_str).unwrap_or("");
                if crv != a.curve {
                    return Err(data_error(format!(
                        "the JWK's curve \"{crv}\" is not the namedCurve \"{}\"",
                        a.curve
                    )));
                }
            }
            // The curve crates' JWK parser takes only the key's own
            // members; a JWK carries `alg`, `key_ops`, `ext` too.
            let jwk_text = a.jwk.as_ref().map(|j| {
                let own = ["kty", "crv", "x", "y", "d"];
                Value::Object(
                    j.iter()
                        .filter(|(k, _)| own.contains(&k.as_str()))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                )
                .to_string()
            });
            let (kind, der) = with_curve!(a.curve.as_str(), ec => ec::import(&a.format, input, jwk_text.as_deref()))?;
            (kind, der, json!({}))
        }
        "X25519" | "X448" | "Ed448" => {
            let (kind, der) = okp::curve(&a.alg)?.import(&a.format, input, a.jwk.as_ref())?;
            (kind, der, json!({}))
        }
        "Ed25519" => {
            let (kind, der) = ed25519_import(&a.format, input, a.jwk.as_ref())?;
            (kind, der, json!({}))
        }
        alg if alg.starts_with("ML-KEM") => {
            let (kind, der) = mlkem::import(alg, &a.format, input)?;
            (kind, der, json!({}))
        }
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" | "RSA-OAEP" => {
            let (kind, der) = rsa_import(&a.format, input, a.jwk.as_ref())?;
            let public = match kind {
                "private" => rsa::RsaPublicKey::from(rsa_private(&der)?),
                _ => rsa_public(&der)?,
            };
            (kind, der, rsa_shown(&public))
        }
        other => {
            return Err(not_supported(format!(
                "{other} keys are not imported by the host"
            )));
        }
    };
    let mut shown = shown;
    shown["kind"] = Value::from(kind);
    Ok(Reply {
        value: shown.to_string(),
        data: der,
    })
}

/// What an RSA `CryptoKey`'s algorithm shows: its modulus length and
/// public exponent.
fn rsa_shown(key: &rsa::RsaPublicKey) -> Value {
    use rsa::traits::PublicKeyParts;
    json!({ "modulusLength": key.n().bits(), "publicExponent": key.e().to_bytes_be() })
}

fn ed25519_import(
    format: &str,
    input: &[u8],
    jwk: Option<&Map<String, Value>>,
) -> Result<(&'static str, Vec<u8>), String> {
    use ed25519_dalek::pkcs8::{
        DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey,
    };
    use ed25519_dalek::{SigningKey, VerifyingKey};
    let public = |k: VerifyingKey| {
        k.to_public_key_der()
            .map(|d| ("public", d.into_vec()))
            .map_err(data_error)
    };
    // PKCS #8 v1, without the public key, as Node and OpenSSL write it.
    let private = |k: SigningKey| {
        ed25519_dalek::pkcs8::KeypairBytes {
            secret_key: k.to_bytes(),
            public_key: None,
        }
        .to_pkcs8_der()
        .map(|d| ("private", d.as_bytes().to_vec()))
        .map_err(data_error)
    };
    let point = |b: &[u8]| {
        <[u8; 32]>::try_from(b)
            .ok()
            .and_then(|b| VerifyingKey::from_bytes(&b).ok())
            .ok_or_else(|| data_error("not an Ed25519 public key (32 bytes)"))
    };
    match (format, jwk) {
        ("raw", _) => public(point(input)?),
        ("spki", _) => public(VerifyingKey::from_public_key_der(input).map_err(data_error)?),
        ("pkcs8", _) => private(SigningKey::from_pkcs8_der(input).map_err(data_error)?),
        ("jwk", Some(j)) => {
            if j.get("kty").and_then(Value::as_str) != Some("OKP")
                || j.get("crv").and_then(Value::as_str) != Some("Ed25519")
            {
                return Err(data_error(
                    "an Ed25519 JWK has kty \"OKP\" and crv \"Ed25519\"",
                ));
            }
            let x = point(&jwk_bytes(j, "x")?)?;
            if j.contains_key("d") {
                let d = <[u8; 32]>::try_from(jwk_bytes(j, "d")?.as_slice())
                    .map_err(|_| data_error("the JWK's \"d\" is not 32 bytes"))?;
                let key = SigningKey::from_bytes(&d);
                if key.verifying_key() != x {
                    return Err(data_error(
                        "the JWK's \"x\" is not the public half of its \"d\"",
                    ));
                }
                private(key)
            } else {
                public(x)
            }
        }
        (other, _) => Err(bad_format(other)),
    }
}

fn rsa_import(
    format: &str,
    input: &[u8],
    jwk: Option<&Map<String, Value>>,
) -> Result<(&'static str, Vec<u8>), String> {
    use rsa::BigUint;
    use rsa::pkcs8::{EncodePrivateKey, EncodePublicKey};
    let private = |k: rsa::RsaPrivateKey| {
        k.validate().map_err(data_error)?;
        k.to_pkcs8_der()
            .map(|d| ("private", d.as_bytes().to_vec()))
            .map_err(data_error)
    };
    let public = |k: rsa::RsaPublicKey| {
        k.to_public_key_der()
            .map(|d| ("public", d.into_vec()))
            .map_err(data_error)
    };
    match (format, jwk) {
        ("spki", _) => public(rsa_public(input)?),
        ("pkcs8", _) => private(rsa_private(input)?),
        ("jwk", Some(j)) => {
            if j.get("kty").and_then(Value::as_str) != Some("RSA") {
                return Err(data_error("an RSA JWK has kty \"RSA\""));
            }
            let int = |name| jwk_bytes(j, name).map(|b| BigUint::from_bytes_be(&b));
            let (n, e) = (int("n")?, int("e")?);
            if j.contains_key("d") {
                let key = rsa::RsaPrivateKey::from_components(
                    n,
                    e,
                    int("d")?,
                    vec![int("p")?, int("q")?],
                )
                .map_err(data_error)?;
                private(key)
            } else {
                public(rsa::RsaPublicKey::new(n, e).map_err(data_error)?)
            }
        }
        (other, _) => Err(bad_format(other)),
    }
}

/// Exports a `kind` key of `alg` from its canonical material.
fn export(a: &Args, der: &[u8]) -> Result<Reply, String> {
    let kind = a.kind.as_str();
    match a.alg.as_str() {
        "ECDSA" | "ECDH" => with_curve!(a.curve.as_str(), ec => ec::export(kind, &a.format, der)),
        "X25519" | "X448" | "Ed448" => okp::curve(&a.alg)?.export(kind, &a.format, der),
        alg if alg.starts_with("ML-KEM") => mlkem::export(alg, kind, &a.format, der),
        "Ed25519" => {
            use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey};
            let x = |k: &ed25519_dalek::VerifyingKey| B64.encode(k.as_bytes());
            match (kind, a.format.as_str()) {
                ("public", "spki") | ("private", "pkcs8") => Ok(bytes(der.to_vec())),
                ("public", "raw") => Ok(bytes(
                    ed25519_dalek::VerifyingKey::from_public_key_der(der)
                        .map_err(data_error)?
                        .as_bytes()
                        .to_vec(),
                )),
                ("public", "jwk") => {
                    let k = ed25519_dalek::VerifyingKey::from_public_key_der(der)
                        .map_err(data_error)?;
                    Ok(value(json!({"kty": "OKP", "crv": "Ed25519", "x": x(&k)})))
                }
                ("private", "jwk") => {
                    let k = ed25519_dalek::SigningKey::from_pkcs8_der(der).map_err(data_error)?;
                    Ok(value(json!({
                        "kty": "OKP", "crv": "Ed25519",
                        "x": x(&k.verifying_key()), "d": B64.encode(k.to_bytes()),
                    })))
                }
                _ => Err(bad_export(kind, &a.format)),
            }
        }
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" | "RSA-OAEP" => {
            use rsa::traits::{PrivateKeyParts, PublicKeyParts};
            let b = |n: &rsa::BigUint| B64.encode(n.to_bytes_be());
            match (kind, a.format.as_str()) {
                ("public", "spki") | ("private", "pkcs8") => Ok(bytes(der.to_vec())),
                ("public", "jwk") => {
                    let k = rsa_public(der)?;
                    Ok(value(json!({"kty": "RSA", "n": b(k.n()), "e": b(k.e())})))
                }
                ("private", "jwk") => {
                    let mut k = rsa_private(der)?;
                    k.precompute().map_err(operation_error)?;
                    let primes = k.primes();
                    if primes.len() != 2 {
                        return Err(not_supported("an RSA key with more than two primes"));
                    }
                    let (Some(dp), Some(dq), Some(qi)) = (k.dp(), k.dq(), k.crt_coefficient())
                    else {
                        return Err(operation_error("the key's CRT values are missing"));
                    };
                    Ok(value(json!({
                        "kty": "RSA", "n": b(k.n()), "e": b(k.e()), "d": b(k.d()),
                        "p": b(&primes[0]), "q": b(&primes[1]),
                        "dp": b(dp), "dq": b(dq), "qi": b(&qi),
                    })))
                }
                _ => Err(bad_export(kind, &a.format)),
            }
        }
        other => Err(not_supported(format!(
            "{other} keys are not exported by the host"
        ))),
    }
}

/// A new key for `alg`: a secret key's bytes (value `{}`), or a pair as
/// `{parts: [private, public], ...}` with the PKCS #8 and SPKI bytes.
fn generate(a: &Args) -> Result<Reply, String> {
    let pair = |(private, public): (Vec<u8>, Vec<u8>), shown: Value| {
        let mut shown = shown;
        shown["parts"] = json!([private.len(), public.len()]);
        let mut data = private;
        data.extend(public);
        Ok(Reply {
            value: shown.to_string(),
            data,
        })
    };
    match a.alg.as_str() {
        "HMAC" | "AES-GCM" | "AES-CBC" | "AES-CTR" | "AES-KW" | "AES-OCB" | "ChaCha20-Poly1305"
        | "KMAC128" | "KMAC256" => {
            if a.length == 0 || !a.length.is_multiple_of(8) || a.length > 4096 {
                return Err(operation_error(format!(
                    "a key's length must be a multiple of 8 bits, up to 4096, not {}",
                    a.length
                )));
            }
            let mut key = vec![0; a.length / 8];
            getrandom::fill(&mut key).map_err(operation_error)?;
            Ok(bytes(key))
        }
        "ECDSA" | "ECDH" => with_curve!(a.curve.as_str(), ec => pair(ec::generate()?, json!({}))),
        "X25519" | "X448" | "Ed448" => pair(okp::curve(&a.alg)?.generate()?, json!({})),
        alg if alg.starts_with("ML-KEM") => pair(mlkem::generate(alg)?, json!({})),
        "Ed25519" => {
            use ed25519_dalek::pkcs8::{EncodePrivateKey, EncodePublicKey};
            let key = ed25519_dalek::SigningKey::generate(&mut rand_core::OsRng);
            let private = ed25519_dalek::pkcs8::KeypairBytes {
                secret_key: key.to_bytes(),
                public_key: None,
            }
            .to_pkcs8_der()
            .map_err(operation_error)?;
            let public = key
                .verifying_key()
                .to_public_key_der()
                .map_err(operation_error)?;
            pair((private.as_bytes().to_vec(), public.into_vec()), json!({}))
        }
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" | "RSA-OAEP" => {
            use rsa::pkcs8::{EncodePrivateKey, EncodePublicKey};
            if !RSA_BITS.contains(&a.modulus_length) {
                return Err(not_supported(format!(
                    "RSA keys of {:?} bits are generated, not {}",
                    RSA_BITS, a.modulus_length
                )));
            }
            // Only the exponents Chrome accepts (3 and 65537): the
            // key search never ends for an even one (no prime p has p - 1
            // coprime to it), and it would run in the host, where neither
            // the CPU limit nor the deadline can stop it.
            let e = rsa::BigUint::from_bytes_be(&a.public_exponent);
            if e != rsa::BigUint::from(3u32) && e != rsa::BigUint::from(65537u32) {
                return Err(operation_error(format!(
                    "an RSA key's publicExponent is 3 or 65537 ([1, 0, 1]), not {e}"
                )));
            }
            let key = rsa::RsaPrivateKey::new_with_exp(&mut rand_core::OsRng, a.modulus_length, &e)
                .map_err(operation_error)?;
            let public = rsa::RsaPublicKey::from(&key);
            let shown = rsa_shown(&public);
            let private = key.to_pkcs8_der().map_err(operation_error)?;
            let public = public.to_public_key_der().map_err(operation_error)?;
            pair((private.as_bytes().to_vec(), public.into_vec()), shown)
        }
        other => Err(not_supported(format!("{other} keys are not generated"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::hex;

    fn run(args: Value, parts: &[&[u8]]) -> Result<Reply, String> {
        let mut args = args;
        args["parts"] = json!(parts.iter().map(|p| p.len()).collect::<Vec<_>>());
        call(&args.to_string(), &parts.concat())
    }

    #[test]
    fn digests_and_hmac_match_the_standard_vectors() {
        let d = run(json!({"op": "digest", "hash": "SHA-256"}), &[b"abc"]).unwrap();
        assert_eq!(
            hex(&d.data),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // RFC 4231, test case 2.
        let mac = run(
            json!({"op": "sign", "alg": "HMAC", "hash": "SHA-256"}),
            &[b"Jefe", b"what do ya want for nothing?"],
        )
        .unwrap();
        assert_eq!(
            hex(&mac.data),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let ok = run(
            json!({"op": "verify", "alg": "HMAC", "hash": "SHA-256"}),
            &[b"Jefe", &mac.data, b"what do ya want for nothing?"],
        )
        .unwrap();
        assert_eq!(ok.value, "true");
        let bad = run(
            json!({"op": "verify", "alg": "HMAC", "hash": "SHA-256"}),
            &[b"Jefe", &mac.data[..31], b"what do ya want for nothing?"],
        )
        .unwrap();
        assert_eq!(bad.value, "false");
    }

    #[test]
    fn bad_input_is_refused_with_the_spec_error_name() {
        let err = run(json!({"op": "digest", "hash": "SHA-224"}), &[b"x"]).unwrap_err();
        assert!(
            err.starts_with("NotSupportedError: the hash \"SHA-224\""),
            "{err}"
        );
        // MD5 is node:crypto's alone (the prelude's subtle refuses it).
        let md5 = run(json!({"op": "digest", "hash": "MD5"}), &[b"abc"]).unwrap();
        assert_eq!(hex(&md5.data), "900150983cd24fb0d6963f7d28e17f72");
        let err = run(
            json!({"op": "import", "alg": "ECDSA", "curve": "P-256", "format": "pkcs8"}),
            &[b"not a key"],
        )
        .unwrap_err();
        assert!(err.starts_with("DataError: "), "{err}");
        let err = call(r#"{"op":"digest","hash":"SHA-1","parts":[5]}"#, b"ab").unwrap_err();
        assert!(err.contains("do not add up"), "{err}");
        let err = run(
            json!({"op": "derive", "alg": "PBKDF2", "hash": "SHA-256", "iterations": 2_000_000, "length": 256}),
            &[b"pw", b"salt", b""],
        )
        .unwrap_err();
        assert!(
            err.starts_with("OperationError: iterations must be 1 to"),
            "{err}"
        );
    }

    #[test]
    fn a_generated_pair_signs_and_verifies_and_a_tampered_message_fails() {
        for (alg, curve) in [("ECDSA", "P-256"), ("ECDSA", "P-384"), ("Ed25519", "")] {
            let pair = run(json!({"op": "generate", "alg": alg, "curve": curve}), &[]).unwrap();
            let parts: Value = serde_json::from_str(&pair.value).unwrap();
            let n = parts["parts"][0].as_u64().unwrap() as usize;
            let (private, public) = pair.data.split_at(n);
            let spec = json!({"alg": alg, "curve": curve, "hash": "SHA-256"});
            let mut sign = spec.clone();
            sign["op"] = "sign".into();
            let sig = run(sign, &[private, b"hello"]).unwrap().data;
            let mut verify = spec.clone();
            verify["op"] = "verify".into();
            assert_eq!(
                run(verify.clone(), &[public, &sig, b"hello"])
                    .unwrap()
                    .value,
                "true"
            );
            assert_eq!(
                run(verify, &[public, &sig, b"hellO"]).unwrap().value,
                "false"
            );
        }
    }

    fn unhex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn issue_34_aes_ctr_aes_kw_and_x25519_match_their_standards_vectors() {
        // NIST SP 800-38A, F.5.1 (CTR-AES128.Encrypt), its first two blocks.
        let ctr = run(
            json!({"op": "encrypt", "alg": "AES-CTR", "length": 128}),
            &[
                &unhex("2b7e151628aed2a6abf7158809cf4f3c"),
                &unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"),
                b"",
                &unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"),
            ],
        )
        .unwrap();
        assert_eq!(
            hex(&ctr.data),
            "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
        );
        // RFC 3394, 4.1: a 128-bit key wrapped with a 128-bit KEK.
        let kw = run(
            json!({"op": "encrypt", "alg": "AES-KW"}),
            &[
                &unhex("000102030405060708090a0b0c0d0e0f"),
                b"",
                b"",
                &unhex("00112233445566778899aabbccddeeff"),
            ],
        )
        .unwrap();
        assert_eq!(
            hex(&kw.data),
            "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"
        );
        // RFC 7748, 6.1: Alice's private key and Bob's public key.
        let import = |format: &str, bytes: &[u8]| {
            run(
                json!({"op": "import", "alg": "X25519", "format": format}),
                &[bytes],
            )
            .unwrap()
            .data
        };
        let mut pkcs8 = unhex("302e020100300506032b656e04220420");
        pkcs8.extend(unhex(
            "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
        ));
        let alice = import("pkcs8", &pkcs8);
        let bob = import(
            "raw",
            &unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"),
        );
        let shared = run(json!({"op": "agree", "alg": "X25519"}), &[&alice, &bob]).unwrap();
        assert_eq!(
            hex(&shared.data),
            "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        );
        let zero = import("raw", &[0; 32]);
        let err = run(json!({"op": "agree", "alg": "X25519"}), &[&alice, &zero]).unwrap_err();
        assert!(err.starts_with("OperationError: "), "{err}");
    }

    #[test]
    fn issue_34_an_rsa_key_with_an_exponent_whose_search_never_ends_is_refused_at_once() {
        for e in [vec![1u8], vec![1, 0, 0], vec![2]] {
            let err = run(
                json!({"op": "generate", "alg": "RSA-PSS", "modulusLength": 1024, "publicExponent": e}),
                &[],
            )
            .unwrap_err();
            assert!(err.starts_with("OperationError: "), "{err}");
        }
        let ok = run(
            json!({"op": "generate", "alg": "RSA-PSS", "modulusLength": 1024, "publicExponent": [1, 0, 1]}),
            &[],
        );
        assert!(ok.is_ok());
    }
}
