//! The plugin artifact format: a component implementing `wit/plugin.wit`,
//! plus a custom section holding the original JavaScript bundle.
//!
//! Invariants:
//! - A plugin exporting another version's `renderer` is refused by
//!   [`check_contract`], with a message telling the user to rebuild.
//! - A plugin imports only the contract and the WASI interfaces the
//!   preview1 adapter uses ([`CONTRACT_PACKAGE`], [`ALLOWED_IMPORTS`]); the host grants those with an
//!   empty context (no preopens, environment, arguments or sockets). A
//!   component asking for anything else (sockets, HTTP, ...) is refused by
//!   [`check_imports`] before it is stored.
//! - The bundle section ([`BUNDLE_SECTION`]) is UTF-8 JavaScript, the very
//!   bytes the snapshot was made from, so the V8 engine can run the same
//!   artifact.
//! - The assets section ([`ASSETS_SECTION`]), when present, is the table
//!   `crate::assets` reads and checks; the host serves it, no engine sees it.

pub use contract::VERSION as CONTRACT_VERSION;
use thiserror::Error;

/// Name of the exported interface that carries `render`.
pub const RENDERER_INTERFACE: &str = "ssr:plugin/renderer";
/// Custom section holding the JavaScript bundle.
pub const BUNDLE_SECTION: &str = "ssr-bundle";
/// Custom section holding the static assets (`crate::assets`), if any.
pub const ASSETS_SECTION: &str = "ssr-assets";
/// Custom sections holding esbuild's source map of the bundle, and of the
/// bundle the Wasm engine runs where that differs (`build::SourceMaps`).
pub const SOURCE_MAP_SECTION: &str = "ssr-source-map";
pub const LOWERED_MAP_SECTION: &str = "ssr-source-map-lowered";
/// Custom section `v8` in a plugin built with `ssr build --engine v8`: its
/// top level never ran under Wasm, so its component holds no snapshot and
/// only the V8 engine, which runs the bundle, may load it.
pub const ENGINE_SECTION: &str = "ssr-engine";

/// A plugin may import any interface of the contract's package (the
/// contract version is checked apart); the host implements every one.
pub const CONTRACT_PACKAGE: &str = "ssr:plugin/";

/// WASI interfaces (without their `@version`) a plugin may import besides.
pub const ALLOWED_IMPORTS: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:filesystem/types",
    "wasi:filesystem/preopens",
    "wasi:random/random",
    "wasi:random/insecure",
    "wasi:random/insecure-seed",
];

/// Why bytes are not a usable plugin.
#[derive(Debug, Error)]
pub enum ArtifactError {
    #[error(
        "this is a core WebAssembly module, not an ssr plugin component; build plugins with `ssr build <entry.js> -o plugin.wasm`"
    )]
    CoreModule,
    #[error(
        "this is not a WebAssembly file (it does not start with the `\\0asm` magic); build plugins with `ssr build`"
    )]
    NotWasm,
    #[error("the plugin is malformed: {0}")]
    Malformed(String),
    #[error(
        "the plugin's heap snapshot does not fit its memory: a data segment ends at byte {end}, beyond the memory's {pages} pages of 64 KiB; build the plugin again with `ssr build`"
    )]
    DataOutOfBounds { end: u64, pages: u64 },
    #[error(
        "the plugin carries no JavaScript bundle (section `{BUNDLE_SECTION}`); rebuild it with `ssr build`"
    )]
    NoBundle,
    #[error(
        "the component does not export `{RENDERER_INTERFACE}@{CONTRACT_VERSION}` (it exports: {exports}); it is not an ssr plugin, build one with `ssr build`"
    )]
    NotAPlugin { exports: String },
    #[error(
        "this plugin was built for the V8 engine only (`ssr build --engine v8`: its top level did not run under Wasm); register it with engine v8, or build it without --engine"
    )]
    V8Only,
    #[error(
        "the plugin was built for contract ssr:plugin@{found}, but this host speaks ssr:plugin@{CONTRACT_VERSION}; rebuild it with this version's `ssr build`"
    )]
    WrongVersion { found: String },
    #[error(
        "the plugin imports {names}, which ssr plugins may not use (they get only the contract's `log` and an empty WASI: no sockets, HTTP, files or environment); build plugins with `ssr build`"
    )]
    ForbiddenImports { names: String },
    #[error(
        "the plugin has {code} bytes of code, its largest function {largest}: over what a plugin may bring to compile ({MAX_CODE_BYTES} bytes, {MAX_FUNCTION_BYTES} in one function); build plugins with `ssr build`"
    )]
    TooMuchCode { code: usize, largest: usize },
}

