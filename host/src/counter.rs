//! [`Striped`]: a counter that every serving thread bumps on every request
//! (requests, cache hits) without sharing a cache line with the others.
//!
//! A plain `AtomicU64` bumped by two cores moves its cache line between them
//! on every increment; on the cache-hit path there were five such counters
//! per request (`benches/hits.sh`). Here each thread adds to its own stripe,
//! and a read sums the stripes.
//!
//! Invariant: [`Striped::get`] is the sum of every [`Striped::add`] that
//! happened before it (relaxed: a concurrent add may or may not be seen).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crossbeam_utils::CachePadded;

/// Stripes per counter; threads beyond this share them round-robin.
const STRIPES: usize = 8;

thread_local! {
    static STRIPE: usize = {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES
    };
}

#[derive(Default)]
pub struct Striped {
    stripes: [CachePadded<AtomicU64>; STRIPES],
}

impl Striped {
    pub fn add(&self, n: u64) {
        let i = STRIPE.with(|s| *s);
        self.stripes[i].fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.stripes.iter().map(|s| s.load(Ordering::Relaxed)).sum()
    }
}

impl std::fmt::Debug for Striped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.get())
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn adds_from_every_thread_are_summed() {
        let c = Striped::default();
        std::thread::scope(|s| {
            for _ in 0..12 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        c.add(1);
                    }
                });
            }
        });
        assert_eq!(c.get(), 12_000);
    }

    crate::unit_tests!(adds_from_every_thread_are_summed);
}
