//! Tenants: who owns which plugin, and which hostnames route to them
//! (request step 2, [`Registry::routes`], then [`Routes::host`] or
//! [`Routes::id`]).
//!
//! Lifetimes: the [`Registry`] lives for the process. A [`Tenant`] value is
//! one *version* of a tenant and is immutable; replacing a plugin makes a new
//! `Tenant` with a higher `version`. Requests hold an `Arc<Tenant>`, so a
//! request in flight finishes on the version it resolved (a hot swap never
//! fails a request) while new requests see the new one.
//!
//! Invariants:
//! - Everything is validated (id syntax, size, contract, compilation) before
//!   anything is stored or published.
//! - With a store, a registration is persisted (`store/`) before it is
//!   published, so what a client was told is stored survives a crash.
//! - With a store shared by replicas, `sync.rs` adopts the other replicas'
//!   writes; a version is adopted only if newer than the id's current one
//!   and than its last removal here (both checked under `writes`).
//! - A hostname routes to at most one tenant.
//! - Routing reads a snapshot ([`Routes`]) and writes nothing shared: a
//!   change makes a new snapshot, so a cache hit bumps no count that every
//!   core shares (`benches/hits.sh`).
//! - A demo tenant ([`Registry::put_demo`]) lives in memory only and takes
//!   an id only while it is free: it never replaces, removes or is stored
//!   over a registration made through the admin API.

pub mod env;
mod limits;
pub mod store;
pub mod sync;
pub mod tokens;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::assets::{AssetError, Assets};
use crate::counter::Striped;
pub use crate::engine::Mode;
use crate::engine::{EngineError, EngineKind, Engines, Grants, Plugin};
use crate::web::fetch::{FetchGrant, Origin};
use env::Env;
pub use limits::{AppliedLimits, Defaults, LimitOverrides};
pub use store::{DataDir, Store};

/// Settings given at registration.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Settings {
    /// Hostnames routed to this tenant (lower-case, no port).
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Isolation mode; the server's default when absent.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// The engine that runs the plugin; `wasm` when absent.
    #[serde(default)]
    pub engine: Option<EngineKind>,
    /// The limits this tenant sets; the server's defaults for the rest.
    #[serde(default)]
    pub limits: LimitOverrides,
    /// Show render failures' detail (JS message and stack, limit hit) in
    /// this tenant's error pages, for its developers; off by default.
    #[serde(default)]
    pub debug: bool,
    /// Vars, plain settings the handler reads from `env` (`env.rs`).
    #[serde(default)]
    pub vars: Env,
    /// The origins its renderer may `fetch` (`web::fetch`); none when
    /// empty.
    #[serde(default)]
    pub allow_fetch: Vec<Origin>,
    /// The other tenants its service bindings may call (`bindings/`);
    /// none when empty (a binding to itself needs no grant).
    #[serde(default)]
    pub allow_service: Vec<String>,
}

/// Per-tenant counters, carried across versions, with the tenant's metric
/// handles (made once: a labelled `counter!` per request would hash its
/// labels every time).
pub struct Stats {
    /// Bumped on every request: striped (`counter.rs`); `/_ssr/metrics` reports
    /// it as `ssr_requests_total`.
    pub requests: Striped,
    pub renders: AtomicU64,
    pub cache_hits: Striped,
    /// Requests answered with a static asset (`crate::assets`).
    pub asset_hits: Striped,
    pub errors: AtomicU64,
    pub render_seconds: metrics::Histogram,
    pub queue_wait_seconds: metrics::Histogram,
}

impl Stats {
    pub fn new(id: &str) -> Stats {
        let tenant = id.to_string();
        Stats {
            requests: Striped::default(),
            renders: AtomicU64::new(0),
            cache_hits: Striped::default(),
            asset_hits: Striped::default(),
            errors: AtomicU64::new(0),
            render_seconds: metrics::histogram!("ssr_render_seconds", "tenant" => tenant.clone()),
            queue_wait_seconds: metrics::histogram!("ssr_queue_wait_seconds", "tenant" => tenant),
        }
    }
}

