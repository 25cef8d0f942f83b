//! Server configuration: [`Config`], its defaults (every `DEFAULT_*`), and
//! [`Config::validate`].
//!
//! Sources, lowest precedence first: these defaults, a TOML file
//! (`--config`), environment variables (`SSR_*`), command-line flags. The
//! command line (`cli/serve.rs`) only overrides fields; it holds no defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

use crate::tenant::Mode;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_QUEUE_CAPACITY: usize = 512;
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
pub const DEFAULT_RENDER_DEADLINE: Duration = crate::engine::DEFAULT_DEADLINE;
/// The page cache's byte budget, over every tenant (bodies, their
/// compressed copies, headers and keys).
pub const DEFAULT_CACHE_BYTES: usize = 256 << 20;
/// One tenant's share of the page cache, at most.
pub const DEFAULT_CACHE_TENANT_BYTES: usize = 64 << 20;
/// The largest body the cache stores or compresses; a larger one is served
/// as rendered, uncompressed, and not kept.
pub const DEFAULT_CACHE_ENTRY_BYTES: usize = 2 << 20;
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(60);
pub const DEFAULT_MEMORY_LIMIT: usize = crate::engine::DEFAULT_MEMORY_LIMIT;
/// Warm (reuse-mode) instances each worker keeps, across tenants.
pub const DEFAULT_WARM_INSTANCES: usize = 16;
/// Renders one worker interleaves in time slices.
pub const DEFAULT_RENDERS_PER_WORKER: usize = 8;
/// Running time (Wasm: CPU time; V8: since it started) after which a render finishes at low
/// priority while others wait (`pool/demote.rs`): longer than a typical page render (hello 0.4 ms, React
/// on Wasm 14 ms, `benches/engine.rs`), far shorter than the deadline.
pub const DEFAULT_DEMOTE_AFTER: Duration = Duration::from_millis(20);
pub const DEFAULT_MAX_WASM_STACK: usize = crate::engine::wasm::DEFAULT_MAX_WASM_STACK;
/// The largest response body a render may produce.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 8 << 20;
/// The largest plugin the admin API accepts.
pub const DEFAULT_MAX_PLUGIN_BYTES: usize = 64 << 20;
/// How long shutdown waits for in-flight requests.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Open connections per listener; more wait in the kernel's backlog.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4_096;
/// How long a client may take to send a request's head (slowloris), and to
/// start the next one on a kept-alive connection.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head (request line and headers).
pub const DEFAULT_MAX_HEADER_BYTES: usize = 32 << 10;
/// The shortest admin token accepted: an empty or short one would leave the
/// admin API open to guessing.
pub const MIN_ADMIN_TOKEN_BYTES: usize = 16;
/// Pooling-allocator slots are reserved up front (virtual memory); this caps
/// `workers × (warm instances + renders per worker + 1)` plus the renders in
/// background lanes.
pub const MAX_POOLED_INSTANCES: usize = 4_096;

/// Everything `ssr serve` runs with.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    /// Serve the admin API here only (not on `listen`).
    pub admin_listen: Option<SocketAddr>,
    /// Where tenants persist; `None` keeps them in memory only.
    pub data_dir: Option<PathBuf>,
    pub workers: usize,
    pub pin: bool,
    pub queue_capacity: usize,
    pub request_timeout: Duration,
    pub render_deadline: Duration,
    pub cache_bytes: usize,
    pub cache_tenant_bytes: usize,
    pub cache_entry_bytes: usize,
    pub cache_ttl: Duration,
    pub admin_token: Option<String>,
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub max_header_bytes: usize,
    pub memory_limit: usize,
    pub warm_instances: usize,
    pub renders_per_worker: usize,
    /// A render that has run this long finishes at low priority while other
    /// renders wait (`pool/demote.rs`); `None`: never.
    pub demote_after: Option<Duration>,
    /// Threads for renders that cannot yield (V8 tenants); `None`: four per
    /// worker ([`Config::v8_threads`]).
    pub v8_threads: Option<usize>,
    /// Renders one tenant may have in flight; `None`: one per worker for
    /// Wasm, half the workers for V8 (`tenant::Defaults::concurrency`).
    pub tenant_concurrency: Option<usize>,
    pub max_wasm_stack: usize,
    pub max_plugin_bytes: usize,
    pub max_response_bytes: usize,
    pub default_mode: Mode,
    /// Register the example plugins from `plugins/` as demo tenants, in
    /// memory only; `None`: when the server runs in memory ([`Config::demo`]).
    pub demo: Option<bool>,
    /// Route `/t/{id}/...` to tenant `id`, which puts every tenant on one
    /// web origin; `None`: when the server runs in memory
    /// ([`Config::path_routing`]).
    pub path_routing: Option<bool>,
    /// Where renders run; `Runtime` exists to measure what the pool buys.
    pub render_on: RenderOn,
}

