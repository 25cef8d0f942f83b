//! One pinned worker: pulls jobs from the shared queue and renders them on
//! instances it owns ([`Instances`]), several at a time in time slices. Its
//! background lane and the blocking threads run the same loop: the lane over
//! the worker's long renders, the blocking threads one render at a time,
//! sharing one set of instances.
//!
//! Scheduling: a worker runs up to `renders_per_worker` renders at once, as
//! tasks polled round-robin on its one thread. A Wasm render yields at the
//! first epoch tick after it has run one `sched::SLICE` since
//! it was polled (a slice of 1-2 ms), so a spinning render holds the core
//! for one slice at a time, not until its deadline. A newly admitted
//! render is polled first, so it starts within one slice of being admitted.
//! A render that has used `demote_after` of CPU moves to the worker's background
//! lane when other renders wait, which runs the same loop at low priority
//! (`demote.rs`). A render that cannot yield (V8) would stall every render
//! interleaved with it, so those run on the pool's blocking threads, one at
//! a time each; the kernel time-slices those threads. They
//! share their instances (a V8 isolate may move between threads: every shim
//! call takes its `Locker`), so a tenant has as many warm isolates as it has
//! renders at once, not one per thread, and the most recently used is
//! taken first.
//!
//! Waking: a task is polled only once its waker was woken. A Wasm render
//! that ends its slice wakes itself before it returns `Pending`, so it is
//! polled again in its turn; one that suspended in `fetch-wait`
//! (`engine::Rendering`) is woken from the fetch runtime when a request
//! finishes, and meanwhile it is parked: it holds its instance but not one
//! of the `renders` slots, so the worker serves other renders. A worker
//! keeps at most `waiting` tasks parked, and takes no new job while at that
//! bound. The thread sleeps only when no task is ready: in the blocking
//! `recv` of the next job or wake-up. The instance set's lock is held only
//! to pick or return an instance: never across a render, an instantiation,
//! or a drop. A V8 thread keeps no parked render: one that waits leaves the
//! thread, parked in its waker, and goes back to the V8 threads' line
//! (`lifo.rs`) when woken, so a waiting V8 render holds no thread either.
//!
//! Lifetime: the thread lives as long as the pool. Warm instances live until
//! evicted (least recently used, beyond `warm_instances`), until unused for
//! `warm_idle` (`Pool::start`'s sweeper), until their
//! tenant is replaced or removed (`Pool::forget` drops the warm ones at
//! once; one rendering then is dropped when its render ends, as its
//! `Tenant::retired` says), or until an error poisons them (a trap, a
//! timeout, memory exhausted): the next request then gets a fresh instance.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use core_affinity::CoreId;
use crossbeam_channel::{Receiver, Sender};
use tracing::Instrument;

use super::Renderable;
use super::demote::{Lane, Watched, lower_priority};
use super::lifo::Lifo;
use super::{Ended, Job, PoolError, Rendered, Task, Work, lock};
use crate::engine::Mode;
use crate::engine::{Budget, EngineError, Instance};
use crate::sched::thread_cpu_time;
use crate::web::stream::Sink;

pub(super) struct Warm {
    tenant: Arc<str>,
    version: u64,
    instance: Box<dyn Instance>,
    /// Its memory when checked in ([`Instance::memory_bytes`]).
    bytes: usize,
    last_used: u64,
    /// When it was checked in, for [`Instances::expire`].
    idle_since: Instant,
}

/// The warm instances of one worker (or of all blocking threads), and how a
/// render picks one. Invariant: at most `capacity` of them, and at most
/// `budget` bytes of memory together (`--warm-memory-mib`'s share), but
/// for one instance alone.
pub(super) struct Instances {
    warm: Vec<Warm>,
    capacity: usize,
    budget: usize,
    tick: u64,
}

impl Instances {
    pub(super) fn new(capacity: usize, budget: usize) -> Instances {
        Instances {
            warm: Vec::with_capacity(capacity),
            capacity,
            budget,
            tick: 0,
        }
    }

