//! KV namespaces in Redis, shared by the replicas of a cluster
//! (`ssr serve --store redis://...`): a put through one replica is read
//! through every other at once.
//!
//! Keys (`<ns>` written with its length first, so that no namespace's
//! keys can be read as another's):
//! ```text
//! ssr:kv:<len>:<ns>:v:<key>   hash: v (the value), m (metadata, JSON),
//!                             e (expiration, seconds); Redis drops it at
//!                             its expiration (EXPIREAT)
//! ssr:kv:<len>:<ns>:keys      sorted set, every score 0: the namespace's
//!                             keys, for `list` in byte order (ZRANGEBYLEX)
//! ssr:kvq:<len>:<tenant>      hash: each of the tenant's entries (its hash's
//!                             name) to its size, and "" to their sum: what
//!                             its quota counts
//! ssr:kvq:<len>:<tenant>:e    sorted set: its entries that expire, scored
//!                             by their expiration
//! ```
//!
//! Invariants:
//! - A put replaces the whole hash and indexes its key in one script, so a
//!   reader sees the old entry or the new one, never a mix.
//! - The index may name a key that has expired (Redis dropped its hash):
//!   `list` skips, and removes, every such name, so an expired key is
//!   never listed. `get` checks the expiration itself too, since Redis
//!   expires with a resolution of its own.
//! - A tenant's count is its entries' sizes (key, value and metadata, as
//!   the embedded store counts them), changed in the script that puts or
//!   deletes the entry. An entry Redis expired stays counted until a put
//!   of the tenant's drops it (up to [`PRUNE`] per put, oldest first), so
//!   the count may be high by what expired since, never low; entries put
//!   before the count existed are not in it.
//! - Durability is Redis's: an operator who needs every acknowledged put
//!   to survive a crash of Redis runs it with `appendfsync always`
//!   (docs/deploying.md).

use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use super::kv::{Entry, Listed, Page, Store};

/// KV namespaces in one Redis database.
pub struct Kv {
    pool: Pool,
    /// Connections for a `get` made in the call itself
    /// ([`Store::get_at_once`]): their reads give up after
    /// [`super::AT_ONCE`]. Made on a thread that may block, never on the
    /// engine's: the quick path only takes an idle one.
    quick: Pool,
    /// Until when the quick path is not tried: a read that gave up says
    /// this Redis is too far for it, and trying on every call would add
    /// [`super::AT_ONCE`] to each.
    quick_off: Mutex<Option<Instant>>,
}

/// How long a quick read that gave up turns the quick path off.
const QUICK_OFF: Duration = Duration::from_secs(1);

/// Connections to the Redis a binding keeps its state in: a call takes an
/// idle one (or connects) and gives it back.
pub(super) struct Pool {
    client: redis::Client,
    idle: Mutex<Vec<redis::Connection>>,
    /// The binding's kind, for errors ("KV", "R2").
    what: &'static str,
    /// How long a read or a write may take (a connect: [`TIMEOUT`]).
    timeout: Duration,
}

const TIMEOUT: Duration = Duration::from_secs(5);

/// Expired entries a put drops from its tenant's count, at most.
const PRUNE: usize = 100;

/// What [`PUT`] and [`DELETE`] start with: the tenant's count (KEYS[3],
/// its expiring entries KEYS[4]) changed by `add`, and an entry dropped
/// from it by `forget`. (Redis takes Lua's -0 for no integer: a change of
/// nothing is not made.)
const COUNT: &str = r"
local function add(delta)
  if delta ~= 0 then redis.call('HINCRBY', KEYS[3], '', delta) end
end
local function forget(e)
  add(-tonumber(redis.call('HGET', KEYS[3], e) or '0'))
  redis.call('HDEL', KEYS[3], e)
  redis.call('ZREM', KEYS[4], e)
end
";

/// Replaces a key's entry and indexes it, unless its tenant's entries
/// would then pass its quota: first drops up to PRUNE expired entries from
/// the count. KEYS: the entry's hash, the index, the tenant's count, its
/// expiring entries; ARGV: the key, the value, the metadata ('' for none),
/// the expiration ('' for none), the entry's size, the quota, now, PRUNE.
/// Returns -1 when stored, else the bytes counted (refused).
const PUT: &str = r"
local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[7], 'LIMIT', 0, tonumber(ARGV[8]))
for _, e in ipairs(gone) do forget(e) end
local old = tonumber(redis.call('HGET', KEYS[3], KEYS[1]) or '0')
local new = tonumber(ARGV[5])
local used = tonumber(redis.call('HGET', KEYS[3], '') or '0')
if new > old and used - math.min(old, used) + new > tonumber(ARGV[6]) then return used end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'm', ARGV[3]) end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'e', ARGV[4])
  redis.call('EXPIREAT', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[4], ARGV[4], KEYS[1])
else
  redis.call('ZREM', KEYS[4], KEYS[1])
