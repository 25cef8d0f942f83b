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
//! Here: the call's arguments, dispatch and errors. Beside it, by what
//! they do: `digest.rs`, `sign.rs`, `cipher.rs`, `kdf.rs`, `keys.rs`; by
//! key family: `ec.rs` (NIST curves), `okp.rs` (X25519, X448, Ed448),
//! `ml_kem.rs`.
//!
//! Invariants:
//! - Every call is pure but for `generate`, the randomized signatures
//!   (ECDSA, RSA-PSS) and RSA-OAEP's encryption, which draw from the
//!   operating system's generator.
//! - A failure is `"<DOMException name>: <message>"`, the name being the
//!   one the spec gives (`DataError` for bad key material, `OperationError`
//!   for a failed decryption, `NotSupportedError` for an algorithm or
//!   parameter outside the list in `docs/compatibility.md`); the prelude
//!   rejects with that `DOMException`. A bound of ssr's own that only
//!   `node:crypto` reaches (scrypt's) is a `RangeError`, as `workerd`'s.
//!   Nothing here panics on input.
//! - Bounded: one call's work is bounded by its input, except PBKDF2's
//!   iterations, scrypt's work, memory and output and RSA's key
//!   generation, which are capped ([`MAX_ITERATIONS`], [`MAX_SCRYPT_WORK`],
//!   [`MAX_SCRYPT_MEMORY`], [`MAX_SCRYPT_OUTPUT`], [`RSA_BITS`]).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use contract::Reply;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The most PBKDF2 iterations one call runs: a render's CPU is shared, and
/// OWASP's 2023 advice for PBKDF2-HMAC-SHA256 is 600,000.
pub const MAX_ITERATIONS: u32 = 1_000_000;

/// The most work one scrypt call does, as N × r × p (its cost, block size
/// and parallelization): a sixteenth of a second's hashing per 2^16, so
/// about a second here. `workerd` refuses past a like bound, with a
/// `RangeError`.
pub const MAX_SCRYPT_WORK: u64 = 1 << 20;

/// The most memory one scrypt call may take (128 × N × r bytes), whatever
/// its `maxmem` says: Node's default `maxmem`.
pub const MAX_SCRYPT_MEMORY: u64 = 32 << 20;

/// The most bytes one scrypt call derives (its last step is one PBKDF2
/// round over them, so the work is in proportion).
pub const MAX_SCRYPT_OUTPUT: usize = 1 << 20;

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
    /// scrypt's N (a power of two), r and p, and the memory it may take.
    cost: u64,
    block_size: u32,
    parallelization: u32,
    maxmem: u64,
    // node:crypto's (`node.rs`):
    /// A key encoding's type (`pkcs1`, `pkcs8`, `sec1`, `spki`), or a
    /// key's type (`rsa`, `ec`, `ed25519`, `x25519`, `dsa`) to sign with.
    #[serde(rename = "type")]
    ty: String,
    /// Whether a passphrase is given (the part after the key), which may
    /// be empty.
    has_passphrase: bool,
    /// The cipher an exported private key is encrypted with.
    cipher: String,
    /// RSA's padding, as Node's constants number them.
    padding: u32,
    /// RSA-PSS's salt length as Node's option gives it (-1, -2 or bytes).
    salt: Option<i64>,
    /// `der` or `ieee-p1363`, for ECDSA.
    dsa_encoding: String,
    /// A cipher's mode, or which of the RSA operations.
    mode: String,
    /// Where in a cipher's keystream a step starts, in bytes.
    position: u64,
    encrypt: bool,
    /// A safe prime is asked for (`generatePrime`).
    safe: bool,
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
        "derive" if a.alg == "scrypt" => Ok(bytes(scrypt(&a, part(0), part(1))?)),
        "derive" => Ok(bytes(derive(&a, part(0), part(1), part(2))?)),
        "agree" => Ok(bytes(agree(&a, part(0), part(1))?)),
        "import" => import(&a, part(0)).map_err(|e| {
            let what = format!("the {} key data is not a valid {} key: ", a.format, a.alg);
            e.replacen("DataError: ", &format!("DataError: {what}"), 1)
        }),
        "export" => export(&a, part(0)),
        "public" => Ok(bytes(public_of(&a, part(0))?)),
        "encapsulate" => Ok(bytes(ml_kem::encapsulate(&a.alg, part(0))?)),
        "decapsulate" => Ok(bytes(ml_kem::decapsulate(&a.alg, part(0), part(1))?)),
        "generate" => generate(&a),
        "nodeX509" => x509::certificate(part(0)),
        "nodeSpkac" => Ok(x509::spkac(part(0))),
        op if op.starts_with("node") => node::call(&a, &part),
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

