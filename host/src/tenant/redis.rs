//! Tenant state shared by replicas, in Redis (issue 20's store; the local
//! data dir is `store.rs`). Not yet selected by `ssr serve`: this is the
//! layer the registry will use behind `--store redis://...`.
//!
//! Keys (all under the prefix `ssr:`):
//! ```text
//! ssr:clock              INCR: every write's version, one order for all ids
//! ssr:plugin:<sha256>    a plugin's bytes (SET NX: written once, before any
//!                        record names them)
//! ssr:tenant:<id>        hash: version, record (the registration's JSON),
//!                        secrets (JSON, name to value)
//! ssr:versions           hash: id -> version of its current record
//! ssr:removed            hash: id -> version of its removal (a tombstone)
//! ssr:changes            pub/sub channel: "<id> <version>" after each write
//! ```
//!
//! Invariants:
//! - A write carries a version from `ssr:clock` and applies only if it is
//!   newer than the id's current record and its last removal, in one Lua
//!   script (atomic in Redis): a write that lost a race, or a replica's
//!   late retry, never puts an older state over a newer one, and two
//!   replicas writing one id at once leave the newer of the two.
//! - A record and its secrets change together (one hash), and a record is
//!   written only after the plugin it names ([`RedisStore::save_plugin`]).
//! - `ssr:versions` with `ssr:removed` is what a replica that missed
//!   messages resynchronises from: every id's newest version, or its
//!   removal.
//! - Secrets are only in `ssr:tenant:<id>`'s `secrets` field, never in the
//!   record, the channel or a log line.

use std::collections::HashMap;
use std::sync::Mutex;

use redis::Commands;

use super::Registration;
use super::env::Env;

/// The channel every write is announced on.
pub const CHANGES: &str = "ssr:changes";

/// Why the Redis store failed; the message says what to check.
#[derive(Debug, thiserror::Error)]
pub enum RedisError {
    #[error(
        "the Redis store at {url} cannot be reached ({source}); check that it runs and the URL"
    )]
    Unreachable {
        url: String,
        #[source]
        source: redis::RedisError,
    },
    #[error("the Redis store failed a command ({0})")]
    Command(#[from] redis::RedisError),
    #[error("the Redis store holds a record that does not parse ({0})")]
    Corrupt(String),
}

/// What a conditional write did.
#[derive(Debug, PartialEq, Eq)]
pub enum Applied {
    /// It is now the id's state.
    Yes,
    /// The id already has a newer version (or a newer removal).
    Stale,
}

/// A stored tenant: its registration and secrets.
#[derive(Debug)]
pub struct Stored {
    pub record: Registration,
    pub secrets: Env,
}

/// The Redis store: one connection, used by one caller at a time.
pub struct RedisStore {
    /// For errors: without its password.
    url: String,
    client: redis::Client,
    conn: Mutex<Option<redis::Connection>>,
}