end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('HSET', KEYS[3], KEYS[1], new)
add(new - old)
return -1
";

/// Deletes a key's entry, its name in the index and its size from its
/// tenant's count. KEYS: the entry's hash, the index, the tenant's count,
/// its expiring entries; ARGV: the key.
const DELETE: &str = r"
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
forget(KEYS[1])
return 1
";

/// `body` ([`PUT`], [`DELETE`]) after [`COUNT`], as one script.
fn counting(body: &str) -> redis::Script {
    redis::Script::new(&format!("{COUNT}{body}"))
}

fn base(ns: &str) -> String {
    format!("ssr:kv:{}:{ns}", ns.len())
}

fn entry_key(ns: &str, key: &[u8]) -> Vec<u8> {
    let mut k = format!("{}:v:", base(ns)).into_bytes();
    k.extend_from_slice(key);
    k
}

fn index_key(ns: &str) -> String {
    format!("{}:keys", base(ns))
}

/// The tenant's count, and its expiring entries.
fn count_keys(tenant: &str) -> (String, String) {
    let count = format!("ssr:kvq:{}:{tenant}", tenant.len());
    let expiring = format!("{count}:e");
    (count, expiring)
}

/// `script` on `key`'s entry in `ns`: the KEYS that [`PUT`] and [`DELETE`]
/// take, and the key as their first argument.
fn on_entry<'a>(script: &'a redis::Script, ns: &str, key: &str) -> redis::ScriptInvocation<'a> {
    let (count, expiring) = count_keys(super::tenant_of(ns));
    let mut call = script.prepare_invoke();
    call.key(entry_key(ns, key.as_bytes()))
        .key(index_key(ns))
        .key(count)
        .key(expiring)
        .arg(key.as_bytes());
    call
}

impl Kv {
    /// KV in the Redis `client` reaches (the tenant store's).
    pub fn new(client: redis::Client) -> Kv {
        Kv {
            pool: Pool::new(client.clone(), "KV"),
            quick: Pool {
                timeout: super::AT_ONCE,
                ..Pool::new(client, "KV")
            },
            quick_off: Mutex::new(None),
        }
    }

    fn quick_is_off(&self) -> bool {
        crate::sync::lock(&self.quick_off).is_some_and(|until| Instant::now() < until)
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        self.pool.with(f)
    }
}

impl Pool {
    pub(super) fn new(client: redis::Client, what: &'static str) -> Pool {
        Pool {
            client,
            idle: Mutex::new(Vec::new()),
            what,
            timeout: TIMEOUT,
        }
    }

    fn failed(&self, e: redis::RedisError) -> String {
        format!(
            "{} is unavailable: its Redis store did not answer ({e}); try again",
            self.what
        )
    }

    /// Runs `f` on an idle connection, or a new one; a connection whose
    /// command failed is dropped, not given back.
    pub(super) fn with<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, String> {
        let idle = crate::sync::lock(&self.idle).pop();
        let mut conn = match idle {
            Some(c) => c,
            None => self.connect()?,
        };
        let out = f(&mut conn).map_err(|e| self.failed(e))?;
        crate::sync::lock(&self.idle).push(conn);
        Ok(out)
    }

    /// A new connection, its reads and writes bounded by `timeout`.
    fn connect(&self) -> Result<redis::Connection, String> {
        let failed = |e| self.failed(e);
        let c = self
            .client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(failed)?;
        c.set_read_timeout(Some(self.timeout)).map_err(failed)?;
        c.set_write_timeout(Some(self.timeout)).map_err(failed)?;
        Ok(c)
    }
}

/// The live entry under `key` in `ns`.
fn get(
    c: &mut redis::Connection,
    ns: &str,
    key: &str,
    now: u64,
) -> redis::RedisResult<Option<Entry>> {
    let (value, metadata, expiration): (Option<Vec<u8>>, Option<String>, Option<u64>) =
        redis::cmd("HMGET")
            .arg(entry_key(ns, key.as_bytes()))
            .arg("v")
            .arg("m")
            .arg("e")
            .query(c)?;
    Ok(value
        .filter(|_| expiration.is_none_or(|e| e > now))
        .map(|value| Entry {
            value,
            metadata,
            expiration,
        }))
}

impl Store for Kv {
    /// On a thread that may block; it leaves a quick connection idle for
    /// [`Store::get_at_once`] where none is.
    fn get(&self, ns: &str, key: &str, now: u64) -> Result<Option<Entry>, String> {
        let out = self.pool.with(|c| get(c, ns, key, now));
        if crate::sync::lock(&self.quick.idle).is_empty()
            && !self.quick_is_off()
            && let Ok(c) = self.quick.connect()
        {
            crate::sync::lock(&self.quick.idle).push(c);
        }
        out
    }

