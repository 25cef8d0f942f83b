//! Tenant state shared by replicas, in Redis (`ssr serve --store
//! redis://...`; the local data dir is `dir.rs`).
//!
//! Keys (all under the prefix `ssr:`):
//! ```text
//! ssr:clock              INCR: every write's version, one order for all ids
//! ssr:plugin:<sha256>    a plugin's bytes (SET NX: written once, before any
//!                        record names them; expiring until one does)
//! ssr:plugin-refs        hash: sha256 -> how many records name it
//! ssr:tenant:<id>        hash: version, record (the registration's JSON),
//!                        secrets (JSON, name to value), hosts (the
//!                        record's hosts, one per line), digest (its
//!                        plugin's)
//! ssr:versions           hash: id -> version of its current record
//! ssr:removed            hash: id -> version of its removal (a tombstone)
//! ssr:hosts              hash: host -> the id that serves it
//! ssr:claim:<what>       a replica's claim to do `what` alone (a cron
//!                        trigger's minute), expiring (SET NX EX)
//! ssr:tokens             hash: id -> a tenant token's record (its JSON,
//!                        with the token's SHA-256, never the token)
//! ssr:changes            pub/sub channel: "<id> <version>" after each write
//! ssr:purges             pub/sub channel: a purge to apply on every replica
//! ssr:log-follows        pub/sub channel: "<replica> <id>": tenant id's log
//!                        is followed on that replica (said every few
//!                        seconds while it is)
//! ssr:logs               pub/sub channel: a followed tenant's log line,
//!                        from the replica that rendered it
//! ```
//!
//! Invariants:
//! - A write carries a new version from `ssr:clock` and the version it was
//!   based on, and applies only if that base is still the id's current
//!   version and the new one is newer than the id's last removal, in one
//!   Lua script (atomic in Redis). So a write never puts an older state
//!   over a newer one, and of two replicas writing one id at once one
//!   lands and the other is told ([`Applied::Stale`]): no change is lost
//!   silently.
//! - A record and its secrets change together (one hash), and a record is
//!   written only after the plugin it names ([`RedisStore::save_plugin`]);
//!   the script checks that it is there ([`Applied::NoPlugin`]).
//! - A plugin lives while a record names it: counted in the same scripts,
//!   deleted when the last record naming it is replaced or removed. One
//!   saved for a write that never landed expires ([`UNCLAIMED`]).
//! - A host serves one id across all replicas: the write that would give a
//!   host to a second id is refused in the same script
//!   ([`Applied::HostTaken`]), however many replicas write at once.
//! - `ssr:versions` with `ssr:removed` is what a replica that missed
//!   messages resynchronises from: every id's newest version, or its
//!   removal.
//! - Secrets are only in `ssr:tenant:<id>`'s `secrets` field, never in the
//!   record, a channel or a log line.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use redis::Commands;
use serde::{Deserialize, Serialize};

use super::super::Registration;
use super::super::env::Env;

/// The channel every write is announced on.
pub const CHANGES: &str = "ssr:changes";
/// The channel purges are announced on.
pub const PURGES: &str = "ssr:purges";
/// The channels of log following (`logs.rs`).
pub const LOG_FOLLOWS: &str = "ssr:log-follows";
pub const LOGS: &str = "ssr:logs";

/// How long connecting, or one command, may take before the store counts
/// as unreachable: an admin write then fails in seconds, not minutes.
const TIMEOUT: Duration = Duration::from_secs(2);

/// Why the Redis store failed; the message says what to check. The redis
/// crate's error is kept for its kind, not as a cause: its own cause
/// repeats its message.
#[derive(Debug, thiserror::Error)]
pub enum RedisError {
    #[error(
        "the Redis store at {url} cannot be reached ({reason}); check that it runs and the URL (and for rediss://, its certificate and --store-ca)"
    )]
    Unreachable {
        url: String,
        reason: redis::RedisError,
    },
    #[error("cannot read the store's certificate authorities from {}: {source}", file.display())]
    Ca {
        file: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("the Redis store failed a command ({0})")]
    Command(redis::RedisError),
    #[error("the Redis store holds a record that does not parse ({0})")]
    Corrupt(String),
}

