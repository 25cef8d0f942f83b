//! The epoch ticker: the only place where deadlines (`Duration`) become
//! Wasmtime epoch ticks.
//!
//! Lifetime: one per `wasmtime::Engine` (so one per process in the server);
//! the thread stops when the [`Ticker`] is dropped, after the engine and
//! every plugin compiled by it (each holds it). It ticks only while a
//! render runs (`crate::activity::renders`: an instantiation or a render
//! holds it), and sleeps while none does: no epoch deadline can pass
//! unnoticed, since only running code reads the epoch.
//!
//! A render's deadline is `ceil(deadline / TICK) + 1` ticks, so it is never
//! cut short and overruns by at most one tick.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::activity;

/// How often the epoch advances: once per time slice (`crate::sched`).
pub const TICK: Duration = crate::sched::SLICE;

pub struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    pub fn start(engine: wasmtime::Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let renders = activity::renders();
        let woken = renders.subscribe();
        let thread = std::thread::Builder::new()
            .name("ssr-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    if renders.idle() {
                        let _ = woken.recv();
                        continue;
                    }
                    std::thread::sleep(TICK);
                    engine.increment_epoch();
                }
            })
            .expect("spawning the epoch ticker thread");
        Ticker {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        activity::renders().wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The number of ticks that covers `deadline`.
pub fn ticks(deadline: Duration) -> u64 {
    (deadline.as_nanos().div_ceil(TICK.as_nanos()) as u64).saturating_add(1)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn deadline_rounds_up_plus_one_tick() {
        assert_eq!(ticks(Duration::ZERO), 1);
        assert_eq!(ticks(TICK), 2);
        assert_eq!(ticks(TICK + Duration::from_nanos(1)), 3);
    }

    crate::unit_tests!(deadline_rounds_up_plus_one_tick);
}
