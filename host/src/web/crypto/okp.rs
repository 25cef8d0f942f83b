//! The keys that are plain byte strings in the PKCS #8 and SPKI forms of
//! RFC 8410 (OIDs 1.3.101.110, .111 and .113): X25519 by curve25519-dalek's
//! Montgomery arithmetic, X448 by the `x448` crate, Ed448 by
//! `ed448-goldilocks`. The DER is made here because no crate in the tree
//! writes all three. (Ed25519 keeps ed25519-dalek's own PKCS #8.)

use super::{B64, Map, Reply, Value, bad_export, bad_format, data_error, json};
use base64::Engine as _;
use rsa::pkcs8::der::{Decode, asn1::OctetStringRef};
use rsa::pkcs8::{PrivateKeyInfo, spki::SubjectPublicKeyInfoRef};

/// Diffie-Hellman: the shared secret of a secret and a public key.
type Agree = fn(&[u8], &[u8]) -> Vec<u8>;

/// One curve: its Web Crypto name, its OID's last arc, its keys' length
/// in bytes and how a public key follows from a private one.
pub struct Curve {
    pub name: &'static str,
    arc: u8,
    len: usize,
    pub public_of: fn(&[u8]) -> Vec<u8>,
    /// Whether bytes are a public key (a point that decodes, for Ed448).
    valid: fn(&[u8]) -> bool,
    /// The shared secret of a secret and a public key (X25519, X448).
    shared: Option<Agree>,
}

pub const X25519: Curve = Curve {
    name: "X25519",
    arc: 110,
    len: 32,
    public_of: |secret| {
        let secret = <[u8; 32]>::try_from(secret).unwrap_or_default();
        curve25519_dalek::montgomery::MontgomeryPoint::mul_base_clamped(secret)
            .to_bytes()
            .to_vec()
    },
    valid: |_| true,
    shared: Some(|secret, public| {
        let point = <[u8; 32]>::try_from(public).unwrap_or_default();
        let secret = <[u8; 32]>::try_from(secret).unwrap_or_default();
        curve25519_dalek::montgomery::MontgomeryPoint(point)
            .mul_clamped(secret)
            .to_bytes()
            .to_vec()
    }),
};
pub const X448: Curve = Curve {
    name: "X448",
    arc: 111,
    len: 56,
    public_of: |secret| {
        let secret = <[u8; 56]>::try_from(secret).unwrap_or([0; 56]);
        x448::x448_unchecked(secret, x448::X448_BASEPOINT_BYTES).to_vec()
    },
    valid: |_| true,
    shared: Some(|secret, public| {
        x448::x448_unchecked(
            <[u8; 56]>::try_from(secret).unwrap_or([0; 56]),
            <[u8; 56]>::try_from(public).unwrap_or([0; 56]),
        )
        .to_vec()
    }),
};
pub const ED448: Curve = Curve {
    name: "Ed448",
    arc: 113,
    len: 57,
    public_of: |secret| ed448_signing(secret).verifying_key().to_bytes().to_vec(),
    valid: |public| ed448_verifying(public).is_some(),
    shared: None,
};

pub fn ed448_signing(secret: &[u8]) -> ed448_goldilocks::SigningKey {
    let secret = <[u8; 57]>::try_from(secret).unwrap_or([0; 57]);
    ed448_goldilocks::SigningKey::from(&ed448_goldilocks::SecretKey::from(secret))
}
pub fn ed448_verifying(public: &[u8]) -> Option<ed448_goldilocks::VerifyingKey> {
    let public = <[u8; 57]>::try_from(public).ok()?;
    ed448_goldilocks::VerifyingKey::from_bytes(&public).ok()
}

