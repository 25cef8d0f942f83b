//! Keys: import, export and generation in every format, and a private
//! key's public half.

use super::*;

/// getPublicKey: the SPKI of a private key's public half.
pub(super) fn public_of(a: &Args, der: &[u8]) -> Result<Vec<u8>, String> {
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
        alg if alg.starts_with("ML-KEM") => ml_kem::public_of(alg, der),
        other => Err(not_supported(format!("{other} has no public key"))),
    }
}

pub(super) fn bad_format(format: &str) -> String {
    not_supported(format!("the key format \"{format}\" does not apply here"))
}

pub(super) fn bad_export(kind: &str, format: &str) -> String {
    error(
        "InvalidAccessError",
        format!("a {kind} key cannot be exported as \"{format}\""),
    )
}

pub(super) fn rsa_private(der: &[u8]) -> Result<rsa::RsaPrivateKey, String> {
    use rsa::pkcs8::DecodePrivateKey;
    rsa::RsaPrivateKey::from_pkcs8_der(der).map_err(data_error)
}

pub(super) fn rsa_public(der: &[u8]) -> Result<rsa::RsaPublicKey, String> {
    use rsa::pkcs8::DecodePublicKey;
    rsa::RsaPublicKey::from_public_key_der(der).map_err(data_error)
}

/// The JWK member `name`, base64url-decoded.
pub(super) fn jwk_bytes(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    let text = jwk
        .get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| data_error(format!("the JWK has no \"{name}\"")))?;
    B64.decode(text.trim_end_matches('='))
        .map_err(|e| data_error(format!("the JWK's \"{name}\" is not base64url: {e}")))
}

/// Imports `input` (or `jwk`) as an `alg` key: its kind, what the
/// `CryptoKey`'s algorithm shows of it, and its canonical material.
pub(super) fn import(a: &Args, input: &[u8]) -> Result<Reply, String> {
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
            let jwk_text = a.jwk.as_ref().map(ec_jwk_text);
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
            let (kind, der) = ml_kem::import(alg, &a.format, input)?;
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

/// An EC JWK as the curve crates' JWK parser takes it: the key's own
/// members alone (a JWK carries `alg`, `key_ops`, `ext` too).
pub(super) fn ec_jwk_text(jwk: &Map<String, Value>) -> String {
    let own = ["kty", "crv", "x", "y", "d"];
    Value::Object(
        jwk.iter()
            .filter(|(k, _)| own.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
    .to_string()
}

/// What an RSA `CryptoKey`'s algorithm shows: its modulus length and
/// public exponent.
pub(super) fn rsa_shown(key: &rsa::RsaPublicKey) -> Value {
    use rsa::traits::PublicKeyParts;
    json!({ "modulusLength": key.n().bits(), "publicExponent": key.e().to_bytes_be() })
}

pub(super) fn ed25519_import(
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

pub(super) fn rsa_import(
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
pub(super) fn export(a: &Args, der: &[u8]) -> Result<Reply, String> {
    let kind = a.kind.as_str();
    match a.alg.as_str() {
        "ECDSA" | "ECDH" => with_curve!(a.curve.as_str(), ec => ec::export(kind, &a.format, der)),
        "X25519" | "X448" | "Ed448" => okp::curve(&a.alg)?.export(kind, &a.format, der),
        alg if alg.starts_with("ML-KEM") => ml_kem::export(alg, kind, &a.format, der),
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
pub(super) fn generate(a: &Args) -> Result<Reply, String> {
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
        alg if alg.starts_with("ML-KEM") => pair(ml_kem::generate(alg)?, json!({})),
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
