//! V8 isolates in worker processes that the server starts and supervises:
//! each is Node 26's `node` loading the worker addon (`node.rs` finds
//! both; the addon is `host/v8-worker`). One tenant's crash ends its
//! process, never the server, a Wasm tenant, or the tenants of other
//! processes.
//!
//! Mapping: a tenant gets a process of its own while there are fewer than
//! `--v8-processes` (16 by default); beyond that, tenants share the process
//! with the fewest tenants. A process lives as long as it holds isolates:
//! the pool's warm set (its LRU, `--warm-idle`, `--warm-memory-mib`)
//! decides how long that is, so a process keeps its tenants' isolates warm
//! exactly as the server's threads would, and an idle tenant's process
//! goes away with its last isolate, but one: a process without tenants is
//! kept started as the spare (the last one emptied, or one started after a
//! crash), so that a new tenant's first render, a registration's load
//! check, or a crashed tenant's next render does not wait for one to start.
//!
//! Each process has a lane for each V8 thread of the pool that may render
//! at once, lowered ones included ([`ProcessOptions`]), so as many renders
//! run in it at once as would in the server; an exchange holds a lane
//! (`wire.rs`). It has one lane per V8 thread that the server's async
//! runtime drives: a render of an isolate already made is awaited by
//! a task of that runtime, with no V8 thread in between (`pool::Pool::render`),
//! so it costs the server two wake-ups, as a render in its own process
//! does, not four. Its isolate's host calls are answered here, from the
//! instance's [`Imports`], as in the server's process.
//!
//! A crash: the process ends (abort, signal, the kernel's OOM killer), or
//! its channel breaks (a frame that does not parse, one over the limit, no
//! answer [`GRACE`] past the deadline: then the supervisor kills it). Every
//! render in flight in it fails with [`EngineError::Crashed`] (HTTP 502), a
//! log line naming its tenant, and `ssr_v8_worker_crashes_total{tenant}`.
//! Its reaper thread starts another process at once, unless the spare is
//! there, later if processes keep dying ([`backoff`]). Warm isolates of
//! other tenants that were in it are made again in another process at
//! their next render, which does not fail. A crash is a strike of a
//! tenant only when that tenant's renders were the only ones in flight in
//! the process (the crash is then its own); a crash with several tenants'
//! renders in flight (a process shared past `--v8-processes`) strikes none
//! of them, and is counted in `ssr_v8_worker_unattributed_crashes_total`:
//! the tenant that crashes its process again while alone in it is the one
//! struck, and a well-behaved neighbour never is. A tenant struck
//! [`QUARANTINE_AFTER`] times within [`STRIKE_WINDOW`] is refused (HTTP
//! 503, `Retry-After`) for [`QUARANTINE`].
//!
//! Invariants:
//! - Nothing a worker sends is trusted: frames are bounded before
//!   allocation (`wire.rs`), the response is checked as a render's in the
//!   server is (its JSON, then the pool's and HTTP's limits), and a
//!   message out of place is a crash. A streamed body's head, chunks and
//!   end may come told, with no reply (`wire::TOLD`; a round trip each
//!   before, three for a page of one chunk: the Hono page on V8 in worker
//!   processes went from 2,122-2,287 to 3,174-3,375 req/s, `wrk -t1 -c16
//!   -d4s`, alternating builds); they pass the same checks as calls, and a
//!   refusal fails the render.
//! - A process is signalled through its pidfd, never its pid, so a
//!   signal never reaches a process that took a reaped one's pid.

pub mod intl;
mod node;
pub mod wire;

pub use node::Node;

use std::collections::{HashMap, VecDeque};
use std::io::{self, IoSlice};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use contract::LogLevel;
use rustix::net::{SendAncillaryBuffer, SendAncillaryMessage, SendFlags};

use super::{Entry, Params};
use crate::config::Config;
use crate::engine::EngineError;
use crate::sync::lock;
use crate::web::Imports;
use wire::{AsyncLane, FromWorker, Lane, Outcome, ToWorker};

/// How long past its deadline an exchange may go unanswered before its
/// process is killed: V8's watchdog stops JavaScript at the deadline, but
/// not a C++ builtin in the middle of a huge allocation.
pub const GRACE: Duration = Duration::from_secs(1);
/// Crashes that put a tenant in quarantine...
pub const QUARANTINE_AFTER: u32 = 5;
/// ...within this long...
pub const STRIKE_WINDOW: Duration = Duration::from_secs(600);
/// ...for this long.
pub const QUARANTINE: Duration = Duration::from_secs(60);

/// Core offers V8 renders made in worker processes (`crate::sched`).
static OFFERS: AtomicU64 = AtomicU64::new(0);

/// V8 renders in flight in worker processes.
static RENDERING: AtomicUsize = AtomicUsize::new(0);

/// One render's place in [`RENDERING`], from its message to its end.
struct Rendering {
    /// Others were in flight when it began: as the server's watch lowers a
    /// long render only while other renders want the threads, a worker
    /// lowers one only then (a 300 ms render beside busy threads outside
    /// the server, lowered, missed its 3 s deadline).
    others: bool,
}

