//! The worker pool (request step 4, [`Pool::render`]): renders run on
//! dedicated OS threads, one per worker, each pinned to a core and owning its
//! instances (Wasmtime stores or V8 isolates, behind `engine::Instance`); the
//! async runtime only waits for them.
//!
//! Fair sharing: each worker interleaves up to `renders_per_worker` renders
//! in time slices (`worker.rs`), so a spinning Wasm render cannot hold a
//! core hostage. A render that cannot yield (V8) goes to a second queue,
//! served by unpinned blocking threads (more than cores, one render each,
//! the most recently idle first: `lifo.rs`),
//! so the kernel time-slices a spinning V8 render with the rest, and it
//! never stalls the Wasm renders interleaved on a worker. Each tenant has a
//! concurrency cap (`Tenant::permits`), so one tenant never fills every slot
//! or thread; a render over its cap waits for a permit in the async runtime,
//! not in a queue, in a line as long as the queue (beyond it: `TenantBusy`,
//! HTTP 503 at once). A Wasm request waits with its job made, in its
//! tenant's [`Line`]: a worker that ends one of the tenant's renders while
//! no job waits in the shared queue renders the next at once, with the
//! permit it holds (`line.rs`). A render that has run past `demote_after` (20 ms)
//! finishes at low priority while others wait, so that short renders and the HTTP
//! threads get the cores first (`demote.rs`). The pool asks a plugin only
//! whether it yields, never which engine it is.
//!
//! Inline first slice (`PoolOptions::inline_slices`): handing a short
//! render to a worker and back, two wake-ups, was a third of its cost (the
//! trivial page on Wasm, 2 cores, `wrk -t1 -c16`, every request rendered:
//! 6,000-6,300 req/s with every render on the pool, 9,300-9,500 with every
//! render on the runtime's threads, 2026-11-27). So a Wasm render of a
//! tenant with a warm instance on some worker begins on the HTTP thread
//! that asked for it, with that instance; most renders end within that
//! first slice (1-2 ms at most: the epoch's yield), and their response goes
//! out with no hand-off at all. One that does not end in its slice (it
//! yielded, or waits for a `fetch`) goes on a worker as any render would,
//! through the same queue, and its tenant's renders start on the pool for
//! [`INLINE_BAR`], so a tenant of long renders costs the HTTP threads one
//! slice a while at most. At most half the runtime's threads (at least one)
//! run a first slice at once; a render that finds them busy starts on the
//! pool. With every thread allowed, a cache hit waited behind renders: 8
//! clients of cache hits beside 8 of renders of another tenant, 2 cores,
//! gave 13,114-27,268 hits/s (p99 1.84-2.25 ms) and 5,661-7,360 renders/s,
//! against 46,486-52,526 (p99 0.90-1.26 ms) and 2,916-3,299 with every
//! render on the pool; with half, 33,843-37,940 (p99 1.29-1.30 ms) and
//! 3,568-3,834 (`benches/mixed.sh`). The trivial page alone: 6,797-7,664
//! req/s with half, 8,970-9,035 with every thread.
//!
//! A V8 render in a worker process (`Plugin::awaits`) on an isolate already
//! made is awaited whole by a task of the runtime, with no V8 thread
//! waiting on the worker in between, as many at once as there are V8
//! threads (the same trivial page with two renders at once: 8,400-9,900
//! req/s against 6,700-6,800 through a V8 thread).
//!
//! Queueing design: **one shared bounded queue** (a crossbeam MPMC channel)
//! that every worker pulls from. A shared queue never leaves a job waiting
//! behind a slow render while another worker idles, which per-worker queues
//! do unless they add work stealing. Its cost is the hand-off, the same for
//! either design: `benches/pool.rs` measures a hello render at 446 us through
//! the pool against 367 us on the calling thread (one run, 2 cores), so about
//! 80 us at idle, nearly all of it waking the sleeping worker and then the
//! waiting task. Under load workers find the queue non-empty and do not
//! sleep. Contention on the one channel is not visible next to renders of
//! 0.3-15 ms (`benches/engine.rs`). Warm Wasm instances are per worker, so a
//! tenant gets one warm instance on each worker that has served it; the
//! blocking threads share theirs (a V8 isolate per render at once).
//!
//! Invariants:
//! - The queue is bounded: a full queue is `PoolError::Saturated` at once
//!   (HTTP 503 with `Retry-After`), never an unbounded wait.
//! - A job carries its absolute deadline; a worker does not start a job whose
//!   deadline has passed, and a render it starts is stopped at the deadline
//!   (epoch interruption, or V8's watchdog), so a 504 never leaves a render
//!   running.
//! - A job holds one of its tenant's permits until its render ends, or
//!   until its request stops waiting (at the latest at its deadline), when
//!   the request takes it back (`Permit`).
//! - A Wasm instance belongs to its worker, and is used by one thread at a
//!   time: the worker, or its background lane for a long render. A V8
//!   isolate is used by one blocking thread at a time. Jobs come back on a
//!   `oneshot`.