/// Where renders run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RenderOn {
    /// The pinned worker pool behind the bounded queue.
    #[default]
    Pool,
    /// The async runtime's own threads (blocking them): for comparison only.
    Runtime,
}

impl Default for Config {
    fn default() -> Self {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            listen: DEFAULT_LISTEN.parse().unwrap(),
            admin_listen: None,
            data_dir: None,
            workers,
            pin: true,
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            render_deadline: DEFAULT_RENDER_DEADLINE,
            cache_bytes: DEFAULT_CACHE_BYTES,
            cache_tenant_bytes: DEFAULT_CACHE_TENANT_BYTES,
            cache_entry_bytes: DEFAULT_CACHE_ENTRY_BYTES,
            cache_ttl: DEFAULT_CACHE_TTL,
            admin_token: None,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_header_bytes: DEFAULT_MAX_HEADER_BYTES,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            warm_instances: DEFAULT_WARM_INSTANCES,
            renders_per_worker: DEFAULT_RENDERS_PER_WORKER,
            demote_after: Some(DEFAULT_DEMOTE_AFTER),
            v8_threads: None,
            tenant_concurrency: None,
            max_wasm_stack: DEFAULT_MAX_WASM_STACK,
            max_plugin_bytes: DEFAULT_MAX_PLUGIN_BYTES,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            default_mode: Mode::Reuse,
            demo: None,
            path_routing: None,
            render_on: RenderOn::Pool,
        }
    }
}

/// A configuration that cannot work.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read the config file {path}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the config file {path} is not valid: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
}

/// The TOML file's shape: every field optional, durations in milliseconds or
/// seconds as named.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub listen: Option<SocketAddr>,
    pub admin_listen: Option<SocketAddr>,
    pub data_dir: Option<PathBuf>,
    pub workers: Option<usize>,
    pub pin: Option<bool>,
    pub queue_capacity: Option<usize>,
    pub request_timeout_ms: Option<u64>,
    pub render_deadline_ms: Option<u64>,
    pub cache_mib: Option<usize>,
    pub cache_tenant_mib: Option<usize>,
    pub cache_entry_kib: Option<usize>,
    pub cache_ttl_secs: Option<u64>,
    pub admin_token: Option<String>,
    pub max_connections: Option<usize>,
    pub header_timeout_ms: Option<u64>,
    pub max_header_kib: Option<usize>,
    pub memory_limit_mib: Option<usize>,
    pub warm_instances: Option<usize>,
    pub renders_per_worker: Option<usize>,
    /// 0 turns demotion off.
    pub demote_after_ms: Option<u64>,
    pub v8_threads: Option<usize>,
    pub tenant_concurrency: Option<usize>,
    pub max_wasm_stack_kib: Option<usize>,
    pub max_plugin_mib: Option<usize>,
    pub max_response_kib: Option<usize>,
    pub default_mode: Option<Mode>,
    pub demo: Option<bool>,
    pub path_routing: Option<bool>,
    pub render_on: Option<RenderOn>,
}

