//! A replica following the store it shares with others (`--store
//! redis://...`): this process's tenants become the store's, and purges
//! made on other replicas apply here.
//!
//! [`follow`] runs on a thread of its own. It listens on Redis's channels;
//! a change message names an id and a version, and the follower reads the
//! id's state from the store (never trusting the messages' order) and
//! adopts it if it is newer than what this replica has. Each time it
//! subscribes (at start, and after every reconnection) it resynchronises
//! every id from the store's versions, which makes up for the messages it
//! could not hear.
//!
//! Invariants:
//! - Never an older state over a newer one: adoption compares versions
//!   under the registry's write lock, against the tenant it has and the
//!   removals it made (`Registry::writes`).
//! - A tenant whose record and plugin did not change but whose vars or
//!   secrets did keeps its compiled plugin; a new plugin loads from this
//!   replica's compiled code if it has it, else is compiled once and
//!   stored there (`store::load`).
//! - Redis unreachable: nothing changes here; tenants keep serving from
//!   memory, and the follower reconnects with backoff ([`BACKOFF`]). The
//!   log says each transition once: lost, then back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::store::redis::{Event, RedisStore, State};
use super::store::{self, Saved, Store};
use super::{Registry, Tenant, TenantError, Writing};

/// What following the store changed, for the server to act on (drop warm
/// instances, purge pages).
pub enum Effect {
    /// A new version of a tenant is current.
    Replaced(Arc<Tenant>),
    /// A tenant was removed.
    Removed(Arc<Tenant>),
    /// Another replica purged a tenant's pages (under `prefix`).
    Purge {
        tenant: String,
        prefix: Option<String>,
    },
}

/// The shortest and longest wait before reconnecting; it doubles between.
pub const BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(2));

/// How often the follower checks that the server still runs.
const TICK: Duration = Duration::from_secs(1);

/// Whether the store answers, as `/readyz` says it.
pub enum StoreStatus {
    /// The data dir, or nothing (in memory).
    Local,
    Connected {
        url: String,
    },
    Unreachable {
        url: String,
        since: Instant,
    },
}

impl Registry {
    /// How the registry's store is doing.
    pub fn store_status(&self) -> StoreStatus {
        match &self.store {
            Some(Store::Shared { redis, .. }) => {
                let url = redis.url().to_string();
                match *crate::sync::lock(&self.store_down) {
                    None => StoreStatus::Connected { url },
                    Some(since) => StoreStatus::Unreachable { url, since },
                }
            }
            _ => StoreStatus::Local,
        }
    }

    /// Claims `what` for this replica for `ttl` (`RedisStore::claim`):
    /// whether it is this replica's to do. A server of its own store
    /// always is.
    pub fn claim(&self, what: &str, ttl: std::time::Duration) -> Result<bool, TenantError> {
        match &self.store {
            Some(Store::Shared { redis, .. }) => Ok(redis.claim(what, ttl)?),
            _ => Ok(true),
        }
    }

    /// Tells the other replicas sharing the store to purge `id`'s pages
    /// (under `prefix`); nothing to do without one.
    pub fn announce_purge(&self, id: &str, prefix: Option<&str>) -> Result<(), TenantError> {
        match &self.store {
            Some(Store::Shared { redis, .. }) => Ok(redis.announce_purge(id, prefix)?),
            _ => Ok(()),
        }
    }

    /// The newest version of `id` this replica has seen: its stored
    /// tenant's, or its removal's here.
    fn known(&self, writing: &Writing<'_>, id: &str) -> u64 {
        let removed = writing.0.get(id).copied().unwrap_or(0);
        removed.max(self.base(id))
    }

    /// Brings tenant `id` to the store's state; what that changed. A
    /// tenant that does not load is logged and left as it was.
    fn sync_one(&self, redis: &RedisStore, id: &str) -> Result<Option<Effect>, TenantError> {
        let removed_at = match redis.state(id)? {
            State::Present(stored) => {
                if stored.record.version <= self.known(&crate::sync::lock(&self.writes), id) {
                    return Ok(None);
                }
                let Some(saved) = self.fetch(redis, stored) else {
                    return Ok(None);
                };
                let writing = crate::sync::lock(&self.writes);
                if saved.registration.version <= self.known(&writing, id) {
                    return Ok(None);
                }
                return Ok(Some(Effect::Replaced(self.adopt(&writing, saved).tenant)));
            }
            State::Removed(version) => Some(version),
            // Never written, or the store was emptied: what this replica
            // has of it goes, but no tombstone bars its next write.
            State::Absent => None,
        };
        let mut writing = crate::sync::lock(&self.writes);
        let Some(current) = self.get(id).filter(|t| !t.registration.demo) else {
            return Ok(None);
        };
        if removed_at.is_some_and(|v| v <= current.version()) {
            return Ok(None);
        }
        self.unpublish(&mut writing, &current, removed_at.unwrap_or(0));
        Ok(Some(Effect::Removed(current)))
    }

