//! L2: the shared tier, a `DashMap` with 128 shards from [`CacheKey`] to a
//! [`Slot`]: the variants of one URL.
//!
//! Invariants:
//! - A slot is immutable; an insert replaces it whole, under the shard's
//!   lock, and marks the old one gone ([`Slot::is_gone`]) so that thread-local
//!   copies (`l1.rs`) stop serving it. Every removal marks it too.
//! - A slot's `vary` is the union of every header its variants' responses
//!   depend on; each variant is keyed by the values of all of them. When a
//!   response brings a header the slot did not vary on, the slot starts again
//!   with that response alone (the older variants have no value for it).
//! - Bytes are counted per tenant and in total on every insert and removal
//!   ([`L2::release`] is the one place that subtracts). A slot is charged
//!   its key, the header values its variants are keyed by and a fixed
//!   overhead besides its entries ([`Slot::cost`]), so a URL made long to
//!   fill memory is charged what it holds.
//! - Each tenant's keys are indexed ([`Tenant::keys`]): a purge or an
//!   eviction of one tenant visits that tenant's slots, not every slot. A
//!   key is in its tenant's index exactly while the map holds it
//!   ([`L2::removed`] is the one place that takes it out). Locks are taken
//!   in one order: a shard of the map, then an index, never the reverse.
//! - After an insert that goes over the tenant's or the total budget,
//!   expired slots go first, then the oldest, down to 15/16 of the budget,
//!   so the O(n) scan is paid once per sixteenth of the budget, not once
//!   per insert.
//! - Expired slots are never returned, and are dropped at the latest one
//!   sweep after they expire: a cache that never fills up does not keep its
//!   expired pages (the soak in `benches/soak.sh` held 8,500 expired React
//!   pages, 330 MiB, before sweeping). A sweep scans every slot, so it comes
//!   after [`SWEEP_EVERY`] inserts and after as many inserts as an eighth of
//!   the slots: a few slots scanned per insert however large the cache, and
//!   at most an eighth more slots than are live. (A sweep every 64 inserts
//!   made every insert cost O(slots): the trivial page's req/s fell round
//!   after round of `benches/peers.sh` as its cache grew, and the sweep was
//!   10-26% of the server's CPU in `benches/profile.sh`.)

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::http::HeaderMap;
use dashmap::DashMap;
use dashmap::mapref::entry::Entry;

use super::CacheEntry;
use super::key::{CacheKey, Varied, matches, varied};

pub const SHARDS: usize = 128;
/// Variants one URL keeps (say, one per language); past it the oldest goes.
pub const MAX_VARIANTS: usize = 32;
const SWEEP_EVERY: u64 = 64;
/// A sweep waits for inserts as many as the slots over this.
const SWEEP_FRACTION: u64 = 8;
/// What a slot costs beyond its key and entries: the map's place and the
/// `Arc`, the tenant index's place, the variants' list.
const SLOT_OVERHEAD: usize = 256;
/// What each variant's key (one value per varied header) costs beyond its
/// text.
const VALUE_OVERHEAD: usize = 24;

/// The variants of one URL.
#[derive(Debug)]
pub struct Slot {
    pub vary: Arc<[String]>,
    variants: Vec<(Varied, Arc<CacheEntry>)>,
    pub bytes: usize,
    expires: Instant,
    seq: u64,
    gone: AtomicBool,
}

impl Slot {
    /// The live variant for a request with these headers; one that may
    /// answer a request carrying `Authorization` when `authorized`.
    pub fn find(
        &self,
        headers: &HeaderMap,
        now: Instant,
        authorized: bool,
    ) -> Option<&Arc<CacheEntry>> {
        self.variants
            .iter()
            .find(|(values, _)| matches(headers, &self.vary, values))
            .map(|(_, e)| e)
            .filter(|e| e.expires > now && (!authorized || e.explicit))
    }

    /// Removed from L2 (replaced, purged, evicted or expired).
    pub fn is_gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }
}