impl Rendering {
    fn begin() -> Rendering {
        Rendering {
            others: RENDERING.fetch_add(1, Ordering::Relaxed) > 0,
        }
    }
}

impl Drop for Rendering {
    fn drop(&mut self) {
        RENDERING.fetch_sub(1, Ordering::Relaxed);
    }
}

/// How many times V8 renders in worker processes offered their core.
pub fn core_offers() -> u64 {
    OFFERS.load(Ordering::Relaxed)
}

/// How the server runs V8 worker processes.
#[derive(Clone, Debug)]
pub struct ProcessOptions {
    /// The `node` each process is, and the addon it loads.
    pub node: Node,
    /// Processes before tenants share them (`--v8-processes`).
    pub max: usize,
    /// Blocking lanes of each process: the exchanges the pool's V8
    /// threads may have with it at once. The watch that lowers a long
    /// render's thread starts another in its place (`pool::demote`), so
    /// that is the V8 threads twice over, and room for instances made
    /// outside them (a registration's load check). With the V8 threads
    /// once over (and two), a burst of new isolates ran out of them:
    /// `benches/fetch.sh`'s V8 tenant (API +20 ms) was refused ~1,000
    /// renders in 300 ms, "every lane of the tenant's V8 worker process is
    /// busy", while its first isolates were made.
    pub lanes: usize,
    /// Lanes the server's runtime drives: renders awaited by its tasks at
    /// once (`pool::Pool::render`, at most one per V8 thread).
    pub async_lanes: usize,
    /// Each process's address space, in bytes (`--v8-process-memory-mib`).
    pub address_space: u64,
    /// The largest frame a worker may send: the largest response, request
    /// body or fetch a render may make, and room for the rest.
    pub frame_limit: usize,
}

/// Starts, maps, watches and replaces the worker processes.
pub struct Supervisor {
    options: ProcessOptions,
    state: Mutex<State>,
    /// The async runtime the server was started in, if any: each process
    /// then also has lanes that runtime drives ([`Supervisor::awaits`]).
    runtime: Option<tokio::runtime::Handle>,
}

#[derive(Default)]
struct State {
    /// The processes alive, each once.
    procs: Vec<Arc<Proc>>,
    /// Which process each tenant's isolates are made in.
    tenants: HashMap<Arc<str>, Arc<Proc>>,
    strikes: HashMap<Arc<str>, Strikes>,
    /// When processes died of a crash lately (for [`backoff`]).
    deaths: VecDeque<Instant>,
    /// A spare is being started in the background ([`Supervisor::refill`]).
    starting: bool,
}

/// A tenant's crashes.
struct Strikes {
    count: u32,
    since: Instant,
    /// The process of the last one: one crash counts once, whatever the
    /// number of the tenant's renders it failed.
    pid: u32,
    until: Option<Instant>,
}

/// One worker process.
pub struct Proc {
    pid: u32,
    pidfd: OwnedFd,
    /// Its standard input: closing it ends the process.
    control: Mutex<Option<UnixStream>>,
    /// Lanes for pool threads (blocking), and for the runtime's tasks.
    lanes: Mutex<Vec<Lane>>,
    async_lanes: Mutex<Vec<AsyncLane>>,
    /// A lane of `async_lanes` came back: an exchange that found none
    /// (a WebSocket's render, which the pool does not bound) waits for it.
    lane_back: tokio::sync::Notify,
    /// Set once it is known to be gone or going.
    dead: AtomicBool,
    /// Ended on purpose (its last isolate went): not replaced.
    retired: AtomicBool,
    next_id: AtomicU64,
    /// Live isolates by tenant.
    isolates: Mutex<HashMap<Arc<str>, usize>>,
    /// Exchanges in flight, by tenant.
    in_flight: Mutex<HashMap<Arc<str>, usize>>,
    /// The tenants that had exchanges in flight when it crashed, taken at
    /// the first failure it caused, the same for every render it failed.
    crashed_with: std::sync::OnceLock<Vec<Arc<str>>>,
}

/// One exchange of a tenant's in [`Proc::in_flight`], from its message to
/// its end (a crash's handling included).
struct Flying<'a> {
    proc: &'a Proc,
    tenant: Arc<str>,
}

impl<'a> Flying<'a> {
    fn new(proc: &'a Proc, tenant: &Arc<str>) -> Flying<'a> {
        *lock(&proc.in_flight).entry(tenant.clone()).or_default() += 1;
        Flying {
            proc,
            tenant: tenant.clone(),
        }
    }
}

impl Drop for Flying<'_> {
    fn drop(&mut self) {
        let mut all = lock(&self.proc.in_flight);
        if let Some(n) = all.get_mut(&self.tenant) {
            *n -= 1;
            if *n == 0 {
                all.remove(&self.tenant);
            }
        }
    }
}

impl Supervisor {
    /// Its processes get lanes the async runtime it is made in drives, if
    /// any.
    pub fn new(options: ProcessOptions) -> Arc<Supervisor> {
        Arc::new(Supervisor {
            options,
            state: Mutex::default(),
            runtime: tokio::runtime::Handle::try_current().ok(),
        })
    }

