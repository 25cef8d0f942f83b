//! The `ssr-assets` section of a plugin: how `ssr build` writes the table
//! ([`write`]) and how registration reads it back ([`read`]).
//!
//! Layout, all integers little-endian:
//! ```text
//! "ssra" 0x01          magic and format version
//! u32                  length of the index
//! index                JSON: {"files": [{"path", "sha256", "identity", "gzip"?, "br"?}]},
//!                      each copy a span [offset, length] into the data
//! data                 every copy's bytes
//! ```
//!
//! Invariants:
//! - [`read`] accepts a table only if every part of it is consistent (see
//!   the module doc of `assets`): the whole table, or an error that says
//!   what is wrong.
//! - No two copies share a byte of the data, so checking a table hashes and
//!   decodes each byte of it once: a table whose many entries point at the
//!   same bytes cannot make registration or start-up pay for each.
//! - [`Verify::Structure`] skips the hashes and decodings, for a plugin
//!   whose bytes the stored record's SHA-256 vouches for (checked whole
//!   when registered); the layout is checked either way.

use axum::http::{HeaderMap, HeaderValue, header};
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use super::{Asset, AssetError, Assets, MAX_FILES};
use crate::encoding::{Encoding, decompress};

const MAGIC: &[u8; 5] = b"ssra\x01";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    files: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    /// SHA-256 of the identity copy, lower-case hex.
    sha256: String,
    identity: Span,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gzip: Option<Span>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    br: Option<Span>,
}

/// `[offset, length]` in the data.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct Span(u64, u64);

/// One file as the build packs it.
pub struct Packed {
    pub path: String,
    pub identity: Vec<u8>,
    pub gzip: Option<Bytes>,
    pub br: Option<Bytes>,
}

/// The section's bytes for `files`.
pub fn write(files: &[Packed]) -> Vec<u8> {
    let mut data = Vec::new();
    let mut span = |bytes: &[u8]| {
        let s = Span(data.len() as u64, bytes.len() as u64);
        data.extend_from_slice(bytes);
        s
    };
    let entries = files
        .iter()
        .map(|f| Entry {
            path: f.path.clone(),
            sha256: crate::artifact::digest(&f.identity),
            identity: span(&f.identity),
            gzip: f.gzip.as_deref().map(&mut span),
            br: f.br.as_deref().map(&mut span),
        })
        .collect();
    let index = serde_json::to_vec(&Index { files: entries }).expect("the index serializes");
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + index.len() + data.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(index.len() as u32).to_le_bytes());
    out.extend_from_slice(&index);
    out.extend_from_slice(&data);
    out
}

/// How much of a table [`read`] checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Layout, paths and spans, each identity copy's SHA-256 and each
    /// compressed copy's decoding: a plugin being registered.
    Whole,
    /// Layout, paths and spans only: a stored plugin whose SHA-256 was
    /// checked as it was read (its bytes are those registered).
    Structure,
}

/// The assets in a section, checked as `verify` says.
pub fn read(section: &[u8], verify: Verify) -> Result<Assets, AssetError> {
    let corrupt = |why: String| AssetError::Corrupt(why);
    let rest = section
        .strip_prefix(MAGIC)
        .ok_or_else(|| corrupt("it does not start with the table's magic and version 1".into()))?;
    let (len, rest) = rest
        .split_first_chunk::<4>()
        .ok_or_else(|| corrupt("it is truncated before the index".into()))?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return Err(corrupt(format!(
            "the index is said to be {len} bytes but {} remain",
            rest.len()
        )));
    }
    let (index, data) = rest.split_at(len);
    let index: Index =
        serde_json::from_slice(index).map_err(|e| corrupt(format!("the index: {e}")))?;
    if index.files.len() > MAX_FILES {
        return Err(corrupt(format!("it lists over {MAX_FILES} files")));
    }
    disjoint(&index.files).map_err(corrupt)?;
    // One buffer for every copy; each asset's bytes are slices of it.
    let data = Bytes::copy_from_slice(data);
    let mut assets = Assets::default();
    for entry in index.files {
        let path = entry.path.clone();
        let asset = asset(entry, &data, verify).map_err(|why| corrupt(format!("{path}: {why}")))?;
        assets.insert(asset)?;
    }
    Ok(assets)
}