impl Curve {
    fn bytes(&self, b: &[u8], what: &str) -> Result<Vec<u8>, String> {
        if b.len() != self.len || (what == "public key" && !(self.valid)(b)) {
            return Err(data_error(format!(
                "not an {} {what} ({} bytes)",
                self.name, self.len
            )));
        }
        Ok(b.to_vec())
    }
    fn oid_is_mine(&self, oid: &[u8]) -> Result<(), String> {
        if oid != [0x2b, 0x65, self.arc] {
            return Err(data_error(format!(
                "not an {} key (its OID is not 1.3.101.{})",
                self.name, self.arc
            )));
        }
        Ok(())
    }
    /// The DER of the curve's AlgorithmIdentifier (its OID, no parameters).
    fn algorithm(&self) -> [u8; 7] {
        [0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, self.arc]
    }
    pub fn spki(&self, public: &[u8]) -> Vec<u8> {
        let n = self.len as u8;
        [
            &[0x30, n + 10],
            &self.algorithm()[..],
            &[0x03, n + 1, 0x00],
            public,
        ]
        .concat()
    }
    fn pkcs8(&self, secret: &[u8]) -> Vec<u8> {
        let n = self.len as u8;
        let version = [0x30, n + 14, 0x02, 0x01, 0x00];
        [
            &version[..],
            &self.algorithm(),
            &[0x04, n + 2, 0x04, n],
            secret,
        ]
        .concat()
    }
    /// The public key of a canonical SPKI.
    pub fn public(&self, der: &[u8]) -> Result<Vec<u8>, String> {
        let info = SubjectPublicKeyInfoRef::from_der(der).map_err(data_error)?;
        self.oid_is_mine(info.algorithm.oid.as_bytes())?;
        self.bytes(info.subject_public_key.raw_bytes(), "public key")
    }
    /// The secret's bytes of a PKCS #8 key.
    pub fn private(&self, der: &[u8]) -> Result<Vec<u8>, String> {
        let info = PrivateKeyInfo::from_der(der).map_err(data_error)?;
        self.oid_is_mine(info.algorithm.oid.as_bytes())?;
        let inner = OctetStringRef::from_der(info.private_key).map_err(data_error)?;
        self.bytes(inner.as_bytes(), "private key")
    }

    pub fn import(
        &self,
        format: &str,
        input: &[u8],
        jwk: Option<&Map<String, Value>>,
    ) -> Result<(&'static str, Vec<u8>), String> {
        match (format, jwk) {
            ("raw", _) => Ok(("public", self.spki(&self.bytes(input, "public key")?))),
            ("spki", _) => Ok(("public", self.spki(&self.public(input)?))),
            ("pkcs8", _) => Ok(("private", self.pkcs8(&self.private(input)?))),
            ("jwk", Some(j)) => {
                if j.get("kty").and_then(Value::as_str) != Some("OKP")
                    || j.get("crv").and_then(Value::as_str) != Some(self.name)
                {
                    return Err(data_error(format!(
                        "an {} JWK has kty \"OKP\" and crv \"{}\"",
                        self.name, self.name
                    )));
                }
                let x = self.bytes(&super::jwk_bytes(j, "x")?, "public key")?;
                if !j.contains_key("d") {
                    return Ok(("public", self.spki(&x)));
                }
                let d = self.bytes(&super::jwk_bytes(j, "d")?, "private key")?;
                if (self.public_of)(&d) != x {
                    return Err(data_error(
                        "the JWK's \"x\" is not the public half of its \"d\"",
                    ));
                }
                Ok(("private", self.pkcs8(&d)))
            }
            (other, _) => Err(bad_format(other)),
        }
    }

    pub fn export(&self, kind: &str, format: &str, der: &[u8]) -> Result<Reply, String> {
        match (kind, format) {
            ("public", "spki") | ("private", "pkcs8") => Ok(super::bytes(der.to_vec())),
            ("public", "raw") => Ok(super::bytes(self.public(der)?)),
            ("public", "jwk") => Ok(super::value(
                json!({"kty": "OKP", "crv": self.name, "x": B64.encode(self.public(der)?)}),
            )),
            ("private", "jwk") => {
                let d = self.private(der)?;
                Ok(super::value(json!({
                    "kty": "OKP", "crv": self.name,
                    "x": B64.encode((self.public_of)(&d)), "d": B64.encode(&d),
                })))
            }
            _ => Err(bad_export(kind, format)),
        }
    }

    /// A new pair: (PKCS #8, SPKI).
    pub fn generate(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
        let mut secret = vec![0; self.len];
        getrandom::fill(&mut secret).map_err(super::operation_error)?;
        Ok((self.pkcs8(&secret), self.spki(&(self.public_of)(&secret))))
    }

    /// The X25519 or X448 shared secret; all zeros (a public key of small
    /// order) is refused, as the spec asks.
    pub fn agree(&self, private_der: &[u8], public_der: &[u8]) -> Result<Vec<u8>, String> {
        let Some(agree) = self.shared else {
            return Err(super::not_supported(format!(
                "{} cannot agree on a secret",
                self.name
            )));
        };
        let shared = agree(&self.private(private_der)?, &self.public(public_der)?);
        if shared.iter().all(|b| *b == 0) {
            return Err(super::operation_error(
                "the public key is of small order: the shared secret would be zero",
            ));
        }
        Ok(shared)
    }
}

/// The curve `alg` names.
pub fn curve(alg: &str) -> Result<&'static Curve, String> {
    [&X25519, &X448, &ED448]
        .into_iter()
        .find(|c| c.name == alg)
        .ok_or_else(|| super::not_supported(format!("{alg} is not a curve of RFC 8410")))
}