impl From<redis::RedisError> for RedisError {
    fn from(e: redis::RedisError) -> RedisError {
        RedisError::Command(e)
    }
}

impl RedisError {
    /// Whether the store could not be reached (rather than refusing).
    pub fn is_unreachable(&self) -> bool {
        match self {
            RedisError::Unreachable { .. } => true,
            RedisError::Command(e) => {
                e.is_io_error() || e.is_connection_dropped() || e.is_timeout()
            }
            RedisError::Corrupt(_) | RedisError::Ca { .. } => false,
        }
    }
}

/// What a conditional write did.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// It is now the id's state.
    Yes,
    /// The id changed since the version the write was based on (or was
    /// removed at a newer version): nothing was written.
    Stale,
    /// `host` serves another id, `owner`: nothing was written.
    HostTaken { host: String, owner: String },
    /// The plugin the record names is not stored (its last user let it go
    /// after the writer saved it): nothing was written.
    NoPlugin,
}

/// A stored tenant: its registration and secrets.
#[derive(Debug)]
pub struct Stored {
    pub record: Registration,
    pub secrets: Env,
}

/// What the store holds for one id.
#[derive(Debug)]
pub enum State {
    Present(Box<Stored>),
    /// Removed at this version.
    Removed(u64),
    /// Never written.
    Absent,
}

/// Every id's newest version ([`RedisStore::versions`]).
#[derive(Debug, Default)]
pub struct Versions {
    pub current: HashMap<String, u64>,
    pub removed: HashMap<String, u64>,
    /// The last version handed out (0: the store is empty).
    pub clock: u64,
}

/// A purge, as announced on [`PURGES`].
#[derive(Debug, Serialize, Deserialize)]
pub struct Purge {
    /// The replica that purged already ([`RedisStore::replica`]).
    pub from: String,
    pub tenant: String,
    #[serde(default)]
    pub prefix: Option<String>,
}

