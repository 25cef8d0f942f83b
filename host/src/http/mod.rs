//! The HTTP server: [`app`] builds the router with every layer, [`serve`]
//! runs it with graceful shutdown.
//!
//! Routes: tenants own their URL space. The host's own endpoints live
//! under [`HOST_PREFIX`] (`/_ssr/healthz`, `/_ssr/readyz`, `/_ssr/metrics`,
//! `/_ssr/admin/...`, see `admin.rs`): on the public listener when there is no
//! `--admin-listen`, else on the admin listener only, and then every path
//! of the public listener renders a page (see `routes.rs`).
//!
//! Invariant: only `healthz` and `readyz` answer without the admin token;
//! `metrics` (it names every tenant) and `admin` need it.
//!
//! Shutdown: on SIGTERM or SIGINT the listener stops accepting, in-flight
//! requests finish (up to a grace period), the pool drains, and the process
//! exits 0.

pub mod admin;
mod bindings;
mod demo;
pub mod error;
pub mod gate;
pub mod listen;
mod routes;
mod scheduled;
mod stream;
pub mod websocket;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, post, put};
use metrics_exporter_prometheus::PrometheusHandle;
use tower::ServiceExt;

use crate::cache::{Cache, CacheBudget, Flights};
use crate::config::Config;
use crate::engine::wasm::WasmOptions;
use crate::engine::{EngineError, EngineOptions, Engines};
use crate::pool::{Pool, PoolOptions};
use crate::tenant::store::RedisStore;
use crate::tenant::store::redis::RedisError;
use crate::tenant::sync::{Effect, StoreStatus};
use crate::tenant::{DataDir, Defaults, Registry, Store, TenantError};
use error::ApiError;

/// What every handler shares.
pub struct AppState {
    pub config: Config,
    pub registry: Arc<Registry>,
    pub pool: Pool,
    pub cache: Arc<Cache>,
    /// Concurrent misses for one URL share one render (`cache/flight.rs`).
    pub flights: Flights<ApiError>,
    pub admin_token: String,
    /// Rendered bytes waiting for clients (`--max-unsent-mib`).
    pub unsent: Arc<crate::unsent::Unsent>,
    /// Request bodies arriving, per client (`--max-uploads-per-client`).
    pub uploads: Arc<gate::Gate<std::net::IpAddr>>,
    /// What the admin API lets run at once (`admin.rs`).
    pub admin: admin::Running,
    /// The WebSockets open (`websocket.rs`).
    pub websockets: websocket::Places,
    /// Set once start-up work (demo tenants) is done.
    pub ready: AtomicBool,
    pub metrics: PrometheusHandle,
}