/// One registration of a tenant: what is stored in the data dir and shown
/// by the admin API.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Registration {
    pub id: String,
    /// Increases with every registration of this id; part of cache keys.
    pub version: u64,
    /// The version at which the id was registered while free (or over a
    /// demo): who this tenant is, beyond its id, kept by every later
    /// registration. Tenant tokens are bound to it. 0 in records written
    /// before it existed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub since: u64,
    pub hosts: Vec<String>,
    pub mode: Mode,
    /// Records written before engines were selectable are `wasm`.
    #[serde(default)]
    pub engine: EngineKind,
    /// The limits this registration set (the rest follow the server).
    #[serde(default)]
    pub limits: LimitOverrides,
    /// Error pages carry the failure's detail (`Settings::debug`).
    #[serde(default)]
    pub debug: bool,
    /// The handler's vars (`env.rs`); its secrets are stored apart.
    #[serde(default)]
    pub vars: Env,
    /// The origins its renderer may `fetch`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_fetch: Vec<Origin>,
    /// The other tenants its service bindings may call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_service: Vec<String>,
    /// An example plugin the server registered itself (`--demo`): in memory
    /// only, and any registration of the id replaces it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub demo: bool,
    /// The plugin bytes' SHA-256 ([`digest`]); names its stored files.
    pub digest: String,
    pub plugin_bytes: usize,
    /// How many static assets the plugin carries (0: none, and a restart
    /// need not read the plugin file for them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub assets: usize,
    /// Whether the plugin carries an app config (its wrangler config's
    /// vars, redirects, the bindings it names), which a load must read from
    /// the plugin file; `None` in records written before this was kept,
    /// which a load reads to be sure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_config: Option<bool>,
    pub updated_unix: u64,
}

fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

/// One version of a tenant: its registration, compiled plugin, limits and
/// counters.
pub struct Tenant {
    /// The id, shared cheaply with cache keys and instances.
    pub id: Arc<str>,
    pub registration: Registration,
    pub plugin: Arc<dyn Plugin>,
    /// The static files its plugin carries, served before any render.
    pub assets: Arc<Assets>,
    pub limits: AppliedLimits,
    /// Its renders' place in the pool: permits, lines (the pool's own).
    pub admission: crate::pool::Admission,
    /// The renders of service calls made to it, one admission per depth of
    /// a chain (1 to `MAX_DEPTH`), each of its concurrency: a render
    /// waits only for slots one level deeper than its own, so a chain of
    /// calls, to itself or back, never waits on its own callers
    /// ([`Called`]).
    called: Vec<crate::pool::Admission>,
    pub stats: Arc<Stats>,
    /// Set when this version stops being current (replaced or removed): its
    /// instances are dropped when their render ends, never kept warm.
    pub retired: AtomicBool,
    /// What its instances are given: the id, and `env` (vars and secrets,
    /// which are kept nowhere else in memory).
    pub grants: Arc<Grants>,
}

impl Tenant {
    fn new(
        saved: store::Saved,
        limits: AppliedLimits,
        stats: Arc<Stats>,
        cache: Option<&Arc<crate::cache::Cache>>,
        stores: &Arc<crate::bindings::Stores>,
    ) -> Tenant {
        let store::Saved {
            registration,
            plugin,
            assets,
            secrets,
            stack_map,
        } = saved;
        Tenant {
            id: registration.id.as_str().into(),
            grants: Grants::with_env(
                &registration.id,
                &registration.vars,
                &secrets,
                crate::web::Reach {
                    fetch: FetchGrant {
                        allowed: registration.allow_fetch.clone(),
                        max_subrequests: limits.max_subrequests,
                        max_bytes: limits.max_fetch_bytes,
                    },
                    cache: cache.map(|cache| crate::cache::CacheApi {
                        cache: cache.clone(),
                        version: registration.version,
                    }),
                    assets: Some(assets.clone()),
                    stack_map,
                    bindings: crate::bindings::Bindings::new(
                        &registration.id,
                        &assets.app,
                        stores,
                        limits.quotas,
                    )
                    .calling(&registration.allow_service),
                },
            ),
            registration,
            plugin,
            assets,
            admission: crate::pool::Admission::new(limits.concurrency),
            called: (0..crate::bindings::service::MAX_DEPTH)
                .map(|_| crate::pool::Admission::new(limits.concurrency))
                .collect(),
            limits,
            stats,
            retired: AtomicBool::new(false),
        }
    }

    pub fn version(&self) -> u64 {
        self.registration.version
    }

    pub fn mode(&self) -> Mode {
        self.registration.mode
    }

    pub fn engine(&self) -> EngineKind {
        self.registration.engine
    }

    /// The names of its secrets, sorted.
    pub fn secret_names(&self) -> Vec<String> {
        self.grants.secrets().into_keys().collect()
    }
}