impl From<wasmparser::BinaryReaderError> for ArtifactError {
    fn from(e: wasmparser::BinaryReaderError) -> Self {
        ArtifactError::Malformed(e.to_string())
    }
}

/// Lower-case hex SHA-256 of `bytes`. Stored plugins, shared compiled
/// modules and assets are named by it, so it must resist crafted
/// collisions: a tenant whose plugin collided with another's would load
/// that one's code.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(bytes))
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes `text` spells in hex digits, if it does.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// `len` bytes from the system's random source, in lower-case hex: the
/// secrets and ids the host makes (admin and tenant tokens, replica ids).
pub fn random_hex(len: usize) -> String {
    let mut bytes = vec![0u8; len];
    getrandom::fill(&mut bytes).expect("the system's random source");
    hex(&bytes)
}

/// Says whether `bytes` are a component, so callers can refuse a core
/// module before compiling it.
pub fn check_is_component(bytes: &[u8]) -> Result<(), ArtifactError> {
    if wasmparser::Parser::is_component(bytes) {
        Ok(())
    } else if wasmparser::Parser::is_core_wasm(bytes) {
        Err(ArtifactError::CoreModule)
    } else {
        Err(ArtifactError::NotWasm)
    }
}

/// Refuses a plugin built for V8 only ([`ENGINE_SECTION`]).
pub fn check_runs_on_wasm(bytes: &[u8]) -> Result<(), ArtifactError> {
    match custom_section(bytes, ENGINE_SECTION)? {
        Some(b"v8") => Err(ArtifactError::V8Only),
        _ => Ok(()),
    }
}

/// Checks the names a component exports against the contract version.
pub fn check_contract<'a>(exports: impl IntoIterator<Item = &'a str>) -> Result<(), ArtifactError> {
    let want = format!("{RENDERER_INTERFACE}@{CONTRACT_VERSION}");
    let mut seen = Vec::new();
    for name in exports {
        if name == want {
            return Ok(());
        }
        if let Some(found) = name
            .strip_prefix(RENDERER_INTERFACE)
            .and_then(|rest| rest.strip_prefix('@'))
        {
            return Err(ArtifactError::WrongVersion {
                found: found.to_string(),
            });
        }
        seen.push(name.to_string());
    }
    Err(ArtifactError::NotAPlugin {
        exports: if seen.is_empty() {
            "nothing".into()
        } else {
            seen.join(", ")
        },
    })
}

/// Refuses imports outside the contract and [`ALLOWED_IMPORTS`].
pub fn check_imports<'a>(imports: impl IntoIterator<Item = &'a str>) -> Result<(), ArtifactError> {
    let forbidden: Vec<&str> = imports
        .into_iter()
        .filter(|name| {
            let interface = name.split('@').next().unwrap_or(name);
            !interface.starts_with(CONTRACT_PACKAGE) && !ALLOWED_IMPORTS.contains(&interface)
        })
        .collect();
    if forbidden.is_empty() {
        Ok(())
    } else {
        Err(ArtifactError::ForbiddenImports {
            names: forbidden.join(", "),
        })
    }
}

/// The code a plugin may bring for Cranelift to compile, all its core
/// modules together, and in one function's body. A plugin `ssr build`
/// makes has 1.16 MiB of code, its largest function 46 KiB, whatever its
/// JavaScript (the runtime's code; `tests/all/probe4.rs`,
/// `issue_54_built_plugins_fit_the_code_bounds`); compile time and memory
/// grow with both, faster than linearly with a function's size, so a
/// component over either is refused before anything compiles.
pub const MAX_CODE_BYTES: usize = 4 << 20;
pub const MAX_FUNCTION_BYTES: usize = 256 << 10;

/// What a component holds, read without compiling it.
#[derive(Debug, Default)]
pub struct Outline {
    /// Its own imports and exports (not those of components inside it).
    pub imports: Vec<String>,
    pub exports: Vec<String>,
    /// Code bytes over all its core modules, and the largest function's.
    pub code_bytes: usize,
    pub largest_function: usize,
}