    /// On an idle quick connection, whose read gives up after
    /// [`super::AT_ONCE`]: a Redis round trip on the engine's thread,
    /// where the wait on a thread that may block costs two threads'
    /// wake-ups. A read that failed or gave up drops its connection (its
    /// answer may still come), turns the quick path off for [`QUICK_OFF`],
    /// and the call waits.
    fn get_at_once(&self, ns: &str, key: &str, now: u64) -> Option<Result<Option<Entry>, String>> {
        if self.quick_is_off() {
            return None;
        }
        let mut conn = crate::sync::lock(&self.quick.idle).pop()?;
        match get(&mut conn, ns, key, now) {
            Ok(entry) => {
                crate::sync::lock(&self.quick.idle).push(conn);
                Some(Ok(entry))
            }
            Err(_) => {
                *crate::sync::lock(&self.quick_off) = Some(Instant::now() + QUICK_OFF);
                None
            }
        }
    }

    fn put(&self, ns: &str, key: &str, entry: &Entry, quota: u64) -> Result<(), String> {
        static SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| counting(PUT));
        let new = entry.size(key);
        let used = self.with(|c| {
            on_entry(&SCRIPT, ns, key)
                .arg(&entry.value)
                .arg(entry.metadata.as_deref().unwrap_or(""))
                .arg(entry.expiration.map(|e| e.to_string()).unwrap_or_default())
                .arg(new)
                .arg(quota)
                .arg(super::kv::now())
                .arg(PRUNE)
                .invoke::<i64>(c)
        })?;
        match u64::try_from(used) {
            Err(_) => Ok(()),
            Ok(used) => Err(super::kv::over_quota(used, new, quota)),
        }
    }

    fn delete(&self, ns: &str, key: &str) -> Result<(), String> {
        static SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| counting(DELETE));
        self.with(|c| on_entry(&SCRIPT, ns, key).invoke::<i64>(c))
            .map(drop)
    }

    fn usage(&self, tenant: &str) -> Result<u64, String> {
        let (count, _) = count_keys(tenant);
        let used: Option<i64> = self.with(|c| redis::cmd("HGET").arg(count).arg("").query(c))?;
        Ok(used.unwrap_or(0).max(0) as u64)
    }

    fn list(&self, ns: &str, page: &Page<'_>) -> Result<(Vec<Listed>, bool), String> {
        let (prefix, after, limit, now) = (page.prefix, page.after, page.limit, page.now);
        let index = index_key(ns);
        let mut from: Vec<u8> = match after {
            Some(a) if a.as_bytes() >= prefix.as_bytes() => [b"(", a.as_bytes()].concat(),
            _ if prefix.is_empty() => b"-".to_vec(),
            _ => [b"[", prefix.as_bytes()].concat(),
        };
        // `prefix_end` of the empty prefix is none: to the end.
        let to: Vec<u8> = match super::sqlite::prefix_end(prefix.as_bytes()) {
            Some(end) => [b"(", end.as_slice()].concat(),
            None => b"+".to_vec(),
        };
        let mut keys = Vec::new();
        loop {
            let want = limit + 1 - keys.len();
            let names: Vec<Vec<u8>> = self.with(|c| {
                redis::cmd("ZRANGEBYLEX")
                    .arg(&index)
                    .arg(&from)
                    .arg(&to)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(want)
                    .query(c)
            })?;
            let Some(last) = names.last() else { break };
            from = [b"(", last.as_slice()].concat();
            let mut pipe = redis::pipe();
            for name in &names {
                pipe.cmd("HMGET")
                    .arg(entry_key(ns, name))
                    .arg("v")
                    .arg("m")
                    .arg("e");
            }
            // Whether each has a value, not the value itself: `HEXISTS`
            // would be a second round trip.
            let found: Vec<(Option<redis::Value>, Option<String>, Option<u64>)> =
                self.with(|c| pipe.query(c))?;
            let mut gone = Vec::new();
            for (name, (value, metadata, expiration)) in names.iter().zip(found) {
                if value.is_none() || expiration.is_some_and(|e| e <= now) {
                    gone.push(name.clone());
                    continue;
                }
                keys.push(Listed {
                    name: String::from_utf8_lossy(name).into_owned(),
                    metadata,
                    expiration,
                });
            }
            if !gone.is_empty() {
                // Redis dropped their entries: drop their names too, unless
                // one was put again meanwhile (its entry is back).
                let _ = self.with(|c| {
                    let mut pipe = redis::pipe();
                    for name in &gone {
                        pipe.cmd("EVAL")
                            .arg("if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[1]) end return 1")
                            .arg(2)
                            .arg(entry_key(ns, name))
                            .arg(&index)
                            .arg(name.as_slice())
                            .ignore();
                    }
                    pipe.query::<()>(c)
                });
            }
            if names.len() < want || keys.len() > limit {
                break;
            }
        }
        let more = keys.len() > limit;
        keys.truncate(limit);
        Ok((keys, more))
    }
}
