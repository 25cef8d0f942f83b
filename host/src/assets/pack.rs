//! The build's half of assets: [`collect`] reads a directory into
//! [`Source`]s (checking names, links and sizes as it goes), and [`pack`]
//! precompresses them into the `ssr-assets` section (`table.rs`).
//!
//! Invariants:
//! - A symbolic link is followed only to a file inside the directory; one
//!   that leaves it is refused, naming the link and its target.
//! - A file over [`Limits::file`] or a total over [`Limits::total`] is
//!   refused, naming the file; nothing is silently left out.
//! - Compressed copies are made for text types only, and kept only when
//!   smaller than the file.

use std::path::{Path, PathBuf};

use super::AssetError;
use super::table::{self, Packed};
use crate::encoding::{Effort, Encoding, MIN_COMPRESS, compress, compressible_type};

/// How much `ssr build` packs.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of one file.
    pub file: usize,
    /// Bytes of every file together (before compression).
    pub total: usize,
}

impl Limits {
    /// Admits a file of `size` bytes read from `from`, with `total` the
    /// bytes admitted before it: refused past either limit, naming it.
    pub fn admit(&self, from: &Path, size: usize, total: &mut usize) -> Result<(), AssetError> {
        if size > self.file {
            return Err(AssetError::FileTooLarge {
                path: from.into(),
                size,
                limit: self.file,
            });
        }
        *total += size;
        if *total > self.total {
            return Err(AssetError::TotalTooLarge {
                path: from.into(),
                limit: self.total,
            });
        }
        Ok(())
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            file: super::DEFAULT_MAX_FILE,
            total: super::DEFAULT_MAX_TOTAL,
        }
    }
}

/// One file to pack: the URL path it is served at, its bytes, and where it
/// came from (for messages).
pub struct Source {
    pub path: String,
    pub bytes: Vec<u8>,
    pub from: PathBuf,
}

/// Files of an assets directory that configure how it is served and are
/// never served themselves, as on Workers: `.assetsignore` (gitignore
/// patterns of files not to pack), `_headers` and `_redirects` (read into
/// the plugin's `ssr-app` section by the build).
pub const CONFIG_FILES: &[&str] = &[".assetsignore", "_headers", "_redirects"];

/// Adds every file under `dir` to `out`, served at `prefix` + its path
/// relative to `dir` (`prefix` is "" or starts with `/`), sorted by path,
/// less the [`CONFIG_FILES`] at its top and what its `.assetsignore` names.
/// A `_worker.js` file or directory at its top (Pages' server code, which
/// some adapters write beside the assets) is refused unless an
/// `.assetsignore` is there, as `wrangler deploy` refuses it.
pub fn collect(
    dir: &Path,
    prefix: &str,
    limits: Limits,
    out: &mut Vec<Source>,
) -> Result<(), AssetError> {
    let root = std::fs::canonicalize(dir).map_err(|e| AssetError::ReadDir(dir.into(), e))?;
    let mut total: usize = out.iter().map(|s| s.bytes.len()).sum();
    let ignored = ignore_list(dir)?;
    let server_code = dir.join("_worker.js");
    if server_code.exists() && !dir.join(".assetsignore").exists() {
        return Err(AssetError::ServerCode {
            path: server_code,
            dir: dir.into(),
        });
    }
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .sort_by_file_name();
    for entry in walk {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(dir).to_path_buf();
            match e.into_io_error() {
                Some(io) => AssetError::Read(at, io),
                None => AssetError::BadName {
                    path: at,
                    why: "a symbolic link loop".into(),
                },
            }
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let path = entry.path();
        let relative = path.strip_prefix(dir).unwrap_or(path);
        if CONFIG_FILES.iter().any(|f| relative == Path::new(f))
            || ignored
                .matched_path_or_any_parents(relative, false)
                .is_ignore()
        {
            continue;
        }
        let target = std::fs::canonicalize(path).map_err(|e| AssetError::Read(path.into(), e))?;
        if !target.starts_with(&root) {
            return Err(AssetError::LinkOutside {
                path: path.into(),
                target,
                root: dir.into(),
            });
        }
        if !entry.file_type().is_file() {
            return Err(AssetError::BadName {
                path: path.into(),
                why: "not a regular file (a socket, device or pipe)".into(),
            });
        }
        let url = url_path(prefix, path.strip_prefix(dir).unwrap_or(path)).map_err(|why| {
            AssetError::BadName {
                path: path.into(),
                why,
            }
        })?;
        let size = entry
            .metadata()
            .map_err(|e| AssetError::Read(path.into(), e.into()))?
            .len() as usize;
        // Refused before it is read; checked again once read, as the file
        // may have grown since.
        limits.admit(path, size, &mut total.clone())?;
        let bytes = std::fs::read(path).map_err(|e| AssetError::Read(path.into(), e))?;
        limits.admit(path, bytes.len(), &mut total)?;
        out.push(Source {
            path: url,
            bytes,
            from: path.into(),
        });
    }
    Ok(())
}

