//! Key agreement (ECDH, X25519, X448) and derivation (PBKDF2, HKDF).

use super::*;

/// ECDH and X25519: the shared secret of a private key and another's
/// public key, its first `bits` bits (all of it when `bits` is absent).
pub(super) fn agree(a: &Args, private: &[u8], public: &[u8]) -> Result<Vec<u8>, String> {
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
pub(super) fn derive(a: &Args, key: &[u8], salt: &[u8], info: &[u8]) -> Result<Vec<u8>, String> {
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
