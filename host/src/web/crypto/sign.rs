//! Signatures and their verification: HMAC, KMAC, ECDSA, Ed25519, Ed448,
//! RSASSA-PKCS1-v1_5 and RSA-PSS.

use super::*;

/// `extra` is Ed448's context or KMAC's customization.
pub(super) fn sign(a: &Args, key: &[u8], data: &[u8], extra: &[u8]) -> Result<Vec<u8>, String> {
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

pub(super) fn verify(
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

pub(super) fn rsa_sign(a: &Args, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
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

pub(super) fn rsa_verify(
    a: &Args,
    key: &[u8],
    signature: &[u8],
    data: &[u8],
) -> Result<bool, String> {
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
