//! `ssr serve`: the server. With no arguments (in memory) it serves the
//! example plugins from `plugins/` as demo tenants (`hello.localhost`,
//! `/t/hello/`, ...); with `--data-dir`, only when given `--demo`, and then
//! in memory only (`Registry::put_demo`).
//!
//! Settings come from flags, else `SSR_*` environment variables, else the
//! `--config` TOML file, else the defaults in `config.rs`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Context;
use clap::Args;
use ssr::config::{Config, Given};
use ssr::engine::EngineKind;
use ssr::http::AppState;
use ssr::tenant::{Registry, Settings};

/// What `ssr serve --help` says about the engines' containment.
const ENGINES_HELP: &str = "\
Engines: a tenant runs on `wasm` (default) or `v8`, chosen at registration \
(`ssr tenant add --engine v8`, or `?engine=v8`).

  wasm  QuickJS in a Wasmtime sandbox. Every failure is contained: a deadline \
(epoch interruption), a linear-memory cap, no ambient authority. For code you \
do not trust.
  v8    V8 14 (Node 26's), one isolate per tenant and render at once, \
with a deadline (TerminateExecution) and a heap cap; a render cannot be \
paused, so V8 renders run on their own threads (--v8-threads). Faster, but V8 is \
NOT a sandbox boundary: it aborts the process it runs in when one allocation \
inside a builtin cannot be satisfied (e.g. `new Array(5e8).fill(0)`). So its \
isolates run in worker processes this server starts and watches (Node 26's \
`node` loading libssr_v8.so; --v8-node), a process per tenant up to \
--v8-processes, under a seccomp \
filter and an address-space cap: a crash fails only the renders in flight in \
that process (502), the process is replaced, and a tenant that keeps \
crashing is paused (503). Nothing of V8 runs in this process.";

#[derive(Debug, Args)]
#[command(after_help = ENGINES_HELP)]
pub struct ServeArgs {
    /// A TOML file with any of the settings below, keyed by the flags' names
    /// (`workers = 4`, `cache-ttl = 30`).
    #[arg(long, env = "SSR_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(flatten)]
    given: Given,
}

impl ServeArgs {
    /// The defaults, then the file, then the flags and environment: the
    /// flags are one more `Given`, so both share `Given::apply`.
    fn config(&self) -> anyhow::Result<Config> {
        let mut c = Config::default();
        if let Some(path) = &self.config {
            Given::load(path)?.apply(&mut c);
        }
        self.given.clone().apply(&mut c);
        c.validate()?;
        Ok(c)
    }
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = args.config()?;
    ssr::web::fetch::set_dns_over_https(&config.dns_over_https);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ssr-http")
        .build()?;
    rt.block_on(serve(config))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(config: Config) -> anyhow::Result<()> {
    let admin_token = match config.admin_token.clone() {
        Some(token) => token,
        None => generated_token(config.data_dir.as_deref())?,
    };
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    let admin_listener = match config.admin_listen {
        Some(a) => Some(
            tokio::net::TcpListener::bind(a)
                .await
                .with_context(|| format!("cannot listen on {a} (--admin-listen)"))?,
        ),
        None => None,
    };
    if let Some(l) = &admin_listener {
        eprintln!("ssr admin API listening on http://{}", l.local_addr()?);
    }
    let demo = config.demo();
    let state = AppState::open(config, admin_token)?;
    eprintln!(
        "ssr listening on http://{addr} ({} tenants, {} workers)",
        state.registry.list().len(),
        state.config.workers
    );
    // Ready once the code Wasm plugins share is compiled, so that the
    // first registration, here or adopted from the shared store, takes
    // what every later one takes (issue 35: a fresh replica took 2.5 s).
    let starting = state.clone();
    tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        match starting
            .registry
            .warm_runtime(starting.config.code_cache.as_deref())
        {
            Ok(()) => tracing::info!(
                "the code Wasm plugins share is ready ({} ms)",
                started.elapsed().as_millis()
            ),
            Err(e) => tracing::warn!("cannot compile the code Wasm plugins share: {e}"),
        }
        if demo {
            register_demo(&starting.registry, addr);
        }
        starting.ready.store(true, Ordering::Release);
    });
    ssr::http::serve(listener, admin_listener, state).await?;
    eprintln!("ssr stopped");
    Ok(())
}

