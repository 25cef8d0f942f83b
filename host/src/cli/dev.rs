//! `ssr dev [DIR]`: a site's development loop. Builds the site as
//! `ssr deploy` would (its `ssr.toml` and Workers config), serves it on
//! `127.0.0.1:8787` with the vars of its `.dev.vars`, rebuilds when a source
//! changes, and reloads the open page.
//!
//! How: an `ssr serve` of its own on a free loopback port runs the site (the
//! same server, engines and limits as production, `debug` on, so a render
//! error's page shows its message and its stack mapped to the site's
//! files); in front of it, this process answers the browser. It forwards
//! each request, adds to an HTML page a script that listens on
//! `/_ssr_dev/events` (server-sent events) and reloads on `reload`, and
//! while the last build failed answers every request with that error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use clap::Args;
use ssr::engine::EngineKind;
use tokio::sync::broadcast;

use super::client;

#[derive(Debug, Args)]
pub struct DevArgs {
    /// The site's directory (with its ssr.toml and/or Workers config).
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// The engine that runs the site: wasm, so that the sandbox's limits
    /// show in development, or v8.
    #[arg(long, default_value = "wasm")]
    engine: EngineKind,
    /// The port on 127.0.0.1 to serve the site on.
    #[arg(long, default_value_t = 8787)]
    port: u16,
}

/// The script added to HTML pages: reload when the site was rebuilt.
const RELOAD: &str = "<script>new EventSource('/_ssr_dev/events').addEventListener('reload',()=>location.reload())</script>";

struct Dev {
    dir: PathBuf,
    engine: EngineKind,
    /// The `ssr serve` running the site, and its admin token.
    backend: String,
    token: String,
    /// The hostname the site is registered under there.
    host: String,
    /// The last build's failure, shown instead of the site.
    failed: RwLock<Option<String>>,
    reload: broadcast::Sender<()>,
    http: reqwest::Client,
    /// The guest runtime compiled once for this session's builds.
    code_cache: tempfile::TempDir,
}

pub fn run(args: DevArgs) -> anyhow::Result<ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?
        .block_on(dev(args))
}

async fn dev(args: DevArgs) -> anyhow::Result<ExitCode> {
    let site = ssr::site::load(&args.dir)?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .with_context(|| {
            format!(
                "cannot listen on 127.0.0.1:{}: is another `ssr dev` or `wrangler dev` using it? Pass --port",
                args.port
            )
        })?;
    let backend = Backend::start()?;
    let dev = Arc::new(Dev {
        dir: args.dir.clone(),
        engine: args.engine,
        backend: backend.url.clone(),
        token: backend.token.clone(),
        host: format!("{}.localhost", site.name),
        failed: RwLock::new(None),
        reload: broadcast::channel(16).0,
        http: reqwest::Client::new(),
        code_cache: tempfile::tempdir()?,
    });
    backend.ready(&dev.http).await?;
    rebuild(&dev).await;
    let watching = watch(dev.clone())?;
    eprintln!(
        "serving `{}` on http://127.0.0.1:{}/ ({:?}); watching {} (Ctrl-C to stop)",
        site.name,
        args.port,
        args.engine,
        args.dir.display()
    );
    let app = axum::Router::new()
        .route("/_ssr_dev/events", axum::routing::get(events))
        .fallback(forward)
        .with_state(dev);
    // Ctrl-C or a TERM ends both processes: the server that runs the site
    // is stopped here (`Backend`'s drop), not left behind holding the
    // terminal's output.
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        served = axum::serve(listener, app) => served?,
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    drop(watching);
    drop(backend);
    Ok(ExitCode::SUCCESS)
}

/// The `ssr serve` that runs the site, stopped when dropped.
struct Backend {
    child: std::process::Child,
    url: String,
    token: String,
}

