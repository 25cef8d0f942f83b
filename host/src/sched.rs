//! How renders share the cores: the scheduling policy, its settings, and
//! every call `ssr` makes into the operating system's scheduler.
//!
//! # Policy
//! 1. **Time slices (Wasm).** A pinned worker runs several renders at once,
//!    polled round-robin on its one thread. A Wasm render yields to the
//!    worker at the first epoch tick after it has run one [`SLICE`] since it
//!    was polled, so a spinning render holds the core for a slice at a time
//!    (`pool::worker`; the epoch ticker, `engine::wasm::ticker`, is the
//!    clock). V8 cannot yield mid-script, so V8 renders run on the pool's
//!    blocking threads, one each, and the kernel slices those.
//! 2. **Long renders step aside when others want the cores.** A render that
//!    has run past `demote_after` (`--demote-after`, 20 ms) while other
//!    renders wait finishes at low priority, so short renders, the HTTP
//!    threads and the ticker get a core first:
//!    - Wasm: its worker hands it to the worker's background lane, a thread
//!      at nice +[`LOWER_BY`] (`pool::demote::Lane`);
//!    - V8: its blocking thread goes down to nice +[`LOWER_V8_BY`] and a new
//!      thread takes its place; the lowered one leaves after the render,
//!      since only `CAP_SYS_NICE` could raise it again
//!      (`pool::demote::Watch`);
//!    - V8: from `demote_after` on, the render offers its core to the kernel
//!      every [`OFFER_EVERY`] (an interrupt that calls `sched_yield`:
//!      `engine/v8/shim.cc`), the only way a V8 render can step aside
//!      mid-script;
//!    - V8 in a worker process: the server's watch sees only its own thread
//!      waiting on the exchange, so the render itself, at an offer, lowers
//!      its lane thread to [`LOWERED_V8_NICE`] if other V8 renders were in
//!      flight when it began and it has had less than 3/4 of a core since
//!      (they want the cores); the worker
//!      hands the lane to a new thread after the render
//!      (`engine/v8/process/worker.rs`).
//!
//!    A Wasm render's running time is its thread's CPU time
//!    ([`thread_cpu_time`]); a V8 render's, the wall time since it started.
//! 3. **What a starved render holds is bounded.** A thread at low priority
//!    gets little time while the cores are busy, and a render that does not
//!    run cannot notice its deadline; the request still answers 504 and
//!    gives its tenant's permit back at its deadline (`pool::Permit`), and
//!    the renders at low priority are at most `renders_per_worker` per lane
//!    and `v8_threads` lowered threads.
//!
//! `benches/attack.sh` (2 workers, five hostile tenants spinning, 2 cores)
//! is the measure: a good tenant's p99 under attack was 33.13 ms (Wasm) and
//! 24.17 ms (V8) with none of 2., 7.62-21.83 ms and 11.06-13.70 ms with it
//! (alone: 5-8 ms; `docs/reliability.md` has every run).
//!
//! # Switching it off
//! `--demote-after 0` ([`Scheduling::demote_after`] `None`) turns off all
//! of 2.: no lane, no lowering, no replacement, no core offers. Slices stay:
//! they are how one thread interleaves renders, not a call into the OS.
//!
//! # The operating system's part
//! Only this module calls the scheduler, through `rustix` (safe wrappers):
//! CPU time by `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, priorities by
//! `getpriority`/`setpriority` on a thread id, which Linux applies to that
//! thread alone. The V8 shim's `sched_yield`, and its `setpriority` in a
//! worker process, are the exceptions, as they must run inside V8's
//! interrupt; their interval and value come from here.

use std::time::Duration;

use rustix::process::{Pid, getpriority_process, setpriority_process};
use rustix::time::ClockId;

/// How long a Wasm render runs before it yields to its worker: one epoch
/// tick.
pub const SLICE: Duration = Duration::from_millis(1);

/// How often a V8 render past `demote_after` offers its core. Offering from
/// the first millisecond of every render stalled 2 rounds of 12 of
/// `benches/attack.sh` for about a deadline; hence only past
/// `demote_after`, and one offer at a time (`shim.cc`, `offer_core`).
pub const OFFER_EVERY: Duration = Duration::from_millis(1);

/// How many nice levels a long Wasm render's lane runs below normal. At
/// nice 10 a thread weighs 110 against a normal thread's 1024 in the
/// kernel's fair scheduler: a long render gets about a tenth of a contended
/// core, so it keeps making progress, notices its deadline, and lets go of
/// a lock it was preempted in within tens of milliseconds. `SCHED_IDLE`
/// (weight 3) gave slightly better attack figures but no such floor: with
/// the cores busy it starved a 900 ms render past its deadline.
/// `benches/attack.sh`, one session, two runs each (renders counted in wall
/// time then), good tenant's p99 under attack in ms: nice 10: Wasm 12.42 /
/// 8.38, V8 17.92 / 12.80; `SCHED_IDLE`: Wasm 11.23 / 7.93, V8 14.14 /
/// 10.88; no demotion: Wasm 33.13, V8 24.17.
pub const LOWER_BY: i32 = 10;

/// How many nice levels a blocking thread whose V8 render has run past
/// `demote_after` goes down: to the lowest, 19 (weight 15), from the
/// default 0. V8 renders a page 20-50x faster than QuickJS in Wasm
/// (docs/engines.md), so a V8 render still running after 20 ms is nearly
/// always a runaway, where a Wasm render that long is an ordinary large page
/// (React on Wasm: 14 ms of CPU); and five lowered V8 threads at nice 10
/// still weighed about half a normal thread. `benches/attack.sh`, one
/// session, V8 good tenant's p99 under attack in ms: nice 10: 16.25, 16.02;
/// nice 19: 12.40, 11.19 (alone: 5.9-8.1).
pub const LOWER_V8_BY: i32 = 19;

/// The nice value a V8 worker process's lane thread goes to when its long
/// render is lowered: where [`LOWER_V8_BY`] takes a thread from normal
/// priority. An absolute value, as the worker's system-call filter allows
/// `setpriority` on the calling thread to this value only
/// (`engine/v8/process/confine.rs`).
pub const LOWERED_V8_NICE: i32 = LOWER_V8_BY;

/// A thread of this process, as the kernel names it.
pub type Tid = Pid;

/// The calling thread.
pub fn current_thread() -> Tid {
    rustix::thread::gettid()
}

/// The CPU time the calling thread has used. A Wasm render's running time
/// is counted in CPU time, not wall time: on a busy machine a slice's wall
/// time also counts the time other threads had the core (a React page on
/// Wasm, 14 ms of CPU, then passed 20 ms and was lowered in the soak:
/// `benches/soak.sh`, its p99 239 -> 372 ms).
pub fn thread_cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Lowers thread `tid` of this process by `by` nice levels (at most to 19).
/// The caller makes sure the thread does not end meanwhile (its id could then name another thread).
/// Any thread may lower a thread of its own user; raising it again takes
/// `CAP_SYS_NICE`.
pub fn lower(tid: Tid, by: i32) {
    let lowered = getpriority_process(Some(tid))
        .and_then(|nice| setpriority_process(Some(tid), (nice + by).min(19)));
    if let Err(e) = lowered {
        tracing::warn!(error = %e, "could not lower a thread's priority");
    }
}

/// Counts a render moved to a lane, or a thread lowered for one
/// (`ssr_demoted_renders_total`): a V8 render in a worker process that a
/// server thread waits for may lower both.
pub fn count_demotion() {
    metrics::counter!("ssr_demoted_renders_total").increment(1);
}