/// Why a server could not be put together from its settings.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("the engines could not start")]
    Engines(#[from] EngineError),
    #[error("cannot use the data dir {}", dir.display())]
    DataDir {
        dir: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the stored tenants could not be loaded")]
    Tenants(#[from] TenantError),
    #[error("cannot use the shared store")]
    Store(#[from] RedisError),
}

impl AppState {
    /// Everything a server shares, from its settings: both engines, the
    /// registry with the tenants stored in `--data-dir`, the pool's threads
    /// and an empty cache. Not ready (`/_ssr/readyz`) until the caller says
    /// so. `ssr serve` and the in-process tests start a server this way.
    pub fn open(config: Config, admin_token: String) -> Result<Arc<AppState>, OpenError> {
        // First: metric handles made before the recorder exists would be
        // no-ops.
        let metrics = prometheus();
        let engines = Engines::new(EngineOptions {
            wasm: WasmOptions {
                pooled_instances: Some(config.pooled_instances() as u32),
                memory_limit: config.memory_limit_mib.bytes(),
                max_wasm_stack: config.max_wasm_stack_kib.bytes(),
                code_cache: config.code_cache.clone(),
                keep_resident: config.slot_keep_resident(),
                codegen: Default::default(),
                shared_dir: config
                    .data_dir
                    .as_ref()
                    .map(|d| d.join(DataDir::SHARED_CODE)),
                split: true,
                guard: Some(crate::engine::wasm::guard::CompileGuard::of(&config)),
            },
            // The pool's, so no offer comes before the pool may lower a
            // render.
            scheduling: config.scheduling(),
            #[cfg(feature = "v8")]
            v8_processes: Some(crate::engine::v8::process::ProcessOptions::start(&config)),
        })?;
        let dir = |code_only| match &config.data_dir {
            Some(dir) => DataDir::open(dir, code_only, engines.wasm.code_key()).map_err(|source| {
                OpenError::DataDir {
                    dir: dir.clone(),
                    source,
                }
            }),
            None => unreachable!("checked: only with a data dir"),
        };
        let store = match (&config.store, &config.data_dir) {
            (Some(url), _) => Some(Store::Shared {
                redis: Box::new(RedisStore::open(url, config.store_ca.as_deref())?),
                code: dir(true)?,
            }),
            (None, Some(_)) => Some(Store::Local(dir(false)?)),
            (None, None) => None,
        };
        let cache = Arc::new(Cache::new(CacheBudget::from(&config)));
        let registry = Arc::new(Registry::open(
            engines,
            store,
            Defaults::from(&config),
            Some(cache.clone()),
        )?);
        let pool = Pool::start(PoolOptions {
            workers: config.workers,
            pin: config.pin,
            queue_capacity: config.queue_capacity,
            warm_instances: config.warm_instances,
            warm_bytes: config.warm_memory_mib.bytes() / 2,
            warm_idle: config.warm_idle(),
            renders_per_worker: config.renders_per_worker,
            v8_threads: config.v8_threads(),
            waiting_per_worker: config.waiting_per_worker,
            scheduling: config.scheduling(),
            inline_slices: config.inline_slices(),
        });
        let state = Arc::new(AppState {
            cache,
            flights: Default::default(),
            unsent: crate::unsent::Unsent::new(config.max_unsent_mib.bytes()),
            uploads: gate::Gate::new(config.max_uploads_per_client),
            admin: admin::Running::new(&config),
            websockets: websocket::Places::new(&config),
            config,
            registry,
            pool,
            admin_token,
            ready: AtomicBool::new(false),
            metrics,
        });
        let services = Arc::new(Services(Arc::downgrade(&state)));
        state.registry.stores().dispatch.set(services);
        if let Some(objects) = state.registry.stores().objects() {
            objects.serve(Arc::new(Services(Arc::downgrade(&state))));
        }
        if let Some(idle) = state.config.warm_idle() {
            trim_idle_plugins(Arc::downgrade(&state.registry), idle);
        }
        if matches!(state.registry.store_status(), StoreStatus::Connected { .. }) {
            let (registry, app) = (state.registry.clone(), Arc::downgrade(&state));
            std::thread::Builder::new()
                .name("ssr-follow".into())
                .spawn(move || {
                    crate::tenant::sync::follow(registry, |effect| {
                        if let Some(app) = app.upgrade() {
                            app.follow(effect);
                        }
                    })
                })
                .expect("spawning the store's follower");
            let registry = Arc::downgrade(&state.registry);
            std::thread::Builder::new()
                .name("ssr-log-out".into())
                .spawn(move || crate::tenant::sync::forward_logs(registry))
                .expect("spawning the log forwarder");
        }
        Ok(state)
    }

    /// Acts on a change another replica made (`tenant::sync`).
    fn follow(&self, effect: Effect) {
        match effect {
            Effect::Replaced(tenant) => {
                admin::forget_old(self, &tenant);
                tracing::info!(
                    tenant = &*tenant.id,
                    version = tenant.version(),
                    "tenant updated from the shared store"
                );
            }
            Effect::Removed(tenant) => {
                admin::forget_removed(self, &tenant.id);
                tracing::info!(tenant = &*tenant.id, "tenant removed from the shared store");
            }
            Effect::Purge { tenant, prefix } => {
                self.cache.purge(&tenant, prefix.as_deref());
            }
        }
    }
}

/// What renders service bindings' requests: the server, while it is up.
struct Services(std::sync::Weak<AppState>);

/// A service binding's request, rendered as its tenant's own: the
/// tenant's limits, its concurrency at the call's depth, the caller's
/// deadline if sooner than `--request-timeout`, no cache
/// (`bindings/service.rs`).
impl crate::bindings::service::Dispatch for Services {
    fn render(
        &self,
        request: contract::Request,
        deadline: std::time::Instant,
    ) -> crate::bindings::service::Rendering {
        let state = self.0.clone();
        Box::pin(async move {
            let (state, tenant) = reached(&state, &request.tenant)?;
            let timeout = state.config.request_timeout.duration();
            let deadline = deadline.min(std::time::Instant::now() + timeout);
            // Its slot is one of its depth's (`tenant::Called`).
            let depth = request
                .headers
                .iter()
                .find(|(k, _)| k == crate::bindings::service::DEPTH_HEADER)
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(1);
            let called = Arc::new(crate::tenant::Called::new(tenant.clone(), depth));
            let out = state.pool.render(&called, request, deadline, None).await;
            finished(&tenant, out)
        })
    }
}

/// A Durable Object's render, of its tenant's version now: it takes no
/// concurrency permit (`pool::Pool::render_living`), and its limits are
/// renewed with each event (`bindings/objects/`).
impl crate::bindings::objects::Run for Services {
    fn live(
        &self,
        request: contract::Request,
        inbox: crate::bindings::objects::Inbox,
        deadline: std::time::Instant,
    ) -> crate::bindings::service::Rendering {
        let state = self.0.clone();
        Box::pin(async move {
            let (state, tenant) = reached(&state, &request.tenant)?;
            let (sink, frames) = crate::web::stream::channel(&state.unsent);
            let called = Arc::new(crate::tenant::Called::new(tenant.clone(), 1));
            let sink = Some(sink.with_object(Box::new(inbox)));
            let out = state.pool.render(&called, request, deadline, sink).await;
            drop(frames);
            finished(&tenant, out)
        })
    }
}

/// The server, if it is still up, and tenant `id` there.
fn reached(
    state: &std::sync::Weak<AppState>,
    id: &str,
) -> Result<(Arc<AppState>, Arc<crate::tenant::Tenant>), String> {
    let Some(state) = state.upgrade() else {
        return Err("the server is stopping".to_string());
    };
    let Some(tenant) = state.registry.get(id) else {
        return Err(format!("`{id}` is not a tenant here"));
    };
    Ok((state, tenant))
}

/// A render made in the host, counted and its failure logged as a
/// request's.
fn finished(
    tenant: &crate::tenant::Tenant,
    out: Result<crate::pool::Rendered, crate::pool::PoolError>,
) -> Result<contract::Response, String> {
    match out {
        Ok(r) => {
            error::counted(tenant, &r);
            Ok(r.response)
        }
        Err(e) => {
            let said = crate::report::Chain(&e).to_string();
            let _ = error::failed_render(tenant, e);
            Err(format!("its render failed: {said}"))
        }
    }
}

/// As often as the pool looks for idle warm instances, asks each tenant's
/// plugin to give back what it keeps for instances to come once it has had
/// none for `idle` (`Plugin::trim`): a tenant that served and went idle then
/// holds little more than one that never served. Ends with the registry.
fn trim_idle_plugins(registry: std::sync::Weak<Registry>, idle: std::time::Duration) {
    let every = crate::pool::idle_check_every(idle);
    std::thread::Builder::new()
        .name("ssr-trim".into())
        .spawn(move || {
            loop {
                std::thread::sleep(every);
                let Some(registry) = registry.upgrade() else {
                    return;
                };
                let trimmed = registry
                    .list()
                    .iter()
                    .filter(|t| t.plugin.trim(idle))
                    .count();
                if trimmed > 0 {
                    tracing::debug!(trimmed, "gave back idle plugins' memory");
                }
            }
        })
        .expect("spawning the idle trimmer");
}

/// The prefix of the host's own endpoints. A tenant's site cannot use it
/// while the public listener carries them (no `--admin-listen`).
pub const HOST_PREFIX: &str = "/_ssr";

/// The public listener's service: pages, plus [`host_app`] when the admin
/// API has no listener of its own. Only paths under [`HOST_PREFIX`] go
/// through axum's router; every other request goes straight to
/// `routes::answer` (then `routes::render` on a miss), because routing a page through axum (a boxed future, a
/// map of path parameters, the method router) cost about 10% of a 1 KiB
/// cache hit (`benches/hits.sh`, profiled with perf). Layers: body limits on
/// the admin API only (1 MiB, the plugin size on its PUT); a page reads its
/// body itself, up to its tenant's `max_request_kib` (`routes::render`). Renders answer 504 on their own deadline (`routes::submit`). No
/// per-request tracing or timeout layer on purpose: each costs a clock read
/// or a timer per request, which the cache-hit path cannot afford
/// (`benches/load.sh`); failures are logged where they happen, with the
/// tenant.
pub fn app(state: Arc<AppState>) -> listen::Service {
    let host = state
        .config
        .admin_listen
        .is_none()
        .then(|| host_app(state.clone()));
    Arc::new(move |req: listen::Request| {
        let host_path = is_host_path(req.uri().path());
        if req.extensions().get::<listen::Reserved>().is_some() && !host_path {
            return Box::pin(std::future::ready(at_capacity()));
        }
        if let Some(host) = host.as_ref().filter(|_| host_path) {
            return Box::pin(routed(host.clone(), req));
        }
        let (mut parts, body) = req.into_parts();
        routes::absolute_form(&mut parts);
        match routes::answer(&state, &parts) {
            routes::Step::Done(resp) => Box::pin(std::future::ready(resp)),
            routes::Step::Render(pending) => {
                Box::pin(routes::render(state.clone(), parts, body, pending))
            }
        }
    })
}

/// The answer to a page asked on a reserved connection: the listener is at
/// `--max-connections`, and the reserve is for the host's endpoints.
/// `s` safe in HTML text and attribute values, for the pages the host
/// writes itself (the demo's first page, `ssr dev`'s build error).
pub fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn at_capacity() -> Response {
    let mut resp = ApiError::Saturated.into_response();
    resp.headers_mut().insert(
        axum::http::header::CONNECTION,
        HeaderValue::from_static("close"),
    );
    resp
}

/// `req` through axum's `router`.
async fn routed(router: Router, req: listen::Request) -> Response {
    let req = req.map(axum::body::Body::new);
    router.oneshot(req).await.unwrap_or_else(|e| match e {})
}

/// Whether `path` is one of the host's own ([`HOST_PREFIX`] or below it).
fn is_host_path(path: &str) -> bool {
    path.strip_prefix(HOST_PREFIX)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The host's endpoints under [`HOST_PREFIX`]: health and readiness for
/// anyone; metrics and the admin API behind the bearer token. Merged into
/// [`app`], or served alone on `--admin-listen`.
pub fn host_app(state: Arc<AppState>) -> Router {
    let guarded = Router::new()
        .route("/metrics", get(metrics))
        .route("/admin/tenants", get(admin::list))
        .route(
            "/admin/tenants/{id}",
            put(admin::put)
                .get(admin::show)
                .delete(admin::remove)
                .layer(DefaultBodyLimit::max(state.config.max_plugin_mib.bytes())),
        )
        .route("/admin/tenants/{id}/purge", post(admin::purge))
        .route("/admin/tenants/{id}/scheduled", post(scheduled::trigger))
        .route(
            "/admin/tenants/{id}/vars/{name}",
            put(admin::set_var).delete(admin::remove_var),
        )
        .route(
            "/admin/tokens",
            post(admin::create_token).get(admin::list_tokens),
        )
        .route("/admin/tokens/{id}", delete(admin::revoke_token))
        .route("/admin/tenants/{id}/logs", get(admin::logs))
        .route("/admin/tenants/{id}/secrets", get(admin::secrets))
        .route(
            "/admin/tenants/{id}/secrets/{name}",
            put(admin::put_secret).delete(admin::remove_secret),
        )
        .route("/admin/tenants/{id}/bindings", get(bindings::usage))
        .route(
            "/admin/tenants/{id}/kv/{binding}/keys",
            get(bindings::kv_keys),
        )
        .route(
            "/admin/tenants/{id}/kv/{binding}/values/{*key}",
            get(bindings::kv_get)
                .put(bindings::kv_put)
                .delete(bindings::kv_delete)
                .layer(DefaultBodyLimit::max(crate::bindings::kv::MAX_VALUE + 1)),
        )
        .route(
            "/admin/tenants/{id}/d1/{binding}/execute",
            post(bindings::d1_execute),
        )
        .route(
            "/admin/tenants/{id}/d1/{binding}/migrations/{name}",
            post(bindings::d1_migration),
        )
        .route(
            "/admin/tenants/{id}/d1/{binding}/export",
            get(bindings::d1_export),
        )
        .route(
            "/admin/tenants/{id}/r2/{binding}/objects/{*key}",
            get(bindings::r2_get)
                .put(bindings::r2_put)
                .delete(bindings::r2_delete)
                .layer(DefaultBodyLimit::max(bindings::R2_PUT_MAX)),
        )
        // Behind the token too: without one, a path that is not an
        // endpoint answers as one that is (401), so that no one can list
        // the endpoints by asking.
        .route("/admin", any(no_endpoint))
        .route("/admin/{*rest}", any(no_endpoint))
        .route("/metrics/{*rest}", any(no_endpoint))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            admin::authorize,
        ));
    let open = Router::new()
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz));
    let host = open.merge(guarded).fallback(no_endpoint);
    Router::new()
        .nest(HOST_PREFIX, host)
        .layer(DefaultBodyLimit::max(1 << 20))
        .with_state(state)
}