/// What the pool reads of a tenant version.
impl crate::pool::Renderable for Tenant {
    fn id(&self) -> &Arc<str> {
        &self.id
    }
    fn version(&self) -> u64 {
        self.registration.version
    }
    fn mode(&self) -> Mode {
        self.registration.mode
    }
    fn plugin(&self) -> &dyn Plugin {
        &*self.plugin
    }
    fn grants(&self) -> &Arc<Grants> {
        &self.grants
    }
    fn render_deadline(&self) -> std::time::Duration {
        self.limits.render_deadline
    }
    fn max_response_bytes(&self) -> usize {
        self.limits.max_response_bytes
    }
    fn retired(&self) -> bool {
        self.retired.load(std::sync::atomic::Ordering::Acquire)
    }
    fn admission(&self) -> &crate::pool::Admission {
        &self.admission
    }
}

/// A tenant as the pool sees it for a service call made to it `depth`
/// levels down a chain: itself in all but its admission, which is its
/// `called` one of that depth.
pub struct Called {
    pub tenant: Arc<Tenant>,
    depth: usize,
}

impl Called {
    /// `tenant` for a call `depth` levels down (1 to `MAX_DEPTH`; clamped).
    pub fn new(tenant: Arc<Tenant>, depth: u32) -> Called {
        let depth = (depth as usize).clamp(1, tenant.called.len());
        Called { tenant, depth }
    }
}

impl crate::pool::Renderable for Called {
    fn id(&self) -> &Arc<str> {
        &self.tenant.id
    }
    fn version(&self) -> u64 {
        self.tenant.registration.version
    }
    fn mode(&self) -> Mode {
        self.tenant.registration.mode
    }
    fn plugin(&self) -> &dyn Plugin {
        &*self.tenant.plugin
    }
    fn grants(&self) -> &Arc<Grants> {
        &self.tenant.grants
    }
    fn render_deadline(&self) -> std::time::Duration {
        self.tenant.limits.render_deadline
    }
    fn max_response_bytes(&self) -> usize {
        self.tenant.limits.max_response_bytes
    }
    fn retired(&self) -> bool {
        self.tenant
            .retired
            .load(std::sync::atomic::Ordering::Acquire)
    }
    fn admission(&self) -> &crate::pool::Admission {
        &self.tenant.called[self.depth - 1]
    }
}

/// A change of one tenant's `env` ([`Registry::change_env`]).
pub enum EnvChange {
    SetVar(String, String),
    RemoveVar(String),
    PutSecret(String, String),
    RemoveSecret(String),
}

/// Why a tenant operation failed. `http/error.rs` maps these to 4xx.
#[derive(Debug, Error)]
pub enum TenantError {
    #[error(
        "invalid tenant id `{0}`: use 1-63 characters from a-z, 0-9 and `-`, starting with a letter or digit"
    )]
    InvalidId(String),
    #[error(
        "invalid hostname `{0}`: use a DNS name such as `shop.example.com` (letters, digits, `-` and `.`, no port)"
    )]
    InvalidHost(String),
    /// An address or the machine itself, not a site's name: a tenant on
    /// it would answer requests meant for the host's own address.
    #[error(
        "hostname `{0}` is an IP address or `localhost` itself, which no tenant may claim; use a DNS name (a subdomain such as `shop.localhost` is fine)"
    )]
    ReservedHost(String),
    #[error("hostname `{host}` already routes to tenant `{owner}`; remove it there first")]
    HostTaken { host: String, owner: String },
    #[error("the plugin is {size} bytes, over the limit of {limit} bytes")]
    TooLarge { size: usize, limit: usize },
    #[error(
        "the plugin is empty; send the bytes of a plugin built with `ssr build` as the request body"
    )]
    Empty,
    #[error("invalid limit: {0}")]
    Limit(String),
    #[error("invalid env: {0}")]
    Env(String),
    #[error("no tenant `{0}`")]
    NotFound(String),
    #[error("tenant `{tenant}` has no {what} `{name}`")]
    NoEntry {
        tenant: String,
        what: &'static str,
        name: String,
    },
    #[error("the plugin was refused")]
    Plugin(#[from] EngineError),
    #[error("the plugin's assets were refused")]
    Assets(#[from] AssetError),
    #[error("storing the tenant failed")]
    Storage(#[from] std::io::Error),
    #[error(
        "tenant `{0}` was changed on another replica since this one last saw it; nothing was written: look at it again, then retry"
    )]
    Changed(String),
    #[error(
        "the shared store did not take the write; the tenants this replica knows are still served"
    )]
    Shared(#[from] store::redis::RedisError),
    #[error(
        "the shared store has lost its data (its clock is at {clock}, this replica has seen version {seen}); this replica keeps its tenants and refuses admin writes: restore the store (docs/deploying.md), or restart the replicas to follow it as it is"
    )]
    StoreReset { clock: u64, seen: u64 },
    #[error(
        "the shared store has been unavailable for {0} s, so admin writes are refused until it is back; the tenants this replica knows are still served"
    )]
    StoreDown(u64),
    #[error("the bindings' store cannot be opened: {0}")]
    Bindings(String),
}

