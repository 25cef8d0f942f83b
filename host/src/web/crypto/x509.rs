//! Certificates for `node:crypto`: an X.509 certificate's fields for
//! `X509Certificate`, read by RustCrypto's `x509-cert`, and a Netscape
//! SPKAC's key and challenge for `Certificate`. The prelude
//! (`host/src/build/node/_crypto_x509.js`) formats what Node shows and
//! checks signatures through `nodeVerify`, on the bytes this returns.
//!
//! Invariants:
//! - input that is not one whole certificate in DER fails with one
//!   message (the prelude makes it Node's `ERR_INVALID_ARG_VALUE`);
//! - text is shown as OpenSSL shows it (`C=US`, `DNS:a.example`,
//!   `OCSP - URI:...`), names it does not know as dotted OIDs;
//! - nothing here loops beyond its input.

use super::node::{items, sequence};
use super::*;
use x509_cert::Certificate;
use x509_cert::der::asn1::ObjectIdentifier;
use x509_cert::der::oid::AssociatedOid;
use x509_cert::der::{Any, Decode, Encode, Tag, Tagged};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityInfoAccessSyntax, AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage,
    SubjectAltName, SubjectKeyIdentifier,
};
use x509_cert::name::Name;

const NOT_A_CERTIFICATE: &str = "not an X.509 certificate";

/// `nodeX509`: the certificate in `der`, as a value (its fields) and the
/// bytes of its whole DER, its TBSCertificate, its SubjectPublicKeyInfo
/// and its signature, one after another (`parts` gives their lengths).
pub(super) fn certificate(der: &[u8]) -> Result<Reply, String> {
    let cert = Certificate::from_der(der).map_err(|_| data_error(NOT_A_CERTIFICATE))?;
    // The signed bytes as they came (not encoded again).
    let tbs = sequence(der)
        .and_then(|parts| parts.first().map(|t| t.whole))
        .ok_or_else(|| data_error(NOT_A_CERTIFICATE))?;
    let tbs_cert = &cert.tbs_certificate;
    let spki = tbs_cert
        .subject_public_key_info
        .to_der()
        .map_err(|_| data_error(NOT_A_CERTIFICATE))?;
    let signature = cert.signature.raw_bytes();

    let mut shown = Map::new();
    let mut names = Vec::new();
    for ext in tbs_cert.extensions.iter().flatten() {
        let body = ext.extn_value.as_bytes();
        let oid = ext.extn_id;
        if oid == BasicConstraints::OID {
            let bc = BasicConstraints::from_der(body).map_err(|_| data_error(NOT_A_CERTIFICATE))?;
            shown.insert("ca".into(), bc.ca.into());
        } else if oid == SubjectAltName::OID {
            let san = SubjectAltName::from_der(body).map_err(|_| data_error(NOT_A_CERTIFICATE))?;
            let text: Vec<String> = san.0.iter().map(general_name).collect();
            shown.insert("subjectAltName".into(), text.join(", ").into());
            names = san.0.iter().filter_map(checked_name).collect();
        } else if oid == AuthorityInfoAccessSyntax::OID {
            let aia = AuthorityInfoAccessSyntax::from_der(body)
                .map_err(|_| data_error(NOT_A_CERTIFICATE))?;
            let mut text = String::new();
            for access in &aia.0 {
                let method = match access.access_method.to_string().as_str() {
                    "1.3.6.1.5.5.7.48.1" => "OCSP".to_string(),
                    "1.3.6.1.5.5.7.48.2" => "CA Issuers".to_string(),
                    other => other.to_string(),
                };
                let location = general_name(&access.access_location);
                text.push_str(&format!("{method} - {location}\n"));
            }
            shown.insert("infoAccess".into(), text.into());
        } else if oid == ExtendedKeyUsage::OID {
            let usage =
                ExtendedKeyUsage::from_der(body).map_err(|_| data_error(NOT_A_CERTIFICATE))?;
            let oids: Vec<String> = usage.0.iter().map(ToString::to_string).collect();
            shown.insert("keyUsage".into(), oids.into());
        } else if oid == SubjectKeyIdentifier::OID {
            if let Ok(id) = SubjectKeyIdentifier::from_der(body) {
                shown.insert("subjectKeyId".into(), hex(id.0.as_bytes()).into());
            }
        } else if oid == AuthorityKeyIdentifier::OID
            && let Some(id) = AuthorityKeyIdentifier::from_der(body)
                .ok()
                .and_then(|a| a.key_identifier)
        {
            shown.insert("authorityKeyId".into(), hex(id.as_bytes()).into());
        }
    }
    let serial = tbs_cert.serial_number.as_bytes();
    let serial = &serial[serial
        .iter()
        .take_while(|b| **b == 0)
        .count()
        .min(serial.len().saturating_sub(1))..];
    shown.insert("subject".into(), name(&tbs_cert.subject));
    shown.insert("issuer".into(), name(&tbs_cert.issuer));
    shown.insert("names".into(), names.into());
    let seconds = |t: x509_cert::time::Time| t.to_unix_duration().as_secs();
    shown.insert(
        "notBefore".into(),
        seconds(tbs_cert.validity.not_before).into(),
    );
    shown.insert(
        "notAfter".into(),
        seconds(tbs_cert.validity.not_after).into(),
    );
    shown.insert("serialNumber".into(), hex(serial).into());
    let (hash, kind) = signed_with(&cert.signature_algorithm.oid);
    shown.insert("signatureHash".into(), hash);
    shown.insert("signatureType".into(), kind);
    let parts = [der.len(), tbs.len(), spki.len(), signature.len()];
    shown.insert("parts".into(), json!(parts));
    Ok(Reply {
        value: Value::Object(shown).to_string(),
        data: [der, tbs, &spki, signature].concat(),
    })
}

