//! Web Crypto's `crypto.subtle`, done by the host (`calls::CRYPTO`) with the
//! RustCrypto crates, so that both engines run the same audited code and
//! neither interprets a cipher in JavaScript.
//!
//! The prelude does what the Web Crypto spec asks of the caller's side:
//! normalizing algorithms, usages, `extractable`, JWK `alg`/`use`/`ext`
//! checks, and the `CryptoKey` objects. It asks the host only for the
//! arithmetic. The host keeps no state: a key travels with each call as its
//! canonical material, which is what [`import`] returns:
//! - a secret key (HMAC, AES, PBKDF2, HKDF): its raw bytes;
//! - a private key (ECDSA, Ed25519, RSA): PKCS #8 DER;
//! - a public key: SubjectPublicKeyInfo DER.
//!
//! Invariants:
//! - Every call is pure but for `generate` and the randomized signatures
//!   (ECDSA, RSA-PSS), which draw from the operating system's generator.
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
    /// Bits: of a derived output, or of a generated secret key.
    length: usize,
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
        "digest" => Ok(bytes(digest(&a.hash, part(0))?)),
        "sign" => Ok(bytes(sign(&a, part(0), part(1))?)),
        "verify" => Ok(value(Value::Bool(verify(&a, part(0), part(1), part(2))?))),
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
        "import" => import(&a, part(0)).map_err(|e| {
            let what = format!("the {} key data is not a valid {} key: ", a.format, a.alg);
            e.replacen("DataError: ", &format!("DataError: {what}"), 1)
        }),
        "export" => export(&a, part(0)),
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
    if hash == "MD5" {
        return Ok(md5::Md5::digest(data).to_vec());
    }
    with_hash!(hash, H => Ok(H::digest(data).to_vec()))
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

fn sign(a: &Args, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    match a.alg.as_str() {
        "HMAC" => hmac(&a.hash, key, data),
        "Ed25519" => {
            use ed25519_dalek::Signer;
            use ed25519_dalek::pkcs8::DecodePrivateKey;
            let key = ed25519_dalek::SigningKey::from_pkcs8_der(key).map_err(data_error)?;
            Ok(key.sign(data).to_bytes().to_vec())
        }
        "ECDSA" => match a.curve.as_str() {
            "P-256" => ec256::sign(key, &digest(&a.hash, data)?),
            "P-384" => ec384::sign(key, &digest(&a.hash, data)?),
            other => Err(unknown_curve(other)),
        },
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => rsa_sign(a, key, data),
        other => Err(not_supported(format!("{other} cannot sign"))),
    }
}

fn verify(a: &Args, key: &[u8], signature: &[u8], data: &[u8]) -> Result<bool, String> {
    match a.alg.as_str() {
        "HMAC" => {
            use subtle::ConstantTimeEq;
            let mac = hmac(&a.hash, key, data)?;
            Ok(mac.len() == signature.len() && bool::from(mac.ct_eq(signature)))
        }
        "Ed25519" => {
            use ed25519_dalek::pkcs8::DecodePublicKey;
            let key = ed25519_dalek::VerifyingKey::from_public_key_der(key).map_err(data_error)?;
            let Ok(signature) = ed25519_dalek::Signature::from_slice(signature) else {
                return Ok(false);
            };
            Ok(key.verify_strict(data, &signature).is_ok())
        }
        "ECDSA" => match a.curve.as_str() {
            "P-256" => ec256::verify(key, &digest(&a.hash, data)?, signature),
            "P-384" => ec384::verify(key, &digest(&a.hash, data)?, signature),
            other => Err(unknown_curve(other)),
        },
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => rsa_verify(a, key, signature, data),
        other => Err(not_supported(format!("{other} cannot verify"))),
    }
}

fn unknown_curve(curve: &str) -> String {
    not_supported(format!(
        "the curve \"{curve}\" is not supported (P-256 or P-384)"
    ))
}

