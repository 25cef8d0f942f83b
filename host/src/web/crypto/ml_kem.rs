//! ML-KEM (FIPS 203) by RustCrypto's `ml-kem`: a private key is its 64-byte
//! seed, in the seed-only PKCS #8 of the IETF's ML-KEM certificates draft
//! (`[0] IMPLICIT OCTET STRING`); a public key is its encapsulation key in
//! an SPKI. OIDs 2.16.840.1.101.3.4.4.1, .2 and .3.

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

pub fn import(alg: &str, format: &str, input: &[u8]) -> Result<(&'static str, Vec<u8>), String> {
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
pub fn decapsulate(alg: &str, private_der: &[u8], ciphertext: &[u8]) -> Result<Vec<u8>, String> {
    let seed = ml_kem::Seed::try_from(seed(alg, private_der)?.as_slice())
        .map_err(|_| data_error("a seed is 64 bytes"))?;
    with_params!(alg, P => {
        let key = DecapsulationKey::<P>::from_seed(seed);
        key.decapsulate_slice(ciphertext)
            .map(|shared| shared.to_vec())
            .map_err(|_| operation_error(format!("not an {alg} ciphertext ({} bytes)", ciphertext.len())))
    })
}