/// The example plugins: `plugins/<name>/` with one of these entry files,
/// and, if present, `client.jsx` (built with `--client`) and `public/`
/// (packed with `--assets`).
const DEMO_ENTRIES: &[&str] = &["render.js", "app.jsx", "app.js", "server.jsx"];

/// How `ssr build` builds the example whose entry is `entry`.
fn demo_options(entry: &Path) -> ssr::build::Options {
    let dir = entry.parent().unwrap_or(Path::new("."));
    ssr::build::Options {
        client: Some(dir.join("client.jsx")).filter(|p| p.is_file()),
        assets: Some(dir.join("public")).filter(|p| p.is_dir()),
        ..Default::default()
    }
}

fn plugins_dir() -> PathBuf {
    std::env::var_os("SSR_PLUGINS_DIR")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("plugins")).filter(|p| p.is_dir()))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugins"))
}

/// Builds and registers every example plugin, in parallel; a failure is
/// logged and skipped.
fn register_demo(registry: &Registry, addr: SocketAddr) {
    let dir = plugins_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        tracing::warn!(dir = %dir.display(), "no example plugins found; register tenants with `ssr tenant add`");
        return;
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let entry = DEMO_ENTRIES
                .iter()
                .map(|f| e.path().join(f))
                .find(|p| p.is_file())?;
            Some((name, entry))
        })
        .collect();
    found.sort();
    std::thread::scope(|s| {
        for (name, entry) in &found {
            s.spawn(move || {
                let started = std::time::Instant::now();
                let result = ssr::build::build(entry, &demo_options(entry), &mut ssr::build::Quiet)
                    .map_err(anyhow::Error::from)
                    .and_then(|built| {
                        // Each example on every engine this host has:
                        // `react` on Wasm, `react-v8` on V8.
                        let mut ids = Vec::new();
                        for engine in ssr::engine::Engines::KINDS {
                            let id = match engine {
                                EngineKind::Wasm => name.clone(),
                                _ => format!("{name}-{engine}"),
                            };
                            let settings = Settings {
                                hosts: vec![format!("{id}.localhost")],
                                mode: None,
                                engine: Some(*engine),
                                ..Settings::default()
                            };
                            match registry.put_demo(&id, &built.plugin, settings)? {
                                Some(_) => ids.push(id),
                                None => eprintln!(
                                    "demo tenant {id} skipped: a tenant of that id is registered"
                                ),
                            }
                        }
                        Ok(ids)
                    });
                match result {
                    Ok(ids) => {
                        for id in ids {
                            eprintln!(
                                "demo tenant {id}: http://{addr}/t/{id}/ or http://{id}.localhost:{} ({:.1?})",
                                addr.port(),
                                started.elapsed()
                            );
                        }
                    }
                    Err(e) => tracing::warn!(plugin = %entry.display(), "demo tenant {name} not registered: {e:#}"),
                }
            });
        }
    });
}

/// The admin token when none is given: with a data directory, the one kept
/// in `<data-dir>/admin-token` (mode 0600), made on the first start, so it is
/// never printed or logged; without one, a new token for this run, printed
/// once on stderr.
fn generated_token(data_dir: Option<&Path>) -> anyhow::Result<String> {
    let Some(dir) = data_dir else {
        let token = ssr::artifact::random_hex(16);
        eprintln!("no --admin-token given; this run's admin token is {token}");
        return Ok(token);
    };
    let path = dir.join("admin-token");
    match std::fs::read_to_string(&path) {
        Ok(token) => {
            let token = token.trim();
            if let Some(why) = ssr::config::weak_admin_token(token) {
                anyhow::bail!(
                    "the token in {} is too weak: {why}; delete the file to have a new one made, or pass --admin-token",
                    path.display()
                );
            }
            eprintln!(
                "no --admin-token given; using the one in {}",
                path.display()
            );
            return Ok(token.to_string());
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
    let token = ssr::artifact::random_hex(16);
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    ssr::fs::write_private(&path, token.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "no --admin-token given; made one, readable only by this user, in {}",
        path.display()
    );
    Ok(token)
}