/// What a put did.
pub struct Put {
    pub tenant: Arc<Tenant>,
    pub created: bool,
}

/// A snapshot of the routing table: every tenant, by id and by hostname.
/// Keys are hashed with foldhash, seeded per process: routing hashes a key
/// on every request, and SipHash (std's) was the larger part of routing by
/// `Host` (`benches/hits.sh`).
#[derive(Clone, Default)]
pub struct Routes {
    by_id: HashMap<Arc<str>, Arc<Tenant>, foldhash::fast::RandomState>,
    by_host: HashMap<String, Arc<Tenant>, foldhash::fast::RandomState>,
}

impl Routes {
    /// The tenant a `Host` header routes to (port ignored).
    pub fn host(&self, host: &str) -> Option<&Arc<Tenant>> {
        let name = host.rsplit_once(':').map_or(host, |(h, p)| {
            if p.bytes().all(|b| b.is_ascii_digit()) {
                h
            } else {
                host
            }
        });
        let name = match name.bytes().any(|b| b.is_ascii_uppercase()) {
            true => std::borrow::Cow::Owned(name.to_ascii_lowercase()),
            false => std::borrow::Cow::Borrowed(name),
        };
        self.by_host.get(&*name)
    }

    pub fn id(&self, id: &str) -> Option<&Arc<Tenant>> {
        self.by_id.get(id)
    }
}

/// All tenants, by id and by hostname.
pub struct Registry {
    table: arc_swap::ArcSwap<Routes>,
    /// Serializes version assignment, storing and publishing (each change
    /// of `table` copies it), so that of two concurrent registrations of one
    /// id the later version is the one that is stored and served.
    /// Compilation happens outside it. It guards the removals made here.
    writes: Mutex<Removed>,
    engines: Engines,
    store: Option<Store>,
    next_version: AtomicU64,
    defaults: Defaults,
    /// The page cache, which tenants' Cache API calls reach (none under
    /// `ssr render` and in tests of the registry alone).
    cache: Option<Arc<crate::cache::Cache>>,
    /// Where tenants' bindings keep their state.
    stores: Arc<crate::bindings::Stores>,
    /// Since when the shared store has not answered (`sync.rs` keeps it);
    /// never for the data dir and in memory.
    store_down: Mutex<Option<std::time::Instant>>,
    /// Tenant tokens kept here when there is no shared store.
    tokens: tokens::LocalTokens,
}

/// The version at which each id removed here was removed: a version of it
/// older than that, read from a shared store before the removal, is never
/// adopted after it.
#[derive(Default)]
struct Removed(HashMap<String, u64>);

/// Proof that the caller holds [`Registry::writes`].
type Writing<'a> = MutexGuard<'a, Removed>;

impl Registry {
    /// A registry, reloading what `store` holds (without recompiling).
    pub fn open(
        engines: Engines,
        store: Option<Store>,
        defaults: Defaults,
        cache: Option<Arc<crate::cache::Cache>>,
    ) -> Result<Registry, TenantError> {
        let (limits, objects) = (defaults.bindings, defaults.objects.as_ref());
        let stores = match &store {
            Some(Store::Shared { redis, .. }) => {
                crate::bindings::Stores::redis(redis.client(), limits, objects)
            }
            Some(Store::Local(dir)) => {
                crate::bindings::Stores::embedded(Some(dir.root()), limits, objects)
            }
            None => crate::bindings::Stores::embedded(None, limits, objects),
        }
        .map_err(TenantError::Bindings)?;
        let reg = Registry {
            stores,
            table: Default::default(),
            writes: Mutex::default(),
            engines,
            next_version: AtomicU64::new(1),
            defaults,
            cache,
            store_down: Mutex::default(),
            tokens: tokens::LocalTokens::load(store.as_ref())?,
            store,
        };
        match &reg.store {
            Some(Store::Local(dir)) => reg.load(dir.load_all(&reg.engines, &reg.defaults)),
            Some(Store::Shared { redis, code }) => {
                reg.resync(redis)?;
                code.remove_unused_code(reg.list().iter().map(|t| &t.registration), &reg.engines);
            }
            None => {}
        }
        Ok(reg)
    }

