//! Key agreement (ECDH, X25519, X448) and derivation (PBKDF2, HKDF, and
//! scrypt for `node:crypto`).

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

/// PBKDF2 and HKDF: `length` bits from `key`, `salt` and HKDF's `info`,
/// with any hash of `node:crypto`'s (`crypto.subtle` names Web Crypto's
/// alone). HKDF's output is at most 255 of the hash's blocks (RFC 5869);
/// `workerd`'s like bound on PBKDF2 is `node:crypto`'s rule, kept there,
/// not Web Crypto's.
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
            with_node_hash!(a.hash.as_str(), H => {
                pbkdf2::pbkdf2_hmac::<H>(key, salt, a.iterations, &mut out);
                Ok(())
            })?;
        }
        "HKDF" => with_node_hash!(a.hash.as_str(), H => hkdf::Hkdf::<H>::new(Some(salt), key)
            .expand(info, &mut out)
            .map_err(|_| operation_error("HKDF cannot derive that many bits with this hash")))?,
        other => return Err(not_supported(format!("{other} cannot derive bits"))),
    }
    Ok(out)
}

/// scrypt (RFC 7914): `length` bits from `password` and `salt`, with N
/// (`cost`), r (`block_size`) and p (`parallelization`) as Node checks
/// them, its memory within `maxmem` and [`MAX_SCRYPT_MEMORY`], its work
/// within [`MAX_SCRYPT_WORK`].
pub(super) fn scrypt(a: &Args, password: &[u8], salt: &[u8]) -> Result<Vec<u8>, String> {
    let (n, r, p) = (
        a.cost,
        u64::from(a.block_size),
        u64::from(a.parallelization),
    );
    if n < 2 || !n.is_power_of_two() || r == 0 || p == 0 {
        return Err(operation_error(format!(
            "scrypt's N must be a power of two over 1, and r and p at least 1 (N {n}, r {r}, p {p})"
        )));
    }
    let log_n = n.trailing_zeros();
    if u64::from(log_n) >= 16 * r || p > ((1 << 30) - 1) / r {
        return Err(operation_error(format!(
            "scrypt's N must be under 2^(16 r) and p at most (2^30 - 1) / r (N {n}, r {r}, p {p})"
        )));
    }
    let work = n.saturating_mul(r).saturating_mul(p);
    if work > MAX_SCRYPT_WORK {
        return Err(format!(
            "RangeError: scrypt's work N × r × p ({work}) is over the {MAX_SCRYPT_WORK} ssr allows"
        ));
    }
    // V (N blocks of 128 r bytes) and B (p of them).
    let memory = 128 * r * (n + p);
    let cap = a.maxmem.min(MAX_SCRYPT_MEMORY);
    if memory > cap {
        return Err(operation_error(format!(
            "scrypt with N {n}, r {r} and p {p} needs {memory} bytes of memory, over the {cap} allowed"
        )));
    }
    if !a.length.is_multiple_of(8) || a.length / 8 > MAX_SCRYPT_OUTPUT {
        return Err(format!(
            "RangeError: scrypt's length is a whole number of bytes, at most {MAX_SCRYPT_OUTPUT}"
        ));
    }
    let mut out = vec![0; a.length / 8];
    if out.is_empty() {
        return Ok(out);
    }
    // The crate's `len` is for its password-hash strings alone, unused here.
    let params = ::scrypt::Params::new(log_n as u8, r as u32, p as u32, 32)
        .map_err(|e| operation_error(format!("scrypt's parameters: {e}")))?;
    ::scrypt::scrypt(password, salt, &params, &mut out)
        .map_err(|e| operation_error(format!("scrypt: {e}")))?;
    Ok(out)
}
