//! `ssr build <server entry> --client <client entry>`: the browser's half of
//! a site, built in the same command as the server's.
//!
//! The client entry is bundled by the same esbuild, for the browser:
//! minified ES modules, code splitting, every file named with its content
//! hash (`client-5XCJQ3ZN.js`, `chunk-...js`, a CSS file if it imports
//! CSS). Its files are served as assets under [`CLIENT_PREFIX`], with a
//! year's immutable caching (their names change when their bytes do).
//! The server's bundle then sees the global `SSR_CLIENT`, a JSON object
//! naming them (esbuild `--define`):
//!
//! ```js
//! SSR_CLIENT = { script: "/assets/client-5XCJQ3ZN.js", css: ["/assets/client-X2B3C4D5.css"] }
//! ```
//!
//! so the page it renders loads exactly the client it was built with.

use std::path::Path;
use std::process::Command;

use super::BuildError;
use super::bundle::{find_esbuild, jsx_flags, no_esbuild, run_esbuild};
use crate::assets::{self, Source};

/// Where the client's files are served.
pub const CLIENT_PREFIX: &str = "/assets";

/// The client's files, and the `SSR_CLIENT` value that names them.
pub struct Client {
    pub files: Vec<Source>,
    /// JSON: `{"script": <path>, "css": [<path>...]}`.
    pub manifest: String,
}

/// esbuild flags for the browser's bundle (beyond the output's names).
const CLIENT_FLAGS: &[&str] = &[
    "--bundle",
    "--format=esm",
    "--platform=browser",
    "--target=es2020",
    "--minify",
    "--splitting",
    "--charset=utf8",
    "--log-level=warning",
    "--entry-names=[name]-[hash]",
    "--chunk-names=chunk-[hash]",
    "--asset-names=[name]-[hash]",
    "--define:process.env.NODE_ENV=\"production\"",
];

pub fn build(entry: &Path, jsx_import_source: Option<&str>) -> Result<Client, BuildError> {
    let source = std::fs::read_to_string(entry).map_err(|source| BuildError::ReadEntry {
        path: entry.to_path_buf(),
        source,
    })?;
    let flags = jsx_flags(entry, &source, jsx_import_source)?;
    let esbuild = find_esbuild(entry).ok_or_else(|| no_esbuild(entry))?;
    let entry_abs = std::fs::canonicalize(entry).map_err(|source| BuildError::ReadEntry {
        path: entry.to_path_buf(),
        source,
    })?;
    let work = tempfile::tempdir()
        .map_err(|e| BuildError::Client(format!("cannot make a temporary directory: {e}")))?;
    run_esbuild(
        Command::new(&esbuild)
            .current_dir(work.path())
            .arg(&entry_abs)
            .args(CLIENT_FLAGS)
            .args(&flags)
            .args(["--outdir=out", "--metafile=meta.json"]),
        &esbuild,
        entry,
    )?;
    let meta = std::fs::read(work.path().join("meta.json"))
        .map_err(|e| BuildError::Client(format!("esbuild wrote no metafile: {e}")))?;
    let manifest = manifest(&meta)?;
    let mut files = Vec::new();
    let unlimited = assets::Limits {
        file: usize::MAX,
        total: usize::MAX,
    };
    assets::collect(
        &work.path().join("out"),
        CLIENT_PREFIX,
        unlimited,
        &mut files,
    )?;
    for f in &mut files {
        // Name the client's files by their entry, not the temporary dir.
        f.from = entry.with_file_name(f.path.trim_start_matches('/'));
    }
    Ok(Client { files, manifest })
}

/// `SSR_CLIENT` from esbuild's metafile: the output that has an entry
/// point, and the CSS bundle beside it.
fn manifest(meta: &[u8]) -> Result<String, BuildError> {
    let bad = |why: &str| BuildError::Client(format!("esbuild's metafile: {why}"));
    let meta: serde_json::Value = serde_json::from_slice(meta).map_err(|_| bad("not JSON"))?;
    let outputs = meta
        .get("outputs")
        .and_then(|o| o.as_object())
        .ok_or_else(|| bad("no outputs"))?;
    let served = |out: &str| {
        let name = out.strip_prefix("out/").unwrap_or(out);
        format!("{CLIENT_PREFIX}/{name}")
    };
    let (script, info) = outputs
        .iter()
        .find(|(name, info)| info.get("entryPoint").is_some() && name.ends_with(".js"))
        .ok_or_else(|| bad("no output for the entry point"))?;
    let css: Vec<String> = info
        .get("cssBundle")
        .and_then(|c| c.as_str())
        .map(served)
        .into_iter()
        .collect();
    Ok(serde_json::json!({ "script": served(script), "css": css }).to_string())
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::manifest;

    fn the_manifest_names_the_entry_and_its_css() {
        let meta = br#"{"outputs": {
            "out/chunk-AB12CD34.js": {"imports": []},
            "out/client-5XCJQ3ZN.js": {"entryPoint": "../x/client.jsx", "cssBundle": "out/client-X2B3C4D5.css"},
            "out/client-X2B3C4D5.css": {}
        }}"#;
        assert_eq!(
            manifest(meta).unwrap(),
            r#"{"css":["/assets/client-X2B3C4D5.css"],"script":"/assets/client-5XCJQ3ZN.js"}"#
        );
    }

    crate::unit_tests!(the_manifest_names_the_entry_and_its_css);
}
