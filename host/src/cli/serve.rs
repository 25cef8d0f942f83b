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
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use clap::Args;
use ssr::cache::Cache;
use ssr::config::{Config, FileConfig, RenderOn};
use ssr::engine::wasm::WasmOptions;
use ssr::engine::{EngineKind, EngineOptions, Engines};
use ssr::http::AppState;
use ssr::pool::{Pool, PoolOptions};
use ssr::tenant::{Mode, Registry, Settings, Store};

/// What `ssr serve --help` says about the engines' containment.
const ENGINES_HELP: &str = "\
Engines: a tenant runs on `wasm` (default) or `v8`, chosen at registration \
(`ssr tenant add --engine v8`, or `?engine=v8`).

  wasm  QuickJS in a Wasmtime sandbox. Every failure is contained: a deadline \
(epoch interruption), a linear-memory cap, no ambient authority. For code you \
do not trust.
  v8    V8 (Debian's libnode) in this process, one isolate per tenant and thread, \
with a deadline (TerminateExecution) and a heap cap; a render cannot be \
paused, so V8 renders run on their own threads (--v8-threads). Faster, but NOT a sandbox \
boundary: V8 aborts the whole process when one allocation inside a builtin \
cannot be satisfied (e.g. `new Array(5e8).fill(1.5)`), which takes every tenant \
down with it. Use it only for code you trust, and run the server under a \
supervisor that restarts it (systemd `Restart=always`): tenants are persisted \
atomically in --data-dir and reload at start without recompiling.";

#[derive(Debug, Args)]
#[command(after_help = ENGINES_HELP)]
pub struct ServeArgs {
    /// A TOML file with any of the settings below (keys as in `config.rs`'s
    /// `FileConfig`, e.g. `workers = 4`, `cache_ttl_secs = 30`).
    #[arg(long, env = "SSR_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "SSR_LISTEN", value_name = "ADDR")]
    listen: Option<SocketAddr>,
    /// Serve the admin API on this address only, not on --listen
    /// [default: on --listen].
    #[arg(long, env = "SSR_ADMIN_LISTEN", value_name = "ADDR")]
    admin_listen: Option<SocketAddr>,
    /// Directory where tenants persist; without one, tenants live in memory.
    #[arg(long, env = "SSR_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Render worker threads [default: one per core].
    #[arg(long, env = "SSR_WORKERS", value_name = "N")]
    workers: Option<usize>,
    /// Pin each worker to a core [default: true].
    #[arg(long, env = "SSR_PIN", value_name = "BOOL")]
    pin: Option<bool>,
    /// Renders that may wait for a worker, and requests that may wait for
    /// one tenant at its concurrency cap; past either, 503 [default: 512].
    #[arg(long, env = "SSR_QUEUE_CAPACITY", value_name = "N")]
    queue_capacity: Option<usize>,
    /// Milliseconds a request may take end to end; past it, 504 and the
    /// render is stopped [default: 2000].
    #[arg(long, env = "SSR_REQUEST_TIMEOUT", value_name = "MS")]
    request_timeout: Option<u64>,
    /// Milliseconds one render may run [default: 1000].
    #[arg(long, env = "SSR_RENDER_DEADLINE", value_name = "MS")]
    render_deadline: Option<u64>,
    /// The page cache's memory budget over all tenants, MiB: bodies, their
    /// compressed copies, headers and keys; the oldest pages go first
    /// [default: 256].
    #[arg(long, env = "SSR_CACHE_MIB", value_name = "MIB")]
    cache_mib: Option<usize>,
    /// One tenant's share of the page cache at most, MiB [default: 64].
    #[arg(long, env = "SSR_CACHE_TENANT_MIB", value_name = "MIB")]
    cache_tenant_mib: Option<usize>,
    /// The largest body the cache stores or compresses, KiB; a larger one is
    /// served as rendered, uncompressed, and not kept [default: 2048].
    #[arg(long, env = "SSR_CACHE_ENTRY_KIB", value_name = "KIB")]
    cache_entry_kib: Option<usize>,
    /// Seconds a page is cached when its renderer does not say [default: 60].
    #[arg(long, env = "SSR_CACHE_TTL", value_name = "SECS")]
    cache_ttl: Option<u64>,
    /// Bearer token for /admin, at least 16 bytes [default: one made once and
    /// kept in <data-dir>/admin-token (mode 0600); without --data-dir, a new
    /// one printed at start].
    #[arg(
        long,
        env = "SSR_ADMIN_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    admin_token: Option<String>,
    /// Open connections per listener; at the limit, new clients wait in the
    /// kernel's backlog [default: 4096].
    #[arg(long, env = "SSR_MAX_CONNECTIONS", value_name = "N")]
    max_connections: Option<usize>,
    /// Milliseconds a client may take to send a request's head, or to start
    /// the next one on an idle connection; then it is closed (slowloris)
    /// [default: 10000].
    #[arg(long, env = "SSR_HEADER_TIMEOUT", value_name = "MS")]
    header_timeout: Option<u64>,
    /// The largest request head (request line and headers), KiB; larger is
    /// answered 431 [default: 32].
    #[arg(long, env = "SSR_MAX_HEADER_KIB", value_name = "KIB")]
    max_header_kib: Option<usize>,
    /// Memory cap per instance (Wasm linear memory, V8 heap), MiB; a tenant
    /// may set a lower one [default: 256].
    #[arg(long, env = "SSR_MEMORY_LIMIT_MIB", value_name = "MIB")]
    memory_limit_mib: Option<usize>,
    /// The largest response body a render may produce, KiB [default: 8192].
    #[arg(long, env = "SSR_MAX_RESPONSE_KIB", value_name = "KIB")]
    max_response_kib: Option<usize>,
    /// Warm instances each worker keeps across tenants [default: 16].
    #[arg(long, env = "SSR_WARM_INSTANCES", value_name = "N")]
    warm_instances: Option<usize>,
    /// Wasm renders one worker interleaves in time slices of 1-2 ms
    /// [default: 8].
    #[arg(long, env = "SSR_RENDERS_PER_WORKER", value_name = "N")]
    renders_per_worker: Option<usize>,
    /// While other renders wait for the same threads, a render that has run
    /// this long (Wasm: CPU time; V8: since it started) finishes at low priority: a
    /// Wasm render in its worker's background lane (nice +10); a V8 render's
    /// thread is lowered (to nice 19), then replaced. Short renders and the HTTP threads
    /// then get a core before it. A V8 render past it also offers its core
    /// every millisecond. 0: never [default: 20].
    #[arg(long, env = "SSR_DEMOTE_AFTER", value_name = "MS")]
    demote_after: Option<u64>,
    /// Threads for V8 renders, which cannot yield: one render each, unpinned,
    /// so the kernel shares the cores between a spinning render and the rest
    /// [default: 4 per core].
    #[arg(long, env = "SSR_V8_THREADS", value_name = "N")]
    v8_threads: Option<usize>,
    /// Renders one tenant may have in flight at once; a tenant may set its
    /// own at registration [default: one per worker for Wasm tenants, half
    /// the workers (at least 1) for V8 tenants, which cannot yield].
    #[arg(long, env = "SSR_TENANT_CONCURRENCY", value_name = "N")]
    tenant_concurrency: Option<usize>,
    /// The wasm stack one render may use, KiB; deeper recursion traps
    /// [default: 512].
    #[arg(long, env = "SSR_MAX_WASM_STACK_KIB", value_name = "KIB")]
    max_wasm_stack_kib: Option<usize>,
    /// Isolation mode for tenants registered without one [default: reuse].
    #[arg(long, env = "SSR_MODE", value_name = "reuse|fresh")]
    mode: Option<Mode>,
    /// Where renders run: the worker pool, or (to measure what the pool
    /// buys) the async runtime's threads [default: pool].
    #[arg(long, env = "SSR_RENDER_ON", value_enum)]
    render_on: Option<RenderOn>,
    /// Register the example plugins from `plugins/` as demo tenants, in
    /// memory only (never stored, never replacing a registered tenant)
    /// [default: only without --data-dir].
    #[arg(long, env = "SSR_DEMO", overrides_with = "no_demo")]
    demo: bool,
    /// Do not register the demo tenants.
    #[arg(long, env = "SSR_NO_DEMO", overrides_with = "demo")]
    no_demo: bool,
    /// Route /t/<id>/... to tenant <id>. Every tenant under /t/ then shares
    /// one web origin (a cookie or script of one reaches the others): for
    /// the demo and development [default: only without --data-dir].
    #[arg(long, env = "SSR_PATH_ROUTING", overrides_with = "no_path_routing")]
    path_routing: bool,
    /// Route by hostname only.
    #[arg(long, env = "SSR_NO_PATH_ROUTING", overrides_with = "path_routing")]
    no_path_routing: bool,
}

impl ServeArgs {
    /// Defaults, then the file, then flags and environment: the flags are
    /// applied as one more `FileConfig`, so both share one set of
    /// conversions (`FileConfig::apply`).
    fn config(&self) -> anyhow::Result<Config> {
        let mut c = Config::default();
        if let Some(path) = &self.config {
            FileConfig::load(path)?.apply(&mut c);
        }
        FileConfig {
            listen: self.listen,
            admin_listen: self.admin_listen,
            data_dir: self.data_dir.clone(),
            workers: self.workers,
            pin: self.pin,
            queue_capacity: self.queue_capacity,
            request_timeout_ms: self.request_timeout,
            render_deadline_ms: self.render_deadline,
            cache_mib: self.cache_mib,
            cache_tenant_mib: self.cache_tenant_mib,
            cache_entry_kib: self.cache_entry_kib,
            cache_ttl_secs: self.cache_ttl,
            admin_token: self.admin_token.clone(),
            max_connections: self.max_connections,
            header_timeout_ms: self.header_timeout,
            max_header_kib: self.max_header_kib,
            memory_limit_mib: self.memory_limit_mib,
            warm_instances: self.warm_instances,
            renders_per_worker: self.renders_per_worker,
            demote_after_ms: self.demote_after,
            v8_threads: self.v8_threads,
            tenant_concurrency: self.tenant_concurrency,
            max_wasm_stack_kib: self.max_wasm_stack_kib,
            max_plugin_mib: None,
            max_response_kib: self.max_response_kib,
            default_mode: self.mode,
            demo: flag(self.demo, self.no_demo),
            path_routing: flag(self.path_routing, self.no_path_routing),
            render_on: self.render_on,
        }
        .apply(&mut c);
        c.validate()?;
        Ok(c)
    }
}

/// A `--x`/`--no-x` pair: `None` when neither was given.
fn flag(on: bool, off: bool) -> Option<bool> {
    match (on, off) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = args.config()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ssr-http")
        .build()?;
    rt.block_on(serve(config))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // First: metric handles made before the recorder exists would be no-ops.
    let metrics = ssr::http::prometheus();
    let engines = Engines::new(EngineOptions {
        wasm: WasmOptions {
            pooled_instances: Some(config.pooled_instances() as u32),
            memory_limit: config.memory_limit,
            max_wasm_stack: config.max_wasm_stack,
        },
        // Never before the pool may lower a render (`EngineOptions`).
        v8_offer_core_after: config.demote_after,
    })?;
    let store = match &config.data_dir {
        Some(dir) => Some(
            Store::open(dir)
                .with_context(|| format!("cannot use the data dir {}", dir.display()))?,
        ),
        None => None,
    };
    let registry = Arc::new(Registry::open(engines, store, config.tenant_defaults())?);
    let pool = Pool::start(PoolOptions {
        workers: config.workers,
        pin: config.pin,
        queue_capacity: config.queue_capacity,
        warm_instances: config.warm_instances,
        renders_per_worker: config.renders_per_worker,
        blocking_threads: config.v8_threads(),
        demote_after: config.demote_after,
    });
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
    let state = Arc::new(AppState {
        cache: Cache::new(config.cache_limits()),
        config,
        registry: registry.clone(),
        pool,
        admin_token,
        ready: AtomicBool::new(!demo),
        metrics,
    });
    eprintln!(
        "ssr listening on http://{addr} ({} tenants, {} workers)",
        registry.list().len(),
        state.config.workers
    );
    if demo {
        let state = state.clone();
        tokio::task::spawn_blocking(move || {
            register_demo(&state.registry, addr);
            state
                .ready
                .store(true, std::sync::atomic::Ordering::Release);
        });
    }
    ssr::http::serve(listener, admin_listener, state).await?;
    eprintln!("ssr stopped");
    Ok(())
}

/// The example plugins: `plugins/<name>/` with one of these entry files.
const DEMO_ENTRIES: &[&str] = &["render.js", "app.jsx", "app.js"];

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
                let result = ssr::build::build(entry, &Default::default(), &mut ssr::build::Quiet)
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
        let token = random_token();
        eprintln!("no --admin-token given; this run's admin token is {token}");
        return Ok(token);
    };
    let path = dir.join("admin-token");
    match std::fs::read_to_string(&path) {
        Ok(token) if token.trim().len() >= ssr::config::MIN_ADMIN_TOKEN_BYTES => {
            eprintln!(
                "no --admin-token given; using the one in {}",
                path.display()
            );
            return Ok(token.trim().to_string());
        }
        Ok(_) => anyhow::bail!(
            "{} holds no token of at least {} bytes; delete it to have a new one made, or pass --admin-token",
            path.display(),
            ssr::config::MIN_ADMIN_TOKEN_BYTES
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
    let token = random_token();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    ssr::fs::write_private(&path, token.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!(
        "no --admin-token given; made one, readable only by this user, in {}",
        path.display()
    );
    Ok(token)
}

fn random_token() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the system's random source");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