async fn no_endpoint() -> ApiError {
    ApiError::NotFound("no such endpoint of the host".into())
}

/// 200 once start-up work is done. With a shared store it says whether
/// the store answers, but stays 200 while it does not: the replica still
/// serves every tenant it knows, and every replica loses the store at
/// once, so taking them out of the load balancer would turn a store
/// outage into a site outage (docs/deploying.md).
async fn readyz(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    if !state.ready.load(Ordering::Acquire) {
        return (StatusCode::SERVICE_UNAVAILABLE, "starting\n".to_string());
    }
    let store = match state.registry.store_status() {
        StoreStatus::Local => String::new(),
        StoreStatus::Connected { url } => format!("store {url}: connected\n"),
        StoreStatus::Unreachable { url, since } => format!(
            "store {url}: unreachable for {} s; serving the {} tenants known, admin writes refused\n",
            since.elapsed().as_secs(),
            state.registry.list().len()
        ),
    };
    (StatusCode::OK, format!("ready\n{store}"))
}

async fn metrics(State(state): State<Arc<AppState>>) -> String {
    let s = &state.cache.stats;
    let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    let hits = s.hot_hits.get() + s.cold_hits.get();
    let lookups = hits + load(&s.misses);
    metrics::counter!("ssr_cache_lookups_total").absolute(lookups);
    metrics::counter!("ssr_cache_hot_hits_total").absolute(s.hot_hits.get());
    metrics::counter!("ssr_cache_cold_hits_total").absolute(s.cold_hits.get());
    metrics::counter!("ssr_cache_misses_total").absolute(load(&s.misses));
    metrics::counter!("ssr_cache_insertions_total").absolute(load(&s.insertions));
    metrics::counter!("ssr_cache_recompressions_total").absolute(load(&s.recompressions));
    metrics::counter!("ssr_cache_evictions_total").absolute(load(&s.evictions));
    metrics::counter!("ssr_cache_purge_visited_total").absolute(state.cache.visited());
    metrics::gauge!("ssr_cache_hit_ratio").set(hits as f64 / lookups.max(1) as f64);
    metrics::gauge!("ssr_cache_entries").set(state.cache.len() as f64);
    metrics::gauge!("ssr_cache_bytes").set(state.cache.bytes() as f64);
    for (tenant, bytes) in state.cache.bytes_by_tenant() {
        metrics::gauge!("ssr_cache_tenant_bytes", "tenant" => tenant.to_string()).set(bytes as f64);
    }
    metrics::gauge!("ssr_unsent_bytes").set(state.unsent.bytes() as f64);
    if let Some(objects) = state.registry.stores().objects() {
        metrics::gauge!("ssr_objects_live").set(objects.live() as f64);
    }
    metrics::gauge!("ssr_queue_depth").set(state.pool.queue_depth() as f64);
    metrics::gauge!("ssr_warm_instances").set(state.pool.warm_instances() as f64);
    metrics::gauge!("ssr_queue_capacity").set(state.pool.queue_capacity() as f64);
    let tenants = state.registry.list();
    metrics::gauge!("ssr_tenants").set(tenants.len() as f64);
    for t in &tenants {
        metrics::counter!("ssr_requests_total", "tenant" => t.id.to_string())
            .absolute(t.stats.requests.get());
        metrics::counter!("ssr_asset_responses_total", "tenant" => t.id.to_string())
            .absolute(t.stats.asset_hits.get());
    }
    #[cfg(feature = "v8")]
    metrics::counter!("ssr_v8_core_offers_total").absolute(crate::engine::v8::core_offers());
    state.metrics.render()
}

