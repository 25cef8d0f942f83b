//! `ssr build`: a JavaScript entry module in, a pre-initialized plugin
//! component out.
//!
//! Steps, each timed and reported through [`Progress`]:
//! 1. [`bundle`]: read the entry; bundle it with esbuild when it imports
//!    other modules (`bundle.rs`).
//! 2. [`preinit`]: run the guest runtime under Wizer with the bundle on
//!    stdin, so the module's top level runs here, once, and its heap lands in
//!    the snapshot (`preinit.rs`).
//! 3. encode: wrap the snapshot as a component with the WASI preview1
//!    adapter (wit-component).
//! 4. embed: append the bundle as a custom section (`crate::artifact`).
//! 5. assets (with `--assets` or `--client`): the client entry bundled for
//!    the browser with hashed names (`client.rs`), and the directory's
//!    files, precompressed into the assets section (`crate::assets`).
//!    The client's bundle is built first, so the server's bundle can name
//!    its files (`SSR_CLIENT`).
//!
//! Invariant: every failure is a [`BuildError`] whose message names the
//! problem and what to do; nothing here panics on bad input.

mod bundle;
mod client;
mod node;
mod preinit;
pub mod wrangler;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::app::AppConfig;
use crate::assets::{self, AssetError};
pub use bundle::{Bundle, BundleOptions, ModuleKind, ModuleRule};
pub use client::{CLIENT_PREFIX, Client};

/// The guest runtime (guest-sdk for wasm32-wasip1), built by `host/build.rs`.
pub const GUEST_RUNTIME: &[u8] = include_bytes!(env!("SSR_GUEST_WASM"));

/// Why a build failed.
#[derive(Debug, Error)]
pub enum BuildError {
    #[error("cannot read the entry module {path}")]
    ReadEntry {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    NeedsBundler(String),
    /// A JSX entry that says not what its JSX compiles to (`bundle.rs`).
    #[error("{0}")]
    JsxRuntime(String),
    #[error("esbuild failed to bundle {path}:\n{stderr}")]
    Bundler { path: PathBuf, stderr: String },
    #[error("could not run esbuild at {path}")]
    RunBundler {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}", js_message(.message, .stack))]
    Javascript {
        message: String,
        stack: Option<String>,
    },
    #[error("pre-initialization failed: {0}")]
    Preinit(String),
    #[error("encoding the component failed: {0}")]
    Encode(String),
    #[error(transparent)]
    Assets(#[from] AssetError),
    #[error("{0}")]
    Client(String),
    /// The app's Workers config, or its `_headers` / `_redirects`
    /// (`wrangler.rs`).
    #[error("{0}")]
    Config(String),
}

fn js_message(message: &str, stack: &Option<String>) -> String {
    match stack {
        Some(s) if !s.trim().is_empty() => format!("{message}\n{}", s.trim_end()),
        _ => message.to_string(),
    }
}

/// The steps of a build, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Client,
    Bundle,
    Preinit,
    Encode,
    Assets,
}

impl Step {
    pub fn describe(self) -> &'static str {
        match self {
            Step::Client => "bundling the client entry for the browser",
            Step::Bundle => "bundling the entry module",
            Step::Preinit => "pre-initializing (running the module's top level under Wizer)",
            Step::Encode => "encoding the component",
            Step::Assets => "packing the static assets (brotli and gzip for text)",
        }
    }
}

/// Receives the start and end of each step.
pub trait Progress {
    fn start(&mut self, step: Step);
    fn finish(&mut self, step: Step, took: Duration);
    /// Within a step over many items (assets): item `n` of `count` starts.
    fn item(&mut self, _n: usize, _count: usize, _name: &str) {}
}

/// A progress sink that reports nothing.
pub struct Quiet;

impl Progress for Quiet {
    fn start(&mut self, _: Step) {}
    fn finish(&mut self, _: Step, _: Duration) {}
}