/// Reads `bytes`' [`Outline`] in one pass of the parser.
pub fn outline(bytes: &[u8]) -> Result<Outline, ArtifactError> {
    use wasmparser::Payload;
    let mut out = Outline::default();
    let mut depth = 0usize;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload? {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(imports) if depth == 0 => {
                for import in imports {
                    out.imports.push(import?.name.name.to_string());
                }
            }
            Payload::ComponentExportSection(exports) if depth == 0 => {
                for export in exports {
                    out.exports.push(export?.name.name.to_string());
                }
            }
            Payload::CodeSectionEntry(body) => {
                let size = body.range().len();
                out.code_bytes += size;
                out.largest_function = out.largest_function.max(size);
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Checks a component before anything of it is compiled: that it is an
/// `ssr` plugin of this contract ([`check_contract`]), imports nothing
/// else ([`check_imports`]), and brings no more code than
/// [`MAX_CODE_BYTES`] and [`MAX_FUNCTION_BYTES`] allow.
pub fn check_before_compiling(bytes: &[u8]) -> Result<(), ArtifactError> {
    check_is_component(bytes)?;
    let outline = outline(bytes)?;
    check_contract(outline.exports.iter().map(String::as_str))?;
    check_imports(outline.imports.iter().map(String::as_str))?;
    if outline.code_bytes > MAX_CODE_BYTES || outline.largest_function > MAX_FUNCTION_BYTES {
        return Err(ArtifactError::TooMuchCode {
            code: outline.code_bytes,
            largest: outline.largest_function,
        });
    }
    Ok(())
}

/// Reads the JavaScript bundle out of a plugin's custom section.
pub fn bundle(bytes: &[u8]) -> Result<String, ArtifactError> {
    let data = custom_section(bytes, BUNDLE_SECTION)?.ok_or(ArtifactError::NoBundle)?;
    String::from_utf8(data.to_vec())
        .map_err(|_| ArtifactError::Malformed("the bundle section is not UTF-8".into()))
}

/// The data of the component's top-level custom section `name`, if it has
/// one.
pub fn custom_section<'a>(bytes: &'a [u8], name: &str) -> Result<Option<&'a [u8]>, ArtifactError> {
    check_is_component(bytes)?;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(|e| ArtifactError::Malformed(e.to_string()))?;
        if let wasmparser::Payload::CustomSection(s) = payload
            && s.name() == name
        {
            return Ok(Some(s.data()));
        }
    }
    Ok(None)
}

/// Appends the bundle section to an encoded component.
pub fn with_bundle(component: Vec<u8>, bundle: &str) -> Vec<u8> {
    with_section(component, BUNDLE_SECTION, bundle.as_bytes())
}

/// Appends custom section `name` holding `data` to an encoded component.
pub fn with_section(mut component: Vec<u8>, name: &str, data: &[u8]) -> Vec<u8> {
    let name = name.as_bytes();
    let mut head = Vec::with_capacity(name.len() + 5);
    leb128(&mut head, name.len() as u64);
    head.extend_from_slice(name);
    component.reserve(head.len() + data.len() + 6);
    component.push(0); // custom section id
    leb128(&mut component, (head.len() + data.len()) as u64);
    component.extend_from_slice(&head);
    component.extend_from_slice(data);
    component
}

fn leb128(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn contract_version_mismatch_names_both_versions() {
        let err = check_contract(["ssr:plugin/renderer@0.9.0"]).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("0.9.0") && msg.contains(CONTRACT_VERSION),
            "{msg}"
        );
    }

    fn contract_without_renderer_lists_exports() {
        let err = check_contract(["wasi:http/incoming-handler@0.2.0"]).unwrap_err();
        assert!(err.to_string().contains("wasi:http/incoming-handler"));
    }

    fn imports_obeyed() {
        check_imports([
            "ssr:plugin/log@0.1.0",
            "wasi:cli/stdout@0.2.12",
            "wasi:random/random@0.2.0",
        ])
        .unwrap();
    }

    fn imports_violated() {
        let err = check_imports([
            "wasi:cli/stdout@0.2.12",
            "wasi:sockets/tcp@0.2.12",
            "wasi:http/outgoing-handler@0.2.0",
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("wasi:sockets/tcp@0.2.12, wasi:http/outgoing-handler@0.2.0"),
            "{err}"
        );
    }

    crate::unit_tests!(
        contract_version_mismatch_names_both_versions,
        contract_without_renderer_lists_exports,
        imports_obeyed,
        imports_violated
    );
}