    /// Compiles, or loads, the code every Wasm plugin built by this `ssr`
    /// shares (`engine::wasm::WasmEngine::warm`), from a plugin of an empty
    /// module built once and kept in the data dir: a server does this
    /// before it says it is ready. `code_cache` as in `--code-cache`.
    pub fn warm_runtime(&self, code_cache: Option<&std::path::Path>) -> Result<(), String> {
        let dir = match &self.store {
            Some(Store::Local(dir) | Store::Shared { code: dir, .. }) => Some(dir),
            None => None,
        };
        let stored = dir.and_then(|d| std::fs::read(d.runtime_path()).ok());
        if let Some(bytes) = stored
            && self.engines.wasm.warm(&bytes).is_ok()
        {
            return Ok(());
        }
        let bytes = crate::build::runtime_plugin(code_cache).map_err(|e| e.to_string())?;
        self.engines.wasm.warm(&bytes).map_err(|e| e.to_string())?;
        if let Some(dir) = dir
            && let Err(e) = dir.save_runtime(&bytes)
        {
            tracing::warn!("cannot keep the runtime plugin in the data dir: {e}");
        }
        Ok(())
    }

    /// Publishes tenants loaded from the data dir.
    fn load(&self, saved: Vec<store::Saved>) {
        let writing = crate::sync::lock(&self.writes);
        for saved in saved {
            let next = saved.registration.version + 1;
            self.next_version.fetch_max(next, Ordering::Relaxed);
            self.adopt(&writing, saved);
        }
    }

    /// Makes a registration, stored or just written, the current version
    /// of its id, keeping the id's counters.
    fn adopt(&self, writing: &Writing<'_>, saved: store::Saved) -> Put {
        let r = &saved.registration;
        let stats = self
            .get(&r.id)
            .map(|t| t.stats.clone())
            .unwrap_or_else(|| Arc::new(Stats::new(&r.id)));
        let limits = r.limits.resolve(r.engine, &self.defaults);
        let tenant = Arc::new(Tenant::new(
            saved,
            limits,
            stats,
            self.cache.as_ref(),
            &self.stores,
        ));
        let created = self.publish(writing, tenant.clone());
        Put { tenant, created }
    }

    /// A new version: from the shared store's clock, else this process's.
    fn next_version(&self, _writing: &Writing<'_>) -> Result<u64, TenantError> {
        match &self.store {
            Some(Store::Shared { redis, .. }) => {
                if let Some(since) = *crate::sync::lock(&self.store_down) {
                    return Err(TenantError::StoreDown(since.elapsed().as_secs()));
                }
                Ok(redis.next_version()?)
            }
            _ => Ok(self.next_version.fetch_add(1, Ordering::Relaxed)),
        }
    }

    /// The version id `id` was last written at by an admin request
    /// (demo tenants are not stored: 0).
    fn base(&self, id: &str) -> u64 {
        self.get(id)
            .filter(|t| !t.registration.demo)
            .map_or(0, |t| t.version())
    }

    /// Makes a token that reaches tenant `tenant` only (`tokens.rs`).
    /// Bound to the tenant registered as `tenant` now, if any.
    pub fn create_token(
        &self,
        tenant: &str,
        ttl: Option<std::time::Duration>,
    ) -> Result<tokens::NewToken, TenantError> {
        let since = self.identity(tenant);
        tokens::create(self.store.as_ref(), &self.tokens, tenant, since, ttl)
    }

    /// Who tenant `id` is now beyond its id ([`Registration::since`]), if
    /// an operator's registration of it exists and says.
    fn identity(&self, id: &str) -> Option<u64> {
        self.get(id)
            .filter(|t| !t.registration.demo && t.registration.since != 0)
            .map(|t| t.registration.since)
    }

    /// Every tenant token's record, without its digest.
    pub fn tokens(&self) -> Result<Vec<tokens::TokenRecord>, TenantError> {
        tokens::list(self.store.as_ref(), &self.tokens)
    }

