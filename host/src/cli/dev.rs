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
//!
//! What it keeps from other people on the machine and other sites in the
//! browser:
//! - it answers only a request whose `Host` is `localhost`, `127.0.0.1`
//!   or `[::1]` (with any port), as Vite does: a page elsewhere that
//!   rebinds its own name to 127.0.0.1 gets 403, not the site;
//! - the backend's admin token reaches it in its environment (readable by
//!   this user alone), not on its command line (readable by every user);
//! - `.dev.vars` are registered as secrets: the backend's admin API shows
//!   their names, never their values;
//! - the reload script is a file of its own (`/_ssr_dev/reload.js`), not
//!   inline code that a page's Content-Security-Policy may refuse, and it
//!   is put into a page's bytes as they are, whatever their encoding.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State};
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

/// The script added to HTML pages, naming the build the page shows: a page
/// that subscribes after a later build ended (one that ended while it
/// loaded) reloads at once, so that no build's reload is missed.
fn reload_tag(build: u64) -> String {
    format!("<script src=\"/_ssr_dev/reload.js?build={build}\"></script>")
}
/// What it runs: reload when the site was rebuilt.
const RELOAD_JS: &str = "new EventSource('/_ssr_dev/events'+new URL(document.currentScript.src).search).addEventListener('reload',()=>location.reload());\n";

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
    /// How many builds have ended; each sends `reload`.
    builds: AtomicU64,
    reload: broadcast::Sender<()>,
    http: reqwest::Client,
    /// The guest runtime compiled once for this session's builds.
    code_cache: tempfile::TempDir,
    /// The `.dev.vars` names registered as secrets by the last build.
    secrets: tokio::sync::Mutex<Vec<String>>,
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
        builds: AtomicU64::new(0),
        reload: broadcast::channel(16).0,
        http: reqwest::Client::new(),
        code_cache: tempfile::tempdir()?,
        secrets: Default::default(),
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
        .route(
            "/_ssr_dev/reload.js",
            axum::routing::get(|| async {
                (
                    [("content-type", "text/javascript; charset=utf-8")],
                    RELOAD_JS,
                )
            }),
        )
        .fallback(forward)
        .layer(axum::middleware::from_fn(local_hosts_only))
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
            .arg("--stop-with-stdin")
            // Not an argument: every user may read a process's arguments.
            .env("SSR_ADMIN_TOKEN", &token)
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
    dev.builds.fetch_add(1, Ordering::SeqCst);
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
    let secrets = dev_vars(&dev.dir)?;
    // A `.dev.vars` value stands in for the config's var of that name.
    let named = |var: &str| {
        let name = var.split_once('=').map_or(var, |(n, _)| n);
        secrets.iter().any(|(n, _)| n == name)
    };
    let mut query: Vec<(String, String)> = site
        .settings(None)
        .into_iter()
        .filter(|(k, v)| k != "host" && k != "engine" && k != "debug" && !(k == "var" && named(v)))
        .collect();
    query.push(("host".into(), dev.host.clone()));
    query.push(("engine".into(), dev.engine.as_str().into()));
    query.push(("debug".into(), "true".into()));
    let tenant = format!("{}/_ssr/admin/tenants/{}", dev.backend, site.name);
    let mut registered = dev.secrets.lock().await;
    // A name the new `.dev.vars` lacks goes first: it may be a var now.
    for gone in registered
        .iter()
        .filter(|n| !secrets.iter().any(|(s, _)| s == *n))
    {
        let url = format!("{tenant}/secrets/{gone}");
        admin(dev, dev.http.delete(url)).await?;
    }
    registered.clear();
    let url = format!("{tenant}?{}", client::query(&query));
    admin(dev, dev.http.put(url).body(plugin)).await?;
    for (name, value) in secrets {
        let url = format!("{tenant}/secrets/{name}");
        admin(dev, dev.http.put(url).body(value)).await?;
        registered.push(name);
    }
    Ok(())
}

/// Sends one admin request to the backend; its answer's text if it failed.
async fn admin(dev: &Dev, request: reqwest::RequestBuilder) -> anyhow::Result<()> {
    let answer = request.bearer_auth(&dev.token).send().await?;
    if !answer.status().is_success() && answer.status() != reqwest::StatusCode::NOT_FOUND {
        bail!("{}", answer.text().await.unwrap_or_default().trim_end());
    }
    Ok(())
}

