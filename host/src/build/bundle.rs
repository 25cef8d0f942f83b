//! Step 1 of a build: turn the entry file into one ES module.
//!
//! An entry that imports nothing is used as it is. An entry that imports
//! other modules (JSX, npm packages) is bundled with the esbuild found in the
//! nearest `node_modules/.bin` above the entry (or the working directory);
//! without one, the error says exactly how to install it or bundle by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::BuildError;

/// One ES module, ready to evaluate.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// Module name used in stack traces (the entry's file name).
    pub name: String,
    pub source: String,
}

/// esbuild flags: one ESM file, browser conditions (react-dom/server picks its
/// web-streams build), production mode, a target QuickJS-ng and V8 10.2 both
/// run.
pub const ESBUILD_FLAGS: &[&str] = &[
    "--bundle",
    "--format=esm",
    "--platform=browser",
    "--target=es2020",
    "--charset=utf8",
    "--log-level=warning",
    "--define:process.env.NODE_ENV=\"production\"",
];

pub fn bundle(entry: &Path) -> Result<Bundle, BuildError> {
    let source = std::fs::read_to_string(entry).map_err(|source| BuildError::ReadEntry {
        path: entry.to_path_buf(),
        source,
    })?;
    let name = entry
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle.js".into());
    let is_plain_js = matches!(
        entry.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs")
    );
    if is_plain_js && !has_imports(&source) {
        return Ok(Bundle { name, source });
    }
    let Some(esbuild) = find_esbuild(entry) else {
        let dir = entry
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        return Err(BuildError::NeedsBundler(format!(
            "{} imports other modules (or needs compiling), so it must be bundled, and no esbuild was found in a node_modules above it.\n\
             Either install esbuild next to it:  (cd {} && npm install --save-dev esbuild)\n\
             or bundle it yourself and build the bundle:\n  npx esbuild {} {} --outfile=bundle.mjs && ssr build bundle.mjs -o plugin.wasm",
            entry.display(),
            dir.display(),
            entry.display(),
            ESBUILD_FLAGS
                .iter()
                .map(|f| if f.contains('"') {
                    format!("'{f}'")
                } else {
                    f.to_string()
                })
                .collect::<Vec<_>>()
                .join(" "),
        )));
    };
    let out = Command::new(&esbuild)
        .arg(entry)
        .args(ESBUILD_FLAGS)
        .output()
        .map_err(|source| BuildError::RunBundler {
            path: esbuild.clone(),
            source,
        })?;
    if !out.status.success() {
        return Err(BuildError::Bundler {
            path: entry.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim_end().to_string(),
        });
    }
    let source = String::from_utf8(out.stdout).map_err(|_| BuildError::Bundler {
        path: entry.to_path_buf(),
        stderr: "esbuild produced output that is not UTF-8".into(),
    })?;
    Ok(Bundle { name, source })
}

/// Whether a module's source has static or dynamic imports (or re-exports).
/// A quick scan: false positives only cost an esbuild run.
fn has_imports(source: &str) -> bool {
    source.lines().any(|l| {
        let l = l.trim_start();
        (l.starts_with("import") && !l.starts_with("import.meta"))
            || (l.starts_with("export") && l.contains(" from "))
            || l.contains("import(")
            || l.contains("require(")
    })
}

/// The nearest `node_modules/.bin/esbuild` above the entry, then above the
/// working directory.
fn find_esbuild(entry: &Path) -> Option<PathBuf> {
    let entry_dir = std::fs::canonicalize(entry)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let cwd = std::env::current_dir().ok();
    [entry_dir, cwd].into_iter().flatten().find_map(|start| {
        start
            .ancestors()
            .map(|d| d.join("node_modules/.bin/esbuild"))
            .find(|p| p.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::has_imports;

    #[test]
    fn detects_imports() {
        assert!(has_imports("import React from 'react';\n"));
        assert!(has_imports("export { x } from './x.js';"));
        assert!(!has_imports("export function render() { return 'hi' }"));
        assert!(!has_imports("const u = import.meta.url;"));
    }
}
