//! A Wasm tenant's line: its requests waiting for one of its permits, each
//! with its job made, so that a worker that ends one of the tenant's renders
//! can start the next at once, on its own thread, with the permit it holds
//! (`worker::run`), when it has nothing else ready to run and no other
//! tenant's job waits in the shared queue.
//!
//! Without it, a render's end gave its permit back, the waiting request was
//! woken on an HTTP thread, and it queued its job for a worker that had gone
//! to sleep meanwhile: two wake-ups between renders, and a core idle for
//! both (Wasm Hono page, 2 cores, `wrk -t1 -c16`, every request rendered:
//! 5-7% of the machine idle at a cap of 3, none at 16).
//!
//! Invariants:
//! - The line is an index, never the only way out: a request in it also
//!   waits for a permit on the tenant's semaphore (`Pool::render`), and one
//!   that gets a permit there takes its job back out ([`Line::take`]). So a
//!   permit given back anywhere (a render that ended inline, a request that
//!   stopped waiting) still reaches the line's requests, in order.
//! - A job leaves the line once: handed a permit ([`Line::next`]), taken
//!   back by its request, or dropped when its request is gone.
//! - At most the pool's queue capacity of requests wait in one line.
//! - A worker hands on only when it would otherwise idle, so a hand-on
//!   never takes a core from a render that has yielded, and a tenant's
//!   renders spread over idle workers as they did without the line.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::OwnedSemaphorePermit;

use super::{Job, Permit};
use crate::sync::lock;

/// A tenant's requests waiting for one of its permits, first come first.
#[derive(Default)]
pub struct Line(Mutex<VecDeque<Job>>);

impl Line {
    /// Puts `job` at the back; false (and the job dropped) when `most`
    /// wait already.
    pub(super) fn push(&self, job: Job, most: usize) -> bool {
        let mut line = lock(&self.0);
        if line.len() >= most {
            drop(line);
            return false;
        }
        line.push_back(job);
        true
    }

    /// Takes the job whose permit goes in `slot` back out, if it is still
    /// in line.
    pub(super) fn take(&self, slot: &Arc<Permit>) -> Option<Job> {
        let mut line = lock(&self.0);
        let at = line.iter().position(|job| Arc::ptr_eq(&job.permit, slot))?;
        line.remove(at)
    }

    /// Hands `permit` to the first job whose request still waits, and takes
    /// that job out of the line; gives the permit back when there is none.
    pub(super) fn next(&self, permit: OwnedSemaphorePermit) -> Option<Job> {
        let mut gone = Vec::new();
        let next = {
            let mut line = lock(&self.0);
            loop {
                match line.pop_front() {
                    Some(job) if job.reply.is_closed() => gone.push(job),
                    Some(mut job) => {
                        *lock(&job.permit.0) = Some(permit);
                        job.enqueued = Instant::now();
                        break Some(job);
                    }
                    None => break None,
                }
            }
        };
        // Dropped after the lock: a job holds its request's body.
        drop(gone);
        next
    }

    /// Requests in line.
    pub fn waiting(&self) -> usize {
        lock(&self.0).len()
    }
}