/// Refuses a request whose `Host` is not this machine's loopback name: a
/// page that rebinds its own name to 127.0.0.1 would read the dev site, its
/// debug pages and error stacks, as its own origin.
async fn local_hosts_only(req: Request, next: axum::middleware::Next) -> Response {
    let host = req
        .headers()
        .get("host")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if is_local_host(host) {
        return next.run(req).await;
    }
    (
        axum::http::StatusCode::FORBIDDEN,
        format!(
            "ssr dev answers only http://localhost, 127.0.0.1 and [::1], not the host {:?}\n",
            host
        ),
    )
        .into_response()
}

/// Whether `host` (a `Host` header) names this machine's loopback.
fn is_local_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map_or("", |(name, _)| name),
        None => host.split_once(':').map_or(host, |(name, _)| name),
    };
    let port_ok = match host.rsplit_once(':') {
        Some((_, port)) if !host.ends_with(']') => port.parse::<u16>().is_ok(),
        _ => true,
    };
    port_ok
        && matches!(
            name.to_ascii_lowercase().as_str(),
            "localhost" | "127.0.0.1" | "::1"
        )
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

/// `/_ssr_dev/events?build=N`: `reload` after each build, and at once
/// when a build after the page's `N` has ended.
async fn events(
    State(dev): State<Arc<Dev>>,
    Query(page): Query<std::collections::HashMap<String, String>>,
) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let rx = dev.reload.subscribe();
    let shown = page.get("build").and_then(|b| b.parse::<u64>().ok());
    let behind = shown.is_some_and(|b| dev.builds.load(Ordering::SeqCst) > b);
    let stream = futures_util::stream::unfold((rx, behind), |(mut rx, behind)| async move {
        if !behind {
            loop {
                match rx.recv().await {
                    Ok(()) => break,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        }
        // With data: a browser drops an event without any (the HTML
        // standard's event-stream rules).
        let event = Event::default().event("reload").data("rebuilt");
        Some((Ok::<_, std::convert::Infallible>(event), (rx, false)))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Every other request: the last build's error, or the site's answer, an
/// HTML page with the reload script added.
async fn forward(State(dev): State<Arc<Dev>>, req: Request) -> Response {
    // Read before what the page shows: a build that ends in between
    // makes the page reload once more, never miss one.
    let build = dev.builds.load(Ordering::SeqCst);
    let failed = dev.failed.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(said) = failed {
        let page = format!(
            "<!doctype html><title>build failed</title><h1>The build failed</h1><pre>{}</pre>{}",
            ssr::http::escape_html(&said),
            reload_tag(build)
        );
        return (
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            [("content-type", "text/html; charset=utf-8")],
            page,
        )
            .into_response();
    }
    match proxy(&dev, req, build).await {
        Ok(response) => response,
        Err(e) => (
            axum::http::StatusCode::BAD_GATEWAY,
            format!("the server that runs the site did not answer: {e:#}\n"),
        )
            .into_response(),
    }
}

async fn proxy(dev: &Dev, req: Request, build: u64) -> anyhow::Result<Response> {
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
        Bytes::from(inject(&bytes, &reload_tag(build)))
    } else {
        bytes
    };
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    Ok(response)
}

/// `page` with the reload script `tag` before its last `</body>` (any
/// case), or at its end; its other bytes as they are (a page need not be
/// UTF-8).
fn inject(page: &[u8], tag: &str) -> Vec<u8> {
    let at = page
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(page.len());
    [&page[..at], tag.as_bytes(), &page[at..]].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_are_local() {
        for host in [
            "localhost",
            "localhost:8787",
            "LOCALHOST:1",
            "127.0.0.1",
            "127.0.0.1:8787",
            "[::1]",
            "[::1]:8787",
        ] {
            assert!(is_local_host(host), "{host}");
        }
        for host in [
            "",
            "evil.example",
            "evil.example:8787",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "[::2]:8787",
            "localhost:x",
            "127.0.0.2",
        ] {
            assert!(!is_local_host(host), "{host}");
        }
    }

    #[test]
    fn the_script_goes_in_before_the_body_ends_and_other_bytes_stay() {
        let page = b"<p>caf\xe9</p></BODY></html>";
        let tag = reload_tag(7);
        let made = inject(page, &tag);
        let want = [&b"<p>caf\xe9</p>"[..], tag.as_bytes(), b"</BODY></html>"].concat();
        assert_eq!(made, want);
        assert_eq!(
            inject(b"<p>x", &tag),
            [&b"<p>x"[..], tag.as_bytes()].concat()
        );
    }
}