    /// Loads a stored tenant: its plugin from this replica's compiled
    /// code, or from the store (the current version's, if only its vars or
    /// secrets changed). `None` (logged) if it does not load.
    fn fetch(&self, redis: &RedisStore, stored: Box<store::redis::Stored>) -> Option<Saved> {
        let store::redis::Stored { record, secrets } = *stored;
        let same_plugin = self.get(&record.id).filter(|t| {
            let r = &t.registration;
            !r.demo
                && r.digest == record.digest
                && r.engine == record.engine
                && r.limits == record.limits
        });
        if let Some(t) = same_plugin {
            return Some(Saved {
                registration: record,
                plugin: t.plugin.clone(),
                assets: t.assets.clone(),
                secrets,
                stack_map: t.grants.stack_map.clone(),
            });
        }
        let Some(Store::Shared { code, .. }) = &self.store else {
            unreachable!("only a shared store is followed");
        };
        let (id, version, digest) = (record.id.clone(), record.version, record.digest.clone());
        let read = || {
            let bytes = redis
                .plugin(&digest)
                .map_err(store::said)?
                .ok_or_else(|| format!("the store has no plugin {digest}"))?;
            store::check_digest(&digest, &bytes, "the Redis store")?;
            Ok(bytes)
        };
        match store::load(record, secrets, read, code, &self.engines, &self.defaults) {
            Ok(saved) => Some(saved),
            // Replaced or removed while it loaded (its plugin deleted with
            // its last user, say): the newer state's message follows.
            Err(e) if superseded(redis, &id, version) => {
                tracing::debug!(tenant = id, version, "skipped a superseded version: {e}");
                None
            }
            Err(e) => {
                metrics::counter!("ssr_tenants_skipped_total").increment(1);
                tracing::error!(
                    tenant = id,
                    version,
                    "cannot load a tenant from the store: {e}"
                );
                None
            }
        }
    }

    /// Brings every tenant to the store's state; what that changed.
    pub(super) fn resync(&self, redis: &RedisStore) -> Result<Vec<Effect>, TenantError> {
        let versions = redis.versions()?;
        // A store whose clock is behind what this replica has seen lost
        // its data (restarted without persistence, or emptied): following
        // it would remove every tenant here.
        let writing = crate::sync::lock(&self.writes);
        let served = self.list().into_iter().map(|t| t.version());
        let seen = served.chain(writing.0.values().copied()).max().unwrap_or(0);
        if versions.clock < seen {
            return Err(TenantError::StoreReset {
                clock: versions.clock,
                seen,
            });
        }
        let mut ids: Vec<String> = versions
            .current
            .iter()
            .filter(|(id, v)| **v > self.known(&writing, id))
            .map(|(id, _)| id.clone())
            .collect();
        drop(writing);
        // What this replica has that the store no longer does.
        ids.extend(
            self.list()
                .into_iter()
                .filter(|t| !t.registration.demo && !versions.current.contains_key(&*t.id))
                .map(|t| t.id.to_string()),
        );
        let mut effects = Vec::new();
        for id in ids {
            effects.extend(self.sync_one(redis, &id)?);
        }
        Ok(effects)
    }

    /// Marks the store up or down; whether that is a change.
    fn set_store_down(&self, down: bool) -> bool {
        let mut since = crate::sync::lock(&self.store_down);
        let changed = since.is_some() != down;
        if changed {
            *since = down.then(Instant::now);
            metrics::gauge!("ssr_store_up").set(if down { 0.0 } else { 1.0 });
        }
        changed
    }
}

