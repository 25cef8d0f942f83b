//! Renders in flight in this process (each engine's render holds
//! [`Activity::begin`] while it runs), for the threads that only have work
//! while something renders: the epoch ticker (`engine::wasm::ticker`) and
//! the pool's watch (`pool::demote`). Each sleeps while [`renders`] is idle,
//! so an idle server takes no periodic wake-ups (it took about 1,300 a
//! second, 1% of a core, before).
//!
//! One count for both engines: the ticker also ticks while only V8 renders
//! run. Its 1 ms wake-ups are moments at which the kernel reconsiders what
//! runs on a core: with five V8 renders spinning at low priority, a
//! well-behaved V8 tenant's p99 was 13.8-22.0 ms when the ticker slept
//! during V8 renders, and 10.7-17.0 ms when it ticked, before (always) or
//! with this count (`benches/attack.sh`, V8 only, runs of three rounds
//! alternating between the builds, 27 rounds in all).
//!
//! Invariant: a thread that subscribed, then saw [`Activity::idle`], then
//! waits on its receiver is woken by the next [`Activity::begin`]: the first
//! `begin` after an idle spell leaves a message in every subscriber's
//! one-slot channel, or one is already there.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crossbeam_channel::{Receiver, Sender, TrySendError};

/// Renders in flight in this process, on either engine.
pub fn renders() -> &'static Activity {
    static RENDERS: OnceLock<Activity> = OnceLock::new();
    RENDERS.get_or_init(Activity::new)
}

/// A count of work in progress, and the threads waiting for some.
pub struct Activity {
    running: AtomicUsize,
    waiters: Mutex<Vec<Sender<()>>>,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            running: AtomicUsize::new(0),
            waiters: Mutex::new(Vec::new()),
        }
    }

    /// Marks work in progress until the guard drops.
    pub fn begin(&'static self) -> Running {
        if self.running.fetch_add(1, Ordering::SeqCst) == 0 {
            self.wake();
        }
        Running(self)
    }

    /// Whether nothing is in progress.
    pub fn idle(&self) -> bool {
        self.running.load(Ordering::SeqCst) == 0
    }

    /// A receiver that gets a message when work begins after an idle spell,
    /// or on [`Activity::wake`]; dropping it unsubscribes.
    pub fn subscribe(&self) -> Receiver<()> {
        let (tx, rx) = crossbeam_channel::bounded(1);
        self.lock().push(tx);
        rx
    }

    /// Wakes every subscriber (for example to tell one to stop).
    pub fn wake(&self) {
        // Full: a wake-up is already pending.
        self.lock()
            .retain(|tx| !matches!(tx.try_send(()), Err(TrySendError::Disconnected(_))));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Sender<()>>> {
        crate::sync::lock(&self.waiters)
    }
}

/// Work in progress; ends when dropped.
pub struct Running(&'static Activity);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn the_first_begin_after_idle_wakes_every_subscriber_once() {
        let activity: &'static Activity = Box::leak(Box::new(Activity::new()));
        let (a, b) = (activity.subscribe(), activity.subscribe());
        assert!(activity.idle());
        let one = activity.begin();
        let two = activity.begin();
        assert!(!activity.idle());
        for woken in [&a, &b] {
            assert!(woken.try_recv().is_ok());
            assert!(woken.try_recv().is_err());
        }
        drop(one);
        assert!(!activity.idle());
        drop(two);
        assert!(activity.idle());
        drop(b);
        let _three = activity.begin();
        assert!(a.try_recv().is_ok());
        assert_eq!(
            activity.lock().len(),
            1,
            "a dropped receiver is unsubscribed"
        );
    }

    crate::unit_tests!(the_first_begin_after_idle_wakes_every_subscriber_once);
}