/// Refuses copies that share bytes (empty ones share none).
fn disjoint(files: &[Entry]) -> Result<(), String> {
    let mut spans: Vec<(u64, u64, &str)> = files
        .iter()
        .flat_map(|e| {
            [Some(e.identity), e.gzip, e.br]
                .into_iter()
                .flatten()
                .filter(|s| s.1 > 0)
                .map(|Span(offset, len)| (offset, offset.saturating_add(len), e.path.as_str()))
        })
        .collect();
    spans.sort_unstable();
    for pair in spans.windows(2) {
        let ((_, end, a), (start, _, b)) = (pair[0], pair[1]);
        if start < end {
            return Err(format!(
                "copies of {a} and {b} share bytes at {start}; each copy must have its own"
            ));
        }
    }
    Ok(())
}

/// One entry, checked as `verify` says, as served.
fn asset(entry: Entry, data: &Bytes, verify: Verify) -> Result<Asset, String> {
    super::check_path(&entry.path)?;
    let slice = |Span(offset, len): Span| {
        let end = offset.checked_add(len).filter(|&e| e <= data.len() as u64);
        match end {
            Some(end) => Ok(data.slice(offset as usize..end as usize)),
            None => Err(format!(
                "a copy spans bytes {offset}..{offset}+{len}, past the data's {} bytes",
                data.len()
            )),
        }
    };
    let identity = slice(entry.identity)?;
    let whole = verify == Verify::Whole;
    if entry.sha256.len() != 64 || !entry.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("its SHA-256 is not 64 hex digits".into());
    }
    if whole && crate::artifact::digest(&identity) != entry.sha256 {
        return Err("its bytes do not hash to the SHA-256 the index records".into());
    }
    let mut bodies = [Some(identity.clone()), None, None];
    for (encoding, span) in [(Encoding::Gzip, entry.gzip), (Encoding::Br, entry.br)] {
        let Some(span) = span else { continue };
        let copy = slice(span)?;
        if whole && decompress(encoding, &copy, identity.len()).as_deref() != Some(&identity[..]) {
            return Err(format!(
                "its {} copy does not decode to its bytes",
                encoding.name().unwrap_or("identity")
            ));
        }
        bodies[encoding as usize] = Some(copy);
    }
    Ok(made(entry.path, &entry.sha256, bodies))
}