    /// Revokes tenant token `id`; whether there was one.
    pub fn revoke_token(&self, id: &str) -> Result<bool, TenantError> {
        tokens::revoke(self.store.as_ref(), &self.tokens, id)
    }

    /// The record of `given`, if it is a live tenant token whose tenant is
    /// still the one it was made for.
    pub fn token_tenant(&self, given: &str) -> Result<Option<tokens::TokenRecord>, TenantError> {
        let record = tokens::check(self.store.as_ref(), &self.tokens, given)?;
        Ok(record.filter(|r| r.since.is_none() || r.since == self.identity(&r.tenant)))
    }

    /// The defaults tenants get for what they do not set.
    /// Where tenants' bindings keep their state.
    pub fn stores(&self) -> &Arc<crate::bindings::Stores> {
        &self.stores
    }

    pub fn defaults(&self) -> &Defaults {
        &self.defaults
    }

    /// The routing table as it is now: hold it briefly (a request's
    /// synchronous step); it keeps every tenant in it alive.
    pub fn routes(&self) -> arc_swap::Guard<Arc<Routes>> {
        self.table.load()
    }

    pub fn get(&self, id: &str) -> Option<Arc<Tenant>> {
        self.routes().id(id).cloned()
    }

    /// Tenant `id`, or [`TenantError::NotFound`].
    pub fn current(&self, id: &str) -> Result<Arc<Tenant>, TenantError> {
        self.get(id)
            .ok_or_else(|| TenantError::NotFound(id.to_string()))
    }

    /// Changes the routing table: readers see the old table or the new one.
    /// Writers take turns through `writes`, whose guard proves it.
    fn update<R>(&self, _writing: &Writing<'_>, change: impl FnOnce(&mut Routes) -> R) -> R {
        let mut table = Routes::clone(&self.table.load());
        let r = change(&mut table);
        self.table.store(Arc::new(table));
        r
    }

    pub fn list(&self) -> Vec<Arc<Tenant>> {
        let mut all: Vec<_> = self.routes().by_id.values().cloned().collect();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        all
    }

    /// Registers or replaces tenant `id`. Compiles the plugin (CPU-heavy:
    /// call it off the async runtime's threads).
    pub fn put(&self, id: &str, bytes: &[u8], settings: Settings) -> Result<Put, TenantError> {
        self.put_as(id, bytes, settings, false)
            .map(|put| put.expect("a registration always publishes"))
    }

    /// Registers demo tenant `id` in memory, unless `id` is taken (then
    /// `None`): the demo never replaces what an operator registered.
    pub fn put_demo(
        &self,
        id: &str,
        bytes: &[u8],
        settings: Settings,
    ) -> Result<Option<Put>, TenantError> {
        self.put_as(id, bytes, settings, true)
    }

