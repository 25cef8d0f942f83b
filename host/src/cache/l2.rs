//! L2: the shared tier, a `DashMap` with 128 shards.
//!
//! Invariants:
//! - At most `capacity` entries after an insert returns: when an insert goes
//!   over, expired entries go first, then the oldest, in one batch of
//!   `capacity / 64` (at least 1), so the O(n) scan is paid once per batch,
//!   not once per insert.
//! - Expired entries are never returned, and are dropped at the latest one
//!   batch of inserts after they expire (a sweep every `capacity / 64`
//!   inserts): a cache that never fills up does not keep its expired pages
//!   (the soak in `benches/soak.sh` held 8,500 expired React pages, 330 MiB,
//!   before this).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use dashmap::DashMap;

use super::{CacheEntry, CacheKey};

pub const SHARDS: usize = 128;

pub struct L2 {
    map: DashMap<CacheKey, Arc<CacheEntry>>,
    capacity: usize,
    seq: AtomicU64,
    /// Inserts since the last sweep of expired entries.
    unswept: AtomicU64,
}

impl L2 {
    pub fn new(capacity: usize) -> L2 {
        L2 {
            map: DashMap::with_capacity_and_shard_amount(capacity.min(1 << 20), SHARDS),
            capacity: capacity.max(1),
            seq: AtomicU64::new(0),
            unswept: AtomicU64::new(0),
        }
    }

    pub fn get(&self, key: &CacheKey, now: Instant) -> Option<Arc<CacheEntry>> {
        let entry = self.map.get(key)?.clone();
        if entry.expires <= now {
            self.map.remove_if(key, |_, e| Arc::ptr_eq(e, &entry));
            return None;
        }
        Some(entry)
    }

    /// Inserts, then evicts a batch if over capacity; returns how many
    /// entries were evicted.
    pub fn insert(&self, key: CacheKey, entry: Arc<CacheEntry>) -> usize {
        entry
            .seq
            .store(self.seq.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        self.map.insert(key, entry);
        let swept = if self.unswept.fetch_add(1, Ordering::Relaxed) + 1 >= self.batch() as u64 {
            self.unswept.store(0, Ordering::Relaxed);
            self.sweep_expired()
        } else {
            0
        };
        if self.map.len() <= self.capacity {
            return swept;
        }
        swept + self.evict_batch()
    }

    fn batch(&self) -> usize {
        (self.capacity / 64).max(1)
    }

    fn sweep_expired(&self) -> usize {
        let now = Instant::now();
        let before = self.map.len();
        self.map.retain(|_, e| e.expires > now);
        before - self.map.len()
    }

    fn evict_batch(&self) -> usize {
        let batch = self.batch();
        let mut evicted = self.sweep_expired();
        if evicted < batch {
            let mut ages: Vec<(u64, CacheKey)> = self
                .map
                .iter()
                .map(|kv| (kv.value().seq.load(Ordering::Relaxed), kv.key().clone()))
                .collect();
            let n = (batch - evicted).min(ages.len());
            ages.select_nth_unstable_by_key(n.saturating_sub(1), |(s, _)| *s);
            for (_, key) in ages.into_iter().take(n) {
                if self.map.remove(&key).is_some() {
                    evicted += 1;
                }
            }
        }
        evicted
    }

    /// Removes a tenant's entries (optionally only paths under `prefix`);
    /// returns how many.
    pub fn purge(&self, tenant: &str, prefix: Option<&str>) -> usize {
        let before = self.map.len();
        self.map.retain(|k, _| {
            &*k.tenant != tenant || prefix.is_some_and(|p| !k.target.starts_with(p))
        });
        before - self.map.len()
    }

    pub fn clear(&self) {
        self.map.clear();
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}
