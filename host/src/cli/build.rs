//! `ssr build <entry> -o <plugin.wasm>`: bundle, pre-initialize, encode.
//! Shows each step and its time on stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use ssr::build::{self, Progress, Step};
use ssr::fs::write_atomically;

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The renderer's entry ES module (`.js`, `.mjs`, `.jsx`, `.ts`, `.tsx`).
    entry: PathBuf,
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
    /// Print no progress.
    #[arg(short, long)]
    quiet: bool,
}

struct Steps {
    bar: Option<ProgressBar>,
    quiet: bool,
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
    let mut steps = Steps {
        bar: None,
        quiet: args.quiet,
    };
    let options = build::BundleOptions {
        jsx_import_source: args.jsx_import_source.clone(),
    };
    let built = build::build(&args.entry, &options, &mut steps)?;
    if let Some(path) = &args.emit_bundle {
        write_atomically(path, built.bundle.source.as_bytes())
            .with_context(|| format!("writing the bundle to {}", path.display()))?;
    }
    write_atomically(&args.output, &built.plugin)
        .with_context(|| format!("writing the plugin to {}", args.output.display()))?;
    if !args.quiet {
        eprintln!(
            "built {} ({} KiB, bundle {} KiB)",
            args.output.display(),
            built.plugin.len() / 1024,
            built.bundle.source.len() / 1024
        );
    }
    Ok(ExitCode::SUCCESS)
}