/// The served form of a checked file: validators and heads.
fn made(path: String, sha256: &str, bodies: [Option<Bytes>; 3]) -> Asset {
    let content_type = HeaderValue::try_from(super::content_type(&path))
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    let cache_control = HeaderValue::from_static(match super::is_hashed(&path) {
        true => super::IMMUTABLE,
        false => super::SHORT,
    });
    let varies = bodies[1].is_some() || bodies[2].is_some();
    let tag = &sha256[..32];
    let etags = [Encoding::Identity, Encoding::Gzip, Encoding::Br].map(|e| {
        bodies[e as usize].as_ref().map(|_| {
            let suffix = e.name().map_or(String::new(), |n| format!("-{n}"));
            HeaderValue::try_from(format!("\"{tag}{suffix}\"")).expect("hex is a valid header")
        })
    });
    let heads = [Encoding::Identity, Encoding::Gzip, Encoding::Br].map(|e| {
        let (Some(body), Some(etag)) = (&bodies[e as usize], &etags[e as usize]) else {
            return HeaderMap::new();
        };
        let mut h = HeaderMap::with_capacity(8);
        h.insert(header::CONTENT_TYPE, content_type.clone());
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        if let Some(name) = e.name() {
            h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
        }
        h.insert(header::ETAG, etag.clone());
        h.insert(header::CACHE_CONTROL, cache_control.clone());
        h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        if varies {
            h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        }
        h
    });
    Asset {
        path,
        bodies,
        etags,
        heads,
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use crate::encoding::{Effort, compress};

    fn packed(path: &str, body: &[u8]) -> Packed {
        Packed {
            path: path.into(),
            identity: body.to_vec(),
            gzip: compress(Encoding::Gzip, body, Effort::Serving),
            br: compress(Encoding::Br, body, Effort::Serving),
        }
    }

    fn table() -> Vec<u8> {
        write(&[
            packed("/app.js", "let x = 1;\n".repeat(100).as_bytes()),
            packed("/logo.png", &[0x89, b'P', b'N', b'G']),
        ])
    }

    fn a_written_table_reads_back() {
        let assets = read(&table(), Verify::Whole).unwrap();
        assert_eq!(assets.paths(), ["/app.js", "/logo.png"]);
        let js = assets.find("/app.js").unwrap();
        assert_eq!(js.identity().len(), 1100);
        assert!(js.bodies[2].is_some());
    }

    fn every_truncation_is_refused() {
        let t = table();
        for cut in 0..t.len() {
            let err = read(&t[..cut], Verify::Whole).err().map(|e| e.to_string());
            // The data's last byte belongs to a copy, so a table missing it
            // is inconsistent too.
            assert!(
                err.is_some(),
                "a table cut at {cut} of {} was read",
                t.len()
            );
        }
    }

    fn inconsistent_tables_are_refused() {
        let t = table();
        let index_len = u32::from_le_bytes(t[5..9].try_into().unwrap()) as usize;
        let index = std::str::from_utf8(&t[9..9 + index_len])
            .unwrap()
            .to_string();
        let with_index = |index: &str| {
            let mut out = MAGIC.to_vec();
            out.extend_from_slice(&(index.len() as u32).to_le_bytes());
            out.extend_from_slice(index.as_bytes());
            out.extend_from_slice(&t[9 + index_len..]);
            out
        };
        let cases = [
            (
                index.replacen("/app.js", "/../etc/passwd", 1),
                "`..` segment",
            ),
            (index.replacen("/logo.png", "/app.js", 1), "twice"),
            (
                index.replacen("\"sha256\":\"", "\"sha256\":\"0", 1),
                "SHA-256",
            ),
            (
                index.replacen("\"identity\":[", "\"identity\":[99999", 1),
                "past the data",
            ),
        ];
        for (index, want) in cases {
            let err = read(&with_index(&index), Verify::Whole)
                .unwrap_err()
                .to_string();
            assert!(err.contains(want), "{want}: {err}");
        }
        // A compressed copy that is another file's bytes.
        let mut swapped = t.clone();
        let at = swapped.len() - 1;
        swapped[at] ^= 0xff;
        assert!(read(&swapped, Verify::Whole).is_err());
    }

    fn copies_that_share_bytes_are_refused() {
        let body = vec![7u8; 4096];
        let sha = crate::artifact::digest(&body);
        let entries: Vec<String> = (0..3)
            .map(|i| format!(r#"{{"path":"/f{i}","sha256":"{sha}","identity":[0,4096]}}"#))
            .collect();
        let index = format!(r#"{{"files":[{}]}}"#, entries.join(","));
        let mut t = MAGIC.to_vec();
        t.extend_from_slice(&(index.len() as u32).to_le_bytes());
        t.extend_from_slice(index.as_bytes());
        t.extend_from_slice(&body);
        for verify in [Verify::Whole, Verify::Structure] {
            let err = read(&t, verify).unwrap_err().to_string();
            assert!(
                err.contains("copies of /f0 and /f1 share bytes at 0"),
                "{err}"
            );
        }
    }

    fn a_vouched_table_is_not_hashed_again() {
        // A recorded SHA-256 that is not the bytes': only a whole check
        // sees it, so a structure check did not hash.
        let t = table();
        let at = t.windows(8).position(|w| w == b"\"sha256\"").unwrap() + 10;
        let mut other = t.clone();
        other[at] = if other[at] == b'0' { b'1' } else { b'0' };
        assert!(read(&other, Verify::Whole).is_err());
        let assets = read(&other, Verify::Structure).unwrap();
        assert_eq!(assets.paths(), ["/app.js", "/logo.png"]);
    }

    crate::unit_tests!(
        a_written_table_reads_back,
        every_truncation_is_refused,
        inconsistent_tables_are_refused,
        copies_that_share_bytes_are_refused,
        a_vouched_table_is_not_hashed_again
    );
}
