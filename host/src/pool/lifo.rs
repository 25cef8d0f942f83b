//! The hand-off to the blocking threads (renders that cannot yield: V8):
//! a job goes to the thread that became idle most recently, else it waits in
//! a bounded line.
//!
//! Why last in, first out: a channel wakes the thread that has waited
//! longest, which rotated renders over every thread, each a wake-up on a cold
//! core. Handing the next job to the thread that just finished keeps its core
//! and caches hot, and leaves threads beyond what the load needs asleep. For
//! that the finishing thread gives back its tenant's permit only once it is
//! idle (`next`), so the request waiting for the permit comes to it. React
//! on V8, `wrk -c32`, 2 workers, 8 V8 threads, cache off: 3,027-3,218 req/s
//! with a channel (and a warm isolate on each thread: 344 MiB peak RSS);
//! 3,819-4,079 req/s with this, the same as with only 2 threads (3,645-4,045),
//! at 124 MiB (the blocking threads share their instances: `worker.rs`).
//! A thread that has just finished also looks for its next job for `SPIN`
//! before it sleeps: the waiting request usually arrives within that, and a
//! sleeping thread costs a wake-up per render. Same setup, two runs each:
//! React 3,679 / 3,825 -> 4,224 / 3,876 req/s, hello 9,873 / 12,678 ->
//! 12,748 / 15,488 req/s (200 us spun no better).
//!
//! A V8 render that waits for a `fetch` leaves its thread (`worker.rs`);
//! when woken it comes back through [`Lifo::resume`], ahead of new jobs.
//!
//! Invariants (all under one lock): a thread is idle only while no job
//! waits, so no job waits beside an idle thread; the line holds at most
//! `capacity` jobs; after [`Lifo::close`] idle threads exit at once (once no
//! render is parked), and busy ones exit once the line is empty, so every
//! job already accepted is rendered.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, TryRecvError};

use super::{Job, PoolError, Task, Work, lock};

/// How long a thread that has just finished looks for its next job before
/// it sleeps.
const SPIN: Duration = Duration::from_micros(50);

pub(super) struct Lifo {
    state: Mutex<State>,
    capacity: usize,
}

struct State {
    /// One hand-off per idle thread, the most recently idle last.
    idle: Vec<Sender<Work>>,
    /// Jobs and woken renders in line; woken renders go first, and are not
    /// counted against `capacity`.
    waiting: VecDeque<Work>,
    closed: bool,
    /// Renders parked in their wakers while they wait for a `fetch`
    /// ([`Lifo::park`]): after [`Lifo::close`] the threads stay until these
    /// are back and done, so that every isolate is dropped by a thread.
    parked: usize,
}

impl Lifo {
    pub(super) fn new(capacity: usize) -> Lifo {
        Lifo {
            state: Mutex::new(State {
                idle: Vec::new(),
                waiting: VecDeque::new(),
                closed: false,
                parked: 0,
            }),
            capacity,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Gives `job` to the most recently idle thread, or puts it in line.
    pub(super) fn submit(&self, job: Job) -> Result<(), PoolError> {
        let mut state = self.state();
        if state.closed {
            return Err(PoolError::Closed);
        }
        match state.idle.pop() {
            // The thread is blocked on this one-slot channel until it gets
            // the job or the sender is dropped.
            Some(thread) => thread.send(Work::Job(job)).map_err(|_| PoolError::Closed),
            None if state.waiting.len() >= self.capacity => Err(PoolError::Saturated),
            None => {
                state.waiting.push_back(Work::Job(job));
                Ok(())
            }
        }
    }

    /// Gives a woken render back to a thread: the most recently idle one,
    /// else first in line (after [`Lifo::close`] too: the threads still busy
    /// take it before they exit).
    pub(super) fn resume(&self, task: Task) {
        let mut state = self.state();
        state.parked -= 1;
        match state.idle.pop() {
            Some(thread) => {
                if let Err(e) = thread.send(Work::Begun(task)) {
                    state.waiting.push_front(e.into_inner());
                }
            }
            None => state.waiting.push_front(Work::Begun(task)),
        }
        if state.closed && state.parked == 0 {
            state.idle.clear();
        }
    }

    /// The next job for a blocking thread, waiting idle for one if none is
    /// in line; `None` once the pool is closed and the line empty. `done`,
    /// the permit of the thread's last render, is given back once the thread
    /// is in line as the most recently idle.
    pub(super) fn next(&self, done: Option<super::Ended>) -> Option<Work> {
        let handoff = {
            let mut state = self.state();
            if let Some(job) = state.waiting.pop_front() {
                return Some(job);
            }
            if state.closed && state.parked == 0 {
                return None;
            }
            let (tx, rx) = crossbeam_channel::bounded(1);
            state.idle.push(tx);
            rx
        };
        drop(done);
        // The request that was waiting for `done` usually arrives within
        // microseconds: look for it briefly before sleeping.
        let spin_until = Instant::now() + SPIN;
        while Instant::now() < spin_until {
            match handoff.try_recv() {
                Ok(job) => return Some(job),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => std::thread::yield_now(),
            }
        }
        handoff.recv().ok()
    }

    /// A job in line, without waiting.
    pub(super) fn try_next(&self) -> Option<Work> {
        self.state().waiting.pop_front()
    }

    /// Jobs in line.
    pub(super) fn len(&self) -> usize {
        self.state().waiting.len()
    }

    /// Refuses new jobs and lets the threads exit once the line is empty.
    pub(super) fn close(&self) {
        let mut state = self.state();
        state.closed = true;
        if state.parked == 0 {
            state.idle.clear();
        }
    }

    /// A render leaves its thread to wait for a `fetch`; it comes back
    /// through [`Lifo::resume`].
    pub(super) fn park(&self) {
        self.state().parked += 1;
    }
}