/// `nodeSpkac`: a SignedPublicKeyAndChallenge's SubjectPublicKeyInfo,
/// challenge, signed bytes and signature (`parts` gives their lengths),
/// with the signature's hash; an empty value where `der` is none.
pub(super) fn spkac(der: &[u8]) -> Reply {
    let read = || {
        let outer = sequence(der)?;
        let signed = outer.first().filter(|t| t.tag == 0x30)?;
        let inner = items(signed.body)?;
        let spki = inner.first().filter(|t| t.tag == 0x30)?;
        let challenge = inner.get(1).filter(|t| t.tag == 0x16)?;
        let algorithm = items(outer.get(1).filter(|t| t.tag == 0x30)?.body)?;
        let oid =
            ObjectIdentifier::from_bytes(algorithm.first().filter(|t| t.tag == 0x06)?.body).ok()?;
        // A BIT STRING of whole bytes: its first byte counts unused bits.
        let signature = outer
            .get(2)
            .filter(|t| t.tag == 0x03 && t.body.first() == Some(&0))?;
        Some((
            spki.whole,
            challenge.body,
            signed.whole,
            &signature.body[1..],
            oid,
        ))
    };
    match read() {
        Some((spki, challenge, signed, signature, oid)) => {
            let parts = [spki.len(), challenge.len(), signed.len(), signature.len()];
            Reply {
                value: json!({ "parts": parts, "signatureHash": signed_with(&oid).0 }).to_string(),
                data: [spki, challenge, signed, signature].concat(),
            }
        }
        None => Reply {
            value: json!({}).to_string(),
            data: Vec::new(),
        },
    }
}

/// A signature algorithm's hash (Node's name) and key type, where
/// `node:crypto` verifies it; (null, null) for one it does not (MD5 among
/// them, refused as `workerd`'s FIPS build refuses it).
fn signed_with(oid: &ObjectIdentifier) -> (Value, Value) {
    let (hash, kind) = match oid.to_string().as_str() {
        "1.2.840.113549.1.1.5" => ("sha1", "rsa"),
        "1.2.840.113549.1.1.14" => ("sha224", "rsa"),
        "1.2.840.113549.1.1.11" => ("sha256", "rsa"),
        "1.2.840.113549.1.1.12" => ("sha384", "rsa"),
        "1.2.840.113549.1.1.13" => ("sha512", "rsa"),
        "1.2.840.10045.4.1" => ("sha1", "ec"),
        "1.2.840.10045.4.3.1" => ("sha224", "ec"),
        "1.2.840.10045.4.3.2" => ("sha256", "ec"),
        "1.2.840.10045.4.3.3" => ("sha384", "ec"),
        "1.2.840.10045.4.3.4" => ("sha512", "ec"),
        "1.3.101.112" => return (Value::Null, "ed25519".into()),
        _ => return (Value::Null, Value::Null),
    };
    (hash.into(), kind.into())
}