/// One tenant's share of L2: its bytes, and its keys.
#[derive(Default)]
struct Tenant {
    bytes: AtomicUsize,
    keys: Mutex<HashSet<CacheKey>>,
}

pub struct L2 {
    map: DashMap<CacheKey, Arc<Slot>>,
    limit: usize,
    tenant_limit: usize,
    bytes: AtomicUsize,
    tenants: DashMap<Arc<str>, Tenant>,
    seq: AtomicU64,
    /// Inserts since the last sweep of expired entries.
    unswept: AtomicU64,
    /// One eviction scan at a time.
    evicting: Mutex<()>,
    /// See [`L2::visited`].
    visited: AtomicU64,
}

impl L2 {
    pub fn new(limit: usize, tenant_limit: usize) -> L2 {
        L2 {
            map: DashMap::with_shard_amount(SHARDS),
            limit: limit.max(1),
            tenant_limit: tenant_limit.max(1),
            bytes: AtomicUsize::new(0),
            tenants: DashMap::new(),
            seq: AtomicU64::new(0),
            unswept: AtomicU64::new(0),
            evicting: Mutex::new(()),
            visited: AtomicU64::new(0),
        }
    }

    pub fn get(&self, key: &str, now: Instant) -> Option<Arc<Slot>> {
        let slot = self.map.get(key)?.clone();
        if slot.expires <= now {
            if let Some((k, s)) = self.map.remove_if(key, |_, s| Arc::ptr_eq(s, &slot)) {
                self.removed(&k, &s);
            }
            return None;
        }
        Some(slot)
    }

    /// Adds `entry` as the variant of `key` for a request with `headers`;
    /// returns the new slot and how many slots were evicted to make room.
    pub fn insert(
        &self,
        key: CacheKey,
        entry: Arc<CacheEntry>,
        headers: &HeaderMap,
    ) -> (Arc<Slot>, usize) {
        let now = Instant::now();
        let tenant: Arc<str> = key.tenant().into();
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let slot = match self.map.entry(key) {
            Entry::Occupied(mut o) => {
                let old = o.get().clone();
                let slot = Arc::new(Slot::with(o.key(), Some(&old), entry, headers, now, seq));
                self.charge(&tenant, slot.bytes, None);
                o.insert(slot.clone());
                self.release(o.key(), &old);
                slot
            }
            Entry::Vacant(v) => {
                let slot = Arc::new(Slot::with(v.key(), None, entry, headers, now, seq));
                self.charge(&tenant, slot.bytes, Some(v.key()));
                v.insert(slot.clone());
                slot
            }
        };
        let mut evicted = 0;
        let unswept = self.unswept.fetch_add(1, Ordering::Relaxed) + 1;
        if unswept >= SWEEP_EVERY && unswept >= self.map.len() as u64 / SWEEP_FRACTION {
            self.unswept.store(0, Ordering::Relaxed);
            evicted += self.sweep_expired();
        }
        evicted += self.hold_budgets(&tenant);
        (slot, evicted)
    }

    /// Puts `new` in the place of the variant `old` of `key`, if the slot
    /// still holds it; whether it did. The slot is replaced whole (and the
    /// old one marked gone), and the budgets enforced, as an insert does.
    pub fn replace(&self, key: &CacheKey, old: &Arc<CacheEntry>, new: Arc<CacheEntry>) -> bool {
        use std::borrow::Borrow;
        let Some(mut place) = self.map.get_mut(Borrow::<str>::borrow(key)) else {
            return false;
        };
        let slot = place.value().clone();
        let Some(i) = slot.variants.iter().position(|(_, e)| Arc::ptr_eq(e, old)) else {
            return false;
        };
        let mut variants = slot.variants.clone();
        variants[i].1 = new;
        let fresh = Arc::new(Slot {
            vary: slot.vary.clone(),
            bytes: Slot::cost(key, &slot.vary, &variants),
            variants,
            expires: slot.expires,
            seq: slot.seq,
            gone: AtomicBool::new(false),
        });
        let tenant: Arc<str> = key.tenant().into();
        self.charge(&tenant, fresh.bytes, None);
        *place.value_mut() = fresh;
        self.release(key, &slot);
        drop(place);
        // The copies made it larger: the budgets hold as after an insert.
        self.hold_budgets(&tenant);
        true
    }