mod demote;
mod lifo;
mod line;
mod worker;

#[cfg(feature = "test-hooks")]
pub(crate) mod tests;

use std::cell::OnceCell;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, TrySendError};
use thiserror::Error;
use tokio::sync::{OwnedSemaphorePermit, TryAcquireError, oneshot};

use crate::config::Scheduling;
use crate::engine::EngineError;
use crate::engine::{Mode, Plugin};
use crate::sync::lock;
use crate::web::Grants;
use crate::web::stream::Sink;
use demote::{Lane, Watch};
use lifo::Lifo;
pub use line::Line;
use worker::{Instances, Role, Setup, SharedInstances};

/// Each worker thread's stack.
const WORKER_STACK_BYTES: usize = 8 << 20;

/// How long a tenant's renders start on the pool once its renders begun on
/// an HTTP thread outlast their slice often (see the module's "Inline").
pub const INLINE_BAR: Duration = Duration::from_secs(1);

/// How many of a tenant's renders must end inline between two that outlast
/// their slice for it to keep beginning them there. A render that runs a
/// full cycle collection, or the first after an instance was made, may
/// outlast its slice now and then; a tenant of long renders does every
/// time.
pub const INLINE_BETWEEN_SPILLS: u32 = 32;

/// A tenant version as the pool sees it (`tenant::Tenant` is one): what it
/// renders with, and its renders' place in the pool. The pool names no
/// tenant type: it reads what it needs through this.
pub trait Renderable: Send + Sync + 'static {
    fn id(&self) -> &Arc<str>;
    fn version(&self) -> u64;
    fn mode(&self) -> Mode;
    fn plugin(&self) -> &dyn Plugin;
    /// What its instances are given.
    fn grants(&self) -> &Arc<Grants>;
    /// The CPU time one render may take.
    fn render_deadline(&self) -> Duration;
    /// The most bytes a rendered response may have.
    fn max_response_bytes(&self) -> usize;
    /// Whether it stopped being current: its instances are not kept warm.
    fn retired(&self) -> bool;
    fn admission(&self) -> &Admission;
}

/// A tenant version's renders' place in the pool, which the pool owns and
/// the tenant holds.
pub struct Admission {
    /// One per render in flight (the tenant's concurrency in all); a
    /// render holds its permit until it ends on its worker.
    pub permits: Arc<tokio::sync::Semaphore>,
    /// Requests of a tenant whose renders cannot yield (V8) waiting for a
    /// permit; [`Pool::render`] keeps it at most the pool's queue capacity.
    /// A Wasm tenant's wait in its `line` instead.
    waiting: AtomicUsize,
    /// Whether its renders may begin on the HTTP thread now.
    inline: Inline,
    /// Its Wasm requests waiting for a permit, their jobs made.
    line: Line,
}

impl Admission {
    /// `concurrency` renders at once.
    pub fn new(concurrency: usize) -> Admission {
        Admission {
            permits: Arc::new(tokio::sync::Semaphore::new(concurrency)),
            waiting: AtomicUsize::new(0),
            inline: Inline::default(),
            line: Line::default(),
        }
    }
}

/// Whether a tenant's renders may begin on the HTTP thread: not for
/// [`INLINE_BAR`] after two of them outlasted their slice there with fewer
/// than [`INLINE_BETWEEN_SPILLS`] ending there in between.
#[derive(Debug)]
pub struct Inline {
    /// Milliseconds since [`START`] until which they may not.
    barred_until: AtomicU64,
    /// Renders that ended inline since the last that did not.
    ended_since_spill: std::sync::atomic::AtomicU32,
}

impl Default for Inline {
    fn default() -> Inline {
        Inline {
            barred_until: AtomicU64::new(0),
            ended_since_spill: INLINE_BETWEEN_SPILLS.into(),
        }
    }
}

/// The clock [`Inline`] counts from.
static START: LazyLock<Instant> = LazyLock::new(Instant::now);

impl Inline {
    fn allowed(&self) -> bool {
        self.barred_until.load(Ordering::Relaxed) <= millis_since_start()
    }