impl FileConfig {
    pub fn load(path: &std::path::Path) -> Result<FileConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }

    /// Overrides the fields of `c` this file sets.
    pub fn apply(self, c: &mut Config) {
        // `set!(field)` copies a field of the same name and type;
        // `set!(field => target, convert)` converts it on the way.
        macro_rules! set {
            ($field:ident) => {
                set!($field => $field, |v| v)
            };
            ($field:ident => $target:ident, $convert:expr) => {
                if let Some(v) = self.$field {
                    c.$target = ($convert)(v);
                }
            };
        }
        let kib = |v: usize| v << 10;
        let mib = |v: usize| v << 20;
        set!(listen);
        set!(admin_listen => admin_listen, Some);
        set!(data_dir => data_dir, Some);
        set!(workers);
        set!(pin);
        set!(queue_capacity);
        set!(request_timeout_ms => request_timeout, Duration::from_millis);
        set!(render_deadline_ms => render_deadline, Duration::from_millis);
        set!(cache_mib => cache_bytes, mib);
        set!(cache_tenant_mib => cache_tenant_bytes, mib);
        set!(cache_entry_kib => cache_entry_bytes, kib);
        set!(cache_ttl_secs => cache_ttl, Duration::from_secs);
        set!(admin_token => admin_token, Some);
        set!(max_connections);
        set!(header_timeout_ms => header_timeout, Duration::from_millis);
        set!(max_header_kib => max_header_bytes, kib);
        set!(memory_limit_mib => memory_limit, mib);
        set!(warm_instances);
        set!(renders_per_worker);
        set!(demote_after_ms => demote_after, |ms| (ms > 0).then(|| Duration::from_millis(ms)));
        set!(v8_threads => v8_threads, Some);
        set!(tenant_concurrency => tenant_concurrency, Some);
        set!(max_wasm_stack_kib => max_wasm_stack, kib);
        set!(max_plugin_mib => max_plugin_bytes, mib);
        set!(max_response_kib => max_response_bytes, kib);
        set!(default_mode);
        set!(demo => demo, Some);
        set!(path_routing => path_routing, Some);
        set!(render_on);
    }
}

impl Config {
    /// Whether demo tenants are registered: when asked, else when the
    /// server runs in memory (the README's run command). They are never
    /// persisted and never replace a registered tenant.
    pub fn demo(&self) -> bool {
        self.demo.unwrap_or(self.data_dir.is_none())
    }

    /// Whether `/t/{id}/` routes by path: when asked, else when the server
    /// runs in memory (the demo, development). Off by default with a data
    /// dir: every tenant under `/t/` shares one web origin (cookies, scripts).
    pub fn path_routing(&self) -> bool {
        self.path_routing.unwrap_or(self.data_dir.is_none())
    }