    /// This tenant's most recently used warm instance (reuse mode), out of
    /// the warm set until [`Instances::check_in`]; `None` when the tenant is
    /// in fresh mode or has none warm. Also returns the tenant's instances
    /// of older versions, which leave the set, for the caller to drop after
    /// the lock.
    fn check_out(&mut self, tenant: &dyn Renderable) -> (Option<Box<dyn Instance>>, Vec<Warm>) {
        self.tick += 1;
        let reused = match tenant.mode() {
            Mode::Reuse => self
                .warm
                .iter()
                .enumerate()
                .filter(|(_, w)| w.tenant == *tenant.id() && w.version == tenant.version())
                .max_by_key(|(_, w)| w.last_used)
                .map(|(i, _)| i)
                .map(|i| self.warm.swap_remove(i).instance),
            Mode::Fresh => None,
        };
        // An older version of this tenant's instance is never used again.
        let stale = self.forget(tenant.id(), Some(tenant.version()));
        (reused, stale)
    }

    /// Keeps `instance` warm after a render that ended in `out`, unless the
    /// tenant is in fresh mode or the error poisoned the instance; the least
    /// recently used leave for it while the set is past its capacity or its
    /// budget. Returns what leaves the warm set, for the caller to drop
    /// after the lock.
    #[must_use]
    fn check_in(
        &mut self,
        tenant: &dyn Renderable,
        instance: Box<dyn Instance>,
        out: &Result<contract::Response, EngineError>,
    ) -> Vec<Box<dyn Instance>> {
        let keep = tenant.mode() == Mode::Reuse
            && !matches!(out, Err(e) if e.poisons_instance())
            && !tenant.retired();
        if !keep {
            return vec![instance];
        }
        let bytes = instance.memory_bytes();
        let mut held: usize = self.warm.iter().map(|w| w.bytes).sum();
        let mut evicted = Vec::new();
        while !self.warm.is_empty()
            && (self.warm.len() >= self.capacity || held + bytes > self.budget)
        {
            let lru = self
                .warm
                .iter()
                .enumerate()
                .min_by_key(|(_, w)| w.last_used)
                .map(|(i, _)| i)
                .expect("not empty");
            let gone = self.warm.swap_remove(lru);
            held -= gone.bytes;
            evicted.push(gone.instance);
        }
        self.warm.push(Warm {
            tenant: tenant.id().clone(),
            version: tenant.version(),
            instance,
            bytes,
            last_used: self.tick,
            idle_since: Instant::now(),
        });
        evicted
    }

    /// Takes the instances unused for `idle` out of the set, for the caller
    /// to drop after the lock.
    pub(super) fn expire(&mut self, idle: Duration) -> Vec<Warm> {
        let now = Instant::now();
        self.warm
            .extract_if(.., |w| now.duration_since(w.idle_since) >= idle)
            .collect()
    }

    /// Takes tenant `id`'s warm instances out of the set, but those of
    /// version `keep`, for the caller to drop after the lock.
    pub(super) fn forget(&mut self, id: &str, keep: Option<u64>) -> Vec<Warm> {
        self.warm
            .extract_if(.., |w| &*w.tenant == id && Some(w.version) != keep)
            .collect()
    }

    pub(super) fn len(&self) -> usize {
        self.warm.len()
    }
}

/// A thread's (or the blocking threads') instances.
pub(super) type SharedInstances = Arc<Mutex<Instances>>;

/// [`Instances::check_out`] from `set`, the tenant's older instances
/// dropped after the lock.
pub(super) fn take_warm(
    set: &Mutex<Instances>,
    tenant: &dyn Renderable,
) -> Option<Box<dyn Instance>> {
    let (reused, stale) = lock(set).check_out(tenant);
    drop(stale);
    reused
}

/// What a pool thread is, with what only that kind of thread has.
pub(super) enum Role {
    /// A pinned worker: takes jobs, and renders begun on an HTTP thread,
    /// from the queue every worker shares, and hands its long renders to
    /// its background lane, when it has one.
    Worker {
        jobs: Receiver<Work>,
        core: Option<CoreId>,
        lane: Option<Lane>,
    },
    /// A worker's background lane: at low priority, unpinned, it runs the
    /// long renders its worker hands it.
    Lane { tasks: Receiver<Task> },
    /// A V8 thread (`--v8-threads`): takes its jobs last in, first out
    /// (`lifo.rs`), one at a time, under the watch that lowers long renders
    /// (`demote.rs`).
    V8 {
        lifo: Arc<Lifo>,
        watched: Arc<Watched>,
    },
}

