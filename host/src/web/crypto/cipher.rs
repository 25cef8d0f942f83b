//! Encryption: the AES modes (CBC, CTR, GCM, OCB, KW), ChaCha20-Poly1305 and
//! RSA-OAEP.

use super::*;

/// The AES modes, ChaCha20-Poly1305 and RSA-OAEP. `iv` is the iv, or
/// AES-CTR's counter block; `aad` is the AEADs' additional data, or
/// RSA-OAEP's label. AES-KW is reached through `wrapKey` and `unwrapKey`.
pub(super) fn cipher(
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
pub(super) fn gcm<A, N>(
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
pub(super) fn ocb<A>(
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
pub(super) fn seal_or_open<C: aes_gcm::aead::AeadInPlace>(
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
pub(super) fn ctr<A>(
    key: &[u8],
    counter: &[u8],
    bits: usize,
    data: &[u8],
) -> Result<Vec<u8>, String>
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

pub(super) fn aes_length(bytes: usize) -> String {
    data_error(format!(
        "an AES key is 128, 192 or 256 bits, not {}",
        bytes * 8
    ))
}
