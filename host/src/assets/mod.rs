//! Static assets: the files `ssr build --assets <dir>` packs into a plugin
//! (the browser's JavaScript, CSS, fonts, images), and how the host serves
//! them, from memory, before a renderer sees the request.
//!
//! - `table.rs`: the plugin's `ssr-assets` section (an index and the bytes),
//!   written by the build and read back, checked, at registration.
//! - `pack.rs`: the build's half: a directory in, precompressed, out.
//! - `binding.rs`: Workers' rules for HTML files, not-found handling and
//!   `_redirects`, for the host and for `env.ASSETS`.
//! - `respond.rs`: one asset as an HTTP response (encodings, `ETag` and
//!   `304`, `Range`, `HEAD`).
//!
//! Lifetime: an [`Assets`] is made once per tenant version, when its plugin
//! is registered or loaded, and is immutable; requests share it.
//!
//! Invariants:
//! - Every path in a table is a normalized absolute URL path: `/` then
//!   segments that are not empty, `.` or `..`, with no NUL, control
//!   character or backslash ([`check_path`]). A request path is looked up,
//!   never joined to anything: whatever it holds (`..`, an encoded slash,
//!   NUL), it names one of the table's files or none ([`Assets::find`]).
//! - A table that is truncated or inconsistent (a span outside the data,
//!   copies that share bytes, an identity copy whose SHA-256 is not the one
//!   recorded, a compressed copy that does not decode to it, a path twice)
//!   is refused whole, at registration: no tenant ever serves part of a
//!   table. A stored plugin, whose SHA-256 is checked as it is read back,
//!   is not hashed or decoded again at start ([`Verify`]).
//! - Which wins: for `GET` and `HEAD`, an asset's path is the asset's; the
//!   renderer gets every other path and every other method.

pub mod binding;
mod pack;
mod respond;
mod table;

use std::collections::HashMap;
use std::path::PathBuf;

use axum::http::{HeaderMap, HeaderValue};
use bytes::Bytes;
use thiserror::Error;

use crate::app::AppConfig;
use crate::encoding::Encoding;
pub use pack::{Limits, Source, collect, pack};
pub use respond::respond;
pub use table::Verify;

/// The largest file `ssr build` packs, unless `--max-asset-mib` says.
pub const DEFAULT_MAX_FILE: usize = 8 << 20;
/// The largest total `ssr build` packs, unless `--max-assets-mib` says.
pub const DEFAULT_MAX_TOTAL: usize = 32 << 20;
/// The most files one table may hold.
pub const MAX_FILES: usize = 20_000;
/// The longest path, in bytes.
pub const MAX_PATH: usize = 1024;

/// `Cache-Control` of a file whose name carries a content hash: its bytes
/// never change under that name.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of any other file: it may change with the next version
/// of the tenant, so browsers and CDNs ask again after a minute (and get a
/// `304` while it has not changed).
pub const SHORT: &str = "public, max-age=60";

/// Why a directory could not be packed, or a table is refused.
#[derive(Debug, Error)]
pub enum AssetError {
    #[error("cannot read the assets directory {}", .0.display())]
    ReadDir(PathBuf, #[source] std::io::Error),
    #[error("cannot read asset {}", .0.display())]
    Read(PathBuf, #[source] std::io::Error),
    #[error(
        "asset {} is {size} bytes, over the limit of {limit} bytes for one file; make it smaller or raise --max-asset-mib",
        .path.display()
    )]
    FileTooLarge {
        path: PathBuf,
        size: usize,
        limit: usize,
    },
    #[error(
        "the assets come to more than {limit} bytes (at {}); pack fewer or smaller files, or raise --max-assets-mib",
        .path.display()
    )]
    TotalTooLarge { path: PathBuf, limit: usize },
    #[error(
        "asset {} is a symbolic link to {}, outside {}; copy the file into the directory instead",
        .path.display(), .target.display(), .root.display()
    )]
    LinkOutside {
        path: PathBuf,
        target: PathBuf,
        root: PathBuf,
    },
    #[error("asset {}: {why}", .path.display())]
    BadName { path: PathBuf, why: String },
    #[error(
        "{} is a Pages `_worker.js` in the assets directory: packed, the app's server code would be served to anyone; add an `.assetsignore` containing `_worker.js` to {} (or an empty one, to serve it anyway), as `wrangler deploy` asks",
        .path.display(), .dir.display()
    )]
    ServerCode { path: PathBuf, dir: PathBuf },
    #[error("two assets would be served at {0}; rename one")]
    Duplicate(String),
    #[error("the plugin's asset table is corrupt ({0}); build the plugin again with `ssr build`")]
    Corrupt(String),
}