    fn put_as(
        &self,
        id: &str,
        bytes: &[u8],
        settings: Settings,
        demo: bool,
    ) -> Result<Option<Put>, TenantError> {
        validate_id(id)?;
        if bytes.is_empty() {
            return Err(TenantError::Empty);
        }
        if bytes.len() > self.defaults.max_plugin_bytes {
            return Err(TenantError::TooLarge {
                size: bytes.len(),
                limit: self.defaults.max_plugin_bytes,
            });
        }
        settings.limits.validate(&self.defaults)?;
        // The id's secrets stay across registrations; checked again below.
        env::check(&settings.vars, &self.secrets_of(id))?;
        let hosts = settings
            .hosts
            .iter()
            .map(|h| validate_host(h))
            .collect::<Result<Vec<_>, _>>()?;
        self.check_hosts_free(id, &hosts)?;
        let engine = settings.engine.unwrap_or_default();
        let limits = settings.limits.resolve(engine, &self.defaults);
        let assets = Arc::new(Assets::from_plugin(bytes, crate::assets::Verify::Whole)?);
        // The app config's vars, as bounded as the registration's.
        env::check(&assets.app.vars, &Env::new()).map_err(|e| match e {
            TenantError::Env(why) => TenantError::Env(format!("the plugin's app config: {why}")),
            other => other,
        })?;
        let store = self.store.as_ref().filter(|_| !demo);
        let digest = crate::artifact::digest(bytes);
        let stack_map = store::stack_map(bytes, engine, &digest, store.map(Store::dir))?;
        let plugin = match (engine, store) {
            // A Wasm plugin is stored compiled too, so a restart need not
            // compile it again, and runs mapped from that file: its code and
            // memory image are then page cache, which the kernel may
            // reclaim from an idle tenant, not memory of the process
            // (`benches/density.sh`).
            (EngineKind::Wasm, Some(store)) => {
                let compiled = self.engines.wasm.precompile(bytes)?;
                let path = store.dir().save_compiled(&digest, &compiled)?;
                Arc::new(self.engines.wasm.load_precompiled(&path, limits.engine())?)
            }
            _ => self
                .engines
                .get(engine)?
                .load_plugin(bytes, limits.engine())?,
        };
        if let Some(store) = store {
            store.save_plugin(&digest, bytes)?;
        }
        let writing = crate::sync::lock(&self.writes);
        if demo && self.get(id).is_some() {
            return Ok(None);
        }
        // Checked again: another registration may have taken a host, or a
        // secret a var's name, since.
        self.check_hosts_free(id, &hosts)?;
        let secrets = self.secrets_of(id);
        env::check(&settings.vars, &secrets)?;
        let base = self.base(id);
        let version = self.next_version(&writing)?;
        let since = match self.get(id).filter(|t| !t.registration.demo) {
            Some(existing) => existing.registration.since,
            None => version,
        };
        let registration = Registration {
            id: id.to_string(),
            version,
            since,
            hosts,
            mode: settings.mode.unwrap_or(self.defaults.mode),
            engine,
            limits: settings.limits,
            debug: settings.debug,
            vars: settings.vars,
            allow_fetch: settings.allow_fetch,
            allow_service: settings.allow_service,
            demo,
            digest,
            plugin_bytes: bytes.len(),
            assets: assets.len(),
            app_config: Some(assets.app != crate::app::AppConfig::default()),
            updated_unix: now_unix(),
        };
        if let Some(store) = store {
            store.write(store::Write {
                record: &registration,
                plugin: Some(bytes),
                secrets: &secrets,
                secrets_changed: false,
                base,
            })?;
        }
        let saved = store::Saved {
            registration,
            plugin,
            assets,
            secrets,
            stack_map,
        };
        Ok(Some(self.adopt(&writing, saved)))
    }

    /// The current secrets of tenant `id` (none for an unknown id).
    fn secrets_of(&self, id: &str) -> Env {
        self.get(id).map(|t| t.grants.secrets()).unwrap_or_default()
    }

    /// Changes one var or secret of tenant `id`: a new version of the
    /// tenant with the same plugin (so its cache keys and warm instances
    /// are new too), stored (secrets, then the record) before it is
    /// published.
    pub fn change_env(&self, id: &str, change: EnvChange) -> Result<Arc<Tenant>, TenantError> {
        let writing = crate::sync::lock(&self.writes);
        let current = self.current(id)?;
        let mut vars = current.registration.vars.clone();
        let before = current.grants.secrets();
        let mut secrets = before.clone();
        let absent = |what, name: &str| TenantError::NoEntry {
            tenant: id.to_string(),
            what,
            name: name.to_string(),
        };
        match change {
            EnvChange::SetVar(name, value) => {
                vars.insert(name, value);
            }
            EnvChange::RemoveVar(name) => {
                vars.remove(&name).ok_or_else(|| absent("var", &name))?;
            }
            EnvChange::PutSecret(name, value) => {
                secrets.insert(name, value);
            }
            EnvChange::RemoveSecret(name) => {
                secrets
                    .remove(&name)
                    .ok_or_else(|| absent("secret", &name))?;
            }
        }
        env::check(&vars, &secrets)?;
        let mut registration = current.registration.clone();
        registration.version = self.next_version(&writing)?;
        registration.vars = vars;
        registration.updated_unix = now_unix();
        if let Some(store) = self.store.as_ref().filter(|_| !registration.demo) {
            store.write(store::Write {
                record: &registration,
                plugin: None,
                secrets: &secrets,
                secrets_changed: secrets != before,
                base: current.version(),
            })?;
        }
        let saved = store::Saved {
            registration,
            plugin: current.plugin.clone(),
            assets: current.assets.clone(),
            secrets,
            stack_map: current.grants.stack_map.clone(),
        };
        Ok(self.adopt(&writing, saved).tenant)
    }

