//! The NIST curves (P-256, P-384, P-521): ECDSA, ECDH and their key formats.

use super::*;

/// One NIST curve's ECDSA, ECDH and key formats; the curves differ only in
/// their crate and field size.
macro_rules! ec_curve {
    ($module:ident, $krate:ident, $name:literal, $field:literal) => {
        pub(super) mod $module {
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

            /// SEC1's `EC PRIVATE KEY` as PKCS #8 (`node:crypto`'s `sec1`).
            pub fn from_sec1(der: &[u8]) -> Result<Vec<u8>, String> {
                let key = SecretKey::from_sec1_der(der).map_err(data_error)?;
                Ok(key.to_pkcs8_der().map_err(data_error)?.as_bytes().to_vec())
            }

            /// A PKCS #8 key as SEC1's `EC PRIVATE KEY`.
            pub fn to_sec1(der: &[u8]) -> Result<Vec<u8>, String> {
                Ok(private(der)?.to_sec1_der().map_err(data_error)?.to_vec())
            }

            /// An IEEE P1363 signature (r ‖ s) in DER, as `node:crypto`
            /// gives ECDSA's by default.
            pub fn der_signature(p1363: &[u8]) -> Result<Vec<u8>, String> {
                let s = Signature::from_slice(p1363).map_err(operation_error)?;
                Ok(s.to_der().as_bytes().to_vec())
            }

            /// A DER signature as IEEE P1363, or `None` if it is not one.
            pub fn p1363_signature(der: &[u8]) -> Option<Vec<u8>> {
                Signature::from_der(der).ok().map(|s| s.to_bytes().to_vec())
            }

            /// `createECDH`'s raw keys (`dh.rs`): `generate` a scalar and its
            /// point; `fromScalar` the scalar `a`'s point; `convert` the
            /// point `a` into `format`; `compute` the x coordinate shared
            /// by the scalar `a` and the point `b`. A point is given and
            /// taken in SEC1 form: `compressed`, `uncompressed`, or
            /// `hybrid` (uncompressed, its tag 6 or 7 by y's parity).
            pub fn ecdh(
                mode: &str,
                format: &str,
                a: &[u8],
                b: &[u8],
            ) -> Result<Vec<Vec<u8>>, String> {
                let error = |m: &str| format!("Error: {m}");
                let shown = |p: &PublicKey| {
                    let mut out = p
                        .to_encoded_point(format == "compressed")
                        .as_bytes()
                        .to_vec();
                    if format == "hybrid" {
                        out[0] = 6 | (out[out.len() - 1] & 1);
                    }
                    out
                };
                let point = |bytes: &[u8]| {
                    let mut bytes = bytes.to_vec();
                    if matches!(bytes.first(), Some(6 | 7)) {
                        bytes[0] = 4;
                    }
                    PublicKey::from_sec1_bytes(&bytes).map_err(|_| error("Failed to set point"))
                };
                let scalar = |bytes: &[u8]| {
                    SecretKey::from_slice(bytes)
                        .map_err(|_| error("Private key is not valid for specified curve."))
                };
                match mode {
                    "generate" => {
                        let key = SecretKey::random(&mut rand_core::OsRng);
                        Ok(vec![key.to_bytes().to_vec(), shown(&key.public_key())])
                    }
                    "fromScalar" => {
                        let key = scalar(a)?;
                        Ok(vec![key.to_bytes().to_vec(), shown(&key.public_key())])
                    }
                    "convert" => Ok(vec![shown(&point(a)?)]),
                    "compute" => {
                        let key = scalar(a)?;
                        let peer = point(b)?;
                        let shared =
                            $krate::ecdh::diffie_hellman(key.to_nonzero_scalar(), peer.as_affine());
                        Ok(vec![shared.raw_secret_bytes().to_vec()])
                    }
                    other => Err(format!("crypto: no ECDH operation \"{other}\"")),
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