/// One NIST curve's ECDSA and key formats; the two curves differ only in
/// their crate.
macro_rules! ec_curve {
    ($module:ident, $krate:ident, $name:literal) => {
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

            pub fn sign(der: &[u8], prehash: &[u8]) -> Result<Vec<u8>, String> {
                let key = SigningKey::from(private(der)?);
                let signature: Signature = key.sign_prehash(prehash).map_err(operation_error)?;
                Ok(signature.to_bytes().to_vec())
            }

            pub fn verify(der: &[u8], prehash: &[u8], signature: &[u8]) -> Result<bool, String> {
                let key = VerifyingKey::from(public(der)?);
                let Ok(signature) = Signature::from_slice(signature) else {
                    return Ok(false);
                };
                Ok(key.verify_prehash(prehash, &signature).is_ok())
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

ec_curve!(ec256, p256, "P-256");
ec_curve!(ec384, p384, "P-384");

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

/// AES-GCM (a 96-bit IV and a 128-bit tag) and AES-CBC (PKCS #7 padding).
fn cipher(
    a: &Args,
    encrypt: bool,
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    data: &[u8],
) -> Result<Vec<u8>, String> {
    match a.alg.as_str() {
        "AES-GCM" => {
            use aes_gcm::aead::{Aead, KeyInit, Payload};
            if a.tag_length.unwrap_or(128) != 128 {
                return Err(not_supported("AES-GCM takes a tagLength of 128 only"));
            }
            if iv.len() != 12 {
                return Err(not_supported(format!(
                    "AES-GCM takes a 12-byte iv only, not {} bytes",
                    iv.len()
                )));
            }
            let nonce = aes_gcm::Nonce::from_slice(iv);
            let payload = Payload { msg: data, aad };
            let out = match key.len() {
                16 => {
                    let c = aes_gcm::Aes128Gcm::new_from_slice(key).map_err(data_error)?;
                    if encrypt {
                        c.encrypt(nonce, payload)
                    } else {
                        c.decrypt(nonce, payload)
                    }
                }
                32 => {
                    let c = aes_gcm::Aes256Gcm::new_from_slice(key).map_err(data_error)?;
                    if encrypt {
                        c.encrypt(nonce, payload)
                    } else {
                        c.decrypt(nonce, payload)
                    }
                }
                n => return Err(aes_length(n)),
            };
            out.map_err(|_| operation_error("the data could not be decrypted (wrong key, iv, additionalData or a tampered ciphertext)"))
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
            let bad =
                |_| operation_error("the data could not be decrypted (bad padding or length)");
            match (key.len(), encrypt) {
                (16, true) => Ok(cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv)
                    .map_err(data_error)?
                    .encrypt_padded_vec_mut::<Pkcs7>(data)),
                (32, true) => Ok(cbc::Encryptor::<aes::Aes256>::new_from_slices(key, iv)
                    .map_err(data_error)?
                    .encrypt_padded_vec_mut::<Pkcs7>(data)),
                (16, false) => cbc::Decryptor::<aes::Aes128>::new_from_slices(key, iv)
                    .map_err(data_error)?
                    .decrypt_padded_vec_mut::<Pkcs7>(data)
                    .map_err(bad),
                (32, false) => cbc::Decryptor::<aes::Aes256>::new_from_slices(key, iv)
                    .map_err(data_error)?
                    .decrypt_padded_vec_mut::<Pkcs7>(data)
                    .map_err(bad),
                (n, _) => Err(aes_length(n)),
            }
        }
        other => Err(not_supported(format!("{other} cannot encrypt or decrypt"))),
    }
}

fn aes_length(bytes: usize) -> String {
    data_error(format!("an AES key is 128 or 256 bits, not {}", bytes * 8))
}

/// PBKDF2 and HKDF: `length` bits from `key`, `salt` and HKDF's `info`.
fn derive(a: &Args, key: &[u8], salt: &[u8], info: &[u8]) -> Result<Vec<u8>, String> {
    if a.length == 0 || !a.length.is_multiple_of(8) {
        return Err(operation_error(format!(
            "length must be a positive multiple of 8, not {}",
            a.length
        )));
    }
    let mut out = vec![0; a.length / 8];
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
    let jwk_text = a.jwk.as_ref().map(|j| Value::Object(j.clone()).to_string());
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
            let (kind, der) = match a.curve.as_str() {
                "P-256" => ec256::import(&a.format, input, jwk_text.as_deref())?,
                "P-384" => ec384::import(&a.format, input, jwk_text.as_deref())?,
                other => return Err(unknown_curve(other)),
            };
            (kind, der, json!({}))
        }
        "Ed25519" => {
            let (kind, der) = ed25519_import(&a.format, input, a.jwk.as_ref())?;
            (kind, der, json!({}))
        }
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => {
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
        "ECDSA" | "ECDH" => match a.curve.as_str() {
            "P-256" => ec256::export(kind, &a.format, der),
            "P-384" => ec384::export(kind, &a.format, der),
            other => Err(unknown_curve(other)),
        },
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
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => {
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
        "HMAC" | "AES-GCM" | "AES-CBC" => {
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
        "ECDSA" | "ECDH" => match a.curve.as_str() {
            "P-256" => pair(ec256::generate()?, json!({})),
            "P-384" => pair(ec384::generate()?, json!({})),
            other => Err(unknown_curve(other)),
        },
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
        "RSASSA-PKCS1-v1_5" | "RSA-PSS" => {
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

    fn run(args: Value, parts: &[&[u8]]) -> Result<Reply, String> {
        let mut args = args;
        args["parts"] = json!(parts.iter().map(|p| p.len()).collect::<Vec<_>>());
        call(&args.to_string(), &parts.concat())
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
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
        let err = run(json!({"op": "digest", "hash": "SHA3-256"}), &[b"x"]).unwrap_err();
        assert!(
            err.starts_with("NotSupportedError: the hash \"SHA3-256\""),
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
