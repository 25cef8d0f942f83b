//! The state a capability keeps between calls of one render: a stream that
//! JavaScript feeds chunk by chunk (`TextDecoder` with `{stream: true}`,
//! `CompressionStream`), held in the instance's `Imports` by id.
//!
//! Invariants: at most [`MAX_OPEN`] per kind and instance (or the kind's
//! own limit), refused by name past that; all are dropped when the render
//! ends ([`Open::clear`]), so nothing one request opened is seen by the
//! next.

use std::collections::HashMap;

/// The most streams of one kind an instance keeps open at once.
pub const MAX_OPEN: usize = 64;

/// Open streams of one kind, by id.
pub struct Open<T> {
    what: &'static str,
    limit: usize,
    open: HashMap<u32, T>,
    next: u32,
}

impl<T> Open<T> {
    /// Streams called `what` in messages (`"text-decode: ..."`).
    pub fn new(what: &'static str) -> Open<T> {
        Open::with_limit(what, MAX_OPEN)
    }

    /// As [`Open::new`], keeping at most `limit` open.
    pub fn with_limit(what: &'static str, limit: usize) -> Open<T> {
        Open {
            what,
            limit,
            open: HashMap::new(),
            next: 0,
        }
    }

    /// Takes stream `id` out, to be put back ([`Open::put_back`]) if it
    /// goes on.
    pub fn take(&mut self, id: u32) -> Result<T, String> {
        let what = self.what;
        self.open.remove(&id).ok_or_else(|| {
            format!(
                "{what}: stream {id} is not open (streams end with the render that opened them)"
            )
        })
    }

    /// Keeps a stream for the render's next calls: its new id.
    pub fn keep(&mut self, stream: T) -> Result<u32, String> {
        if self.open.len() >= self.limit {
            return Err(format!(
                "{}: {} streams are open already; end one first",
                self.what, self.limit
            ));
        }
        self.next = self.next.wrapping_add(1);
        self.open.insert(self.next, stream);
        Ok(self.next)
    }

    /// Puts stream `id`, taken by [`Open::take`], back under its id.
    pub fn put_back(&mut self, id: u32, stream: T) {
        self.open.insert(id, stream);
    }

    /// Drops every open stream (the render ended).
    pub fn clear(&mut self) {
        self.open.clear();
    }
}