    /// After `tenant`'s slot grew: evicts if it or the total is over its
    /// budget; how many slots went.
    fn hold_budgets(&self, tenant: &str) -> usize {
        if self.bytes() > self.limit || self.tenant_bytes(tenant) > self.tenant_limit {
            return self.evict(tenant);
        }
        0
    }

    /// Charges `tenant` for `bytes`, and indexes `new`, a key the map is
    /// taking.
    fn charge(&self, tenant: &Arc<str>, bytes: usize, new: Option<&CacheKey>) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        let t = self.tenants.entry(tenant.clone()).or_default();
        t.bytes.fetch_add(bytes, Ordering::Relaxed);
        if let Some(key) = new {
            crate::sync::lock(&t.keys).insert(key.clone());
        }
    }

    /// Accounts for a slot taken out of the map, or replaced in it.
    fn release(&self, key: &CacheKey, slot: &Slot) {
        slot.gone.store(true, Ordering::Relaxed);
        self.bytes.fetch_sub(slot.bytes, Ordering::Relaxed);
        if let Some(t) = self.tenants.get(key.tenant()) {
            t.bytes.fetch_sub(slot.bytes, Ordering::Relaxed);
        }
    }

    /// Accounts for `key`'s slot taken out of the map: its bytes, and its
    /// place in the tenant's index.
    fn removed(&self, key: &CacheKey, slot: &Slot) {
        self.release(key, slot);
        if let Some(t) = self.tenants.get(key.tenant()) {
            crate::sync::lock(&t.keys).remove(key);
        }
    }

    /// Removes the slot `key`; whether there was one.
    pub fn remove(&self, key: &str) -> bool {
        match self.map.remove(key) {
            Some((k, s)) => {
                self.removed(&k, &s);
                true
            }
            None => false,
        }
    }

    /// `tenant`'s keys, those that `keep` says, copied out of its index (so
    /// that no index lock is held while the map is changed).
    fn keys_of(&self, tenant: &str, keep: impl Fn(&CacheKey) -> bool) -> Vec<CacheKey> {
        let Some(t) = self.tenants.get(tenant) else {
            return Vec::new();
        };
        let keys = crate::sync::lock(&t.keys);
        self.visited.fetch_add(keys.len() as u64, Ordering::Relaxed);
        keys.iter().filter(|k| keep(k)).cloned().collect()
    }

    /// Keys visited by purges and evictions of one tenant, in all: what
    /// they cost (`ssr_cache_purge_visited_total`).
    pub fn visited(&self) -> u64 {
        self.visited.load(Ordering::Relaxed)
    }

    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    pub fn tenant_bytes(&self, tenant: &str) -> usize {
        self.tenants
            .get(tenant)
            .map_or(0, |t| t.bytes.load(Ordering::Relaxed))
    }

    /// Bytes held by each tenant that holds any.
    pub fn bytes_by_tenant(&self) -> Vec<(Arc<str>, usize)> {
        self.tenants
            .iter()
            .map(|t| (t.key().clone(), t.value().bytes.load(Ordering::Relaxed)))
            .collect()
    }

    fn sweep_expired(&self) -> usize {
        let now = Instant::now();
        self.remove_where(|_, s| s.expires <= now)
    }

    /// Brings `tenant` and the total back under 15/16 of their budgets.
    fn evict(&self, tenant: &str) -> usize {
        let _one = crate::sync::lock(&self.evicting);
        let mut evicted = self.sweep_expired();
        let over = |used: usize, limit: usize| used.saturating_sub(limit - limit / 16);
        if self.tenant_bytes(tenant) > self.tenant_limit {
            let need = over(self.tenant_bytes(tenant), self.tenant_limit);
            evicted += self.evict_oldest(Some(tenant), need);
        }
        if self.bytes() > self.limit {
            evicted += self.evict_oldest(None, over(self.bytes(), self.limit));
        }
        evicted
    }

    /// Removes the oldest slots (of `tenant` only, if given) until `need`
    /// bytes are freed.
    fn evict_oldest(&self, tenant: Option<&str>, mut need: usize) -> usize {
        let seq = |k: &CacheKey| self.map.get(k).map(|s| (s.seq, k.clone()));
        let mut ages: Vec<(u64, CacheKey)> = match tenant {
            Some(t) => self.keys_of(t, |_| true).iter().filter_map(seq).collect(),
            None => self
                .map
                .iter()
                .map(|kv| (kv.value().seq, kv.key().clone()))
                .collect(),
        };
        ages.sort_unstable_by_key(|(seq, _)| *seq);
        let mut evicted = 0;
        for (_, key) in ages {
            if need == 0 {
                break;
            }
            if let Some((k, s)) = self.map.remove(&key) {
                self.removed(&k, &s);
                need = need.saturating_sub(s.bytes);
                evicted += 1;
            }
        }
        evicted
    }

    fn remove_where(&self, mut gone: impl FnMut(&CacheKey, &Slot) -> bool) -> usize {
        let mut removed = 0;
        self.map.retain(|k, s| {
            if gone(k, s) {
                self.removed(k, s);
                removed += 1;
                false
            } else {
                true
            }
        });
        removed
    }

    /// Removes a tenant's entries (optionally only paths under `prefix`);
    /// returns how many URLs. Visits that tenant's keys alone.
    pub fn purge(&self, tenant: &str, prefix: Option<&str>) -> usize {
        let under = |k: &CacheKey| prefix.is_none_or(|p| k.target().starts_with(p));
        let keys = self.keys_of(tenant, under);
        keys.iter()
            .filter(|k| self.remove(std::borrow::Borrow::borrow(*k)))
            .count()
    }

    pub fn clear(&self) {
        self.remove_where(|_, _| true);
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl Slot {
    /// What keeping a slot costs: its key, the names it varies on, each
    /// variant's values and entry, and [`SLOT_OVERHEAD`].
    fn cost(key: &CacheKey, vary: &[String], variants: &[(Varied, Arc<CacheEntry>)]) -> usize {
        let text = |v: &Option<Box<str>>| VALUE_OVERHEAD + v.as_ref().map_or(0, |v| v.len());
        let names: usize = vary.iter().map(|n| VALUE_OVERHEAD + n.len()).sum();
        let variants: usize = variants
            .iter()
            .map(|(values, e)| e.bytes + values.iter().map(text).sum::<usize>())
            .sum();
        SLOT_OVERHEAD + key.len() + names + variants
    }

    /// `old`'s variants with `entry` added (see the module's invariants).
    fn with(
        key: &CacheKey,
        old: Option<&Slot>,
        entry: Arc<CacheEntry>,
        headers: &HeaderMap,
        now: Instant,
        seq: u64,
    ) -> Slot {
        let same = |old: &&Slot| entry.vary.iter().all(|v| old.vary.contains(v));
        let (vary, mut variants): (Arc<[String]>, Vec<_>) = match old.filter(same) {
            Some(old) => (old.vary.clone(), old.variants.clone()),
            None => {
                let mut vary: Vec<String> = old.map_or(&[][..], |o| &o.vary[..]).to_vec();
                vary.extend(entry.vary.iter().cloned());
                vary.sort();
                vary.dedup();
                (vary.into(), Vec::new())
            }
        };
        let values = varied(headers, &vary);
        variants.retain(|(v, e)| *v != values && e.expires > now);
        if variants.len() >= MAX_VARIANTS {
            variants.remove(0);
        }
        variants.push((values, entry));
        Slot {
            bytes: Slot::cost(key, &vary, &variants),
            expires: variants.iter().map(|(_, e)| e.expires).max().unwrap_or(now),
            vary,
            variants,
            seq,
            gone: AtomicBool::new(false),
        }
    }
}