/// The process-wide Prometheus recorder (installed once).
pub fn prometheus() -> PrometheusHandle {
    static HANDLE: std::sync::OnceLock<PrometheusHandle> = std::sync::OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let buckets = [
                0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                1.0, 2.5,
            ];
            let recorder = metrics_exporter_prometheus::PrometheusBuilder::new()
                .set_buckets(&buckets)
                .expect("non-empty buckets")
                .build_recorder();
            let handle = recorder.handle();
            let _ = metrics::set_global_recorder(recorder);
            handle
        })
        .clone()
}

/// Serves `app` on `listener` (and the admin API on `admin`, when it has its
/// own address) until SIGTERM or SIGINT (or the end of standard input, with
/// `--stop-with-stdin`), then drains both.
pub async fn serve(
    listener: tokio::net::TcpListener,
    admin: Option<tokio::net::TcpListener>,
    state: Arc<AppState>,
) -> std::io::Result<()> {
    let stdin = state.config.stop_with_stdin;
    let shutdown = async move {
        tokio::select! {
            _ = shutdown_signal() => {},
            _ = stdin_closed(), if stdin => {},
        }
    };
    serve_until(listener, admin, state, shutdown).await
}

/// Completes when standard input ends (its writer closed it, or died).
async fn stdin_closed() {
    let (closed, ended) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("ssr-stdin".into())
        .spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            let _ = closed.send(());
        })
        .expect("a thread to watch standard input");
    let _ = ended.await;
}