    /// Instances the pooling allocator must hold: each worker's warm
    /// instances, plus one per render in flight (on the worker and in its
    /// background lane) and one being replaced.
    pub fn pooled_instances(&self) -> usize {
        let runtime_threads = match self.render_on {
            RenderOn::Pool => 0,
            RenderOn::Runtime => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        (self.workers + runtime_threads) * (self.warm_instances + self.renders_per_worker + 1)
            + self.workers * self.renders_in_lane()
    }

    /// Renders each worker's background lane may hold.
    fn renders_in_lane(&self) -> usize {
        if self.demote_after.is_some() {
            self.renders_per_worker
        } else {
            0
        }
    }

    /// Threads for renders that cannot yield.
    pub fn v8_threads(&self) -> usize {
        self.v8_threads.unwrap_or(4 * self.workers)
    }

    /// What each listener allows its clients.
    pub fn conn_limits(&self) -> crate::http::listen::ConnLimits {
        crate::http::listen::ConnLimits {
            max_connections: self.max_connections,
            header_timeout: self.header_timeout,
            max_header_bytes: self.max_header_bytes,
            grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }

    /// The page cache's budgets.
    pub fn cache_limits(&self) -> crate::cache::CacheLimits {
        crate::cache::CacheLimits {
            bytes: self.cache_bytes,
            tenant_bytes: self.cache_tenant_bytes,
            entry_bytes: self.cache_entry_bytes,
            default_ttl: self.cache_ttl,
            compressions: self.workers,
        }
    }

    /// What tenants get for the limits they do not set.
    pub fn tenant_defaults(&self) -> crate::tenant::Defaults {
        crate::tenant::Defaults {
            mode: self.default_mode,
            max_plugin_bytes: self.max_plugin_bytes,
            render_deadline: self.render_deadline,
            memory_limit: self.memory_limit,
            max_response_bytes: self.max_response_bytes,
            concurrency: self.tenant_concurrency,
            workers: self.workers,
            renders_per_worker: self.renders_per_worker,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        if self.workers == 0 {
            return bad("--workers must be at least 1".into());
        }
        if let Some(token) = &self.admin_token
            && token.len() < MIN_ADMIN_TOKEN_BYTES
        {
            return bad(format!(
                "the admin token (--admin-token or SSR_ADMIN_TOKEN) is {} bytes; use at least {MIN_ADMIN_TOKEN_BYTES} (a long random string), or leave it unset to have one made",
                token.len()
            ));
        }
        if self.queue_capacity == 0 {
            return bad("--queue-capacity must be at least 1".into());
        }
        if self.request_timeout.is_zero() {
            return bad("--request-timeout must be more than 0 ms".into());
        }
        if self.render_deadline.is_zero() {
            return bad("--render-deadline must be more than 0 ms".into());
        }
        if self.warm_instances == 0 {
            return bad("--warm-instances must be at least 1".into());
        }
        if self.max_connections == 0 {
            return bad("--max-connections must be at least 1".into());
        }
        if self.header_timeout.is_zero() {
            return bad("--header-timeout must be more than 0 ms".into());
        }
        if self.max_header_bytes < (1 << 10) {
            return bad("--max-header-kib must be at least 1".into());
        }
        if self.v8_threads == Some(0) {
            return bad("--v8-threads must be at least 1".into());
        }
        if self.renders_per_worker == 0 {
            return bad("--renders-per-worker must be at least 1".into());
        }
        if self.tenant_concurrency == Some(0) {
            return bad("--tenant-concurrency must be at least 1".into());
        }
        if self.max_wasm_stack < (64 << 10) || self.max_wasm_stack > (64 << 20) {
            return bad("--max-wasm-stack-kib must be between 64 and 65536".into());
        }
        if self.pooled_instances() > MAX_POOLED_INSTANCES {
            return bad(format!(
                "--workers {} × (--warm-instances {} + --renders-per-worker {} + 1 + {} in the background lane) = {} instances, over the pooling allocator's limit of {MAX_POOLED_INSTANCES}; lower one of them",
                self.workers,
                self.warm_instances,
                self.renders_per_worker,
                self.renders_in_lane(),
                self.pooled_instances()
            ));
        }
        if self.cache_bytes == 0 || self.cache_tenant_bytes == 0 || self.cache_entry_bytes == 0 {
            return bad(
                "--cache-mib, --cache-tenant-mib and --cache-entry-kib must be more than 0".into(),
            );
        }
        if self.cache_tenant_bytes > self.cache_bytes {
            return bad(format!(
                "--cache-tenant-mib {} is over --cache-mib {}; a tenant's share cannot exceed the whole cache",
                self.cache_tenant_bytes >> 20,
                self.cache_bytes >> 20
            ));
        }
        if self.cache_entry_bytes > self.cache_tenant_bytes {
            return bad(format!(
                "--cache-entry-kib {} is over --cache-tenant-mib {}; one page cannot exceed a tenant's share",
                self.cache_entry_bytes >> 10,
                self.cache_tenant_bytes >> 20
            ));
        }
        if self.memory_limit < (16 << 20) {
            return bad("--memory-limit-mib must be at least 16 (a plugin's snapshot alone can take several MiB)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        Config::default().validate().unwrap();
    }

    #[test]
    fn pool_over_limit_is_refused_with_the_product() {
        let c = Config {
            workers: 1000,
            ..Config::default()
        };
        let msg = c.validate().unwrap_err().to_string();
        assert!(msg.contains("33000 instances"), "{msg}");
    }

    #[test]
    fn file_overrides_only_what_it_sets() {
        let f: FileConfig =
            toml::from_str("workers = 3\ncache_ttl_secs = 5\ndefault_mode = \"fresh\"").unwrap();
        let mut c = Config::default();
        f.apply(&mut c);
        assert_eq!(c.workers, 3);
        assert_eq!(c.cache_ttl, Duration::from_secs(5));
        assert_eq!(c.default_mode, Mode::Fresh);
        assert_eq!(c.queue_capacity, DEFAULT_QUEUE_CAPACITY);
    }

    #[test]
    fn unknown_file_keys_are_refused() {
        assert!(toml::from_str::<FileConfig>("wrokers = 3").is_err());
    }
}