    /// Its processes have blocking lanes only (`intl.rs`).
    fn blocking(options: ProcessOptions) -> Arc<Supervisor> {
        Arc::new(Supervisor {
            options,
            state: Mutex::default(),
            runtime: None,
        })
    }

    /// Whether a render may be awaited by a task of the server's async
    /// runtime, with no thread of its own (`pool::Pool::render`): the
    /// processes have lanes that runtime drives.
    pub fn awaits(&self) -> bool {
        self.runtime.is_some()
    }

    /// Whether the calling thread drives the async lanes: a task of the
    /// server's runtime, not a pool thread.
    fn on_runtime(&self) -> bool {
        self.runtime.is_some() && tokio::runtime::Handle::try_current().is_ok()
    }

    /// A new isolate of `params` for the tenant `imports` serves, made in
    /// its process.
    pub fn instance(
        self: &Arc<Self>,
        bundle: &Arc<str>,
        params: Params,
        imports: Imports,
    ) -> Result<RemoteInstance, EngineError> {
        let tenant: Arc<str> = imports.grants().tenant.clone();
        let mut instance = RemoteInstance {
            supervisor: self.clone(),
            bundle: bundle.clone(),
            params,
            imports,
            tenant,
            at: None,
            heap_used: 0,
            refused: None,
        };
        instance.make()?;
        Ok(instance)
    }

    /// The process a new isolate of `tenant` is made in, with the isolate
    /// counted there (so that the process is not retired meanwhile);
    /// refused while the tenant is in quarantine.
    fn place(self: &Arc<Self>, tenant: &Arc<str>) -> Result<Arc<Proc>, EngineError> {
        let mut state = lock(&self.state);
        if let Some(left) = state.quarantined(tenant) {
            return Err(EngineError::Quarantined(left));
        }
        let proc = self.process_for(&mut state, tenant)?;
        *lock(&proc.isolates).entry(tenant.clone()).or_default() += 1;
        Ok(proc)
    }

    fn process_for(
        self: &Arc<Self>,
        state: &mut State,
        tenant: &Arc<str>,
    ) -> Result<Arc<Proc>, EngineError> {
        if let Some(proc) = state.tenants.get(tenant)
            && !proc.dead.load(Ordering::Acquire)
        {
            return Ok(proc.clone());
        }
        let spare = state.spare();
        let shared = spare.is_none() && !state.room(self.options.max);
        let proc = match spare {
            Some(p) => p,
            None if !shared => {
                let p = self.spawn().map_err(|e| {
                    EngineError::Transient(format!("starting a V8 worker process failed: {e}"))
                })?;
                state.procs.push(p.clone());
                p
            }
            None => state
                .alive()
                .min_by_key(|p| state.holds(p))
                .cloned()
                .expect("max is at least 1"),
        };
        state.tenants.insert(tenant.clone(), proc.clone());
        metrics::gauge!("ssr_v8_worker_processes").set(state.procs.len() as f64);
        if !shared && &**tenant != super::LOAD_CHECK {
            self.refill(state);
        }
        Ok(proc)
    }

    /// Starts a spare in the background once a tenant got a process of
    /// its own, so that the next new tenant's first render does not wait
    /// for a process to start: one at a time, within `--v8-processes`, and
    /// not while processes keep dying ([`backoff`]). Not for a
    /// registration's load check, which leaves the spare as it found it.
    /// The first requests of 30 new hello tenants on V8 (each a process of
    /// its own up to 16): p90 39.4-40.1 ms without, 18.5-23.0 ms with it
    /// (p50 13.7-14.1 and 15.2-15.4 ms; two runs each).
    fn refill(self: &Arc<Self>, state: &mut State) {
        if state.starting
            || state.spare().is_some()
            || !state.room(self.options.max)
            || !backoff(&state.deaths, Instant::now()).is_zero()
        {
            return;
        }
        state.starting = true;
        let me = self.clone();
        let started = std::thread::Builder::new()
            .name("ssr-v8-spare".into())
            .spawn(move || {
                let spawned = me.spawn();
                let mut state = lock(&me.state);
                state.starting = false;
                match spawned {
                    Ok(p) => {
                        state.procs.push(p);
                        metrics::gauge!("ssr_v8_worker_processes").set(state.procs.len() as f64);
                    }
                    Err(e) => tracing::warn!("starting a spare V8 worker process failed: {e}"),
                }
            });
        if started.is_err() {
            state.starting = false;
        }
    }

