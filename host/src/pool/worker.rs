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
//! Invariant: tasks never wait on I/O (`engine::Rendering`), so `Pending`
//! only ends a slice and the thread polls the next task at once; it sleeps
//! only when it has no task, in the blocking `recv`. The instance set's lock
//! is held only to pick or return an instance: never across a render, an
//! instantiation, or a drop.
//!
//! Lifetime: the thread lives as long as the pool. Warm instances live until
//! evicted (least recently used, beyond `warm_instances`), until their
//! tenant is replaced or removed (`Pool::forget` drops the warm ones at
//! once; one rendering then is dropped when its render ends, as its
//! `Tenant::retired` says), or until an error poisons them (a trap, a
//! timeout, memory exhausted): the next request then gets a fresh instance.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use core_affinity::CoreId;
use crossbeam_channel::Receiver;
use tokio::sync::OwnedSemaphorePermit;
use tracing::Instrument;

use super::demote::{Lane, Watched, lower_priority};
use super::lifo::Lifo;
use super::{Job, PoolError, Rendered, Task, lock};
use crate::engine::{EngineError, Instance};
use crate::sched::thread_cpu_time;
use crate::tenant::{Mode, Tenant};

pub(super) struct Warm {
    tenant: Arc<str>,
    version: u64,
    instance: Box<dyn Instance>,
    last_used: u64,
}

/// The warm instances of one worker (or of all blocking threads), and how a
/// render picks one.
pub(super) struct Instances {
    warm: Vec<Warm>,
    capacity: usize,
    tick: u64,
}

impl Instances {
    pub(super) fn new(capacity: usize) -> Instances {
        Instances {
            warm: Vec::with_capacity(capacity),
            capacity,
            tick: 0,
        }
    }

    /// This tenant's most recently used warm instance (reuse mode), out of
    /// the warm set until [`Instances::check_in`]; `None` when the tenant is
    /// in fresh mode or has none warm. Also returns the tenant's instances
    /// of older versions, which leave the set, for the caller to drop after
    /// the lock.
    fn check_out(&mut self, tenant: &Tenant) -> (Option<Box<dyn Instance>>, Vec<Warm>) {
        self.tick += 1;
        let reused = match tenant.mode() {
            Mode::Reuse => self
                .warm
                .iter()
                .enumerate()
                .filter(|(_, w)| w.tenant == tenant.id && w.version == tenant.version())
                .max_by_key(|(_, w)| w.last_used)
                .map(|(i, _)| i)
                .map(|i| self.warm.swap_remove(i).instance),
            Mode::Fresh => None,
        };
        // An older version of this tenant's instance is never used again.
        let stale = self.forget(&tenant.id, Some(tenant.version()));
        (reused, stale)
    }