/// One file as served: its bytes in each encoding it has, and the head of
/// a `200` in each, made once.
#[derive(Debug)]
pub struct Asset {
    pub path: String,
    /// By `Encoding as usize`; identity is always there.
    bodies: [Option<Bytes>; 3],
    /// The strong validator of each encoding's bytes.
    etags: [Option<HeaderValue>; 3],
    /// The whole head of a `200` in each encoding it has.
    heads: [HeaderMap; 3],
}

impl Asset {
    /// The body and head for `wanted`, or identity's if it was not made
    /// (smaller copies only are kept).
    fn encoded(&self, wanted: Encoding) -> (Encoding, &Bytes, &HeaderMap) {
        match &self.bodies[wanted as usize] {
            Some(b) => (wanted, b, &self.heads[wanted as usize]),
            None => (
                Encoding::Identity,
                self.identity(),
                &self.heads[Encoding::Identity as usize],
            ),
        }
    }

    pub fn identity(&self) -> &Bytes {
        self.bodies[0].as_ref().expect("identity is always kept")
    }

    fn identity_etag(&self) -> &HeaderValue {
        self.etags[0].as_ref().expect("identity is always kept")
    }

    /// Whether an `If-None-Match` value names one of this file's encodings
    /// (weak comparison, RFC 9110 13.1.2).
    fn matches(&self, if_none_match: &[u8]) -> bool {
        let tags = if_none_match
            .split(|&b| b == b',')
            .map(|t| t.trim_ascii())
            .map(|t| t.strip_prefix(b"W/").unwrap_or(t));
        tags.into_iter()
            .any(|t| t == b"*" || self.etags.iter().flatten().any(|e| e.as_bytes() == t))
    }
}

/// A tenant version's assets, by path, and its app config: how they are
/// served, and the `env` its config declares (`crate::app`).
#[derive(Debug, Default)]
pub struct Assets {
    files: HashMap<Box<str>, Asset, foldhash::fast::RandomState>,
    bytes: usize,
    pub app: AppConfig,
}