/// [`serve`] until `shutdown` completes instead of a signal.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    admin: Option<tokio::net::TcpListener>,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let (stop, _) = tokio::sync::watch::channel(());
    let signalled = {
        let stop = stop.clone();
        async move {
            shutdown.await;
            tracing::info!("shutting down: no new connections, draining in-flight requests");
            let _ = stop.send(());
        }
    };
    let limits = listen::ConnectionPolicy::from(&state.config);
    let crons = tokio::spawn(scheduled::tick(Arc::downgrade(&state)));
    let pages = listen::serve(listener, app(state.clone()), limits, stop.subscribe());
    match admin {
        Some(admin) => {
            let host = host_app(state);
            let host: listen::Service =
                Arc::new(move |req: listen::Request| Box::pin(routed(host.clone(), req)));
            let admin = listen::serve(admin, host, limits, stop.subscribe());
            tokio::join!(pages, admin, signalled);
        }
        None => {
            tokio::join!(pages, signalled);
        }
    }
    crons.abort();
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::is_host_path;

    fn host_paths_are_the_prefix_and_below_it_only() {
        for path in ["/_ssr", "/_ssr/", "/_ssr/healthz", "/_ssr/admin/tenants/a"] {
            assert!(is_host_path(path), "{path}");
        }
        for path in [
            "/",
            "/_ssrx",
            "/_ssr-admin",
            "/t/_ssr/healthz",
            "/_SSR/healthz",
        ] {
            assert!(!is_host_path(path), "{path}");
        }
    }

    crate::unit_tests!(host_paths_are_the_prefix_and_below_it_only);
}