impl Backend {
    fn start() -> anyhow::Result<Backend> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let token = ssr::artifact::random_hex(24);
        let child = std::process::Command::new(std::env::current_exe()?)
            .args(["serve", "--demo=false", "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .args(["--admin-token", &token, "--stop-with-stdin"])
            // Its end of this pipe closes when this process ends, however
            // it ends: the server then stops too.
            .stdin(std::process::Stdio::piped())
            .spawn()
            .context("cannot start the server that runs the site")?;
        Ok(Backend {
            child,
            url: format!("http://127.0.0.1:{port}"),
            token,
        })
    }

    async fn ready(&self, http: &reqwest::Client) -> anyhow::Result<()> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            let url = format!("{}/_ssr/readyz", self.url);
            if http
                .get(&url)
                .send()
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("the server that runs the site did not start within 30 s")
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Builds the site and registers it on the backend; a failure is kept to
/// show. Either way, open pages reload.
async fn rebuild(dev: &Arc<Dev>) {
    let started = Instant::now();
    let outcome = match register(dev).await {
        Ok(()) => {
            eprintln!("built and serving ({:.0?})", started.elapsed());
            None
        }
        Err(e) => {
            let said = format!("{e:#}");
            eprintln!("error: {said}");
            Some(said)
        }
    };
    *dev.failed.write().unwrap_or_else(|e| e.into_inner()) = outcome;
    let _ = dev.reload.send(());
}

async fn register(dev: &Dev) -> anyhow::Result<()> {
    let dir = dev.dir.clone();
    let cache = dev.code_cache.path().to_path_buf();
    let engine = dev.engine;
    let (site, plugin) = tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
        let site = ssr::site::load(&dir)?;
        let options = ssr::build::Options {
            code_cache: Some(cache),
            // V8 runs the bundle itself: no snapshot to make.
            v8_only: engine == EngineKind::V8,
            ..site.build_options()
        };
        let built = ssr::build::build(&site.entry, &options, &mut ssr::build::Quiet)?;
        Ok((site, built.plugin))
    })
    .await??;
    let mut query: Vec<(String, String)> = site
        .settings(None)
        .into_iter()
        .filter(|(k, _)| k != "host" && k != "engine" && k != "debug")
        .collect();
    query.push(("host".into(), dev.host.clone()));
    query.push(("engine".into(), dev.engine.as_str().into()));
    query.push(("debug".into(), "true".into()));
    for (name, value) in dev_vars(&dev.dir)? {
        query.push(("var".into(), format!("{name}={value}")));
    }
    let url = format!(
        "{}/_ssr/admin/tenants/{}?{}",
        dev.backend,
        site.name,
        client::query(&query)
    );
    let answer = dev
        .http
        .put(url)
        .bearer_auth(&dev.token)
        .body(plugin)
        .send()
        .await?;
    if !answer.status().is_success() {
        bail!("{}", answer.text().await.unwrap_or_default().trim_end());
    }
    Ok(())
}

/// `.dev.vars` (the Workers convention): `NAME=VALUE` lines, `#` comments,
/// values optionally in double quotes.
fn dev_vars(dir: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let path = dir.join(".dev.vars");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut vars = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            bail!("{}, line {}: write it as NAME=VALUE", path.display(), n + 1);
        };
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        vars.push((name.trim().to_string(), value.to_string()));
    }
    Ok(vars)
}

/// Rebuilds on every change under the site's directory (not its
/// `node_modules` or `.git`), a burst of changes once.
fn watch(dev: Arc<Dev>) -> anyhow::Result<notify::RecommendedWatcher> {
    use notify::Watcher;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event
            && event.kind.is_modify() | event.kind.is_create() | event.kind.is_remove()
            && event.paths.iter().any(|p| is_source(p))
        {
            let _ = tx.send(());
        }
    })?;
    watcher.watch(&dev.dir, notify::RecursiveMode::Recursive)?;
    tokio::spawn(async move {
        while rx.recv().await.is_some() {
            // An editor's save is often several events.
            tokio::time::sleep(Duration::from_millis(20)).await;
            while rx.try_recv().is_ok() {}
            rebuild(&dev).await;
        }
    });
    Ok(watcher)
}

fn is_source(path: &Path) -> bool {
    !path.components().any(|c| {
        let c = c.as_os_str();
        c == "node_modules" || c == ".git" || c == ".wrangler"
    })
}

/// `/_ssr_dev/events`: `reload` after each build.
async fn events(State(dev): State<Arc<Dev>>) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let rx = dev.reload.subscribe();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        loop {
            match rx.recv().await {
                Ok(()) => {
                    // With data: a browser drops an event without any
                    // (the HTML standard's event-stream rules).
                    let event = Event::default().event("reload").data("rebuilt");
                    return Some((Ok::<_, std::convert::Infallible>(event), rx));
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Every other request: the last build's error, or the site's answer, an
/// HTML page with the reload script added.
async fn forward(State(dev): State<Arc<Dev>>, req: Request) -> Response {
    let failed = dev.failed.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(said) = failed {
        let page = format!(
            "<!doctype html><title>build failed</title><h1>The build failed</h1><pre>{}</pre>{RELOAD}",
            escape(&said)
        );
        return (
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "text/html; charset=utf-8")],
            page,
        )
            .into_response();
    }
    match proxy(&dev, req).await {
        Ok(response) => response,
        Err(e) => (
            axum::http::StatusCode::BAD_GATEWAY,
            format!("the server that runs the site did not answer: {e:#}\n"),
        )
            .into_response(),
    }
}

async fn proxy(dev: &Dev, req: Request) -> anyhow::Result<Response> {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 64 << 20).await?;
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut out = dev
        .http
        .request(parts.method.clone(), format!("{}{path}", dev.backend))
        .body(body);
    for (name, value) in &parts.headers {
        // The site's host; and bodies as they are, to add the script.
        if name != "host" && name != "accept-encoding" {
            out = out.header(name, value);
        }
    }
    let answer = out.header("host", &dev.host).send().await?;
    let status = answer.status();
    let mut headers = answer.headers().clone();
    let html = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    let bytes = answer.bytes().await?;
    let bytes = if html {
        headers.remove("content-length");
        headers.remove("etag");
        Bytes::from(inject(&bytes))
    } else {
        bytes
    };
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    Ok(response)
}

/// `page` with the reload script before its `</body>`, or at its end.
fn inject(page: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    match text.rfind("</body>") {
        Some(at) => format!("{}{RELOAD}{}", &text[..at], &text[at..]).into_bytes(),
        None => format!("{text}{RELOAD}").into_bytes(),
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
