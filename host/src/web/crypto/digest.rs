//! Digests (SHA, and MD5 for `node:crypto`), cSHAKE, KMAC and HMAC.

use super::*;

/// `MD5` and `SHA-224` are for `node:crypto`'s `createHash` and
/// `createHmac` alone: the prelude's `crypto.subtle` names only the hashes
/// of Web Crypto (its `HASHES`).
pub(super) fn digest(hash: &str, data: &[u8]) -> Result<Vec<u8>, String> {
    use sha2::Digest;
    match hash {
        "SHA3-256" => Ok(sha3::Sha3_256::digest(data).to_vec()),
        "SHA3-384" => Ok(sha3::Sha3_384::digest(data).to_vec()),
        "SHA3-512" => Ok(sha3::Sha3_512::digest(data).to_vec()),
        _ => with_node_hash!(hash, H => Ok(H::digest(data).to_vec())),
    }
}

/// cSHAKE128 or cSHAKE256 (NIST SP 800-185): `bits` of output (a whole
/// number of bytes) of `data`, with the function name and customization.
pub(super) fn cshake(
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
pub(super) fn kmac(
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

pub(super) fn hmac(hash: &str, key: &[u8], data: &[u8]) -> Result<Vec<u8>, String> {
    use hmac::Mac;
    macro_rules! mac {
        ($h:ty) => {{
            let mut mac = hmac::Hmac::<$h>::new_from_slice(key).map_err(data_error)?;
            mac.update(data);
            Ok(mac.finalize().into_bytes().to_vec())
        }};
    }
    with_node_hash!(hash, H => mac!(H))
}