    /// Starts a worker process with its lanes (for pool threads, and for
    /// the runtime's tasks if it has one), and its reaper thread.
    fn spawn(self: &Arc<Self>) -> io::Result<Arc<Proc>> {
        let (control, theirs) = UnixStream::pair()?;
        let lanes = self.options.lanes.clamp(1, wire::MAX_LANES / 2);
        let driven_lanes = match self.runtime {
            Some(_) => self.options.async_lanes.clamp(1, wire::MAX_LANES / 2),
            None => 0,
        };
        let (mut ours, mut far) = (Vec::new(), Vec::new());
        let mut driven = Vec::new();
        for i in 0..lanes + driven_lanes {
            let (a, b) = UnixStream::pair()?;
            match &self.runtime {
                Some(runtime) if i >= lanes => {
                    let _in = runtime.enter();
                    driven.push(AsyncLane::new(a)?);
                }
                _ => ours.push(a),
            }
            far.push(b);
        }
        let lanes = far.len();
        let mut child = self
            .options
            .node
            .command(self.options.address_space, self.options.frame_limit)
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()?;
        let pid = child.id();
        // Its pidfd, then its lanes (`SCM_RIGHTS`); a child that gets
        // neither is ended and reaped here.
        let started = || -> io::Result<OwnedFd> {
            let pidfd = rustix::process::pidfd_open(
                rustix::process::Pid::from_raw(pid as i32).expect("a child's pid"),
                rustix::process::PidfdFlags::empty(),
            )?;
            let fds: Vec<_> = far.iter().map(|s| s.as_fd()).collect();
            let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(lanes))];
            let mut ancillary = SendAncillaryBuffer::new(&mut space);
            ancillary.push(SendAncillaryMessage::ScmRights(&fds));
            rustix::net::sendmsg(
                &control,
                &[IoSlice::new(&[1])],
                &mut ancillary,
                SendFlags::empty(),
            )?;
            Ok(pidfd)
        };
        let pidfd = match started() {
            Ok(fd) => fd,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        drop(far);
        let proc = Arc::new(Proc {
            pid,
            pidfd,
            control: Mutex::new(Some(control)),
            lanes: Mutex::new(ours.into_iter().map(Lane::new).collect()),
            async_lanes: Mutex::new(driven),
            lane_back: tokio::sync::Notify::new(),
            dead: AtomicBool::new(false),
            retired: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            isolates: Mutex::default(),
            in_flight: Mutex::default(),
            crashed_with: Default::default(),
        });
        metrics::counter!("ssr_v8_worker_starts_total").increment(1);
        let (me, watched) = (Arc::downgrade(self), proc.clone());
        std::thread::Builder::new()
            .name(format!("ssr-v8-reaper-{pid}"))
            .spawn(move || {
                let status = child.wait();
                if let Some(me) = me.upgrade() {
                    me.ended(&watched, status);
                }
            })?;
        Ok(proc)
    }

    /// A process ended: it leaves the state; unless it was retired, the
    /// end is logged and another process is started.
    fn ended(self: &Arc<Self>, proc: &Arc<Proc>, status: io::Result<std::process::ExitStatus>) {
        proc.dead.store(true, Ordering::Release);
        let delay = {
            let mut state = lock(&self.state);
            state.procs.retain(|p| !Arc::ptr_eq(p, proc));
            state.tenants.retain(|_, p| !Arc::ptr_eq(p, proc));
            metrics::gauge!("ssr_v8_worker_processes").set(state.procs.len() as f64);
            if proc.retired.load(Ordering::Acquire) {
                return;
            }
            let now = Instant::now();
            state.deaths.push_back(now);
            while state
                .deaths
                .front()
                .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(60))
            {
                state.deaths.pop_front();
            }
            backoff(&state.deaths, now)
        };
        let status = match status {
            Ok(s) => s.to_string(),
            Err(e) => format!("unknown ({e})"),
        };
        tracing::error!(
            pid = proc.pid,
            %status,
            "a V8 worker process ended; another starts in {delay:?}"
        );
        std::thread::sleep(delay);
        let mut state = lock(&self.state);
        if state.spare().is_none() && state.room(self.options.max) {
            match self.spawn() {
                Ok(p) => {
                    state.procs.push(p);
                    metrics::gauge!("ssr_v8_worker_processes").set(state.procs.len() as f64);
                }
                Err(e) => tracing::error!("starting a V8 worker process failed: {e}"),
            }
        }
    }

    /// `tenant`'s render failed because `proc` crashed: counted, and
    /// counted toward its quarantine once per process when its renders
    /// were the only ones in flight there.
    fn crashed(&self, proc: &Proc, tenant: &Arc<str>, why: &str) -> EngineError {
        let with = proc.crashed_with.get_or_init(|| {
            let mut with: Vec<Arc<str>> = lock(&proc.in_flight).keys().cloned().collect();
            with.sort();
            if with.len() > 1 {
                metrics::counter!("ssr_v8_worker_unattributed_crashes_total").increment(1);
                tracing::warn!(
                    pid = proc.pid,
                    tenants = ?with,
                    "a V8 worker process failed with several tenants rendering: no strike for any"
                );
            }
            with
        });
        proc.kill();
        metrics::counter!("ssr_v8_worker_crashes_total", "tenant" => tenant.to_string())
            .increment(1);
        tracing::error!(
            %tenant,
            pid = proc.pid,
            "a V8 worker process failed while this tenant was rendering: {why}"
        );
        if with.len() > 1 {
            return EngineError::Crashed(why.to_string());
        }
        let mut state = lock(&self.state);
        let now = Instant::now();
        let strikes = state
            .strikes
            .entry(tenant.clone())
            .or_insert_with(|| Strikes::new(now));
        if now.duration_since(strikes.since) > STRIKE_WINDOW {
            *strikes = Strikes::new(now);
        }
        if strikes.pid != proc.pid {
            strikes.pid = proc.pid;
            strikes.count += 1;
            if strikes.count >= QUARANTINE_AFTER {
                strikes.until = Some(now + QUARANTINE);
                tracing::error!(
                    %tenant,
                    "the tenant crashed its V8 worker process {} times in {STRIKE_WINDOW:?}; its requests get 503 for {QUARANTINE:?}",
                    strikes.count
                );
            }
        }
        EngineError::Crashed(why.to_string())
    }

    /// An isolate of `tenant` in `proc` is gone. A process whose last
    /// isolate went holds no tenant from then on; it stays started as the
    /// spare when no other process is one, and ends otherwise. A spare
    /// kept spares the next new tenant, and every registration's load
    /// check (`V8Engine::load`), a process start: registering a hello
    /// tenant took 61 ms in worker processes against 34 ms with V8 in the
    /// server (p50 of 30, `benches/density.sh`'s registration), each load
    /// check starting a process and ending it.
    fn freed(&self, proc: &Arc<Proc>, tenant: &Arc<str>, id: u64) {
        let mut state = lock(&self.state);
        let empty = {
            let mut isolates = lock(&proc.isolates);
            if let Some(n) = isolates.get_mut(tenant) {
                *n -= 1;
                if *n == 0 {
                    isolates.remove(tenant);
                }
            }
            isolates.is_empty()
        };
        if proc.dead.load(Ordering::Acquire) {
            return;
        }
        if let Some(control) = lock(&proc.control).as_mut() {
            let _ = wire::send(control, &ToWorker::Free { id });
        }
        if empty {
            state.tenants.retain(|_, p| !Arc::ptr_eq(p, proc));
            if state.spares().count() == 1 {
                return;
            }
            proc.retired.store(true, Ordering::Release);
            proc.dead.store(true, Ordering::Release);
            // Its end of the control socket closes: the worker exits, and
            // its reaper takes it out of the state.
            lock(&proc.control).take();
        }
    }
}