    /// Keeps `instance` warm after a render that ended in `out`, unless the
    /// tenant is in fresh mode or the error poisoned the instance. Returns
    /// what leaves the warm set, for the caller to drop after the lock.
    #[must_use]
    fn check_in(
        &mut self,
        tenant: &Tenant,
        instance: Box<dyn Instance>,
        out: &Result<contract::Response, EngineError>,
    ) -> Option<Box<dyn Instance>> {
        let keep = tenant.mode() == Mode::Reuse
            && !matches!(out, Err(e) if e.poisons_instance())
            && !tenant.retired.load(Ordering::Acquire);
        if !keep {
            return Some(instance);
        }
        let evicted = if self.warm.len() >= self.capacity {
            self.warm
                .iter()
                .enumerate()
                .min_by_key(|(_, w)| w.last_used)
                .map(|(i, _)| i)
                .map(|lru| self.warm.swap_remove(lru).instance)
        } else {
            None
        };
        self.warm.push(Warm {
            tenant: tenant.id.clone(),
            version: tenant.version(),
            instance,
            last_used: self.tick,
        });
        evicted
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

/// What a pool thread is, with what only that kind of thread has.
pub(super) enum Role {
    /// A pinned worker: takes jobs from the queue every worker shares, and
    /// hands its long renders to its background lane, when it has one.
    Worker {
        jobs: Receiver<Job>,
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
    /// The next task: waiting for work if `wait`, else only one that is
    /// there now; `None` when there is none (or, waiting, once the pool is
    /// gone and every job taken). `done` is the permit of the render this
    /// thread has just finished: a V8 thread gives it back only once it is
    /// idle, so the request waiting for that permit is handed to this
    /// thread (hot caches, no wake-up) rather than to another idle one.
    fn next(
        &self,
        wait: bool,
        mut done: Option<OwnedSemaphorePermit>,
        instances: &SharedInstances,
    ) -> Option<Task> {
        loop {
            let job = match self {
                Role::V8 { lifo, .. } if wait => lifo.next(done.take())?,
                Role::V8 { lifo, .. } => lifo.try_next()?,
                Role::Worker { jobs, .. } => {
                    drop(done.take());
                    receive(jobs, wait)?
                }
                Role::Lane { tasks } => {
                    drop(done.take());
                    return receive(tasks, wait);
                }
            };
            if let Some(task) = admit(job, instances) {
                return Some(task);
            }
        }
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
    fn poll(&self, task: &mut Task, cx: &mut Context<'_>) -> Poll<Option<OwnedSemaphorePermit>> {
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

/// The next item on `rx`: waiting for one if `wait`, else only one there now.
fn receive<T>(rx: &Receiver<T>, wait: bool) -> Option<T> {
    if wait {
        rx.recv().ok()
    } else {
        rx.try_recv().ok()
    }
}

/// A job as a task, unless its client went away while it waited.
fn admit(job: Job, instances: &SharedInstances) -> Option<Task> {
    if job.reply.is_closed() {
        return None;
    }
    Some(Task {
        render: Box::pin(serve(job, instances.clone())),
        ran: Duration::ZERO,
        in_lane: None,
    })
}

/// What a pool thread runs with.
pub(super) struct Setup {
    pub(super) role: Role,
    pub(super) instances: SharedInstances,
    /// How many tasks it interleaves.
    pub(super) renders: usize,
}

/// A pool thread's loop.
pub(super) fn run(setup: Setup) {
    let Setup {
        role,
        instances,
        renders,
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
    let mut tasks: VecDeque<Task> = VecDeque::with_capacity(renders);
    let mut cx = Context::from_waker(Waker::noop());
    let mut done = None;
    loop {
        // A V8 thread lowered to low priority cannot raise itself again: it
        // leaves, and the watch starts another in its place.
        if let Role::V8 { watched, .. } = &role
            && tasks.is_empty()
            && watched.demoted()
        {
            return;
        }
        while tasks.len() < renders {
            // Waits only when it has nothing to poll.
            let wait = tasks.is_empty();
            match role.next(wait, done.take(), &instances) {
                Some(task) => tasks.push_front(task),
                None if wait => return, // The pool is gone and every job done.
                None => break,
            }
        }
        if let Some(mut task) = tasks.pop_front() {
            match role.poll(&mut task, &mut cx) {
                // Only when other renders want this worker: alone, a long
                // render keeps its priority.
                Poll::Pending => match &role {
                    Role::Worker {
                        lane: Some(lane), ..
                    } if !tasks.is_empty() || role.waiting() => {
                        if let Err(task) = lane.demote(task) {
                            tasks.push_back(task);
                        }
                    }
                    _ => tasks.push_back(task),
                },
                // Given back now, unless this thread is about to wait.
                Poll::Ready(permit) if tasks.is_empty() => done = permit,
                Poll::Ready(permit) => drop(permit),
            }
        }
    }
}

/// One job, from admission to its reply; returns the job's permit, unless
/// the request took it back at its deadline.
async fn serve(job: Job, instances: SharedInstances) -> Option<OwnedSemaphorePermit> {
    let started = Instant::now();
    let queue_wait = started - job.enqueued;
    let reply = render(&instances, &job.tenant, &job.request, job.deadline, started)
        .await
        .map(|(response, render_time)| Rendered {
            response,
            queue_wait,
            render_time,
        });
    // Taken before the reply goes, so that the request does not give the
    // permit back before this thread is idle (`Role::next`).
    let permit = job.permit.take();
    let _ = job.reply.send(reply);
    permit
}

/// One render by the deadline, with its time; shared by the workers and the
/// on-runtime comparison path (`Pool::render_here`).
pub(super) async fn render(
    instances: &Mutex<Instances>,
    tenant: &Tenant,
    request: &contract::Request,
    deadline: Instant,
    started: Instant,
) -> Result<(contract::Response, Duration), PoolError> {
    let remaining = deadline.saturating_duration_since(started);
    if remaining.is_zero() {
        return Err(PoolError::Timeout);
    }
    let span = tracing::debug_span!(
        "render",
        tenant = &*tenant.id,
        route = request.path.as_str()
    );
    // The lock is not held across the instantiation or the render: other
    // tasks and threads check instances out meanwhile.
    let (reused, stale) = lock(instances).check_out(tenant);
    drop(stale);
    let mut instance = match reused {
        Some(instance) => instance,
        None => tenant.plugin.instantiate(&tenant.grants)?,
    };
    let out = instance
        .render(request, remaining.min(tenant.limits.render_deadline))
        .instrument(span)
        .await;
    let out = match out {
        Ok(response) if response.body.len() > tenant.limits.max_response_bytes => {
            Err(EngineError::ResponseTooLarge {
                size: response.body.len(),
                limit: tenant.limits.max_response_bytes,
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