/// What to build, beyond the entry.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The package JSX compiles to (`BundleOptions::jsx_import_source`).
    pub jsx_import_source: Option<String>,
    /// A directory of static files to pack, served at their paths below it.
    pub assets: Option<PathBuf>,
    /// The browser's entry module: bundled with hashed names and packed
    /// under [`CLIENT_PREFIX`] (`client.rs`).
    pub client: Option<PathBuf>,
    /// How much may be packed.
    pub limits: assets::Limits,
    /// What the app's Workers config says (`wrangler.rs`), carried in the
    /// plugin's `ssr-app` section (`crate::app`). Without one, a plugin
    /// whose assets directory has `_headers` or `_redirects` carries the
    /// default config with those rules.
    pub app: Option<AppConfig>,
    /// Node's globals `Buffer` and `process` in the bundle (an app whose
    /// wrangler config sets `nodejs_compat`; `BundleOptions::node_globals`).
    pub node_globals: bool,
    /// The behaviours the app's compatibility date and flags choose
    /// (`wrangler::BEHAVIOURS`), given to a bundle as `__SSR_COMPAT__`
    /// (`BundleOptions::compat`).
    pub behaviours: Vec<(String, bool)>,
    /// How modules that are not JavaScript import (`BundleOptions::rules`;
    /// empty: wrangler's defaults).
    pub rules: Vec<bundle::ModuleRule>,
    /// For the V8 engine only: skip running the top level under Wasm
    /// ([`build_bundle_v8`]).
    pub v8_only: bool,
    /// Wasmtime's compiled-code cache for the pre-initialization step
    /// (`--code-cache`): with one, the guest runtime is compiled once, not
    /// at each build (`ssr dev` rebuilds).
    pub code_cache: Option<PathBuf>,
}

/// The result of a build.
pub struct Built {
    /// The plugin: a component with the bundle (and assets) embedded.
    pub plugin: Vec<u8>,
    /// The JavaScript that was evaluated (also inside `plugin`).
    pub bundle: Bundle,
    /// The files packed as assets, by URL path.
    pub assets: Vec<String>,
    /// What the assets directory asks that the build left out, one line
    /// each (`wrangler::read_rules`).
    pub warnings: Vec<String>,
}

fn step<T>(
    progress: &mut dyn Progress,
    step: Step,
    f: impl FnOnce() -> Result<T, BuildError>,
) -> Result<T, BuildError> {
    progress.start(step);
    let t = Instant::now();
    let out = f()?;
    progress.finish(step, t.elapsed());
    Ok(out)
}

/// Builds a plugin from the entry module at `entry`.
pub fn build(
    entry: &Path,
    options: &Options,
    progress: &mut dyn Progress,
) -> Result<Built, BuildError> {
    let mut sources = Vec::new();
    let mut bundling = BundleOptions {
        jsx_import_source: options.jsx_import_source.clone(),
        defines: Vec::new(),
        compat: None,
        node_globals: options.node_globals,
        rules: options.rules.clone(),
    };
    if !options.behaviours.is_empty() {
        let chosen: serde_json::Map<String, serde_json::Value> = options
            .behaviours
            .iter()
            .map(|(name, on)| (name.clone(), (*on).into()))
            .collect();
        bundling.compat = Some(serde_json::Value::Object(chosen).to_string());
    }
    if let Some(client) = &options.client {
        let built = step(progress, Step::Client, || {
            client::build(client, options.jsx_import_source.as_deref())
        })?;
        bundling
            .defines
            .push(("SSR_CLIENT".into(), built.manifest.clone()));
        sources.extend(built.files);
    }
    let bundle = step(progress, Step::Bundle, || bundle::bundle(entry, &bundling))?;
    let mut plugin = match options.v8_only {
        true => build_bundle_v8(&bundle, progress)?,
        false => build_bundle(&bundle, options.code_cache.as_deref(), progress)?,
    };
    let mut paths = Vec::new();
    let mut warnings = Vec::new();
    // Every plugin built now has its app config: what the prelude it
    // carries can do is in it.
    let mut app = options.app.clone().unwrap_or_default();
    if let Some(dir) = &options.assets {
        wrangler::read_rules(dir, &mut app, &mut warnings)?;
    }
    app.streamed_requests = true;
    let json = serde_json::to_vec(&app).expect("an app config serializes");
    plugin = crate::artifact::with_section(plugin, crate::app::APP_SECTION, &json);
    if options.assets.is_some() || options.client.is_some() {
        progress.start(Step::Assets);
        let started = Instant::now();
        if let Some(dir) = &options.assets {
            assets::collect(dir, "", options.limits, &mut sources)?;
        }
        check_sizes(&sources, options.limits)?;
        paths = sources.iter().map(|s| s.path.clone()).collect();
        let section = assets::pack(sources, &mut |n, count, name| progress.item(n, count, name))?;
        progress.finish(Step::Assets, started.elapsed());
        plugin = crate::artifact::with_section(plugin, crate::artifact::ASSETS_SECTION, &section);
    }
    Ok(Built {
        plugin,
        bundle,
        assets: paths,
        warnings,
    })
}

