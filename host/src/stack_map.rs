//! A render error's JavaScript stack, mapped to the site's own files: each
//! frame `bundle.js:LINE:COL` becomes `src/file.js:LINE:COL` by the source
//! map `ssr build` keeps in the plugin (`build::SourceMaps`), on both
//! engines, before the error reaches the log, a `debug` error page, a log
//! follower or `ssr render`.
//!
//! Invariants:
//! - Lazy: a tenant holds only where its map is (a file beside its plugin
//!   in the data dir, or the bytes for a server without one); the map is
//!   read and parsed at its first error, then kept with the tenant's
//!   version.
//! - A frame that cannot be mapped is left as it was; a map that cannot be
//!   read maps nothing. Mapping never fails a render.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::artifact::{LOWERED_MAP_SECTION, SOURCE_MAP_SECTION, custom_section};
use crate::config::EngineKind;

/// Where a tenant version's source map is, and, once read, the map.
pub struct StackMap {
    from: MapSource,
    parsed: OnceLock<Option<sourcemap::SourceMap>>,
}

enum MapSource {
    /// Written once beside the plugin in the data dir.
    File(PathBuf),
    /// Kept in memory: a server without a data dir, or `ssr render`.
    Bytes(Arc<[u8]>),
}

impl std::fmt::Debug for StackMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.from {
            MapSource::File(path) => write!(f, "StackMap({})", path.display()),
            MapSource::Bytes(b) => write!(f, "StackMap({} bytes)", b.len()),
        }
    }
}

impl StackMap {
    pub fn in_file(path: PathBuf) -> Arc<StackMap> {
        Arc::new(StackMap {
            from: MapSource::File(path),
            parsed: OnceLock::new(),
        })
    }

    pub fn in_memory(bytes: &[u8]) -> Arc<StackMap> {
        Arc::new(StackMap {
            from: MapSource::Bytes(bytes.into()),
            parsed: OnceLock::new(),
        })
    }

    fn map(&self) -> Option<&sourcemap::SourceMap> {
        self.parsed
            .get_or_init(|| {
                let bytes = match &self.from {
                    MapSource::File(path) => std::fs::read(path).ok()?,
                    MapSource::Bytes(bytes) => bytes.to_vec(),
                };
                sourcemap::SourceMap::from_slice(&bytes).ok()
            })
            .as_ref()
    }

    /// `stack` with each frame in the bundle mapped to its source file,
    /// line and column. The bundle's frames name it as the Wasm engine does
    /// (the entry's file name, which the map's `file` holds) or as V8 does
    /// ([`crate::engine::v8`]'s `bundle.js`).
    pub fn apply(&self, stack: &str) -> String {
        let Some(map) = self.map() else {
            return stack.to_string();
        };
        let names = [map.get_file().unwrap_or("bundle.js"), "bundle.js"];
        stack
            .lines()
            .map(|line| {
                names
                    .iter()
                    .find_map(|name| map_frame(map, name, line))
                    .unwrap_or_else(|| line.to_string())
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One stack line with its `bundle:LINE:COL` mapped, if it has one.
fn map_frame(map: &sourcemap::SourceMap, bundle: &str, line: &str) -> Option<String> {
    let needle = format!("{bundle}:");
    let at = line.rfind(&needle)?;
    // Where the name starts: after `(`, a space, or `/` (V8 may show a
    // path or URL ending in it).
    let rest = &line[at + needle.len()..];
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let n = digits(rest);
    let (row, rest) = rest.split_at(n);
    let rest = rest.strip_prefix(':')?;
    let m = digits(rest);
    let (col, tail) = rest.split_at(m);
    let (row, col) = (row.parse::<u32>().ok()?, col.parse::<u32>().ok()?);
    let (source, row, col) = if map.get_token_count() == 0 {
        // No mappings and one source: a plain entry, bundled as written
        // (`build::bundle`); only the name changes.
        (map.get_source(0)?, row, col)
    } else {
        let token = map.lookup_token(row.saturating_sub(1), col.saturating_sub(1))?;
        (
            token.get_source()?,
            token.get_src_line() + 1,
            token.get_src_col() + 1,
        )
    };
    Some(format!("{}{source}:{row}:{col}{tail}", &line[..at]))
}

/// The source map of what `engine` runs of plugin `bytes`, if it has one.
pub fn source_map(bytes: &[u8], engine: EngineKind) -> Option<&[u8]> {
    let lowered = match engine {
        EngineKind::Wasm => custom_section(bytes, LOWERED_MAP_SECTION).ok()?,
        EngineKind::V8 => None,
    };
    lowered.or(custom_section(bytes, SOURCE_MAP_SECTION).ok()?)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    /// A map of `b.js`, whose line 1 column 1 and line 2 column 5 come
    /// from `src/a.js` lines 10 and 20 (a VLQ of esbuild's shape).
    const MAP: &str =
        r#"{"version":3,"file":"b.js","sources":["src/a.js"],"names":[],"mappings":"AASA;IAUI"}"#;

    fn frames_in_the_bundle_are_mapped_and_others_kept() {
        let m = StackMap::in_memory(MAP.as_bytes());
        let stack =
            "    at fetch (b.js:1:1)\n    at bundle.js:2:5\n    at other.js:1:1\n    at native";
        let mapped = m.apply(stack);
        assert_eq!(
            mapped,
            "    at fetch (src/a.js:10:1)\n    at src/a.js:20:5\n    at other.js:1:1\n    at native"
        );
        let broken = StackMap::in_memory(b"not a map");
        assert_eq!(broken.apply(stack), stack);
    }

    fn a_plain_entrys_frames_are_renamed_in_place() {
        let m = StackMap::in_memory(
            br#"{"version":3,"file":"index.js","sources":["src/index.js"],"names":[],"mappings":""}"#,
        );
        let stack =
            "    at fetch (index.js:3:15)\n    at Object.fetch (bundle.js:3:11)\n    at x.js:1:1";
        assert_eq!(
            m.apply(stack),
            "    at fetch (src/index.js:3:15)\n    at Object.fetch (src/index.js:3:11)\n    at x.js:1:1"
        );
    }

    crate::unit_tests!(
        frames_in_the_bundle_are_mapped_and_others_kept,
        a_plain_entrys_frames_are_renamed_in_place
    );
}
