//! The pool's half of "long renders step aside" (the policy, its settings
//! and the calls into the OS are `crate::sched`'s):
//!
//! - [`Lane`]: Wasm renders yield, so a pinned worker that has other renders
//!   or a queue waiting hands a long one to its background lane: a thread
//!   at low priority that runs the same loop over the tasks it is given. A
//!   lane holds at most `renders_per_worker` tasks; a worker keeps a long
//!   render when its lane is full.
//! - [`Watch`]: V8 renders cannot move mid-script, so while two or more
//!   blocking threads render or a job waits for one, the watch lowers the
//!   blocking thread that runs a long one, and starts another in its place;
//!   the lowered thread leaves after its render.
//!
//! Invariants: a thread at low priority only runs renders that have passed
//! `demote_after`, except a blocking thread's next render when the watch
//! lowered it just as its render ended (the thread then leaves after it).
//! Every blocking thread is the watch's, and the watch joins them all before
//! it ends.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{RecvTimeoutError, Sender};

use super::Task;
use super::lifo::Lifo;
use super::lock;
use crate::activity;
use crate::sched::{self, Tid};

/// Lowers the calling thread (a background lane).
pub(super) fn lower_priority() {
    sched::lower(sched::current_thread(), sched::LOWER_BY);
}

/// A task's place in a background lane; gives it back when the task ends.
pub(super) struct InLane(Arc<AtomicUsize>);

impl Drop for InLane {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A pinned worker's background lane, as the worker sees it.
pub(super) struct Lane {
    /// A task that has run this long moves to the lane.
    pub(super) demote_after: Duration,
    pub(super) tasks: Sender<Task>,
    /// Tasks in the lane or on their way to it, at most `capacity`.
    pub(super) len: Arc<AtomicUsize>,
    pub(super) capacity: usize,
}

impl Lane {
    /// Hands `task` to the lane if it has run long enough and the lane has
    /// room; otherwise gives it back.
    pub(super) fn demote(&self, mut task: Task) -> Result<(), Task> {
        if task.ran < self.demote_after {
            return Err(task);
        }
        if self.len.fetch_add(1, Ordering::Relaxed) >= self.capacity {
            self.len.fetch_sub(1, Ordering::Relaxed);
            return Err(task);
        }
        task.in_lane = Some(InLane(self.len.clone()));
        sched::count_demotion();
        self.tasks.send(task).map_err(|e| {
            let mut task = e.into_inner();
            task.in_lane = None;
            task
        })
    }
}

/// One blocking thread, as the watch sees it.
pub(super) struct Watched {
    /// Its kernel id from its first render until it ends; the watch holds
    /// the lock while it lowers the thread, so the thread cannot end then.
    tid: Mutex<Option<Tid>>,
    /// When its render started, in ns since `epoch` (at least 1); 0: idle.
    since: AtomicU64,
    demoted: AtomicBool,
    epoch: Instant,
}

impl Watched {
    /// Runs one poll of a render under the watch.
    pub(super) fn during<T>(&self, poll: impl FnOnce() -> T) -> T {
        lock(&self.tid).get_or_insert_with(sched::current_thread);
        let now = self.epoch.elapsed().as_nanos() as u64;
        self.since.store(now.max(1), Ordering::Relaxed);
        let out = poll();
        self.since.store(0, Ordering::Relaxed);
        out
    }