/// What [`RedisStore::listen`] hands its callback.
#[derive(Debug)]
pub enum Event<'a> {
    /// Subscribed: every later write is delivered; resynchronise now for
    /// the ones made before.
    Subscribed,
    Changed(&'a str, u64),
    Purge(Purge),
    /// Another replica follows this tenant's log.
    LogFollowed(&'a str),
    /// A line of a tenant's log from another replica.
    Log(Box<RemoteLine>),
    /// `tick` passed without a message.
    Tick,
}

/// A log line on [`LOGS`].
#[derive(Debug, Serialize, Deserialize)]
pub struct RemoteLine {
    from: String,
    pub tenant: String,
    pub line: crate::logs::Line,
}

/// The Redis store: one connection for commands, used by one caller at a
/// time, and one per [`RedisStore::listen`].
pub struct RedisStore {
    /// For errors: without its password.
    url: String,
    client: redis::Client,
    conn: Mutex<Option<redis::Connection>>,
    /// This process's name on [`PURGES`], random per start.
    replica: String,
}

/// Lua, shared by [`PUT`] and [`REMOVE`]: the record whose tenant hash is
/// `tenant` lets go of its hosts and its plugin; a plugin no record names
/// any more is deleted. (The plugin's key is made here, not passed: fine on
/// one Redis, with or without replicas and Sentinel, not on Redis Cluster.)
macro_rules! release {
    () => {
        concat!(
            r"
local function release(tenant, hosts, refs)
  local old = redis.call('HMGET', tenant, 'hosts', 'digest')
  for h in string.gmatch(old[1] or '', '[^\n]+') do redis.call('HDEL', hosts, h) end
  if old[2] and redis.call('HINCRBY', refs, old[2], -1) <= 0 then
    redis.call('HDEL', refs, old[2])
    redis.call('DEL', '",
            plugin_prefix!(),
            r"' .. old[2])
  end
end
"
        )
    };
}

/// Where a plugin's bytes are: this, then its SHA-256.
macro_rules! plugin_prefix {
    () => {
        "ssr:plugin:"
    };
}

/// Writes a tenant if the id's version is still the write's base, the
/// write is newer than the id's removal, its plugin is stored, and no other
/// id has its hosts. Returns 1, 0 (stale), -1 (no plugin) or {host, owner}.
/// KEYS: versions, removed, tenant key, hosts, plugin refs, plugin key.
/// ARGV: id, version, base, record, secrets, hosts (one per line), digest.
const PUT: &str = concat!(
    release!(),
    r"
local v = tonumber(ARGV[2])
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if current ~= tonumber(ARGV[3]) or v <= current then return 0 end
if v <= tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') then return 0 end
if redis.call('EXISTS', KEYS[6]) == 0 then return -1 end
for h in string.gmatch(ARGV[6], '[^\n]+') do
  local owner = redis.call('HGET', KEYS[4], h)
  if owner and owner ~= ARGV[1] then return {h, owner} end
end
redis.call('HINCRBY', KEYS[5], ARGV[7], 1)
redis.call('PERSIST', KEYS[6])
release(KEYS[3], KEYS[4], KEYS[5])
for h in string.gmatch(ARGV[6], '[^\n]+') do redis.call('HSET', KEYS[4], h, ARGV[1]) end
redis.call('HSET', KEYS[3], 'version', ARGV[2], 'record', ARGV[4], 'secrets', ARGV[5],
  'hosts', ARGV[6], 'digest', ARGV[7])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('PUBLISH', 'ssr:changes', ARGV[1] .. ' ' .. ARGV[2])
return 1
"
);

/// Removes a tenant, freeing its hosts and its plugin, if its version is
/// still the removal's base. Returns 1 or 0 (stale).
/// KEYS: versions, removed, tenant key, hosts, plugin refs. ARGV: id,
/// version, base.
const REMOVE: &str = concat!(
    release!(),
    r"
local v = tonumber(ARGV[2])
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if current == 0 or current ~= tonumber(ARGV[3]) or v <= current then return 0 end
release(KEYS[3], KEYS[4], KEYS[5])
redis.call('DEL', KEYS[3])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PUBLISH', 'ssr:changes', ARGV[1] .. ' ' .. ARGV[2])
return 1
"
);

const CLOCK: &str = "ssr:clock";
const VERSIONS: &str = "ssr:versions";
const REMOVED: &str = "ssr:removed";
const HOSTS: &str = "ssr:hosts";
const PLUGIN_REFS: &str = "ssr:plugin-refs";
const TOKENS: &str = "ssr:tokens";

/// How long a plugin saved for a write that then did not land (refused,
/// or its replica died) is kept before Redis drops it. Naming it in a
/// record makes it permanent until no record does.
const UNCLAIMED: u64 = 3600;

pub use crate::config::shown;

fn tenant_key(id: &str) -> String {
    format!("ssr:tenant:{id}")
}

fn plugin_key(digest: &str) -> String {
    format!(concat!(plugin_prefix!(), "{}"), digest)
}

impl RedisStore {
    /// Connects to `url` (`redis://HOST:PORT/DB`, or `rediss://` for TLS,
    /// whose certificate must chain to `ca`, a PEM file, or else to the
    /// system's authorities) and checks that it answers.
    pub fn open(url: &str, ca: Option<&std::path::Path>) -> Result<RedisStore, RedisError> {
        let shown = shown(url);
        let unreachable = |reason| RedisError::Unreachable {
            url: shown.clone(),
            reason,
        };
        let client = match ca {
            None => redis::Client::open(url).map_err(unreachable)?,
            Some(file) => {
                let root_cert = std::fs::read(file).map_err(|source| RedisError::Ca {
                    file: file.to_path_buf(),
                    source,
                })?;
                let certs = redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(root_cert),
                };
                redis::Client::build_with_tls(url, certs).map_err(unreachable)?
            }
        };
        let store = RedisStore {
            url: shown,
            client,
            conn: Mutex::new(None),
            replica: crate::artifact::random_hex(8),
        };
        store.with(|c| redis::cmd("PING").query::<String>(c))?;
        Ok(store)
    }

    /// A client of the same Redis, for what else keeps state there
    /// (`bindings/redis.rs`).
    pub fn client(&self) -> redis::Client {
        self.client.clone()
    }

    /// The URL, as logs may show it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// This process's name among the replicas.
    pub fn replica(&self) -> &str {
        &self.replica
    }

    /// A new connection with the store's timeouts.
    fn connect(&self) -> Result<redis::Connection, RedisError> {
        let unreachable = |reason| RedisError::Unreachable {
            url: self.url.clone(),
            reason,
        };
        let conn = self
            .client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(unreachable)?;
        conn.set_write_timeout(Some(TIMEOUT)).map_err(unreachable)?;
        Ok(conn)
    }

    /// Runs `f` on the connection, connecting first if there is none; a
    /// failed command drops the connection, so the next call connects
    /// again.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, RedisError> {
        let mut conn = crate::sync::lock(&self.conn);
        if conn.is_none() {
            let c = self.connect()?;
            c.set_read_timeout(Some(TIMEOUT))?;
            *conn = Some(c);
        }
        let out = f(conn.as_mut().expect("connected above"));
        if out.is_err() {
            *conn = None;
        }
        Ok(out?)
    }

    /// A new version, newer than every version handed out before.
    pub fn next_version(&self) -> Result<u64, RedisError> {
        self.with(|c| c.incr(CLOCK, 1))
    }

    /// Stores plugin bytes under their SHA-256, unless they are there; they
    /// expire unless a record names them within [`UNCLAIMED`] seconds.
    pub fn save_plugin(&self, digest: &str, bytes: &[u8]) -> Result<(), RedisError> {
        self.with(|c| {
            redis::cmd("SET")
                .arg(plugin_key(digest))
                .arg(bytes)
                .arg("NX")
                .arg("EX")
                .arg(UNCLAIMED)
                .exec(c)
        })
    }

    /// The plugin stored under `digest`, if any.
    pub fn plugin(&self, digest: &str) -> Result<Option<Vec<u8>>, RedisError> {
        self.with(|c| c.get(plugin_key(digest)))
    }

    /// Writes `record` (at its `version`) with `secrets`, if the id's
    /// current version is `base` (0: none).
    pub fn put(
        &self,
        record: &Registration,
        secrets: &Env,
        base: u64,
    ) -> Result<Applied, RedisError> {
        let json = serde_json::to_string(record).map_err(|e| RedisError::Corrupt(e.to_string()))?;
        let secrets =
            serde_json::to_string(secrets).map_err(|e| RedisError::Corrupt(e.to_string()))?;
        let hosts = record.hosts.join("\n");
        let more = [json, secrets, hosts, record.digest.clone()];
        let plugin = plugin_key(&record.digest);
        self.conditional(PUT, &record.id, record.version, base, &more, Some(&plugin))
    }

    /// Removes tenant `id` as of `version`, if its current version is
    /// `base`.
    pub fn remove(&self, id: &str, version: u64, base: u64) -> Result<Applied, RedisError> {
        self.conditional(REMOVE, id, version, base, &[], None)
    }

    /// Runs `script` (PUT or REMOVE) for `id` at `version` on `base`, with
    /// `more` arguments, and for PUT the key of its `plugin`.
    fn conditional(
        &self,
        script: &str,
        id: &str,
        version: u64,
        base: u64,
        more: &[String],
        plugin: Option<&str>,
    ) -> Result<Applied, RedisError> {
        let applied: redis::Value = self.with(|c| {
            redis::Script::new(script)
                .key(VERSIONS)
                .key(REMOVED)
                .key(tenant_key(id))
                .key(HOSTS)
                .key(PLUGIN_REFS)
                .key(plugin)
                .arg(id)
                .arg(version)
                .arg(base)
                .arg(more)
                .invoke(c)
        })?;
        match applied {
            redis::Value::Int(1) => Ok(Applied::Yes),
            redis::Value::Int(0) => Ok(Applied::Stale),
            redis::Value::Int(-1) => Ok(Applied::NoPlugin),
            taken => {
                let (host, owner) = redis::from_redis_value(taken)
                    .map_err(|e| RedisError::Corrupt(format!("a write's answer: {e}")))?;
                Ok(Applied::HostTaken { host, owner })
            }
        }
    }

    /// Every id's current version, every removed id's removal, and the
    /// clock.
    pub fn versions(&self) -> Result<Versions, RedisError> {
        let (current, removed, clock) = self.with(|c| {
            redis::pipe()
                .hgetall(VERSIONS)
                .hgetall(REMOVED)
                .get(CLOCK)
                .query::<(HashMap<String, u64>, HashMap<String, u64>, Option<u64>)>(c)
        })?;
        Ok(Versions {
            current,
            removed,
            clock: clock.unwrap_or(0),
        })
    }

    /// What the store holds for `id`.
    pub fn state(&self, id: &str) -> Result<State, RedisError> {
        let (fields, removed) = self.with(|c| {
            redis::pipe()
                .hgetall(tenant_key(id))
                .hget(REMOVED, id)
                .query::<(HashMap<String, String>, Option<u64>)>(c)
        })?;
        let (Some(record), Some(secrets)) = (fields.get("record"), fields.get("secrets")) else {
            return Ok(removed.map_or(State::Absent, State::Removed));
        };
        let corrupt = |e: serde_json::Error| RedisError::Corrupt(format!("tenant {id}: {e}"));
        Ok(State::Present(Box::new(Stored {
            record: serde_json::from_str(record).map_err(corrupt)?,
            secrets: serde_json::from_str(secrets).map_err(corrupt)?,
        })))
    }

    /// Claims `what` for this replica for `ttl`: whether it was the first
    /// to (`SET NX EX`), so that one replica of all does it.
    pub fn claim(&self, what: &str, ttl: std::time::Duration) -> Result<bool, RedisError> {
        let key = format!("ssr:claim:{what}");
        self.with(|c| {
            redis::cmd("SET")
                .arg(&key)
                .arg(&self.replica)
                .arg("NX")
                .arg("EX")
                .arg(ttl.as_secs().max(1))
                .query::<Option<String>>(c)
        })
        .map(|set| set.is_some())
    }

    /// Stores tenant token `id`'s record (`tenant/tokens.rs`).
    pub fn save_token(&self, id: &str, record: &str) -> Result<(), RedisError> {
        self.with(|c| c.hset::<_, _, _, ()>(TOKENS, id, record))
    }

    /// Tenant token `id`'s record.
    pub fn token(&self, id: &str) -> Result<Option<String>, RedisError> {
        self.with(|c| c.hget(TOKENS, id))
    }

    /// Every tenant token's record.
    pub fn tokens(&self) -> Result<Vec<String>, RedisError> {
        self.with(|c| c.hvals(TOKENS))
    }

    /// Removes tenant token `id`'s record; whether there was one.
    pub fn remove_token(&self, id: &str) -> Result<bool, RedisError> {
        self.with(|c| c.hdel::<_, _, u32>(TOKENS, id))
            .map(|n| n > 0)
    }

    /// Tells the other replicas to purge `tenant`'s pages (under `prefix`).
    pub fn announce_purge(&self, tenant: &str, prefix: Option<&str>) -> Result<(), RedisError> {
        let purge = Purge {
            from: self.replica.clone(),
            tenant: tenant.to_string(),
            prefix: prefix.map(str::to_string),
        };
        let json = serde_json::to_string(&purge).map_err(|e| RedisError::Corrupt(e.to_string()))?;
        self.with(|c| c.publish::<_, _, ()>(PURGES, json))
    }

    /// Says on [`LOG_FOLLOWS`] that `tenant`'s log is followed here.
    pub fn announce_log_follower(&self, tenant: &str) -> Result<(), RedisError> {
        let said = format!("{} {tenant}", self.replica);
        self.with(|c| c.publish::<_, _, ()>(LOG_FOLLOWS, said))
    }

    /// Sends a line of `tenant`'s log to the replicas that follow it.
    pub fn publish_log(&self, tenant: &str, line: crate::logs::Line) -> Result<(), RedisError> {
        let remote = RemoteLine {
            from: self.replica.clone(),
            tenant: tenant.to_string(),
            line,
        };
        let json =
            serde_json::to_string(&remote).map_err(|e| RedisError::Corrupt(e.to_string()))?;
        self.with(|c| c.publish::<_, _, ()>(LOGS, json))
    }

    /// Listens on [`CHANGES`], [`PURGES`] and the log channels on a connection of its own,
    /// calling `on` with [`Event::Subscribed`] first, then each message,
    /// and [`Event::Tick`] whenever `tick` passes without one, until `on`
    /// breaks (`Ok`) or the connection fails (`Err`: messages sent until
    /// the next `Subscribed` are lost, so the caller resynchronises then).
    /// This replica's own purges are not delivered.
    pub fn listen(
        &self,
        tick: Duration,
        mut on: impl FnMut(Event<'_>) -> std::ops::ControlFlow<()>,
    ) -> Result<(), RedisError> {
        let mut conn = self.connect()?;
        conn.set_read_timeout(Some(tick))?;
        let mut pubsub = conn.as_pubsub();
        pubsub.subscribe(&[CHANGES, PURGES, LOG_FOLLOWS, LOGS])?;
        if on(Event::Subscribed).is_break() {
            return Ok(());
        }
        loop {
            let msg = match pubsub.get_message() {
                Ok(msg) => msg,
                Err(e) if e.is_timeout() => match on(Event::Tick) {
                    std::ops::ControlFlow::Break(()) => return Ok(()),
                    _ => continue,
                },
                Err(e) => return Err(e.into()),
            };
            let payload: String = msg.get_payload()?;
            let flow = match msg.get_channel_name() {
                CHANGES => match payload
                    .rsplit_once(' ')
                    .and_then(|(id, v)| Some((id, v.parse().ok()?)))
                {
                    Some((id, v)) => on(Event::Changed(id, v)),
                    None => {
                        tracing::warn!("ignoring a malformed message on {CHANGES}");
                        std::ops::ControlFlow::Continue(())
                    }
                },
                LOG_FOLLOWS => match payload.split_once(' ') {
                    Some((from, _)) if from == self.replica => std::ops::ControlFlow::Continue(()),
                    Some((_, tenant)) => on(Event::LogFollowed(tenant)),
                    None => std::ops::ControlFlow::Continue(()),
                },
                LOGS => match serde_json::from_str::<RemoteLine>(&payload) {
                    Ok(l) if l.from == self.replica => std::ops::ControlFlow::Continue(()),
                    Ok(l) => on(Event::Log(Box::new(l))),
                    Err(_) => {
                        tracing::warn!("ignoring a malformed message on {LOGS}");
                        std::ops::ControlFlow::Continue(())
                    }
                },
                _ => match serde_json::from_str::<Purge>(&payload) {
                    Ok(p) if p.from == self.replica => std::ops::ControlFlow::Continue(()),
                    Ok(p) => on(Event::Purge(p)),
                    Err(_) => {
                        tracing::warn!("ignoring a malformed message on {PURGES}");
                        std::ops::ControlFlow::Continue(())
                    }
                },
            };
            if flow.is_break() {
                return Ok(());
            }
        }
    }
}
