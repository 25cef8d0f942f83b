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
//!
//! Invariant: every failure is a [`BuildError`] whose message names the
//! problem and what to do; nothing here panics on bad input.

mod bundle;
mod preinit;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use thiserror::Error;

pub use bundle::{Bundle, BundleOptions};

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
    Bundle,
    Preinit,
    Encode,
}

impl Step {
    pub fn describe(self) -> &'static str {
        match self {
            Step::Bundle => "bundling the entry module",
            Step::Preinit => "pre-initializing (running the module's top level under Wizer)",
            Step::Encode => "encoding the component",
        }
    }
}

/// Receives the start and end of each step.
pub trait Progress {
    fn start(&mut self, step: Step);
    fn finish(&mut self, step: Step, took: Duration);
}

/// A progress sink that reports nothing.
pub struct Quiet;

impl Progress for Quiet {
    fn start(&mut self, _: Step) {}
    fn finish(&mut self, _: Step, _: Duration) {}
}

/// The result of a build.
pub struct Built {
    /// The plugin: a component with the bundle embedded.
    pub plugin: Vec<u8>,
    /// The JavaScript that was evaluated (also inside `plugin`).
    pub bundle: Bundle,
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
    options: &BundleOptions,
    progress: &mut dyn Progress,
) -> Result<Built, BuildError> {
    let bundle = step(progress, Step::Bundle, || bundle::bundle(entry, options))?;
    let plugin = build_bundle(&bundle, progress)?;
    Ok(Built { plugin, bundle })
}

/// Builds a plugin from an already bundled ES module.
pub fn build_bundle(bundle: &Bundle, progress: &mut dyn Progress) -> Result<Vec<u8>, BuildError> {
    let snapshot = step(progress, Step::Preinit, || {
        preinit::preinitialize(GUEST_RUNTIME, &bundle.name, &bundle.source)
    })?;
    step(progress, Step::Encode, || {
        let component = wit_component::ComponentEncoder::default()
            .validate(true)
            .module(&snapshot)
            .and_then(|e| {
                e.adapter(
                    "wasi_snapshot_preview1",
                    wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
                )
            })
            .and_then(|mut e| e.encode())
            .map_err(|e| BuildError::Encode(format!("{e:#}")))?;
        Ok(crate::artifact::with_bundle(component, &bundle.source))
    })
}