/// Runs `$body` with `$h` the hash named by `$name`, of every hash
/// `node:crypto` offers (`getHashes`): Web Crypto's and MD5 and SHA-224,
/// which the prelude's `crypto.subtle` never names (its `HASHES`).
macro_rules! with_node_hash {
    ($name:expr, $h:ident => $body:expr) => {
        match $name {
            "MD5" => {
                type $h = md5::Md5;
                $body
            }
            "SHA-224" => {
                type $h = sha2::Sha224;
                $body
            }
            other => with_hash!(other, $h => $body),
        }
    };
}

fn unknown_curve(curve: &str) -> String {
    not_supported(format!(
        "the curve \"{curve}\" is not supported (P-256, P-384 or P-521)"
    ))
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

mod cipher;
mod dh;
mod digest;
mod ec;
mod kdf;
mod keys;
mod ml_kem;
mod node;
mod okp;
mod sign;
mod x509;

use cipher::*;
use digest::*;
use ec::{ec256, ec384, ec521};
use kdf::*;
use keys::*;
use sign::*;

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use crate::artifact::hex;

    fn run(args: Value, parts: &[&[u8]]) -> Result<Reply, String> {
        let mut args = args;
        args["parts"] = json!(parts.iter().map(|p| p.len()).collect::<Vec<_>>());
        call(&args.to_string(), &parts.concat())
    }

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

    fn scrypt_matches_rfc_7914_and_keeps_its_bounds() {
        let scrypt = |n: u64, r: u32, p: u32, bytes: usize, pass: &[u8], salt: &[u8]| {
            run(
                json!({"op": "derive", "alg": "scrypt", "cost": n, "blockSize": r,
                       "parallelization": p, "maxmem": 32 << 20, "length": bytes * 8}),
                &[pass, salt],
            )
        };
        // RFC 7914, section 12, the first two vectors (the third's memory
        // is 16 MiB, within the bound too, but slow in a debug build).
        let empty = scrypt(16, 1, 1, 64, b"", b"").unwrap();
        assert!(hex(&empty.data).starts_with("77d6576238657b203b19ca42c18a0497"));
        let nacl = scrypt(1024, 8, 16, 64, b"password", b"NaCl").unwrap();
        assert!(hex(&nacl.data).starts_with("fdbabe1c9d3472007856e7190d01e9fe"));
        // Not a power of two; N over 2^(16 r); the work bound; memory.
        let err = scrypt(3, 1, 1, 1, b"p", b"s").unwrap_err();
        assert!(err.starts_with("OperationError: "), "{err}");
        assert!(scrypt(1 << 16, 1, 1, 1, b"p", b"s").is_err());
        let err = scrypt(1024, 1, 32768, 64, b"p", b"s").unwrap_err();
        assert!(err.starts_with("RangeError: "), "{err}");
        let err = scrypt(1 << 16, 8, 1, 64, b"p", b"s").unwrap_err();
        assert!(err.contains("memory"), "{err}");
        let err = scrypt(16, 1, 1, MAX_SCRYPT_OUTPUT + 1, b"p", b"s").unwrap_err();
        assert!(err.starts_with("RangeError: "), "{err}");
        assert!(scrypt(16, 1, 1, 0, b"p", b"s").unwrap().data.is_empty());
    }

    fn bad_input_is_refused_with_the_spec_error_name() {
        let err = run(json!({"op": "digest", "hash": "RIPEMD-160"}), &[b"x"]).unwrap_err();
        assert!(
            err.starts_with("NotSupportedError: the hash \"RIPEMD-160\""),
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

    crate::unit_tests!(
        digests_and_hmac_match_the_standard_vectors,
        scrypt_matches_rfc_7914_and_keeps_its_bounds,
        bad_input_is_refused_with_the_spec_error_name,
        a_generated_pair_signs_and_verifies_and_a_tampered_message_fails,
        issue_34_aes_ctr_aes_kw_and_x25519_match_their_standards_vectors,
        issue_34_an_rsa_key_with_an_exponent_whose_search_never_ends_is_refused_at_once
    );
}