    fn ended(&self) {
        self.ended_since_spill.fetch_add(1, Ordering::Relaxed);
    }

    fn spilled(&self) {
        if self.ended_since_spill.swap(0, Ordering::Relaxed) < INLINE_BETWEEN_SPILLS {
            let until = millis_since_start() + INLINE_BAR.as_millis() as u64;
            self.barred_until.store(until, Ordering::Relaxed);
        }
    }
}

fn millis_since_start() -> u64 {
    START.elapsed().as_millis() as u64
}

/// Pool settings.
#[derive(Clone, Debug)]
pub struct PoolOptions {
    pub workers: usize,
    pub pin: bool,
    pub queue_capacity: usize,
    /// Renders one worker interleaves in time slices (see `worker.rs`).
    pub renders_per_worker: usize,
    /// Unpinned threads for renders that cannot yield (V8), one render at a
    /// time each. More of them than cores, so that the kernel time-slices a
    /// spinning render with the others instead of it holding a core.
    pub v8_threads: usize,
    /// Warm instances each worker keeps, across tenants (least recently used
    /// goes first).
    pub warm_instances: usize,
    /// Memory all warm instances may hold together (their linear memory or
    /// V8 heap): half for the workers' sets, half for the blocking
    /// threads' (`Config::warm_memory_mib`'s share for instances).
    pub warm_bytes: usize,
    /// A warm instance unused this long is dropped, so a tenant with no
    /// traffic holds none; `None`: kept until evicted.
    pub warm_idle: Option<Duration>,
    /// Renders one worker keeps suspended while they wait for a `fetch`
    /// (see `worker.rs`).
    pub waiting_per_worker: usize,
    /// When long renders step aside (`crate::sched`).
    pub scheduling: Scheduling,
    /// Wasm renders of tenants with a warm instance that may run their
    /// first slice at once on the threads that ask for them (see the
    /// module's "Inline"); 0: none.
    pub inline_slices: usize,
}

impl PoolOptions {
    /// One worker's share of [`PoolOptions::warm_bytes`].
    fn worker_warm_bytes(&self) -> usize {
        self.warm_bytes / 2 / self.workers.max(1)
    }
}

/// Why a job produced no response.
#[derive(Debug, Error)]
pub enum PoolError {
    #[error("the render queue is full")]
    Saturated,
    #[error(
        "the tenant is at its concurrency cap and its waiting line is full, or it stayed at its cap until the deadline"
    )]
    TenantBusy,
    #[error("the request's deadline passed")]
    Timeout,
    #[error("the pool is shut down")]
    Closed,
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A finished render with its timings.
#[derive(Debug)]
pub struct Rendered {
    pub response: contract::Response,
    pub queue_wait: Duration,
    pub render_time: Duration,
}

/// Where a render begins (`Pool::begin`).
enum Begin {
    /// Handed to the pool.
    Pool,
    /// A Wasm render: its first slice here, on a warm instance of a
    /// worker's set.
    FirstSlice(
        SharedInstances,
        Box<dyn crate::engine::Instance>,
        OwnedSemaphorePermit,
    ),
    /// A V8 render in a worker process: awaited whole by a task, on a warm
    /// instance of the V8 threads' set, in place of one of their threads.
    Await(
        SharedInstances,
        Box<dyn crate::engine::Instance>,
        OwnedSemaphorePermit,
    ),
}

/// What the queue (and the V8 threads' line) carries: a new job, or a
/// render already begun, which holds its instance and permit (one begun
/// on an HTTP thread that outlasted its slice, or a V8 render woken after
/// waiting for a `fetch`).
// Nearly all are jobs, which the queue held by value before: boxing them
// would add an allocation per job.
#[allow(clippy::large_enum_variant)]
pub(in crate::pool) enum Work {
    Job(Job),
    Begun(Task),
}

pub(crate) struct Job {
    /// One of the tenant's concurrency permits, held until the render ends.
    permit: Arc<Permit>,
    tenant: Arc<dyn Renderable>,
    request: contract::Request,
    deadline: Instant,
    enqueued: Instant,
    /// Where a streamed body goes (`web::stream`), if the request can
    /// take one.
    body: Option<Sink>,
    reply: oneshot::Sender<Result<Rendered, PoolError>>,
}

/// A job's concurrency permit. The thread that renders the job takes it
/// when the render ends; the request takes it back once it stops waiting,
/// at the latest at its deadline: a render that has not ended by then (one at
/// low priority the kernel has not run since, `demote.rs`) no longer counts
/// against its tenant's cap.
pub(crate) struct Permit(Mutex<Option<OwnedSemaphorePermit>>);