impl Role {
    /// What happens next: a new task, when `admit`; a parked task woken;
    /// or, when not `block`, nothing yet. Blocks only when `block`, on a
    /// new job (if `admit`) and on `wakes` (if `parked`). `done` is the
    /// permit of the render this thread has just finished: a V8 thread
    /// gives it back only once it is idle, so the request waiting for that
    /// permit is handed to this thread (hot caches, no wake-up) rather than
    /// to another idle one.
    fn next(
        &self,
        want: Want,
        mut done: Option<Ended>,
        instances: &SharedInstances,
        wakes: &Receiver<u64>,
    ) -> Event {
        let Want {
            admit,
            block,
            parked,
        } = want;
        loop {
            let job = match self {
                _ if !admit && block => return wakes.recv().map_or(Event::Closed, Event::Woken),
                _ if !admit => return Event::Idle,
                // A V8 render that waits leaves the thread (it is parked
                // in its waker, and comes back through the line).
                Role::V8 { lifo, .. } => {
                    let work = if block {
                        lifo.next(done.take())
                    } else {
                        lifo.try_next()
                    };
                    match work {
                        Some(Work::Begun(task)) => return Event::Task(task),
                        Some(Work::Job(job)) => Some(job),
                        None => None,
                    }
                }
                Role::Worker { jobs, .. } => {
                    drop(done.take());
                    match receive(jobs, block, parked.then_some(wakes)) {
                        Received::Item(Work::Job(job)) => Some(job),
                        Received::Item(Work::Begun(task)) => return Event::Task(task),
                        Received::Woken(id) => return Event::Woken(id),
                        Received::Nothing => None,
                    }
                }
                Role::Lane { tasks } => {
                    drop(done.take());
                    return match receive(tasks, block, parked.then_some(wakes)) {
                        Received::Item(task) => Event::Task(task),
                        Received::Woken(id) => Event::Woken(id),
                        Received::Nothing if block => Event::Closed,
                        Received::Nothing => Event::Idle,
                    };
                }
            };
            match job {
                None if block => return Event::Closed,
                None => return Event::Idle,
                Some(job) => {
                    if let Some(task) = admit_job(job, instances) {
                        return Event::Task(task);
                    }
                }
            }
        }
    }

    /// Whether a render that ends here hands its permit to its tenant's
    /// next request in line, and this thread renders it: on a worker, when
    /// no job waits in the shared queue (a lane's renders are the long ones,
    /// at low priority; a V8 thread's permit goes back through `Lifo::next`).
    fn takes_next_in_line(&self) -> bool {
        matches!(self, Role::Worker { jobs, .. } if jobs.is_empty())
    }

    /// Whether work waits for a thread.
    fn waiting(&self) -> bool {
        match self {
            Role::Worker { jobs, .. } => !jobs.is_empty(),
            Role::V8 { lifo, .. } => lifo.len() > 0,
            Role::Lane { tasks } => !tasks.is_empty(),
        }
    }

    /// Runs one slice of `task`, counting its CPU time where a lane may
    /// take it (`Lane::demote`), or under the watch on a V8 thread.
    fn poll(&self, task: &mut Task, cx: &mut Context<'_>) -> Poll<Ended> {
        match self {
            Role::V8 { watched, .. } => watched.during(|| task.render.as_mut().poll(cx)),
            Role::Worker { lane: Some(_), .. } => {
                let cpu = thread_cpu_time();
                let poll = task.render.as_mut().poll(cx);
                task.ran += thread_cpu_time().saturating_sub(cpu);
                poll
            }
            _ => task.render.as_mut().poll(cx),
        }
    }
}

/// What a pool thread asks of [`Role::next`].
#[derive(Clone, Copy)]
struct Want {
    /// It has room for a new task.
    admit: bool,
    /// It has nothing ready to poll: wait.
    block: bool,
    /// It has parked tasks, whose wake-ups count.
    parked: bool,
}