impl Strikes {
    fn new(since: Instant) -> Strikes {
        Strikes {
            count: 0,
            since,
            pid: 0,
            until: None,
        }
    }
}

impl State {
    /// The processes not known to be gone or going (a retired process
    /// stays listed until its reaper sees it end).
    fn alive(&self) -> impl Iterator<Item = &Arc<Proc>> {
        self.procs
            .iter()
            .filter(|p| !p.dead.load(Ordering::Acquire))
    }

    /// How many tenants `proc` is the process of.
    fn holds(&self, proc: &Arc<Proc>) -> usize {
        self.tenants
            .values()
            .filter(|q| Arc::ptr_eq(proc, q))
            .count()
    }

    /// The live processes of no tenant.
    fn spares(&self) -> impl Iterator<Item = &Arc<Proc>> {
        self.alive().filter(|p| self.holds(p) == 0)
    }

    /// A live process of no tenant.
    fn spare(&self) -> Option<Arc<Proc>> {
        self.spares().next().cloned()
    }

    /// Whether one more process may start within `max` (`--v8-processes`),
    /// the one starting in the background counted.
    fn room(&self, max: usize) -> bool {
        self.alive().count() + usize::from(self.starting) < max.max(1)
    }

    /// How long `tenant` is still refused, if it is.
    fn quarantined(&mut self, tenant: &str) -> Option<Duration> {
        let strikes = self.strikes.get_mut(tenant)?;
        let until = strikes.until?;
        let now = Instant::now();
        if now < until {
            return Some(until - now);
        }
        self.strikes.remove(tenant);
        None
    }
}

/// How long to wait before replacing a process that died, given the
/// deaths of the last minute: at once for the first in ten seconds, then
/// 100 ms doubling up to 5 s.
fn backoff(deaths: &VecDeque<Instant>, now: Instant) -> Duration {
    let recent = deaths
        .iter()
        .filter(|t| now.duration_since(**t) < Duration::from_secs(10))
        .count() as u32;
    match recent {
        0 | 1 => Duration::ZERO,
        n => Duration::from_millis(100 << (n - 2).min(6)).min(Duration::from_secs(5)),
    }
}

impl Proc {
    fn kill(&self) {
        self.dead.store(true, Ordering::Release);
        let _ = rustix::process::pidfd_send_signal(&self.pidfd, rustix::process::Signal::KILL);
    }

    /// One exchange on a free lane (`wire.rs`): sends `message`, answers the
    /// calls of the isolate with `imports`, and gives the worker's `Done`.
    /// Any failure of the channel is the caller's to turn into a crash.
    fn exchange(
        &self,
        message: &ToWorker,
        answers: &mut Answers<'_>,
        ends: Instant,
        limit: usize,
    ) -> Result<(Outcome, u64, Duration), Broken> {
        let mut lane = lock(&self.lanes).pop().ok_or(Broken::NoLane)?;
        let out = self.on_lane(&mut lane, message, answers, ends, limit);
        if out.is_ok() {
            lock(&self.lanes).push(lane);
        }
        out
    }