impl Assets {
    /// The assets in a plugin (none if it has no assets section), checked
    /// as `verify` says.
    pub fn from_plugin(plugin: &[u8], verify: Verify) -> Result<Assets, AssetError> {
        let section = crate::artifact::custom_section(plugin, crate::artifact::ASSETS_SECTION)
            .map_err(|e| AssetError::Corrupt(e.to_string()))?;
        let mut assets = match section {
            Some(data) => table::read(data, verify)?,
            None => Assets::default(),
        };
        assets.app = AppConfig::from_plugin(plugin).map_err(AssetError::Corrupt)?;
        Ok(assets)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The bytes held, every encoding counted.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The asset a request's path (percent-encoded, without the query)
    /// names, if any. An encoded `/` or NUL names none: no file name holds
    /// either, and `a%2Fb` is not the path `a/b`.
    pub fn find(&self, path: &str) -> Option<&Asset> {
        if self.files.is_empty() {
            return None;
        }
        if !path.contains('%') {
            return self.files.get(path);
        }
        let decoded = percent_encoding::percent_decode_str(path)
            .decode_utf8()
            .ok()?;
        if decoded.contains('\0') || decoded.matches('/').count() != path.matches('/').count() {
            return None;
        }
        self.files.get(&*decoded)
    }

    /// Every path, sorted (for `ssr tenant` and the admin API).
    pub fn paths(&self) -> Vec<&str> {
        let mut all: Vec<&str> = self.files.keys().map(|k| &**k).collect();
        all.sort_unstable();
        all
    }

    fn insert(&mut self, asset: Asset) -> Result<(), AssetError> {
        self.bytes += asset.bodies.iter().flatten().map(Bytes::len).sum::<usize>();
        let path: Box<str> = asset.path.as_str().into();
        if self.files.insert(path, asset).is_some() {
            return Err(AssetError::Corrupt("a path appears twice".into()));
        }
        Ok(())
    }
}

/// Why `path` cannot be an asset's URL path, if it cannot; see the module
/// doc.
pub fn check_path(path: &str) -> Result<(), String> {
    if path.len() > MAX_PATH {
        return Err(format!("the path is over {MAX_PATH} bytes"));
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err("the path does not start with /".into());
    };
    for segment in rest.split('/') {
        match segment {
            "" => return Err("the path has an empty segment".into()),
            "." | ".." => return Err(format!("the path has a `{segment}` segment")),
            _ => {}
        }
        if let Some(c) = segment.chars().find(|c| c.is_control() || *c == '\\') {
            return Err(format!("the name holds the character {c:?}"));
        }
    }
    Ok(())
}

/// Whether a file name carries a content hash, as bundlers write them
/// (esbuild `[name]-[hash]`, Vite `[name]-[hash]`, webpack
/// `[name].[contenthash]`): a part of the name, between `-` or `.`, of 8 to
/// 64 letters, digits and `_` that holds a digit and a letter, or is
/// esbuild's 8 upper-case base-32 characters. A name that only looks
/// hashed would be cached by browsers for a year, so the rule is narrow: a
/// hash it misses only gets the short max-age.
pub fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    stem.split(['-', '.']).skip(1).any(|part| {
        let ok_chars = part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let digit = part.bytes().any(|b| b.is_ascii_digit());
        let letter = part.bytes().any(|b| b.is_ascii_alphabetic());
        let base32 = part.len() == 8
            && part
                .bytes()
                .all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b));
        ok_chars && (8..=64).contains(&part.len()) && ((digit && letter) || base32)
    })
}

/// The `Content-Type` of a path, from its extension (`mime_guess`'s
/// table), with `charset=utf-8` for text.
pub fn content_type(path: &str) -> String {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let textual = mime.type_() == mime_guess::mime::TEXT
        || mime.subtype() == mime_guess::mime::JAVASCRIPT
        || mime.subtype() == mime_guess::mime::JSON;
    if textual && mime.get_param(mime_guess::mime::CHARSET).is_none() {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn hashed_names_obeyed() {
        for p in [
            "/assets/client-5XCJQ3ZN.js",
            "/assets/client-ABCDEFGH.css",
            "/main.3f2a1b4c9d.js",
            "/index-Bf2QxZ9a.js",
            "/chunks/chunk-7QVYU63E.js",
        ] {
            assert!(is_hashed(p), "{p}");
        }
    }

    fn hashed_names_violated() {
        for p in [
            "/logo.png",
            "/app.js",
            "/bundle-Homepage.js",
            "/fonts/inter-variable.woff2",
            "/5XCJQ3ZN.js",
            "/a-abcdefgh.js",
        ] {
            assert!(!is_hashed(p), "{p}");
        }
    }

    fn paths_obeyed_and_violated() {
        for p in ["/a.js", "/assets/x y.png", "/.well-known/security.txt"] {
            check_path(p).unwrap();
        }
        for p in [
            "a.js", "/", "/a//b", "/a/../b", "/./a", "/a\\b", "/a\0b", "/a\nb",
        ] {
            assert!(check_path(p).is_err(), "{p:?}");
        }
    }

    fn content_types_come_from_the_table() {
        assert_eq!(content_type("/a.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("/a.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("/a.json"), "application/json; charset=utf-8");
        assert_eq!(content_type("/a.woff2"), "font/woff2");
        assert_eq!(content_type("/a.png"), "image/png");
        assert_eq!(content_type("/a.svg"), "image/svg+xml");
        assert_eq!(content_type("/noext"), "application/octet-stream");
    }

    crate::unit_tests!(
        hashed_names_obeyed,
        hashed_names_violated,
        paths_obeyed_and_violated,
        content_types_come_from_the_table
    );
}
