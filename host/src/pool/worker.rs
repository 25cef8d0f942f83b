//! One pinned worker: pulls jobs from the shared queue and renders them on
//! instances it owns ([`Instances`]), several at a time in time slices. The
//! blocking threads run the same loop, one render at a time, and share one
//! set of instances.
//!
//! Scheduling: a worker runs up to `renders_per_worker` renders at once, as
//! tasks polled round-robin on its one thread. A Wasm render yields at the
//! first epoch tick after it has run one `engine::wasm::ticker::TICK` since
//! it was polled (a slice of 1-2 ms), so a spinning render holds the core
//! for one slice at a time, not until its deadline. A newly admitted
//! render is polled first, so it starts within one slice of being admitted.
//! A render that cannot yield (V8) would stall every render interleaved with
//! it, so those run on the pool's blocking threads, one at a time each
//! (`renders_per_worker` 1); the kernel time-slices those threads. They
//! share their instances (a V8 isolate may move between threads: every shim
//! call takes its `Locker`), so a tenant has as many warm isolates as it has
//! renders at once, not one per thread, and the most recently used is
//! taken first.
//!
//! Invariant: tasks never wait on I/O (`engine::Rendering`), so `Pending`
//! only ends a slice and the worker polls the next task at once; it sleeps
//! only when it has no task, in the blocking `recv`. The instance set's lock
//! is held only to pick or return an instance: never across a render, an
//! instantiation, or a drop.
//!
//! Lifetime: the thread lives as long as the pool. Warm instances live until
//! evicted (least recently used, beyond `warm_instances`), until their
//! tenant is replaced (a new version), or until an error poisons them (a
//! trap, a timeout, memory exhausted): the next request then gets a fresh
//! instance.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use core_affinity::CoreId;
use crossbeam_channel::Receiver;
use tokio::sync::OwnedSemaphorePermit;
use tracing::Instrument;

use super::lifo::Lifo;
use super::{Job, PoolError, PoolOptions, Rendered};
use crate::engine::{EngineError, Instance, RenderRequest, RenderResponse};
use crate::tenant::{Mode, Tenant};

struct Warm {
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
        let stale = self
            .warm
            .extract_if(.., |w| {
                w.tenant == tenant.id && w.version != tenant.version()
            })
            .collect();
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
        out: &Result<RenderResponse, EngineError>,
    ) -> Option<Box<dyn Instance>> {
        let keep = tenant.mode() == Mode::Reuse && !matches!(out, Err(e) if e.poisons_instance());
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
}

/// A thread's (or the blocking threads') instances.
pub(super) type SharedInstances = Arc<Mutex<Instances>>;

fn lock(instances: &Mutex<Instances>) -> MutexGuard<'_, Instances> {
    // Nothing panics under the lock; each change leaves the set consistent.
    instances.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A render in progress; it ends with its tenant's permit, which the loop
/// gives back (see [`Jobs::next`]).
type Task = Pin<Box<dyn Future<Output = OwnedSemaphorePermit>>>;

/// Where a thread takes its jobs from: the pinned workers share one queue;
/// the blocking threads take theirs last in, first out (`lifo.rs`).
pub(super) enum Jobs {
    Shared(Receiver<Job>),
    Lifo(Arc<Lifo>),
}

impl Jobs {
    /// The next job, waiting for one; `None` once the pool is gone and every
    /// job taken. `done` is the permit of the render this thread has just
    /// finished: a blocking thread gives it back only once it is idle, so
    /// the request waiting for that permit is handed to this thread (hot
    /// caches, no wake-up) rather than to another idle one.
    fn next(&self, done: Option<OwnedSemaphorePermit>) -> Option<Job> {
        match self {
            Jobs::Shared(rx) => {
                drop(done);
                rx.recv().ok()
            }
            Jobs::Lifo(lifo) => lifo.next(done),
        }
    }

    fn try_next(&self) -> Option<Job> {
        match self {
            Jobs::Shared(rx) => rx.try_recv().ok(),
            Jobs::Lifo(lifo) => lifo.try_next(),
        }
    }
}

pub(super) fn run(core: Option<CoreId>, jobs: Jobs, instances: SharedInstances, opts: PoolOptions) {
    if let Some(core) = core
        && !core_affinity::set_for_current(core)
    {
        tracing::warn!(core = core.id, "could not pin the worker to its core");
    }
    let mut tasks: VecDeque<Task> = VecDeque::with_capacity(opts.renders_per_worker);
    let mut cx = Context::from_waker(Waker::noop());
    let mut done = None;
    loop {
        while tasks.len() < opts.renders_per_worker {
            let job = if tasks.is_empty() {
                match jobs.next(done.take()) {
                    Some(job) => job,
                    None => return, // The pool is gone and every job done.
                }
            } else {
                match jobs.try_next() {
                    Some(job) => job,
                    None => break,
                }
            };
            if job.reply.is_closed() {
                continue; // The client went away while the job waited.
            }
            tasks.push_front(Box::pin(serve(job, instances.clone())));
        }
        if let Some(mut task) = tasks.pop_front() {
            match task.as_mut().poll(&mut cx) {
                Poll::Pending => tasks.push_back(task),
                // Given back now, unless this thread is about to wait.
                Poll::Ready(permit) if tasks.is_empty() => done = Some(permit),
                Poll::Ready(permit) => drop(permit),
            }
        }
    }
}

/// One job, from admission to its reply; returns the job's permit.
async fn serve(job: Job, instances: SharedInstances) -> OwnedSemaphorePermit {
    let started = Instant::now();
    let queue_wait = started - job.enqueued;
    let reply = render(&instances, &job.tenant, &job.request, job.deadline, started)
        .await
        .map(|(response, render_time)| Rendered {
            response,
            queue_wait,
            render_time,
        });
    let _ = job.reply.send(reply);
    job.permit
}

/// One render by the deadline, with its time; shared by the workers and the
/// on-runtime comparison path (`Pool::render_here`).
pub(super) async fn render(
    instances: &Mutex<Instances>,
    tenant: &Tenant,
    request: &RenderRequest,
    deadline: Instant,
    started: Instant,
) -> Result<(RenderResponse, Duration), PoolError> {
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
        None => tenant.plugin.instantiate(&tenant.id)?,
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