    fn on_lane(
        &self,
        lane: &mut Lane,
        message: &ToWorker,
        answers: &mut Answers<'_>,
        ends: Instant,
        limit: usize,
    ) -> Result<(Outcome, u64, Duration), Broken> {
        // Each read and write of the exchange may wait this long: a worker
        // whose JavaScript runs past its deadline is ended by its own
        // watchdog (`ssr_v8_end_when_stuck`), so this only catches one
        // that stopped answering altogether; set once per exchange, not per
        // message (each setting is two system calls).
        lane.patience(Some(ends.saturating_duration_since(Instant::now()) + GRACE))?;
        lane.send(message)?;
        loop {
            match answers.answer(lane.receive::<FromWorker>(limit)?)? {
                Step::Next => {}
                Step::Reply(reply) => lane.send(&reply)?,
                Step::Done(done) => return Ok(done),
            }
        }
    }

    /// [`Proc::exchange`] on a lane the runtime drives, by a task of it:
    /// the whole exchange within the deadline and [`GRACE`].
    async fn exchange_async(
        &self,
        message: &ToWorker,
        answers: &mut Answers<'_>,
        ends: Instant,
        limit: usize,
    ) -> Result<(Outcome, u64, Duration), Broken> {
        // Renders the pool admits never find every lane busy; a
        // WebSocket's render, admitted once, waits for one (within its
        // deadline).
        let mut lane = loop {
            let back = self.lane_back.notified();
            if let Some(lane) = lock(&self.async_lanes).pop() {
                break lane;
            }
            if tokio::time::timeout_at(ends.into(), back).await.is_err() {
                return Err(Broken::NoLane);
            }
        };
        let exchange = async {
            lane.send(message).await?;
            loop {
                match answers.answer(lane.receive::<FromWorker>(limit).await?)? {
                    Step::Next => {}
                    Step::Reply(reply) => lane.send(&reply).await?,
                    Step::Done(done) => return Ok(done),
                }
            }
        };
        let out = tokio::time::timeout_at((ends + GRACE).into(), exchange)
            .await
            .unwrap_or_else(|_| Err(io::ErrorKind::TimedOut.into()));
        if out.is_ok() {
            lock(&self.async_lanes).push(lane);
            self.lane_back.notify_one();
        }
        out.map_err(Broken::Io)
    }
}

/// What one message from a worker asks of the exchange.
enum Step {
    Next,
    Reply(ToWorker),
    /// The outcome, the heap in use and the CPU time (`FromWorker::Done`).
    Done((Outcome, u64, Duration)),
}

/// What an exchange answers a worker's messages from: the isolate's
/// imports, and the first refusal of a call told without a reply, kept for
/// the rest of the render.
struct Answers<'a> {
    imports: &'a mut Imports,
    refused: &'a mut Option<String>,
}

impl Answers<'_> {
    /// Answers one message of an exchange.
    fn answer(&mut self, message: FromWorker) -> io::Result<Step> {
        Ok(match message {
            FromWorker::Log { level, message } => {
                self.imports.log(LogLevel::from_code(level), &message);
                Step::Next
            }
            FromWorker::Call { name, args, data } => {
                // A told call's refusal fails the next one the worker
                // waits for.
                let refused = self
                    .refused
                    .as_ref()
                    .filter(|_| wire::TOLD.contains(&name.as_str()));
                Step::Reply(ToWorker::Reply(match refused {
                    Some(why) => Err(why.clone()),
                    None => self.imports.call_now(&name, &args, &data),
                }))
            }
            FromWorker::Tell { name, args, .. } if !wire::may_tell(&name, &args) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a Tell of \"{name}\", which must be a call"),
                ));
            }
            FromWorker::Tell { name, args, data } => {
                if self.refused.is_none()
                    && let Err(e) = self.imports.call_now(&name, &args, &data)
                {
                    *self.refused = Some(e);
                }
                Step::Next
            }
            FromWorker::Done {
                outcome,
                heap_used,
                cpu_us,
                offers,
                lowered,
            } => {
                OFFERS.fetch_add(offers, Ordering::Relaxed);
                if lowered {
                    crate::sched::count_demotion();
                }
                // A render that ended well though its body was refused
                // fails with the refusal, as it would have in the server.
                let outcome = match (outcome, &self.refused) {
                    (Outcome::Ok { .. }, Some(why)) => Outcome::JsError(
                        serde_json::to_string(&contract::RenderError::new(
                            contract::ErrorKind::Exception,
                            why.clone(),
                        ))
                        .unwrap_or_default(),
                    ),
                    (outcome, _) => outcome,
                };
                Step::Done((outcome, heap_used, Duration::from_micros(cpu_us)))
            }
        })
    }
}

/// Why an exchange failed.
#[derive(Debug)]
enum Broken {
    /// Every lane was in use (more renders at once than V8 threads).
    NoLane,
    Io(io::Error),
}

impl From<io::Error> for Broken {
    fn from(e: io::Error) -> Broken {
        Broken::Io(e)
    }
}

/// An isolate in a worker process, serving one tenant.
pub struct RemoteInstance {
    supervisor: Arc<Supervisor>,
    bundle: Arc<str>,
    params: Params,
    imports: Imports,
    tenant: Arc<str>,
    /// Its process and id there; none once its process died.
    at: Option<(Arc<Proc>, u64)>,
    heap_used: usize,
    /// The render's first refused call told without a reply (`wire::TOLD`).
    refused: Option<String>,
}