impl Permit {
    fn take(&self) -> Option<OwnedSemaphorePermit> {
        lock(&self.0).take()
    }
}

/// Starts one of the pool's threads (worker, lane or blocking thread).
fn spawn(name: String, body: impl FnOnce() + Send + 'static) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name(name)
        // V8 lets JavaScript use 1 MiB of it (`engine::v8`); Wasm stacks are
        // fibers Wasmtime allocates.
        .stack_size(WORKER_STACK_BYTES)
        .spawn(body)
        .expect("spawning a pool thread")
}

/// A render's end: its tenant's permit, unless the request took it back,
/// for the thread to give back or to hand to the tenant's next request in
/// line ([`Line::next`]).
pub(in crate::pool) struct Ended {
    pub(in crate::pool) permit: Option<OwnedSemaphorePermit>,
    pub(in crate::pool) tenant: Arc<dyn Renderable>,
}

impl Ended {
    /// The tenant's next job in line, holding this render's permit; `None`
    /// (the permit given back) when none waits.
    pub(in crate::pool) fn next_in_line(self) -> Option<Job> {
        self.tenant.admission().line.next(self.permit?)
    }
}

/// A render in progress on a worker or in its lane; it ends with its
/// tenant's permit, which the loop gives back (`worker::Role::next`) or
/// hands on ([`Ended::next_in_line`]). Here,
/// not in `worker.rs`, so that `worker.rs` and `demote.rs` both use it and
/// neither imports the other's.
pub(in crate::pool) struct Task {
    pub(in crate::pool) render: std::pin::Pin<Box<dyn std::future::Future<Output = Ended> + Send>>,
    /// The CPU time its polls on a worker with a lane have taken.
    pub(in crate::pool) ran: Duration,
    /// Held while it is in a background lane: its place there.
    pub(in crate::pool) in_lane: Option<demote::InLane>,
    /// How it is woken on the thread that runs it (`worker::Wakes`).
    pub(in crate::pool) waker: Option<Arc<worker::TaskWaker>>,
}

/// The pool of pinned render workers. Dropping it disconnects the queue:
/// workers finish the jobs already queued, then exit, and the drop waits for
/// them, so every instance (a V8 isolate too) is gone before the process
/// exits.
pub struct Pool {
    /// Renders that yield, for the pinned workers.
    queue: Sender<Work>,
    /// Renders that cannot yield, for the blocking threads.
    blocking: Arc<Lifo>,
    capacity: usize,
    options: PoolOptions,
    /// The pinned workers and their lanes.
    workers: Vec<std::thread::JoinHandle<()>>,
    /// Every worker's warm instances, and the blocking threads' ([`Pool::forget`]).
    instances: Vec<SharedInstances>,
    /// Keeps the blocking threads; its drop waits for them.
    _watch: Watch,
    /// The idle sweeper (with `warm_idle`); its drop stops and joins it.
    _sweeper: Option<Sweeper>,
    /// Which worker's set an inline render looks in first.
    next_set: AtomicUsize,
    /// Inline first slices ([`Begin::FirstSlice`]) take one of these.
    inline_slices: Arc<tokio::sync::Semaphore>,
    /// V8 renders awaited by tasks ([`Begin::Await`]) take one of these:
    /// as many at once as the V8 threads would render.
    v8_renders: Arc<tokio::sync::Semaphore>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        let (closed, _) = crossbeam_channel::bounded(0);
        drop(std::mem::replace(&mut self.queue, closed));
        self.blocking.close();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        // Then `watch` drops, and waits for the blocking threads likewise.
    }
}

fn queue_error<T>(e: TrySendError<T>) -> PoolError {
    match e {
        TrySendError::Full(_) => PoolError::Saturated,
        TrySendError::Disconnected(_) => PoolError::Closed,
    }
}

/// Drops the warm instances unused for `idle` in `sets`; how many.
fn expire(sets: &[SharedInstances], idle: Duration) -> usize {
    let mut dropped = 0;
    for set in sets {
        let gone = lock(set).expire(idle);
        dropped += gone.len();
        drop(gone);
    }
    dropped
}