/// A name as [short name, value] pairs in order (a multi-valued RDN's
/// values one after another, as Node lists them).
fn name(name: &Name) -> Value {
    let mut out = Vec::new();
    for rdn in &name.0 {
        for atv in rdn.0.iter() {
            out.push(json!([attribute(&atv.oid), text_of(&atv.value)]));
        }
    }
    Value::Array(out)
}

/// An attribute's short name, as OpenSSL's object table gives it.
fn attribute(oid: &ObjectIdentifier) -> String {
    let known = match oid.to_string().as_str() {
        "2.5.4.3" => "CN",
        "2.5.4.4" => "SN",
        "2.5.4.5" => "serialNumber",
        "2.5.4.6" => "C",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.9" => "street",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.12" => "title",
        "2.5.4.13" => "description",
        "2.5.4.15" => "businessCategory",
        "2.5.4.17" => "postalCode",
        "2.5.4.42" => "GN",
        "2.5.4.43" => "initials",
        "2.5.4.44" => "generationQualifier",
        "2.5.4.46" => "dnQualifier",
        "2.5.4.65" => "pseudonym",
        "2.5.4.97" => "organizationIdentifier",
        "1.2.840.113549.1.9.1" => "emailAddress",
        "0.9.2342.19200300.100.1.1" => "UID",
        "0.9.2342.19200300.100.1.25" => "DC",
        "1.3.6.1.4.1.311.60.2.1.1" => "jurisdictionL",
        "1.3.6.1.4.1.311.60.2.1.2" => "jurisdictionST",
        "1.3.6.1.4.1.311.60.2.1.3" => "jurisdictionC",
        other => return other.to_string(),
    };
    known.to_string()
}

/// A directory string's text: UTF-16 for a BMPString, hex for bytes, the
/// bytes as UTF-8 otherwise (lossily).
fn text_of(value: &Any) -> String {
    let bytes = value.value();
    match value.tag() {
        Tag::BmpString => {
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16_lossy(&units)
        }
        Tag::OctetString | Tag::BitString => hex(bytes),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// A general name as OpenSSL prints it.
fn general_name(general: &GeneralName) -> String {
    match general {
        GeneralName::Rfc822Name(s) => format!("email:{s}"),
        GeneralName::DnsName(s) => format!("DNS:{s}"),
        GeneralName::UniformResourceIdentifier(s) => format!("URI:{s}"),
        GeneralName::IpAddress(ip) => format!("IP Address:{}", ip_text(ip.as_bytes())),
        GeneralName::RegisteredId(oid) => format!("Registered ID:{oid}"),
        GeneralName::DirectoryName(n) => {
            let mut text = String::from("DirName:");
            for pair in name(n).as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "/{}={}",
                    pair[0].as_str().unwrap_or(""),
                    pair[1].as_str().unwrap_or("")
                ));
            }
            text
        }
        GeneralName::OtherName(_) => "othername:<unsupported>".into(),
        GeneralName::EdiPartyName(_) => "EdiPartyName:<unsupported>".into(),
    }
}

/// The names `checkHost`, `checkEmail` and `checkIP` compare with:
/// ["dns" | "email" | "ip", text].
fn checked_name(general: &GeneralName) -> Option<Value> {
    Some(match general {
        GeneralName::DnsName(s) => json!(["dns", s.to_string()]),
        GeneralName::Rfc822Name(s) => json!(["email", s.to_string()]),
        GeneralName::IpAddress(ip) => json!(["ip", ip_text(ip.as_bytes())]),
        _ => return None,
    })
}

/// An address as OpenSSL prints it: IPv4 dotted, IPv6 as eight hex
/// groups in capitals, none left out.
fn ip_text(bytes: &[u8]) -> String {
    match bytes.len() {
        4 => bytes
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join("."),
        16 => bytes
            .chunks_exact(2)
            .map(|c| format!("{:X}", u16::from_be_bytes([c[0], c[1]])))
            .collect::<Vec<_>>()
            .join(":"),
        _ => "<invalid>".into(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}