impl RemoteInstance {
    /// Makes the isolate in the tenant's process.
    fn make(&mut self) -> Result<(), EngineError> {
        let (proc, message, ends) = self.new_isolate()?;
        let done = self.send(&proc, &message, ends);
        self.made(done)
    }

    /// [`RemoteInstance::make`], by a task of the runtime.
    async fn make_async(&mut self) -> Result<(), EngineError> {
        let (proc, message, ends) = self.new_isolate()?;
        let done = self.send_async(&proc, &message, ends).await;
        self.made(done)
    }

    /// Where a new isolate is made, the message that makes it, and by when.
    fn new_isolate(&mut self) -> Result<(Arc<Proc>, ToWorker, Instant), EngineError> {
        self.release();
        let proc = self.supervisor.place(&self.tenant)?;
        let id = proc.next_id.fetch_add(1, Ordering::Relaxed);
        self.at = Some((proc.clone(), id));
        let message = ToWorker::New {
            id,
            params: self.params,
            bundle: self.bundle.to_string(),
        };
        Ok((
            proc,
            message,
            Instant::now() + crate::engine::INSTANTIATE_DEADLINE,
        ))
    }

    fn made(
        &mut self,
        done: Result<(Outcome, u64, Duration), EngineError>,
    ) -> Result<(), EngineError> {
        let (outcome, heap, _) = done?;
        self.heap_used = heap as usize;
        match super::loaded(outcome) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.release();
                Err(e)
            }
        }
    }

    fn send(
        &mut self,
        proc: &Arc<Proc>,
        message: &ToWorker,
        ends: Instant,
    ) -> Result<(Outcome, u64, Duration), EngineError> {
        let limit = self.supervisor.options.frame_limit;
        let _flying = Flying::new(proc, &self.tenant);
        let done = proc.exchange(message, &mut self.answers(), ends, limit);
        self.checked(proc, done)
    }

    async fn send_async(
        &mut self,
        proc: &Arc<Proc>,
        message: &ToWorker,
        ends: Instant,
    ) -> Result<(Outcome, u64, Duration), EngineError> {
        let limit = self.supervisor.options.frame_limit;
        let _flying = Flying::new(proc, &self.tenant);
        let done = proc
            .exchange_async(message, &mut self.answers(), ends, limit)
            .await;
        self.checked(proc, done)
    }

    /// What its exchanges answer the worker from.
    fn answers(&mut self) -> Answers<'_> {
        Answers {
            imports: &mut self.imports,
            refused: &mut self.refused,
        }
    }

    /// An exchange's end: a broken channel is the process's crash.
    fn checked(
        &mut self,
        proc: &Arc<Proc>,
        done: Result<(Outcome, u64, Duration), Broken>,
    ) -> Result<(Outcome, u64, Duration), EngineError> {
        match done {
            Ok(done) => Ok(done),
            Err(Broken::NoLane) => Err(EngineError::Transient(
                "every lane of the tenant's V8 worker process is busy".into(),
            )),
            Err(Broken::Io(e)) => {
                let why = if proc.dead.load(Ordering::Acquire) {
                    format!("the process ended ({e})")
                } else if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) {
                    format!("no answer {GRACE:?} past the deadline; killed")
                } else {
                    format!("its channel broke: {e}")
                };
                self.at = None;
                Err(self.supervisor.crashed(proc, &self.tenant, &why))
            }
        }
    }

    /// Lets the isolate go, if it has one.
    fn release(&mut self) {
        if let Some((proc, id)) = self.at.take() {
            self.supervisor.freed(&proc, &self.tenant, id);
        }
    }

    /// Whether its isolate must be made (again): its process died since
    /// its last render (another tenant's crash, or a kill). It is made in a
    /// live one, at no cost to the render but the time.
    fn gone(&self) -> bool {
        self.at
            .as_ref()
            .is_none_or(|(p, _)| p.dead.load(Ordering::Acquire))
    }
}

impl super::Calls for RemoteInstance {
    /// On a pool thread, through a blocking lane; by a task of the
    /// server's runtime, through a lane the runtime drives.
    async fn enter(
        &mut self,
        entry: Entry<'_>,
        cpu_ms: u32,
        deadline_ms: u32,
    ) -> Result<(Outcome, Duration), EngineError> {
        let here = self.supervisor.on_runtime();
        if self.gone() {
            if here {
                self.make_async().await?;
            } else {
                self.make()?;
            }
        }
        let (proc, id) = self.at.clone().expect("made above");
        let streams = self.imports.streams();
        let rendering = Rendering::begin();
        let others = rendering.others;
        let message = match entry {
            Entry::Render { request, body } => {
                self.refused = None;
                ToWorker::Render {
                    id,
                    request: request.to_string(),
                    body: body.to_vec(),
                    cpu_ms,
                    deadline_ms,
                    streams,
                    others,
                }
            }
            Entry::Resume { value, data } => ToWorker::Resume {
                id,
                value: value.to_string(),
                data: data.to_vec(),
                cpu_ms,
                deadline_ms,
                streams,
                others,
            },
        };
        let ends = Instant::now() + Duration::from_millis(u64::from(deadline_ms));
        let (outcome, heap, cpu) = if here {
            self.send_async(&proc, &message, ends).await?
        } else {
            self.send(&proc, &message, ends)?
        };
        drop(rendering);
        self.heap_used = heap as usize;
        Ok((outcome, cpu))
    }