/// Starts the thread that drops warm instances unused for `idle`, a quarter
/// of `idle` late at most; it ends when the returned sender is dropped.
/// The thread that drops warm instances idle for `warm_idle`. It holds
/// every worker's instance set, so its drop joins it: the last instance (a
/// V8 isolate too) is gone before the pool's drop returns, never while the
/// process exits (a V8 isolate deleted during exit crashed it).
struct Sweeper {
    stop: Option<Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Sweeper {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// How often what goes after `idle` unused is looked for: a quarter of
/// `idle` late at most (the warm instances here, plugins' pages in
/// `http::trim_idle_plugins`).
pub fn idle_check_every(idle: Duration) -> Duration {
    (idle / 4).max(Duration::from_millis(250))
}

fn sweep(idle: Duration, sets: Vec<SharedInstances>) -> Sweeper {
    let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
    let every = idle_check_every(idle);
    let thread = std::thread::Builder::new()
        .name("ssr-idle".into())
        .spawn(move || {
            while let Err(crossbeam_channel::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(every)
            {
                let dropped = expire(&sets, idle);
                if dropped > 0 {
                    tracing::debug!(dropped, "dropped warm instances idle for {idle:?}");
                }
            }
        })
        .expect("spawning the idle sweeper");
    Sweeper {
        stop: Some(stop),
        thread: Some(thread),
    }
}

thread_local! {
    /// Instances of the on-runtime comparison path, per async thread.
    static HERE: OnceCell<Mutex<Instances>> = const { OnceCell::new() };
}

impl Pool {
    pub fn start(options: PoolOptions) -> Pool {
        let (queue, jobs) = crossbeam_channel::bounded(options.queue_capacity);
        let blocking = Arc::new(Lifo::new(options.queue_capacity));
        let cores = if options.pin {
            core_affinity::get_core_ids().unwrap_or_default()
        } else {
            Vec::new()
        };
        let mut workers = Vec::with_capacity(2 * options.workers);
        let mut sets = Vec::with_capacity(options.workers + 1);
        for i in 0..options.workers {
            let instances = Arc::new(Mutex::new(Instances::new(
                options.warm_instances,
                options.worker_warm_bytes(),
            )));
            sets.push(instances.clone());
            let lane = options.scheduling.demote_after.map(|demote_after| {
                let (tasks, rx) = crossbeam_channel::unbounded();
                let lane = Setup {
                    role: Role::Lane { tasks: rx },
                    instances: instances.clone(),
                    renders: options.renders_per_worker,
                    // The lane holds at most `capacity` tasks in all.
                    waiting: options.renders_per_worker,
                };
                workers.push(spawn(format!("ssr-lane-{i}"), move || worker::run(lane)));
                Lane {
                    demote_after,
                    tasks,
                    len: Arc::new(AtomicUsize::new(0)),
                    capacity: options.renders_per_worker,
                }
            });
            let worker = Setup {
                role: Role::Worker {
                    jobs: jobs.clone(),
                    core: (!cores.is_empty()).then(|| cores[i % cores.len()]),
                    lane,
                },
                instances,
                renders: options.renders_per_worker,
                waiting: options.waiting_per_worker,
            };
            workers.push(spawn(format!("ssr-worker-{i}"), move || {
                worker::run(worker)
            }));
        }
        // As many warm instances in all as the pinned workers keep together.
        let shared = Instances::new(
            options.warm_instances * options.workers,
            options.warm_bytes / 2,
        );
        let shared = Arc::new(Mutex::new(shared));
        sets.push(shared.clone());
        let lifo = blocking.clone();
        let watch = Watch::start(
            options.v8_threads,
            options.scheduling.demote_after,
            blocking.clone(),
            Box::new(move |i, watched, leaving| {
                let setup = Setup {
                    role: Role::V8 {
                        lifo: lifo.clone(),
                        watched,
                    },
                    instances: shared.clone(),
                    renders: 1,
                    // A V8 render that waits is parked in its waker, not on
                    // the thread (`worker.rs`).
                    waiting: 1,
                };
                spawn(format!("ssr-blocking-{i}"), move || {
                    let _leaving = leaving;
                    worker::run(setup)
                })
            }),
        );
        let sweeper = options.warm_idle.map(|idle| sweep(idle, sets.clone()));
        let v8_renders = Arc::new(tokio::sync::Semaphore::new(options.v8_threads));
        let inline_slices = Arc::new(tokio::sync::Semaphore::new(options.inline_slices));
        Pool {
            queue,
            blocking,
            _watch: watch,
            _sweeper: sweeper,
            capacity: options.queue_capacity,
            options,
            workers,
            instances: sets,
            next_set: AtomicUsize::new(0),
            inline_slices,
            v8_renders,
        }
    }

    /// Renders `request` for `tenant` on a worker by `deadline`: waits for
    /// one of the tenant's permits (its concurrency cap), queues the job and
    /// waits for the reply, which comes when the render ends. With `body`, a
    /// body the renderer streams goes there meanwhile (the permit is held
    /// until the stream ends, as the render runs until then).
    pub async fn render<T: Renderable>(
        &self,
        tenant: &Arc<T>,
        request: contract::Request,
        deadline: Instant,
        body: Option<Sink>,
    ) -> Result<Rendered, PoolError> {
        /// Takes the permit back when the request stops waiting: with the
        /// reply, at the deadline, or when the request is dropped.
        struct TakeBack(Arc<Permit>);
        impl Drop for TakeBack {
            fn drop(&mut self) {
                drop(self.0.take());
            }
        }
        let slot = TakeBack(Arc::new(Permit(Mutex::new(None))));
        let mut body = body;
        // A WebSocket's render gives its permit back once it upgraded: a
        // socket that waits for messages holds no core.
        if let Some(offer) = body.as_mut().and_then(Sink::socket_mut) {
            let permit = slot.0.clone();
            offer.on_upgrade(move || drop(permit.take()));
        }
        let lives = body.as_ref().is_some_and(Sink::lives);
        let (reply, mut rx) = oneshot::channel();
        let job = Job {
            permit: slot.0.clone(),
            tenant: tenant.clone() as Arc<dyn Renderable>,
            request,
            deadline,
            enqueued: Instant::now(),
            body,
            reply,
        };
        if lives {
            return self.render_living(job, &**tenant, slot, rx).await;
        }
        match tenant.admission().permits.clone().try_acquire_owned() {
            Ok(permit) => self.launch(job, permit)?,
            Err(TryAcquireError::Closed) => return Err(PoolError::Closed),
            Err(TryAcquireError::NoPermits) if tenant.plugin().yields() => {
                if let Some(reply) = self.wait_in_line(job, &slot.0, &mut rx).await? {
                    drop(slot);
                    return reply;
                }
            }
            Err(TryAcquireError::NoPermits) => {
                let permit = self.wait_for_permit(&**tenant, deadline).await?;
                self.launch(job, permit)?;
            }
        }
        // The worker stops the render at the deadline; this margin only
        // covers the hand-back.
        let margin = Duration::from_millis(100);
        let reply = tokio::time::timeout_at((deadline + margin).into(), rx).await;
        drop(slot);
        match reply {
            Err(_) => Err(PoolError::Timeout),
            Ok(reply) => reply.unwrap_or(Err(PoolError::Closed)),
        }
    }

    /// Starts `job` with `permit`: where [`Pool::begin`] says.
    fn launch(&self, mut job: Job, permit: OwnedSemaphorePermit) -> Result<(), PoolError> {
        *lock(&job.permit.0) = Some(permit);
        job.enqueued = Instant::now();
        match self.begin(&*job.tenant) {
            Begin::Pool => self.submit(job)?,
            Begin::FirstSlice(set, instance, slice) => {
                self.begin_here(job, set, instance)?;
                drop(slice);
            }
            Begin::Await(set, instance, v8_thread) => {
                // A task of its own: a request dropped by its client does
                // not cut the exchange with the worker process short.
                metrics::counter!("ssr_v8_awaited_renders_total").increment(1);
                tokio::spawn(async move {
                    drop(worker::serve(job, set, Some(instance)).await);
                    drop(v8_thread);
                });
            }
        }
        Ok(())
    }

    /// The render of a request that asked for a WebSocket, or of a Durable
    /// Object, as a task of the runtime, not on a worker: it may live as
    /// long as its socket or object, and a worker holds few waiting renders
    /// (`worker.rs`). A Wasm render still yields each time slice, so it
    /// shares the runtime's threads as a first slice does; a V8 render runs
    /// in its worker process. A socket's waits for one of its tenant's
    /// permits as long as it has to answer (`Sink::answer_within`); an
    /// object's takes none (its callers hold theirs while they wait for
    /// it, and an object that held one while idle would starve them).
    async fn render_living(
        &self,
        job: Job,
        tenant: &dyn Renderable,
        slot: impl Drop,
        rx: oneshot::Receiver<Result<Rendered, PoolError>>,
    ) -> Result<Rendered, PoolError> {
        if job.body.as_ref().is_some_and(Sink::is_object) {
            metrics::counter!("ssr_object_renders_total").increment(1);
        } else {
            let within = job.body.as_ref().and_then(Sink::answer_within);
            let admit_by = Instant::now() + within.unwrap_or_default();
            let permit = match tenant.admission().permits.clone().try_acquire_owned() {
                Ok(permit) => permit,
                Err(TryAcquireError::Closed) => return Err(PoolError::Closed),
                Err(TryAcquireError::NoPermits) => self.wait_for_permit(tenant, admit_by).await?,
            };
            *lock(&job.permit.0) = Some(permit);
            metrics::counter!("ssr_websocket_renders_total").increment(1);
        }
        let set = match job.tenant.plugin().yields() {
            true => {
                let workers = &self.instances[..self.options.workers];
                let at = self.next_set.fetch_add(1, Ordering::Relaxed);
                workers[at % workers.len()].clone()
            }
            false => self.instances.last().expect("the V8 threads' set").clone(),
        };
        let instance = match worker::take_warm(&set, &*job.tenant) {
            Some(instance) => instance,
            // Making one may block: not on the runtime's thread.
            None => {
                let tenant = job.tenant.clone();
                let made = tokio::task::spawn_blocking(move || {
                    tenant.plugin().instantiate(tenant.grants())
                });
                match made.await {
                    Ok(made) => made?,
                    Err(_) => return Err(PoolError::Closed),
                }
            }
        };
        // A task of its own: the socket's task may wait on a client that
        // reads slowly, and the render must go on meanwhile (to be refused
        // its sends past the socket's bound, not to stall).
        tokio::spawn(async move { drop(worker::serve(job, set, Some(instance)).await) });
        let reply = rx.await.unwrap_or(Err(PoolError::Closed));
        drop(slot);
        reply
    }

    /// Waits in a Wasm tenant's [`Line`] with `job` (its permit goes in
    /// `slot`) until a worker hands it a permit, or a permit comes back to
    /// the tenant and this request starts the job itself, or `deadline`.
    /// Returns the reply when the job has ended meanwhile; `None` when it is
    /// started and the reply is still to come on `rx`.
    async fn wait_in_line(
        &self,
        job: Job,
        slot: &Arc<Permit>,
        rx: &mut oneshot::Receiver<Result<Rendered, PoolError>>,
    ) -> Result<Option<Result<Rendered, PoolError>>, PoolError> {
        let tenant = job.tenant.clone();
        let deadline = job.deadline;
        // The line is as long as the shared queue, as for other engines.
        if !tenant.admission().line.push(job, self.capacity) {
            return Err(PoolError::TenantBusy);
        }
        /// Takes the job out of the line if the request stops waiting
        /// while it is there.
        struct Leave<'a>(&'a Line, &'a Arc<Permit>);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                drop(self.0.take(self.1));
            }
        }
        let _leave = Leave(&tenant.admission().line, slot);
        let permit = tokio::time::timeout_at(
            deadline.into(),
            tenant.admission().permits.clone().acquire_owned(),
        );
        tokio::select! {
            biased;
            // Handed a permit by a worker, and rendered.
            reply = &mut *rx => Ok(Some(reply.unwrap_or(Err(PoolError::Closed)))),
            permit = permit => match (permit, tenant.admission().line.take(slot)) {
                (Ok(Ok(permit)), Some(job)) => self.launch(job, permit).map(|()| None),
                (Ok(Err(_)), Some(_)) => Err(PoolError::Closed),
                (Err(_), Some(_)) => Err(PoolError::TenantBusy),
                // A worker took the job meanwhile: the permit goes on to
                // the next request waiting for one.
                (_, None) => Ok(None),
            },
        }
    }

    /// Waits in `tenant`'s line for one of its permits until `deadline`. The
    /// line is as long as the shared queue, so a flood of requests for one
    /// tenant at its cap is refused at once instead of holding connections
    /// that other tenants' clients need.
    async fn wait_for_permit(
        &self,
        tenant: &dyn Renderable,
        deadline: Instant,
    ) -> Result<OwnedSemaphorePermit, PoolError> {
        struct InLine<'a>(&'a AtomicUsize);
        impl Drop for InLine<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        let _in_line = InLine(&tenant.admission().waiting);
        if tenant.admission().waiting.fetch_add(1, Ordering::Relaxed) >= self.capacity {
            return Err(PoolError::TenantBusy);
        }
        tokio::time::timeout_at(
            deadline.into(),
            tenant.admission().permits.clone().acquire_owned(),
        )
        .await
        .map_err(|_| PoolError::TenantBusy)?
        .map_err(|_| PoolError::Closed)
    }