/// What happens next on a pool thread.
enum Event {
    Task(Task),
    Woken(u64),
    /// Nothing now (not blocking).
    Idle,
    /// The pool is gone, and nothing is left to wait for.
    Closed,
}

/// What [`receive`] got.
enum Received<T> {
    Item(T),
    Woken(u64),
    Nothing,
}

/// The next item on `rx`, or a wake-up on `wakes` if given: waiting for
/// one if `block`, else only one there now. Once `rx` is closed, a blocking
/// call still waits on `wakes`.
fn receive<T>(rx: &Receiver<T>, block: bool, wakes: Option<&Receiver<u64>>) -> Received<T> {
    if !block {
        return rx.try_recv().map_or(Received::Nothing, Received::Item);
    }
    let Some(wakes) = wakes else {
        return rx.recv().map_or(Received::Nothing, Received::Item);
    };
    crossbeam_channel::select! {
        recv(rx) -> item => match item {
            Ok(item) => Received::Item(item),
            Err(_) => wakes.recv().map_or(Received::Nothing, Received::Woken),
        },
        recv(wakes) -> id => id.map_or(Received::Nothing, Received::Woken),
    }
}

/// A job as a task, unless its client went away while it waited.
fn admit_job(job: Job, instances: &SharedInstances) -> Option<Task> {
    if job.reply.is_closed() {
        return None;
    }
    Some(Task {
        render: Box::pin(serve(job, instances.clone(), None)),
        ran: Duration::ZERO,
        in_lane: None,
        waker: None,
    })
}

/// A task's waker, made by the thread that runs it: wakes it once per
/// poll, however often it is called.
pub(in crate::pool) struct TaskWaker {
    id: u64,
    woken: AtomicBool,
    to: WakeTo,
}

/// Where a woken task goes.
enum WakeTo {
    /// Its id goes to the thread (a worker or a lane), which keeps the task
    /// parked meanwhile.
    Thread(Sender<u64>),
    /// A V8 render: its thread has left it in `parked`, and the waker gives
    /// it back to the V8 threads' line (`Lifo::resume`).
    Line {
        lifo: Arc<Lifo>,
        parked: Mutex<Option<Task>>,
    },
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.woken.swap(true, Ordering::AcqRel) {
            return;
        }
        match &self.to {
            WakeTo::Thread(to) => {
                let _ = to.send(self.id);
            }
            WakeTo::Line { lifo, parked } => {
                let task = lock(parked).take();
                if let Some(task) = task {
                    lifo.resume(task);
                }
            }
        }
    }
}

impl TaskWaker {
    /// Parks a task that is waiting (not woken since its poll began): in
    /// `parked` when its thread keeps it, else in the waker until it is
    /// woken. Returns it when it was woken meanwhile: it is ready.
    fn park(&self, task: Task, parked: &mut HashMap<u64, Task>) -> Option<Task> {
        match &self.to {
            WakeTo::Thread(_) => {
                // A wake-up that comes now finds it there (`unpark`).
                parked.insert(self.id, task);
                None
            }
            WakeTo::Line { lifo, parked } => {
                let mut slot = lock(parked);
                if self.woken.load(Ordering::Acquire) {
                    return Some(task);
                }
                // Counted before a wake-up can take it (it needs the slot).
                lifo.park();
                *slot = Some(task);
                None
            }
        }
    }
}

/// A pool thread's wake-ups: where its tasks' wakers send their ids, or,
/// on a V8 thread, the line woken renders go back to.
struct Wakes {
    tx: Sender<u64>,
    rx: Receiver<u64>,
    line: Option<Arc<Lifo>>,
    next_id: u64,
}

impl Wakes {
    fn new(role: &Role) -> Wakes {
        let (tx, rx) = crossbeam_channel::unbounded();
        let line = match role {
            Role::V8 { lifo, .. } => Some(lifo.clone()),
            _ => None,
        };
        Wakes {
            tx,
            rx,
            line,
            next_id: 0,
        }
    }