/// Writes a tenant if its version is newer than what the id has.
/// KEYS: versions, removed, tenant key. ARGV: id, version, record, secrets.
const PUT: &str = r"
local v = tonumber(ARGV[2])
if v <= tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') then return 0 end
if v <= tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') then return 0 end
redis.call('HSET', KEYS[3], 'version', ARGV[2], 'record', ARGV[3], 'secrets', ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('PUBLISH', 'ssr:changes', ARGV[1] .. ' ' .. ARGV[2])
return 1
";

/// Removes a tenant if the removal's version is newer than its record.
/// KEYS: versions, removed, tenant key. ARGV: id, version.
const REMOVE: &str = r"
local v = tonumber(ARGV[2])
if v <= tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') then return 0 end
if v <= tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0') then return 0 end
redis.call('DEL', KEYS[3])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PUBLISH', 'ssr:changes', ARGV[1] .. ' ' .. ARGV[2])
return 1
";

const VERSIONS: &str = "ssr:versions";
const REMOVED: &str = "ssr:removed";

/// `url` as errors show it: a password in it (`redis://:PASS@host`) is
/// replaced by `***`, so it never reaches a log.
fn shown(url: &str) -> String {
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

fn tenant_key(id: &str) -> String {
    format!("ssr:tenant:{id}")
}

fn plugin_key(digest: &str) -> String {
    format!("ssr:plugin:{digest}")
}

impl RedisStore {
    /// Connects to `url` (`redis://HOST:PORT/DB`) and checks that it
    /// answers.
    pub fn open(url: &str) -> Result<RedisStore, RedisError> {
        let shown = shown(url);
        let unreachable = |source| RedisError::Unreachable {
            url: shown.clone(),
            source,
        };
        let client = redis::Client::open(url).map_err(unreachable)?;
        let store = RedisStore {
            url: shown.clone(),
            client,
            conn: Mutex::new(None),
        };
        store.with(|c| redis::cmd("PING").query::<String>(c))?;
        Ok(store)
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
            let c = self
                .client
                .get_connection()
                .map_err(|source| RedisError::Unreachable {
                    url: self.url.clone(),
                    source,
                })?;
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
        self.with(|c| c.incr("ssr:clock", 1))
    }

    /// Stores plugin bytes under their SHA-256, unless they are there.
    pub fn save_plugin(&self, digest: &str, bytes: &[u8]) -> Result<(), RedisError> {
        self.with(|c| c.set_nx::<_, _, ()>(plugin_key(digest), bytes))
    }

    /// The plugin stored under `digest`, if any.
    pub fn plugin(&self, digest: &str) -> Result<Option<Vec<u8>>, RedisError> {
        self.with(|c| c.get(plugin_key(digest)))
    }

    /// Writes `record` (at its `version`) with `secrets`, unless the id has
    /// a newer version or removal.
    pub fn put(&self, record: &Registration, secrets: &Env) -> Result<Applied, RedisError> {
        let json = serde_json::to_string(record).map_err(|e| RedisError::Corrupt(e.to_string()))?;
        let secrets =
            serde_json::to_string(secrets).map_err(|e| RedisError::Corrupt(e.to_string()))?;
        self.conditional(PUT, &record.id, record.version, &[json, secrets])
    }

    /// Removes tenant `id` as of `version`, unless it has a newer one.
    pub fn remove(&self, id: &str, version: u64) -> Result<Applied, RedisError> {
        self.conditional(REMOVE, id, version, &[])
    }

    /// Runs `script` (PUT or REMOVE) for `id` at `version`, with `more`
    /// arguments.
    fn conditional(
        &self,
        script: &str,
        id: &str,
        version: u64,
        more: &[String],
    ) -> Result<Applied, RedisError> {
        let applied: i64 = self.with(|c| {
            redis::Script::new(script)
                .key(VERSIONS)
                .key(REMOVED)
                .key(tenant_key(id))
                .arg(id)
                .arg(version)
                .arg(more)
                .invoke(c)
        })?;
        Ok(match applied {
            1 => Applied::Yes,
            _ => Applied::Stale,
        })
    }

    /// Every tenant's current version, by id (removed ones absent).
    pub fn versions(&self) -> Result<HashMap<String, u64>, RedisError> {
        self.with(|c| c.hgetall(VERSIONS))
    }

    /// Tenant `id` as stored, if it is.
    pub fn get(&self, id: &str) -> Result<Option<Stored>, RedisError> {
        let fields: HashMap<String, String> = self.with(|c| c.hgetall(tenant_key(id)))?;
        let (Some(record), Some(secrets)) = (fields.get("record"), fields.get("secrets")) else {
            return Ok(None);
        };
        let corrupt = |e: serde_json::Error| RedisError::Corrupt(format!("tenant {id}: {e}"));
        Ok(Some(Stored {
            record: serde_json::from_str(record).map_err(corrupt)?,
            secrets: serde_json::from_str(secrets).map_err(corrupt)?,
        }))
    }

    /// Listens on [`CHANGES`] on a connection of its own, calling `on` with
    /// each change (`Some((id, version))`), and with `None` whenever `tick`
    /// passes without one, until `on` breaks (`Ok`) or the connection fails
    /// (`Err`: the caller resynchronises from [`RedisStore::versions`] once
    /// it is back, since messages sent meanwhile are lost).
    pub fn listen(
        &self,
        tick: std::time::Duration,
        mut on: impl FnMut(Option<(&str, u64)>) -> std::ops::ControlFlow<()>,
    ) -> Result<(), RedisError> {
        let unreachable = |source| RedisError::Unreachable {
            url: self.url.clone(),
            source,
        };
        let mut conn = self.client.get_connection().map_err(unreachable)?;
        conn.set_read_timeout(Some(tick))?;
        let mut pubsub = conn.as_pubsub();
        pubsub.subscribe(CHANGES)?;
        loop {
            let flow = match pubsub.get_message() {
                Ok(msg) => {
                    let payload: String = msg.get_payload()?;
                    let change = payload
                        .rsplit_once(' ')
                        .and_then(|(id, v)| Some((id, v.parse().ok()?)));
                    match change {
                        Some(change) => on(Some(change)),
                        None => {
                            tracing::warn!("ignoring a malformed change message on {CHANGES}");
                            std::ops::ControlFlow::Continue(())
                        }
                    }
                }
                Err(e) if e.is_timeout() => on(None),
                Err(e) => return Err(e.into()),
            };
            if flow.is_break() {
                return Ok(());
            }
        }
    }
}
