//! Long renders step aside: when other renders want the same threads, a
//! render that has run past `demote_after` (20 ms by default; Wasm: CPU
//! time, V8: since it started) finishes at low priority (Wasm: nice +10,
//! [`LOWER_BY`]; V8: +19, the lowest, [`LOWER_V8_BY`]), so short renders,
//! the HTTP threads and the epoch ticker get a core before it. Time slices
//! alone share a worker between renders, but on a machine whose cores are
//! all busy spinning, every wake-up of another thread (the ticker that ends
//! a slice, an HTTP thread with a new request) waited for the kernel to
//! preempt a spinner: `benches/attack.sh` (2 workers, five hostile tenants
//! spinning, 2 cores) measured a good tenant's p99 under attack at 33.13 ms
//! (Wasm) and 24.17 ms (V8) without demotion, 7.62-21.83 ms and 11.06-13.70
//! ms (V8 at +19; 14.53-16.25 at +10) with it (alone: 5-8 ms;
//! docs/reliability.md has every run).
//!
//! - Wasm renders yield, so a pinned worker that has other renders or a
//!   queue waiting hands a long one to its background lane ([`Lane`]): a
//!   thread at low priority that runs the same loop over the tasks it is
//!   given. A lane holds at most
//!   `renders_per_worker` tasks; a worker keeps a long render when its lane
//!   is full.
//! - V8 renders cannot move mid-script, so while two or more blocking
//!   threads render or a job waits for one, [`Watch`] lowers the blocking
//!   thread that runs a long one, and starts another in its place. Linux lets a
//!   thread raise its priority again only with `CAP_SYS_NICE`, so the
//!   lowered thread leaves after its render.
//!
//! A thread at low priority gets little time while other threads keep every
//! core busy, and a render that does not run cannot notice its deadline. So
//! what such renders hold is bounded: the request answers 504 and takes its
//! tenant's permit back at its deadline (`pool::Permit`), and the renders at
//! low priority are at most `renders_per_worker` per lane and
//! `v8_threads` lowered threads (with their instances).
//!
//! The operating system's part goes through `rustix` (safe wrappers): CPU
//! time by `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, priorities by
//! `getpriority`/`setpriority` on a thread id, which Linux applies to that
//! thread alone. The V8 renders' core offers (`engine::v8`) and the epoch
//! ticker (`engine::wasm::ticker`), the other two scheduling points, live
//! with their engines, since each is a part of how its engine runs.
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
use rustix::process::{Pid, getpriority_process, setpriority_process};
use rustix::thread::gettid;
use rustix::time::ClockId;

use super::Task;
use super::lifo::Lifo;
use super::lock;
use crate::activity;

/// How many nice levels a long render's thread goes down. At nice 10 a
/// thread weighs 110 against a normal thread's 1024 in the kernel's fair
/// scheduler: a long render gets about a tenth of a contended core, so it
/// keeps making progress, notices its deadline, and lets go of a lock it
/// was preempted in within tens of milliseconds. `SCHED_IDLE` (weight 3)
/// gave slightly better attack figures but no such floor: with the cores
/// busy it starved a 900 ms render past its deadline. `benches/attack.sh`,
/// one session, two runs each (renders counted in wall time then), good
/// tenant's p99 under attack in ms: nice 10: Wasm 12.42 / 8.38, V8 17.92 /
/// 12.80; `SCHED_IDLE`: Wasm 11.23 / 7.93, V8 14.14 / 10.88; no demotion:
/// Wasm 33.13, V8 24.17.
const LOWER_BY: i32 = 10;

/// How many nice levels a blocking thread whose V8 render has run past
/// `demote_after` goes down: to the lowest, 19 (weight 15), from the
/// default 0. V8 renders a page 20-50x faster
/// than QuickJS in Wasm (docs/engines.md), so a V8 render still
/// running after 20 ms is nearly always a runaway, where a Wasm render that
/// long is an ordinary large page (React on Wasm: 14 ms of CPU); and five
/// lowered V8 threads at nice 10 still weighed about half a normal thread.
/// `benches/attack.sh`, one session, V8 good tenant's p99 under attack in
/// ms: nice 10: 16.25, 16.02; nice 19: 12.40, 11.19 (alone: 5.9-8.1).
const LOWER_V8_BY: i32 = 19;

/// The CPU time the calling thread has used. A render's running time is
/// counted in CPU time, not wall time: on a busy machine a slice's wall time
/// also counts the time other threads had the core (a React page on Wasm,
/// 14 ms of CPU, then passed 20 ms and was lowered in the soak:
/// `benches/soak.sh`, its p99 239 -> 372 ms).
pub(super) fn thread_cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Lowers thread `tid` of this process by `by` nice levels (at most to 19).
/// The caller makes sure the thread does not end meanwhile (its id could
/// then name another thread). Any thread may lower a thread of its
/// own user; raising it again takes `CAP_SYS_NICE`.
fn lower(tid: Pid, by: i32) {
    let lowered = getpriority_process(Some(tid))
        .and_then(|nice| setpriority_process(Some(tid), (nice + by).min(19)));
    if let Err(e) = lowered {
        tracing::warn!(error = %e, "could not lower a thread's priority");
    }
}

/// Lowers the calling thread (a background lane).
pub(super) fn lower_priority() {
    lower(gettid(), LOWER_BY);
}

/// Counts a render moved or lowered (`ssr_demoted_renders_total`).
fn count_demotion() {
    metrics::counter!("ssr_demoted_renders_total").increment(1);
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
        count_demotion();
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
    tid: Mutex<Option<Pid>>,
    /// When its render started, in ns since `epoch` (at least 1); 0: idle.
    since: AtomicU64,
    demoted: AtomicBool,
    epoch: Instant,
}

impl Watched {
    /// Runs one poll of a render under the watch.
    pub(super) fn during<T>(&self, poll: impl FnOnce() -> T) -> T {
        lock(&self.tid).get_or_insert_with(gettid);
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
                        lower(tid, LOWER_V8_BY);
                    }
                    drop(tid);
                    count_demotion();
                    let replacement = start(kept.index);
                    lowered.push(std::mem::replace(kept, replacement));
                }
            }
            // The watch holds a sender: never.
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
}