    /// Gives `task` a waker of this thread's (a task that moves to a lane
    /// gets the lane's), woken: it is ready to poll.
    fn adopt(&mut self, mut task: Task) -> Task {
        self.next_id += 1;
        let to = match &self.line {
            Some(lifo) => WakeTo::Line {
                lifo: lifo.clone(),
                parked: Mutex::new(None),
            },
            None => WakeTo::Thread(self.tx.clone()),
        };
        task.waker = Some(Arc::new(TaskWaker {
            id: self.next_id,
            woken: AtomicBool::new(true),
            to,
        }));
        task
    }
}

/// What a pool thread runs with.
pub(super) struct Setup {
    pub(super) role: Role,
    pub(super) instances: SharedInstances,
    /// How many tasks it interleaves.
    pub(super) renders: usize,
    /// How many tasks it keeps parked while they wait for a `fetch`.
    pub(super) waiting: usize,
}

/// A pool thread's loop.
pub(super) fn run(setup: Setup) {
    let Setup {
        role,
        instances,
        renders,
        waiting,
    } = setup;
    if let Role::Worker {
        core: Some(core), ..
    } = &role
        && !core_affinity::set_for_current(*core)
    {
        tracing::warn!(core = core.id, "could not pin the worker to its core");
    }
    if let Role::Lane { .. } = role {
        lower_priority();
    }
    let mut wakes = Wakes::new(&role);
    // Tasks to poll, in turn; and tasks waiting for a wake-up, by id.
    let mut ready: VecDeque<Task> = VecDeque::with_capacity(renders);
    let mut parked: HashMap<u64, Task> = HashMap::new();
    let mut done = None;
    loop {
        // A V8 thread lowered to low priority cannot raise itself again: it
        // leaves, and the watch starts another in its place.
        if let Role::V8 { watched, .. } = &role
            && ready.is_empty()
            && parked.is_empty()
            && watched.demoted()
        {
            return;
        }
        while let Ok(id) = wakes.rx.try_recv() {
            unpark(id, &mut parked, &mut ready);
        }
        loop {
            let want = Want {
                admit: ready.len() < renders && parked.len() < waiting,
                block: ready.is_empty(),
                parked: !parked.is_empty(),
            };
            if !want.admit && !want.block {
                break;
            }
            match role.next(want, done.take(), &instances, &wakes.rx) {
                // A new render is polled first: it starts within a slice.
                Event::Task(task) => ready.push_front(wakes.adopt(task)),
                Event::Woken(id) => unpark(id, &mut parked, &mut ready),
                Event::Idle => break,
                // The pool is gone and every job done.
                Event::Closed if parked.is_empty() => return,
                Event::Closed => {}
            }
        }
        let Some(mut task) = ready.pop_front() else {
            continue;
        };
        let waker = task.waker.clone().expect("adopted");
        waker.woken.store(false, Ordering::Release);
        let poll = role.poll(
            &mut task,
            &mut Context::from_waker(&Waker::from(waker.clone())),
        );
        match poll {
            // Waiting for a `fetch`: parked until its waker is woken.
            Poll::Pending if !waker.woken.load(Ordering::Acquire) => {
                if let Some(task) = waker.park(task, &mut parked) {
                    ready.push_back(task);
                }
            }
            // Its slice ended. It moves to the lane only when other renders
            // want this worker: alone, a long render keeps its priority.
            Poll::Pending => match &role {
                Role::Worker {
                    lane: Some(lane), ..
                } if !ready.is_empty() || role.waiting() => {
                    if let Err(task) = lane.demote(task) {
                        ready.push_back(task);
                    }
                }
                _ => ready.push_back(task),
            },
            // The tenant's next request in line takes its permit and its
            // place here, when this thread would otherwise have nothing to
            // run and no other job waits for a worker (`line.rs`). With
            // other renders ready here, the permit goes back instead, so the
            // next render can start on a worker that is idle: handing on
            // then kept both of a cap-2 tenant's renders on one worker, the
            // other asleep, and a render that had yielded waited behind
            // every render handed on ahead of it (`tests/all/pool.rs`,
            // a_render_that_yields_is_not_passed_over_...).
            Poll::Ready(ended)
                if ready.is_empty() && role.takes_next_in_line() && parked.len() < waiting =>
            {
                if let Some(task) = ended
                    .next_in_line()
                    .and_then(|job| admit_job(job, &instances))
                {
                    metrics::counter!("ssr_line_handoffs_total").increment(1);
                    ready.push_front(wakes.adopt(task));
                }
            }
            // Given back now, unless this thread is about to wait.
            Poll::Ready(ended) if ready.is_empty() && parked.is_empty() => done = Some(ended),
            Poll::Ready(ended) => drop(ended),
        }
    }
}

