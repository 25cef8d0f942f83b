//! Work in progress, for the threads that only have work while something
//! runs: the epoch ticker (`engine::wasm::ticker`) and the pool's watch
//! (`pool::demote`). Each sleeps while its [`Activity`] is idle, so an idle
//! server takes no periodic wake-ups (it took about 1,300 a second, 1% of a
//! core, before).
//!
//! Invariant: a thread that saw [`Activity::idle`] and then waits on
//! [`Activity::woken`] is woken by the next [`Activity::begin`]: the first
//! `begin` after an idle spell leaves a message in the one-slot channel, or
//! one is already there.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_channel::{Receiver, Sender};

/// A count of work in progress, shared by the workers and one waiting
/// thread.
#[derive(Clone)]
pub struct Activity(Arc<Inner>);

struct Inner {
    running: AtomicUsize,
    wake: Sender<()>,
    woken: Receiver<()>,
}

impl Activity {
    pub fn new() -> Activity {
        let (wake, woken) = crossbeam_channel::bounded(1);
        Activity(Arc::new(Inner {
            running: AtomicUsize::new(0),
            wake,
            woken,
        }))
    }

    /// Marks work in progress until the guard drops.
    pub fn begin(&self) -> Running {
        if self.0.running.fetch_add(1, Ordering::SeqCst) == 0 {
            self.wake();
        }
        Running(self.clone())
    }

    /// Whether nothing is in progress.
    pub fn idle(&self) -> bool {
        self.0.running.load(Ordering::SeqCst) == 0
    }

    /// Receives a message when work begins after an idle spell, or when
    /// [`Activity::wake`] is called.
    pub fn woken(&self) -> &Receiver<()> {
        &self.0.woken
    }

    /// Wakes the waiting thread (for example to tell it to stop).
    pub fn wake(&self) {
        // Full: a wake-up is already pending.
        let _ = self.0.wake.try_send(());
    }
}

impl Default for Activity {
    fn default() -> Activity {
        Activity::new()
    }
}

/// Work in progress; ends when dropped.
pub struct Running(Activity);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_begin_after_idle_wakes_the_waiter_once() {
        let activity = Activity::new();
        assert!(activity.idle());
        let a = activity.begin();
        let b = activity.begin();
        assert!(!activity.idle());
        assert!(activity.woken().try_recv().is_ok());
        assert!(activity.woken().try_recv().is_err());
        drop(a);
        assert!(!activity.idle());
        drop(b);
        assert!(activity.idle());
        let _c = activity.begin();
        assert!(activity.woken().try_recv().is_ok());
    }
}
