//! `ssr build <entry> -o <plugin.wasm> [--client <entry>] [--assets <dir>]`:
//! bundle, pre-initialize, encode, pack. Shows each step and its time on
//! stderr, and each asset as it is compressed. Without an entry, or with
//! `--wrangler FILE`, the app's Workers config names the entry, the assets
//! and the rest (`ssr::build::wrangler`), and what it asks that `ssr` does
//! not do is printed as warnings.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use ssr::build::{self, Progress, Step};
use ssr::fs::write_atomically;

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The renderer's entry ES module (`.js`, `.mjs`, `.jsx`, `.ts`, `.tsx`)
    /// [default: `main` of the app's wrangler.json, wrangler.jsonc or
    /// wrangler.toml in this directory].
    entry: Option<PathBuf>,
    /// The app's Workers config, whose `main`, `assets` and `vars` are
    /// built in (bindings ssr does not provide are warned of, and throw when
    /// touched).
    #[arg(long, value_name = "FILE", conflicts_with = "entry")]
    wrangler: Option<PathBuf>,
    /// Where to write the plugin.
    #[arg(short, long, value_name = "PLUGIN.wasm")]
    output: PathBuf,
    /// Also write the bundled JavaScript here (what both engines run).
    #[arg(long, value_name = "FILE")]
    emit_bundle: Option<PathBuf>,
    /// The package JSX compiles to, with its automatic runtime (`preact`,
    /// `react`, ...) [default: as the nearest tsconfig.json or jsconfig.json,
    /// or a `@jsxImportSource` pragma, says].
    #[arg(long, value_name = "PACKAGE")]
    jsx_import_source: Option<String>,
    /// A directory of static files (images, fonts, CSS...) to pack into the
    /// plugin; each is served at its path below the directory, before the
    /// renderer sees the request.
    #[arg(long, value_name = "DIR")]
    assets: Option<PathBuf>,
    /// The browser's entry module: bundled for the browser with hashed file
    /// names and packed under /assets/; the server's bundle gets the global
    /// `SSR_CLIENT` ({script, css}) naming its files.
    #[arg(long, value_name = "ENTRY")]
    client: Option<PathBuf>,
    /// The largest asset file packed, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = ssr::assets::DEFAULT_MAX_FILE >> 20)]
    max_asset_mib: usize,
    /// The most all assets together may take, in MiB (before compression).
    #[arg(long, value_name = "MIB", default_value_t = ssr::assets::DEFAULT_MAX_TOTAL >> 20)]
    max_assets_mib: usize,
    /// The engine the plugin is for: both (the default), or `v8` only, for
    /// an app whose top level needs what only V8 has (`Intl`): its top
    /// level is not run under Wasm here, and the Wasm engine refuses it.
    #[arg(long, value_name = "ENGINE")]
    engine: Option<ssr::engine::EngineKind>,
    /// Print no progress.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    code_cache: super::CodeCache,
}

/// A build's progress on stderr: a spinner per step, then its time.
pub struct Steps {
    bar: Option<ProgressBar>,
    quiet: bool,
}

impl Steps {
    pub fn new(quiet: bool) -> Steps {
        Steps { bar: None, quiet }
    }
}

impl Progress for Steps {
    fn start(&mut self, step: Step) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::new_spinner().with_message(step.describe());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg} {elapsed}").unwrap());
        bar.enable_steady_tick(Duration::from_millis(100));
        self.bar = Some(bar);
    }

    fn item(&mut self, n: usize, count: usize, name: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} [{n}/{count}] {name}", Step::Assets.describe()));
        }
    }

    fn finish(&mut self, step: Step, took: Duration) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if !self.quiet {
            eprintln!("  {:<66} {:>8.2?}", step.describe(), took);
        }
    }
}

pub fn run(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let mut steps = Steps::new(args.quiet);
    let (entry, app) = match (&args.entry, &args.wrangler) {
        (Some(entry), _) => (entry.clone(), None),
        (None, file) => {
            let path = match file {
                Some(file) => file.clone(),
                None => build::wrangler::find(Path::new("."))?,
            };
            let app = build::wrangler::read(&path)?;
            (app.entry.clone(), Some(app))
        }
    };
    if let Some(app) = &app
        && !args.quiet
    {
        eprintln!("  reading {}", app.path.display());
    }
    let options = build::Options {
        jsx_import_source: args.jsx_import_source.clone(),
        assets: args
            .assets
            .clone()
            .or_else(|| app.as_ref().and_then(|a| a.assets.clone())),
        client: args.client.clone(),
        limits: ssr::assets::Limits {
            file: args.max_asset_mib << 20,
            total: args.max_assets_mib << 20,
        },
        app: app.as_ref().map(|a| a.config.clone()),
        node_globals: app.as_ref().is_some_and(|a| a.node_globals),
        behaviours: app
            .as_ref()
            .map(|a| a.behaviours.clone())
            .unwrap_or_default(),
        rules: app.as_ref().map(|a| a.rules.clone()).unwrap_or_default(),
        v8_only: args.engine == Some(ssr::engine::EngineKind::V8),
        code_cache: args.code_cache.dir.clone(),
    };
    let built = build::build(&entry, &options, &mut steps)?;
    let warnings = app.iter().flat_map(|a| &a.warnings).chain(&built.warnings);
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    if let Some(path) = &args.emit_bundle {
        write_atomically(path, built.bundle.source.as_bytes())
            .with_context(|| format!("writing the bundle to {}", path.display()))?;
    }
    write_atomically(&args.output, &built.plugin)
        .with_context(|| format!("writing the plugin to {}", args.output.display()))?;
    if !args.quiet {
        eprintln!(
            "built {} ({} KiB, bundle {} KiB, {} assets)",
            args.output.display(),
            built.plugin.len() / 1024,
            built.bundle.source.len() / 1024,
            built.assets.len()
        );
    }
    let limit = ssr::config::DEFAULT_MAX_PLUGIN_MIB;
    if built.plugin.len() > limit << 20 {
        eprintln!(
            "warning: the plugin is {} MiB, over the {limit} MiB `ssr serve` accepts by default; serve it with a higher --max-plugin-mib",
            built.plugin.len().div_ceil(1 << 20)
        );
    }
    Ok(ExitCode::SUCCESS)
}