    fn imports(&mut self) -> &mut Imports {
        &mut self.imports
    }

    fn heap_used(&self) -> usize {
        self.heap_used
    }
}

impl Drop for RemoteInstance {
    fn drop(&mut self) {
        self.release();
    }
}

impl ProcessOptions {
    /// The server's: finds its `node` (`--v8-node`), says at start what is
    /// wrong with it or what an operator should know (`Node::advice`), and
    /// gives it to the Wasm engine's `Intl` too. An error leaves V8
    /// tenants refused, with its message, and Wasm tenants serving.
    pub fn start(config: &Config) -> Result<ProcessOptions, String> {
        let node = Node::find(config.v8_node.as_deref());
        match &node {
            // Not at info: `ssr listening on` stays the first line.
            Ok(node) => {
                tracing::debug!(
                    "V8 engine: Node {} at {}, worker {}",
                    node::dotted(node.version),
                    node.path.display(),
                    node.addon.display()
                );
                if let Some(advice) = node.advice() {
                    tracing::warn!("{advice}");
                }
            }
            Err(why) => tracing::error!(
                "the V8 engine cannot run: {why}; V8 tenants are refused, Wasm tenants serve"
            ),
        }
        intl::configure(node.clone(), config.v8_process_memory_mib.bytes() as u64);
        node.map(|node| ProcessOptions::of(config, node))
    }

    /// How V8 worker processes run, with the `node` they are (`node`).
    pub fn of(config: &Config, node: Node) -> ProcessOptions {
        // The largest message a worker sends carries a response body, a
        // request body for `fetch`, a fetched body's part, or a KV value.
        let largest = [
            config.max_response_kib.bytes(),
            config.max_request_kib.bytes(),
            config.max_fetch_kib.bytes(),
            crate::bindings::kv::MAX_VALUE,
            16 << 20,
        ];
        ProcessOptions {
            node,
            max: config.v8_processes,
            // The V8 threads and those lowered (as many again), and room
            // for instances made outside them (a registration's check).
            lanes: 2 * config.v8_threads() + 2,
            async_lanes: config.v8_threads(),
            address_space: config.v8_process_memory_mib.bytes() as u64,
            frame_limit: largest.into_iter().max().unwrap_or(0) + (1 << 20),
        }
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use crate::web::Grants;

    fn only_a_streamed_bodys_parts_are_told_and_a_refused_one_fails_the_render() {
        let mut imports = Imports::new(&Grants::new("t"));
        let mut refused = None;
        let mut render = Answers {
            imports: &mut imports,
            refused: &mut refused,
        };
        let message = |name: &str| (name.to_string(), "null".to_string(), b"x".to_vec());
        // Anything else told is a broken channel.
        let (name, args, data) = message(contract::calls::FETCH);
        let err = render.answer(FromWorker::Tell { name, args, data }).err();
        assert_eq!(err.map(|e| e.kind()), Some(io::ErrorKind::InvalidData));
        // A chunk told with no stream to take it (this render's body is
        // not streamed) is refused: kept, then given to the next call of
        // its kind the worker waits for, and to the render's end.
        let (name, args, data) = message(contract::calls::RESPONSE_WRITE);
        assert!(matches!(
            render.answer(FromWorker::Tell { name, args, data }),
            Ok(Step::Next)
        ));
        let (name, args, data) = message(contract::calls::RESPONSE_WRITE);
        let Ok(Step::Reply(ToWorker::Reply(Err(why)))) =
            render.answer(FromWorker::Call { name, args, data })
        else {
            panic!("the next chunk called was not refused");
        };
        assert!(why.contains("not streamed"), "{why}");
        let done = FromWorker::Done {
            outcome: Outcome::Ok {
                body: Vec::new(),
                meta: "{}".into(),
            },
            heap_used: 0,
            cpu_us: 0,
            offers: 0,
            lowered: false,
        };
        let Ok(Step::Done((Outcome::JsError(json), _, _))) = render.answer(done) else {
            panic!("a render whose chunk was refused ended well");
        };
        assert!(json.contains("not streamed"), "{json}");
    }

    fn a_replacement_waits_longer_the_more_processes_died_lately() {
        let now = Instant::now();
        let ago = |s: u64| now - Duration::from_secs(s);
        let delays: Vec<_> = [
            vec![],
            vec![ago(0)],
            vec![ago(30), ago(0)],
            vec![ago(2), ago(0)],
            vec![ago(3), ago(2), ago(1), ago(0)],
            (0..20).map(|_| ago(0)).collect(),
        ]
        .into_iter()
        .map(|d| backoff(&d.into(), now).as_millis())
        .collect();
        assert_eq!(delays, [0, 0, 0, 100, 400, 5000]);
    }

    crate::unit_tests!(
        only_a_streamed_bodys_parts_are_told_and_a_refused_one_fails_the_render,
        a_replacement_waits_longer_the_more_processes_died_lately
    );
}