    /// Queues `job`.
    fn submit(&self, job: Job) -> Result<(), PoolError> {
        if job.tenant.plugin().yields() {
            self.queue.try_send(Work::Job(job)).map_err(queue_error)?;
        } else {
            self.blocking.submit(job)?;
        }
        metrics::gauge!("ssr_queue_depth").set(self.queue_depth() as f64);
        Ok(())
    }

    /// Where `tenant`'s render begins (see the module's "Inline"): here,
    /// with a warm instance taken out of its set, when it may.
    fn begin(&self, tenant: &dyn Renderable) -> Begin {
        if tenant.plugin().yields() {
            if !tenant.admission().inline.allowed() {
                return Begin::Pool;
            }
            let Ok(slice) = self.inline_slices.clone().try_acquire_owned() else {
                return Begin::Pool;
            };
            let workers = &self.instances[..self.options.workers];
            let first = self.next_set.fetch_add(1, Ordering::Relaxed);
            for i in 0..workers.len() {
                let set = &workers[(first + i) % workers.len()];
                if let Some(instance) = worker::take_warm(set, tenant) {
                    return Begin::FirstSlice(set.clone(), instance, slice);
                }
            }
        } else if self.options.inline_slices > 0
            && tenant.plugin().awaits()
            && let Ok(v8_thread) = self.v8_renders.clone().try_acquire_owned()
        {
            let set = self.instances.last().expect("the V8 threads' set");
            if let Some(instance) = worker::take_warm(set, tenant) {
                return Begin::Await(set.clone(), instance, v8_thread);
            }
        }
        Begin::Pool
    }