    /// Removes tenant `id`.
    /// Its tokens are revoked first: a failure leaves the tenant and no
    /// token, never a token that outlives it.
    pub fn remove(&self, id: &str) -> Result<Arc<Tenant>, TenantError> {
        let mut writing = crate::sync::lock(&self.writes);
        let existing = self.current(id)?;
        if !existing.registration.demo {
            tokens::revoke_tenant(self.store.as_ref(), &self.tokens, id)?;
        }
        let version = self.next_version(&writing)?;
        if let Some(store) = self.store.as_ref().filter(|_| !existing.registration.demo) {
            store.remove(id, version, existing.version())?;
        }
        self.unpublish(&mut writing, &existing, version);
        Ok(existing)
    }

    /// Takes `existing` out of the table, as removed at `version`.
    fn unpublish(&self, writing: &mut Writing<'_>, existing: &Arc<Tenant>, version: u64) {
        let id = &*existing.id;
        self.update(writing, |table| {
            table.by_host.retain(|_, owner| &*owner.id != id);
            table.by_id.remove(id);
        });
        writing.0.insert(id.to_string(), version);
        existing.retired.store(true, Ordering::Release);
    }

    fn check_hosts_free(&self, id: &str, hosts: &[String]) -> Result<(), TenantError> {
        let table = self.routes();
        for h in hosts {
            if let Some(owner) = table.by_host.get(h)
                && &*owner.id != id
            {
                return Err(TenantError::HostTaken {
                    host: h.clone(),
                    owner: owner.id.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Makes `tenant` the current version; returns whether the id is new.
    fn publish(&self, writing: &Writing<'_>, tenant: Arc<Tenant>) -> bool {
        let old = self.update(writing, |table| {
            let id = tenant.id.clone();
            table.by_host.retain(|_, owner| owner.id != id);
            for h in &tenant.registration.hosts {
                table.by_host.insert(h.clone(), tenant.clone());
            }
            table.by_id.insert(id, tenant)
        });
        match old {
            Some(old) => {
                old.retired.store(true, Ordering::Release);
                false
            }
            None => true,
        }
    }
}

fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Tenant ids: 1-63 of `a-z0-9-`, not starting with `-`.
pub fn validate_id(id: &str) -> Result<(), TenantError> {
    let ok = !id.is_empty()
        && id.len() <= 63
        && !id.starts_with('-')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(TenantError::InvalidId(id.to_string()))
    }
}

fn validate_host(host: &str) -> Result<String, TenantError> {
    let h = host.trim().to_ascii_lowercase();
    let ok = !h.is_empty()
        && h.len() <= 253
        && h.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    if !ok {
        return Err(TenantError::InvalidHost(host.to_string()));
    }
    // No top-level domain starts with a digit, and a last label that does
    // is how an IPv4 address reads (`127.0.0.1`, `0x7f.1`, `2130706433`);
    // IPv6 has `:`, refused above.
    let last = h.rsplit('.').next().unwrap_or("");
    if h == "localhost" || last.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(TenantError::ReservedHost(host.to_string()));
    }
    Ok(h)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn tenant_ids_obeyed() {
        for id in ["a", "shop-1", "0abc", &"x".repeat(63)] {
            validate_id(id).unwrap();
        }
    }

    fn tenant_ids_violated() {
        for id in ["", "-a", "A", "a_b", "a/b", "..", &"x".repeat(64)] {
            assert!(validate_id(id).is_err(), "{id}");
        }
    }

    fn hostnames_are_lowercased_and_checked() {
        assert_eq!(
            validate_host("Shop.Example.COM").unwrap(),
            "shop.example.com"
        );
        assert!(validate_host("shop.example.com:8080").is_err());
        assert!(validate_host("bad..name").is_err());
    }

    fn addresses_and_localhost_itself_are_no_tenant_hostnames() {
        for reserved in [
            "127.0.0.1",
            "10.0.0.1",
            "0x7f.1",
            "2130706433",
            "LOCALHOST",
            "localhost",
        ] {
            let e = validate_host(reserved).unwrap_err();
            assert!(matches!(e, TenantError::ReservedHost(_)), "{reserved}: {e}");
        }
        for host in ["[::1]", "::1"] {
            assert!(validate_host(host).is_err(), "{host}");
        }
        for fine in [
            "shop.localhost",
            "1password.com",
            "a1.example",
            "x.localhost",
        ] {
            validate_host(fine).unwrap();
        }
    }

    crate::unit_tests!(
        tenant_ids_obeyed,
        tenant_ids_violated,
        hostnames_are_lowercased_and_checked,
        addresses_and_localhost_itself_are_no_tenant_hostnames
    );
}
