//! Counted admissions: at most `max` of one kind of thing at once per key
//! (a client address, a tenant, a token), refused past it. One [`Gate`]
//! each for request bodies per client (`--max-uploads-per-client`),
//! connections per client (`--max-connections-per-client`), log followers
//! per tenant and per token, deploys per token and in all, and purges per
//! tenant.
//!
//! Invariant: a key's count is the number of live [`Pass`]es for it; a
//! pass gives its place back when dropped, however its holder ends (a
//! connection closed, a handler's future dropped), and a key whose count
//! is back at zero takes no memory.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// Places per key.
pub struct Gate<K: Hash + Eq + Clone> {
    max: usize,
    held: Mutex<HashMap<K, usize>>,
}

/// One place taken at a [`Gate`], given back when dropped.
pub struct Pass<K: Hash + Eq + Clone> {
    gate: Arc<Gate<K>>,
    key: K,
}

impl<K: Hash + Eq + Clone> Gate<K> {
    pub fn new(max: usize) -> Arc<Gate<K>> {
        Arc::new(Gate {
            max,
            held: Mutex::default(),
        })
    }

    /// The most places one key may hold.
    pub fn max(&self) -> usize {
        self.max
    }

    /// A place for `key`, unless it holds `max` already.
    pub fn enter(self: &Arc<Self>, key: K) -> Option<Pass<K>> {
        let mut held = crate::sync::lock(&self.held);
        let n = held.entry(key.clone()).or_default();
        if *n >= self.max {
            if *n == 0 {
                held.remove(&key);
            }
            return None;
        }
        *n += 1;
        Some(Pass {
            gate: self.clone(),
            key,
        })
    }
}

impl<K: Hash + Eq + Clone> Drop for Pass<K> {
    fn drop(&mut self) {
        let mut held = crate::sync::lock(&self.gate.held);
        if let Some(n) = held.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                held.remove(&self.key);
            }
        }
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn a_key_holds_at_most_max_places_and_gets_them_back() {
        let gate = Gate::new(2);
        let a = gate.enter("a").unwrap();
        let _b = gate.enter("a").unwrap();
        assert!(gate.enter("a").is_none(), "a third place for one key");
        let other = gate.enter("b");
        assert!(other.is_some(), "another key has its own places");
        drop(a);
        assert!(gate.enter("a").is_some());
        drop(other);
        assert!(!crate::sync::lock(&gate.held).contains_key("b"));
        let none: Arc<Gate<&str>> = Gate::new(0);
        assert!(none.enter("a").is_none());
        assert!(crate::sync::lock(&none.held).is_empty());
    }

    crate::unit_tests!(a_key_holds_at_most_max_places_and_gets_them_back);
}