/// The patterns of `dir`'s `.assetsignore` (none without one).
fn ignore_list(dir: &Path) -> Result<ignore::gitignore::Gitignore, AssetError> {
    let file = dir.join(".assetsignore");
    let mut list = ignore::gitignore::GitignoreBuilder::new(dir);
    if file.exists()
        && let Some(e) = list.add(&file)
    {
        return Err(AssetError::BadName {
            path: file,
            why: format!("not a list of gitignore patterns: {e}"),
        });
    }
    list.build().map_err(|e| AssetError::BadName {
        path: file,
        why: format!("not a list of gitignore patterns: {e}"),
    })
}

/// The URL path of a file at `relative` under the assets directory.
fn url_path(prefix: &str, relative: &Path) -> Result<String, String> {
    let mut url = prefix.trim_end_matches('/').to_string();
    for part in relative.components() {
        let std::path::Component::Normal(name) = part else {
            return Err("not a plain path below the directory".into());
        };
        let name = name
            .to_str()
            .ok_or("its name is not UTF-8; rename it (URLs name files in UTF-8)")?;
        url.push('/');
        url.push_str(name);
    }
    super::check_path(&url)?;
    Ok(url)
}

/// The `ssr-assets` section for `sources`, precompressed; `each` is called
/// before each file with its number, the count and its path.
pub fn pack(
    sources: Vec<Source>,
    each: &mut dyn FnMut(usize, usize, &str),
) -> Result<Vec<u8>, AssetError> {
    let mut seen = std::collections::HashSet::new();
    let count = sources.len();
    let mut packed = Vec::with_capacity(count);
    for (i, source) in sources.into_iter().enumerate() {
        if !seen.insert(source.path.clone()) {
            return Err(AssetError::Duplicate(source.path));
        }
        each(i + 1, count, &source.path);
        let text = compressible_type(&super::content_type(&source.path));
        let smaller = |e: Encoding| {
            (text && source.bytes.len() >= MIN_COMPRESS)
                .then(|| compress(e, &source.bytes, Effort::Best))
                .flatten()
                .filter(|c| c.len() < source.bytes.len())
        };
        packed.push(Packed {
            gzip: smaller(Encoding::Gzip),
            br: smaller(Encoding::Br),
            path: source.path,
            identity: source.bytes,
        });
    }
    Ok(table::write(&packed))
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn url_paths_join_the_prefix() {
        assert_eq!(url_path("", Path::new("a/b.js")).unwrap(), "/a/b.js");
        assert_eq!(
            url_path("/assets/", Path::new("c-X.js")).unwrap(),
            "/assets/c-X.js"
        );
        assert!(url_path("", Path::new("../x")).is_err());
    }

    crate::unit_tests!(url_paths_join_the_prefix);
}