/// Follows the registry's shared store until the registry is the only
/// thing left holding itself (the server stopped); `effect` gets every
/// change. Returns at once without a shared store.
pub fn follow(registry: Arc<Registry>, mut effect: impl FnMut(Effect)) {
    let Some(Store::Shared { redis, .. }) = registry.store.as_ref() else {
        return;
    };
    metrics::gauge!("ssr_store_up").set(1.0);
    let mut wait = BACKOFF.0;
    loop {
        let mut failed: Option<TenantError> = None;
        let mut stopped = false;
        let mut on = |event: Event<'_>| {
            let synced = match event {
                Event::Subscribed => registry.resync(redis).inspect(|effects| {
                    if registry.set_store_down(false) {
                        tracing::info!(
                            store = redis.url(),
                            changed = effects.len(),
                            "the shared store is back; resynchronised, admin writes accepted again"
                        );
                    }
                    wait = BACKOFF.0;
                }),
                Event::Changed(id, version)
                    if version > registry.known(&crate::sync::lock(&registry.writes), id) =>
                {
                    registry
                        .sync_one(redis, id)
                        .map(|e| e.into_iter().collect())
                }
                Event::Changed(..) => Ok(Vec::new()),
                Event::Purge(p) => Ok(vec![Effect::Purge {
                    tenant: p.tenant,
                    prefix: p.prefix,
                }]),
                Event::LogFollowed(tenant) => {
                    crate::logs::follows_there(tenant);
                    Ok(Vec::new())
                }
                Event::Log(remote) => {
                    crate::logs::deliver(&remote.tenant, remote.line);
                    Ok(Vec::new())
                }
                Event::Tick => {
                    stopped = Arc::strong_count(&registry) == 1;
                    Ok(Vec::new())
                }
            };
            match synced {
                Ok(effects) => effects.into_iter().for_each(&mut effect),
                Err(e) => failed = Some(e),
            }
            match failed.is_some() || stopped {
                true => std::ops::ControlFlow::Break(()),
                false => std::ops::ControlFlow::Continue(()),
            }
        };
        let outcome = redis.listen(TICK, &mut on);
        if stopped {
            return;
        }
        let why = match (outcome, failed) {
            (Err(e), _) => TenantError::Shared(e),
            (Ok(()), Some(e)) => e,
            (Ok(()), None) => return,
        };
        if registry.set_store_down(true) {
            tracing::warn!(
                store = redis.url(),
                tenants = registry.list().len(),
                "lost the shared store ({}); serving the tenants known, admin writes answer 503 until it is back",
                crate::report::Chain(&why)
            );
        }
        std::thread::sleep(wait);
        wait = (wait * 2).min(BACKOFF.1);
    }
}

/// Whether the store has moved `id` on from `version` (a newer version, or
/// removed); not if it cannot say.
fn superseded(redis: &RedisStore, id: &str, version: u64) -> bool {
    match redis.state(id) {
        Ok(State::Present(now)) => now.record.version != version,
        Ok(State::Removed(_) | State::Absent) => true,
        Err(_) => false,
    }
}

/// Sends this replica's log lines for followers elsewhere to the shared
/// store, and says which tenants are followed here: at once when a follower
/// starts, and every [`crate::logs::REMOTE_FOLLOW_EVERY`] while it lasts.
/// Runs until the registry is dropped; nothing without a shared store.
pub fn forward_logs(registry: std::sync::Weak<Registry>) {
    let (tx, rx) = crossbeam_channel::bounded(crate::logs::FOLLOWER_LINES * 4);
    crate::logs::send_remote_lines_to(tx);
    let mut announced = std::time::Instant::now();
    loop {
        let next = rx.recv_timeout(std::time::Duration::from_secs(1));
        let Some(registry) = registry.upgrade() else {
            return;
        };
        let Some(Store::Shared { redis, .. }) = registry.store.as_ref() else {
            return;
        };
        // A store that does not answer loses these lines; the follower
        // replica goes on, and `sync::follow` reconnects.
        let sent = match next {
            Ok(crate::logs::Out::Line(tenant, line)) => redis.publish_log(&tenant, line),
            Ok(crate::logs::Out::Follow(tenant)) => redis.announce_log_follower(&tenant),
            Err(_) => Ok(()),
        };
        if let Err(e) = sent {
            tracing::debug!("a log line for another replica was lost: {e}");
        }
        if announced.elapsed() >= crate::logs::REMOTE_FOLLOW_EVERY {
            announced = std::time::Instant::now();
            for tenant in crate::logs::followed() {
                let _ = redis.announce_log_follower(&tenant);
            }
        }
    }
}