    /// Whether the watch lowered this thread.
    pub(super) fn demoted(&self) -> bool {
        self.demoted.load(Ordering::Relaxed)
    }
}

/// Held by a blocking thread until it ends (a panic included): tells the
/// watch.
pub(super) struct Leaving {
    id: u64,
    entry: Arc<Watched>,
    ended: Sender<u64>,
}

impl Drop for Leaving {
    fn drop(&mut self) {
        *lock(&self.entry.tid) = None;
        let _ = self.ended.send(self.id);
    }
}

/// Starts blocking thread number `index` with its entry in the watch; the
/// thread holds the `Leaving` until it ends.
pub(super) type Spawn = Box<dyn Fn(usize, Arc<Watched>, Leaving) -> JoinHandle<()> + Send>;

/// The blocking threads' keeper: spawns them, lowers one whose render has
/// run past `after` and starts another in its place. It looks every
/// `after / 2` while a render runs, and sleeps while none does.
pub(super) struct Watch {
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    /// Starts `threads` blocking threads taking their jobs from `queued`.
    pub(super) fn start(
        threads: usize,
        after: Option<Duration>,
        queued: Arc<Lifo>,
        spawn: Spawn,
    ) -> Watch {
        let thread = std::thread::Builder::new()
            .name("ssr-watch".into())
            .spawn(move || watch(threads, after, &queued, spawn))
            .expect("spawning the watch thread");
        Watch {
            thread: Some(thread),
        }
    }
}

impl Drop for Watch {
    /// Waits for every blocking thread: they end once the pool has closed
    /// their queue and it is empty.
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A blocking thread, as the watch keeps it.
struct Kept {
    id: u64,
    index: usize,
    handle: JoinHandle<()>,
    entry: Arc<Watched>,
}

/// The watch's loop. `normal` holds `threads` threads at normal priority
/// until the pool closes; `lowered`, at most as many again, the threads
/// finishing a long render at low priority (a bound on what renders the
/// kernel starves can hold: their isolates).
fn watch(threads: usize, after: Option<Duration>, queued: &Lifo, spawn: Spawn) {
    let epoch = Instant::now();
    let renders = activity::renders();
    let woken = renders.subscribe();
    let (ended_tx, ended) = crossbeam_channel::unbounded();
    let mut next_id = 0;
    let mut start = |index: usize| {
        let entry = Arc::new(Watched {
            tid: Mutex::new(None),
            since: AtomicU64::new(0),
            demoted: AtomicBool::new(false),
            epoch,
        });
        next_id += 1;
        let leaving = Leaving {
            id: next_id,
            entry: entry.clone(),
            ended: ended_tx.clone(),
        };
        Kept {
            id: next_id,
            index,
            handle: spawn(index, entry.clone(), leaving),
            entry,
        }
    };
    let mut normal: Vec<Kept> = (0..threads).map(&mut start).collect();
    let mut lowered: Vec<Kept> = Vec::new();
    while !normal.is_empty() || !lowered.is_empty() {
        let message = match after {
            // No render to watch: sleep until one starts or a thread ends.
            Some(_) if renders.idle() => crossbeam_channel::select! {
                recv(ended) -> id => id.map_err(|_| RecvTimeoutError::Disconnected),
                recv(woken) -> _ => continue,
            },
            // A render is lowered between `after` and 1.5 × `after`.
            Some(after) => ended.recv_timeout(after / 2),
            None => ended.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match message {
            Ok(id) => {
                // A lowered thread after its render, or any once the pool
                // is closed.
                for kept in [&mut normal, &mut lowered] {
                    if let Some(i) = kept.iter().position(|k| k.id == id) {
                        let _ = kept.swap_remove(i).handle.join();
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                let after = after.unwrap_or(Duration::MAX).as_nanos() as u64;
                let now = epoch.elapsed().as_nanos() as u64;
                // Only when other renders want the blocking threads: alone,
                // a long render keeps its priority.
                let busy = normal
                    .iter()
                    .filter(|k| k.entry.since.load(Ordering::Relaxed) != 0)
                    .count();
                if busy < 2 && queued.len() == 0 {
                    continue;
                }
                for kept in normal.iter_mut() {
                    if lowered.len() >= threads {
                        break;
                    }
                    let entry = &kept.entry;
                    let since = entry.since.load(Ordering::Relaxed);
                    if since == 0 || now.saturating_sub(since) < after {
                        continue;
                    }
                    entry.demoted.store(true, Ordering::Relaxed);
                    // Held while lowering: the thread cannot end meanwhile.
                    let tid = lock(&entry.tid);
                    if let Some(tid) = *tid {
                        sched::lower(tid, sched::LOWER_V8_BY);
                    }
                    drop(tid);
                    sched::count_demotion();
                    let replacement = start(kept.index);
                    lowered.push(std::mem::replace(kept, replacement));
                }
            }
            // The watch holds a sender: never.
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
}