    /// Runs `job`'s render on this thread for one poll: its first slice.
    /// One that has not ended then goes on a worker, and its tenant's next
    /// renders start on the pool for a while.
    fn begin_here(
        &self,
        job: Job,
        set: SharedInstances,
        instance: Box<dyn crate::engine::Instance>,
    ) -> Result<(), PoolError> {
        let tenant = job.tenant.clone();
        let mut render: std::pin::Pin<Box<dyn std::future::Future<Output = _> + Send>> =
            Box::pin(worker::serve(job, set, Some(instance)));
        // The worker that takes it over polls it at once, with its own
        // waker, so nothing that wakes this one's is lost.
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match render.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(ended) => {
                drop(ended);
                tenant.admission().inline.ended();
                metrics::counter!("ssr_inline_renders_total", "ended" => "inline").increment(1);
                Ok(())
            }
            std::task::Poll::Pending => {
                tenant.admission().inline.spilled();
                metrics::counter!("ssr_inline_renders_total", "ended" => "on a worker")
                    .increment(1);
                let task = Task {
                    render,
                    ran: Duration::ZERO,
                    in_lane: None,
                    waker: None,
                };
                self.queue
                    .try_send(Work::Begun(task))
                    .map_err(queue_error)?;
                metrics::gauge!("ssr_queue_depth").set(self.queue_depth() as f64);
                Ok(())
            }
        }
    }

    /// Renders on the calling thread instead of a worker: what rendering on
    /// the async runtime's threads costs, for `benches/load.sh` to compare
    /// with the pool (`ssr serve --render-on runtime`). It blocks the thread
    /// for the whole render; use the pool in production.
    pub fn render_here(
        &self,
        tenant: &dyn Renderable,
        request: &contract::Request,
        deadline: Instant,
    ) -> Result<Rendered, PoolError> {
        HERE.with(|cell| {
            let instances = cell.get_or_init(|| {
                Mutex::new(Instances::new(
                    self.options.warm_instances,
                    self.options.worker_warm_bytes(),
                ))
            });
            let started = Instant::now();
            let (response, render_time) = crate::engine::block_on(worker::render(
                instances, tenant, request, deadline, started, None, None,
            ))?;
            Ok(Rendered {
                response,
                queue_wait: Duration::ZERO,
                render_time,
            })
        })
    }

    /// Drops tenant `id`'s warm instances, but those of version `keep`:
    /// after a replace (`keep` the new version) or a removal (`None`), so
    /// their memory (a Wasm linear memory, a V8 isolate's heap) is given
    /// back now, not when they would be evicted. Blocks while it drops them
    /// (after each lock).
    pub fn forget(&self, id: &str, keep: Option<u64>) {
        for set in &self.instances {
            let gone = lock(set).forget(id, keep);
            drop(gone);
        }
    }

    /// Instances kept warm, on every thread.
    pub fn warm_instances(&self) -> usize {
        self.instances.iter().map(|set| lock(set).len()).sum()
    }

    /// Jobs waiting for a worker.
    pub fn queue_depth(&self) -> usize {
        self.queue.len() + self.blocking.len()
    }

    pub fn queue_capacity(&self) -> usize {
        self.capacity
    }
}
