//! The command line: one clap definition per subcommand, one file each.

mod bindings;
mod build;
mod client;
mod deploy;
mod dev;
mod init;
mod logs;
mod render;
mod serve;
mod tenant;
mod token;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// `--code-cache` of the commands that compile Wasm once and exit (`build`,
/// `render`): the same directory, variable and meaning as `ssr serve`'s
/// (`ssr::config`), so every command on a machine shares one cache.
#[derive(Debug, clap::Args)]
pub struct CodeCache {
    /// Keep compiled Wasm code in this directory (Wasmtime's cache, keyed by
    /// the code's bytes and the engine's settings), so that what was
    /// compiled once on this machine (the guest runtime, a plugin) is not
    /// compiled again. Only `ssr`'s user may write it: the code in it runs
    /// as is.
    #[arg(
        id = "code_cache",
        long = "code-cache",
        value_name = "DIR",
        env = "SSR_CODE_CACHE"
    )]
    pub dir: Option<std::path::PathBuf>,
}

/// A sandboxed, multi-tenant server-side-rendering host: JavaScript site
/// renderers compiled to WebAssembly plugins.
#[derive(Debug, Parser)]
#[command(name = "ssr", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compile a JavaScript renderer into a pre-initialized Wasm plugin.
    Build(build::BuildArgs),
    /// Render one request through a plugin and print the body.
    Render(render::RenderArgs),
    /// Serve tenants over HTTP (with no tenants: the example plugins).
    Serve(Box<serve::ServeArgs>),
    /// Serve the site in a directory on 127.0.0.1:8787, rebuilding and
    /// reloading the page when a source changes.
    Dev(dev::DevArgs),
    /// Write a new site from a template (hello, react, hono).
    Init(init::InitArgs),
    /// Build the site in a directory and register it on a server, with its
    /// ssr.toml's hostnames, vars, fetch grants and limits.
    Deploy(deploy::DeployArgs),
    /// Manage a running server's tenants through its admin API.
    Tenant(tenant::TenantArgs),
    /// Tokens that reach one tenant alone (the operator's).
    Token(token::TokenArgs),
    /// A tenant's KV namespaces, through the admin API.
    Kv(bindings::KvArgs),
    /// A tenant's D1 databases, through the admin API: SQL and migrations.
    D1(bindings::D1Args),
    /// A tenant's R2 buckets, through the admin API: objects.
    R2(bindings::R2Args),
    /// A deploy's code compiled within limits: started by `ssr serve`
    /// only, with the plugin on standard input.
    #[command(name = "compile-check", hide = true)]
    CompileCheck {
        /// The CPU time it may use, in seconds.
        #[arg(long)]
        cpu_secs: u64,
        /// Its address space, in bytes.
        #[arg(long)]
        memory_bytes: u64,
        /// Wasmtime's cache for its compiles.
        #[arg(long)]
        code_cache: Option<std::path::PathBuf>,
    },
}

/// The command line, parsed; `ssr serve --help` shows each setting's default
/// from its one definition (`config.rs`).
pub fn parse() -> Cli {
    let command = Cli::command().mut_subcommand("serve", |serve| {
        ssr::config::reference()
            .into_iter()
            .fold(serve, |serve, s| {
                serve.mut_arg(s.flag.replace('-', "_"), |arg| {
                    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
                    arg.help(format!("{help} [default: {}]", s.default))
                })
            })
    });
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Build(args) => build::run(args),
        Command::Render(args) => render::run(args),
        Command::Serve(args) => serve::run(*args),
        Command::Tenant(args) => tenant::run(args),
        Command::Token(args) => token::run(args),
        Command::Kv(args) => bindings::kv(args),
        Command::D1(args) => bindings::d1(args),
        Command::R2(args) => bindings::r2(args),
        Command::Deploy(args) => deploy::run(args),
        Command::Init(args) => init::run(args),
        Command::Dev(args) => dev::run(args),
        Command::CompileCheck {
            cpu_secs,
            memory_bytes,
            code_cache,
        } => ssr::engine::wasm::guard::child(cpu_secs, memory_bytes, code_cache.as_deref()),
    }
}

/// Logs go to stderr; `RUST_LOG` overrides the default (renderer console
/// output and warnings).
pub fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("warn,ssr=info,ssr::console=debug,ssr::build=info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(true)
        .init();
}