/// Moves task `id` from `parked` to `ready`, if it is parked (a wake-up
/// may come for a task that is ready already, or gone to the lane).
fn unpark(id: u64, parked: &mut HashMap<u64, Task>, ready: &mut VecDeque<Task>) {
    if let Some(task) = parked.remove(&id) {
        ready.push_back(task);
    }
}

/// One job, from admission to its reply, on an instance of `instances`
/// (`taken` from there already, or checked out); ends with the job's permit,
/// unless the request took it back at its deadline.
pub(super) async fn serve(
    mut job: Job,
    instances: SharedInstances,
    taken: Option<Box<dyn Instance>>,
) -> Ended {
    let started = Instant::now();
    let queue_wait = started - job.enqueued;
    let body = job.body.take();
    let reply = render(
        &instances,
        &*job.tenant,
        &job.request,
        job.deadline,
        started,
        body,
        taken,
    )
    .await
    .map(|(response, render_time)| Rendered {
        response,
        queue_wait,
        render_time,
    });
    // Taken before the reply goes, so that the request does not give the
    // permit back before this thread is idle (`Role::next`).
    let permit = job.permit.take();
    if let Err(Err(e)) = job.reply.send(reply) {
        // No one waits for it (a client that left a streamed response): the
        // log is the only place that says how it ended.
        tracing::info!(tenant = %job.tenant.id(), "a render whose client had left ended: {}", crate::report::Chain(&e));
    }
    Ended {
        permit,
        tenant: job.tenant,
    }
}

/// One render by the deadline, with its time, on `taken` or an instance of
/// `instances` (warm, or made), checked in there after; shared by the
/// workers, renders begun on the runtime (`Pool::render`) and the
/// on-runtime comparison path (`Pool::render_here`).
pub(super) async fn render(
    instances: &Mutex<Instances>,
    tenant: &dyn Renderable,
    request: &contract::Request,
    deadline: Instant,
    started: Instant,
    body: Option<Sink>,
    taken: Option<Box<dyn Instance>>,
) -> Result<(contract::Response, Duration), PoolError> {
    let remaining = deadline.saturating_duration_since(started);
    if remaining.is_zero() {
        return Err(PoolError::Timeout);
    }
    let span = tracing::debug_span!(
        "render",
        tenant = &**tenant.id(),
        route = request.path.as_str()
    );
    // The lock is not held across the instantiation or the render: other
    // tasks and threads check instances out meanwhile.
    let reused = taken.or_else(|| take_warm(instances, tenant));
    let mut instance = match reused {
        Some(instance) => instance,
        None => tenant.plugin().instantiate(tenant.grants())?,
    };
    // A WebSocket's render answers within a page's time, then lives on
    // as its messages come and go (`web::websocket`).
    let wall = body
        .as_ref()
        .and_then(Sink::answer_within)
        .map_or(remaining, |w| w.min(remaining));
    let out = instance
        .render(
            request,
            Budget {
                cpu: tenant.render_deadline(),
                wall,
            },
            body,
        )
        .instrument(span)
        .await;
    let out = match out {
        Ok(response) if response.body.len() > tenant.max_response_bytes() => {
            Err(EngineError::ResponseTooLarge {
                size: response.body.len(),
                limit: tenant.max_response_bytes(),
            })
        }
        other => other,
    };
    let gone = lock(instances).check_in(tenant, instance, &out);
    drop(gone);
    match out {
        Ok(response) => Ok((response, started.elapsed())),
        Err(EngineError::Timeout(_)) if Instant::now() >= deadline => Err(PoolError::Timeout),
        Err(e) => Err(PoolError::Engine(e)),
    }
}
