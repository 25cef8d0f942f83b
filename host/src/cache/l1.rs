//! L1: a thread-local tier on each thread that serves hits (the async
//! runtime's threads), so a hot page is found without touching a shared
//! lock.
//!
//! Shape: an ultra-hot array of [`HOT`] slots kept in recency order (a hit
//! moves to the front), in front of a map of up to [`WARM`] slots; a map hit
//! is promoted into the array, and the array's last slot falls back into the
//! map.
//!
//! Invariants:
//! - An L1 belongs to one `Cache` and one generation of it. A clear
//!   bumps the process-wide [`GENERATION`]; an L1 that sees another
//!   generation (or another cache) empties itself before answering.
//! - A slot that L2 no longer holds (replaced, evicted, expired) is never
//!   returned: [`get`] checks [`Slot::is_gone`] and drops it.
//! - An L1 holds at most [`MAX_BYTES`] of slots, each at most
//!   [`MAX_SLOT_BYTES`], so what idle threads keep alive after L2 lets go is
//!   bounded.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::CacheKey;
use super::l2::Slot;

pub const HOT: usize = 8;
pub const WARM: usize = 128;
pub const MAX_SLOT_BYTES: usize = 512 << 10;
pub const MAX_BYTES: usize = 8 << 20;

/// Bumped by every clear of every cache.
pub static GENERATION: AtomicU64 = AtomicU64::new(0);

struct L1 {
    owner: u64,
    generation: u64,
    bytes: usize,
    hot: Vec<(CacheKey, Arc<Slot>)>,
    warm: HashMap<CacheKey, Arc<Slot>>,
}

thread_local! {
    static L1_CACHE: RefCell<L1> = RefCell::new(L1 {
        owner: u64::MAX,
        generation: u64::MAX,
        bytes: 0,
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
            self.bytes = 0;
            self.owner = owner;
            self.generation = generation;
        }
    }

    fn promote(&mut self, key: CacheKey, slot: Arc<Slot>) {
        if self.hot.len() == HOT
            && let Some((k, s)) = self.hot.pop()
        {
            self.demote(k, s);
        }
        self.hot.insert(0, (key, slot));
    }

    fn demote(&mut self, key: CacheKey, slot: Arc<Slot>) {
        self.bytes += slot.bytes;
        if let Some(old) = self.warm.insert(key, slot) {
            self.bytes -= old.bytes;
        }
        while self.warm.len() > WARM || self.bytes > MAX_BYTES {
            // Drop an arbitrary warm slot; L2 still has it.
            let Some(k) = self.warm.keys().next().cloned() else {
                break;
            };
            self.forget(&k);
        }
    }

    fn forget(&mut self, key: &CacheKey) {
        if let Some(old) = self.warm.remove(key) {
            self.bytes -= old.bytes;
        }
    }
}

/// Runs `f` on the slot under `key` (a [`CacheKey`] as a `&str`) if this
/// thread has it, with whether it was in the hot array; `f` borrows the slot
/// where it lies (cloning its `Arc` would bounce the count's cache line
/// between the serving threads) and must not use L1.
pub fn with<R>(owner: u64, key: &str, f: impl FnOnce(&Slot, bool) -> R) -> Option<R> {
    L1_CACHE.with(|l1| {
        let mut l1 = l1.borrow_mut();
        l1.sync(owner);
        if let Some(i) = l1
            .hot
            .iter()
            .position(|(k, _)| Borrow::<str>::borrow(k) == key)
        {
            if l1.hot[i].1.is_gone() {
                l1.hot.remove(i);
                return None;
            }
            if i > 0 {
                let kv = l1.hot.remove(i);
                l1.hot.insert(0, kv);
            }
            return Some(f(&l1.hot[0].1, true));
        }
        let (k, slot) = l1.warm.remove_entry(key)?;
        l1.bytes -= slot.bytes;
        if slot.is_gone() {
            return None;
        }
        l1.promote(k, slot);
        Some(f(&l1.hot[0].1, false))
    })
}

/// Remembers a slot found in L2 (or just made) on this thread.
pub fn put(owner: u64, key: CacheKey, slot: Arc<Slot>) {
    if slot.bytes > MAX_SLOT_BYTES {
        return;
    }
    L1_CACHE.with(|l1| {
        let mut l1 = l1.borrow_mut();
        l1.sync(owner);
        if let Some(i) = l1.hot.iter().position(|(k, _)| *k == key) {
            l1.hot[i].1 = slot;
            return;
        }
        l1.demote(key, slot);
    })
}

/// Invalidates every thread's L1 (lazily: each empties itself on next use).
pub fn invalidate_all() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}