/// The client's files count against the limits as the directory's do.
fn check_sizes(sources: &[assets::Source], limits: assets::Limits) -> Result<(), AssetError> {
    let mut total = 0;
    sources
        .iter()
        .try_for_each(|s| limits.admit(&s.from, s.bytes.len(), &mut total))
}

/// Builds a plugin from an already bundled ES module.
pub fn build_bundle(
    bundle: &Bundle,
    code_cache: Option<&Path>,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, BuildError> {
    let snapshot = step(progress, Step::Preinit, || {
        let source = bundle.lowered.as_ref().unwrap_or(&bundle.source);
        preinit::preinitialize(GUEST_RUNTIME, &bundle.name, source, code_cache).map_err(|e| {
            // The top level's stack, in the site's files, as a render's is.
            let map = match &bundle.lowered {
                Some(_) => bundle.maps.lowered.as_ref(),
                None => bundle.maps.source.as_ref(),
            };
            match (e, map) {
                (
                    BuildError::Javascript {
                        message,
                        stack: Some(stack),
                    },
                    Some(map),
                ) => {
                    let stack = crate::stack_map::StackMap::in_memory(map.as_bytes()).apply(&stack);
                    BuildError::Javascript {
                        message,
                        stack: Some(stack),
                    }
                }
                (e, _) => e,
            }
        })
    })?;
    encode(&snapshot, bundle, progress)
}

/// A plugin of an empty module, built by this `ssr` as any site's would
/// be: its shared code (`engine::wasm::split`) is every such plugin's, so a
/// server compiles it from this before its first tenant
/// (`engine::wasm::WasmEngine::warm`). `code_cache` as in `--code-cache`.
pub fn runtime_plugin(code_cache: Option<&Path>) -> Result<Vec<u8>, BuildError> {
    let bundle = Bundle {
        name: "runtime.js".into(),
        source: "export function render() {}".into(),
        lowered: None,
        maps: Default::default(),
    };
    let snapshot = preinit::preinitialize(GUEST_RUNTIME, &bundle.name, &bundle.source, code_cache)?;
    encode(&snapshot, &bundle, &mut Quiet)
}

/// Names what [`runtime_plugin`] builds: the guest runtime's SHA-256 and
/// this `ssr`'s version, so a file of it stays valid until either changes.
/// Hashed once: the runtime is megabytes.
pub fn runtime_key() -> &'static str {
    static KEY: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let version = env!("CARGO_PKG_VERSION").as_bytes();
        crate::artifact::digest(&[GUEST_RUNTIME, version].concat())[..16].to_string()
    });
    &KEY
}

/// A plugin for the V8 engine only: the guest runtime as it is, the bundle
/// not run under Wasm (for a top level that needs what only V8 has), marked
/// so that the Wasm engine refuses it (`artifact::ENGINE_SECTION`).
pub fn build_bundle_v8(
    bundle: &Bundle,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, BuildError> {
    let plugin = encode(GUEST_RUNTIME, bundle, progress)?;
    Ok(crate::artifact::with_section(
        plugin,
        crate::artifact::ENGINE_SECTION,
        b"v8",
    ))
}

/// Wraps a core module as a component and embeds the bundle.
fn encode(
    module: &[u8],
    bundle: &Bundle,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, BuildError> {
    step(progress, Step::Encode, || {
        let component = wit_component::ComponentEncoder::default()
            .validate(true)
            .module(module)
            .and_then(|e| {
                e.adapter(
                    "wasi_snapshot_preview1",
                    wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
                )
            })
            .and_then(|mut e| e.encode())
            .map_err(|e| BuildError::Encode(format!("{e:#}")))?;
        let mut plugin = crate::artifact::with_bundle(component, &bundle.source);
        for (section, map) in [
            (crate::artifact::SOURCE_MAP_SECTION, &bundle.maps.source),
            (crate::artifact::LOWERED_MAP_SECTION, &bundle.maps.lowered),
        ] {
            if let Some(map) = map {
                plugin = crate::artifact::with_section(plugin, section, map.as_bytes());
            }
        }
        Ok(plugin)
    })
}
