//! L1: a thread-local tier on each thread that serves hits (the async
//! runtime's threads), so a hot page is found without touching a shared
//! lock.
//!
//! Shape: an ultra-hot array of [`HOT`] entries kept in recency order (a hit
//! moves to the front), in front of a map of up to [`WARM`] entries; a map
//! hit is promoted into the array, and the array's last entry falls back
//! into the map.
//!
//! Invariants:
//! - An L1 belongs to one `Cache` and one generation of it. Any invalidation
//!   anywhere bumps the process-wide [`GENERATION`]; an L1 that sees another
//!   generation (or another cache) empties itself before answering. So no
//!   thread can serve an entry that was purged.
//! - Expired entries are never returned.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::{CacheEntry, CacheKey};

pub const HOT: usize = 8;
pub const WARM: usize = 128;

/// Bumped by every invalidation of every cache.
pub static GENERATION: AtomicU64 = AtomicU64::new(0);

struct L1 {
    owner: u64,
    generation: u64,
    hot: Vec<(CacheKey, Arc<CacheEntry>)>,
    warm: HashMap<CacheKey, Arc<CacheEntry>>,
}

thread_local! {
    static L1_CACHE: RefCell<L1> = RefCell::new(L1 {
        owner: u64::MAX,
        generation: u64::MAX,
        hot: Vec::with_capacity(HOT),
        warm: HashMap::new(),
    });
}

impl L1 {
    fn sync(&mut self, owner: u64) {
        let generation = GENERATION.load(Ordering::Acquire);
        if self.owner != owner || self.generation != generation {
            self.hot.clear();
            self.warm.clear();
            self.owner = owner;
            self.generation = generation;
        }
    }

    fn promote(&mut self, key: CacheKey, entry: Arc<CacheEntry>) {
        if self.hot.len() == HOT
            && let Some((k, e)) = self.hot.pop()
        {
            self.demote(k, e);
        }
        self.hot.insert(0, (key, entry));
    }

    fn demote(&mut self, key: CacheKey, entry: Arc<CacheEntry>) {
        if self.warm.len() >= WARM && !self.warm.contains_key(&key) {
            // Drop an arbitrary warm entry; L2 still has it.
            if let Some(k) = self.warm.keys().next().cloned() {
                self.warm.remove(&k);
            }
        }
        self.warm.insert(key, entry);
    }
}

/// Whether the hit came from the hot array or the map.
pub enum Hit {
    Hot(Arc<CacheEntry>),
    Warm(Arc<CacheEntry>),
}

pub fn get(owner: u64, key: &CacheKey, now: Instant) -> Option<Hit> {
    L1_CACHE.with(|l1| {
        let mut l1 = l1.borrow_mut();
        l1.sync(owner);
        if let Some(i) = l1.hot.iter().position(|(k, _)| k == key) {
            let (k, e) = l1.hot.remove(i);
            if e.expires <= now {
                return None;
            }
            l1.hot.insert(0, (k, e.clone()));
            return Some(Hit::Hot(e));
        }
        let (k, e) = l1.warm.remove_entry(key)?;
        if e.expires <= now {
            return None;
        }
        l1.promote(k, e.clone());
        Some(Hit::Warm(e))
    })
}

/// Remembers an entry found in L2 (or just rendered) on this thread.
pub fn put(owner: u64, key: CacheKey, entry: Arc<CacheEntry>) {
    L1_CACHE.with(|l1| {
        let mut l1 = l1.borrow_mut();
        l1.sync(owner);
        l1.demote(key, entry);
    })
}

/// Invalidates every thread's L1 (lazily: each empties itself on next use).
pub fn invalidate_all() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}
