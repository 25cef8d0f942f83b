//! One pinned worker: pulls jobs from the shared queue and renders them on
//! instances it owns ([`Instances`]), several at a time in time slices.
//!
//! Scheduling: a worker runs up to `renders_per_worker` renders at once, as
//! tasks polled round-robin on its one thread. A Wasm render yields at the
//! first epoch tick after it has run one `engine::wasm::ticker::TICK` since
//! it was polled (a slice of 1-2 ms), so a spinning render holds the core
//! for one slice at a time, not until its deadline. A newly admitted
//! render is polled first, so it starts within one slice of being admitted.
//! A render that cannot yield (V8) would stall every render interleaved with
//! it, so those run on the pool's blocking threads, one at a time each
//! (`renders_per_worker` 1); the kernel time-slices those threads.
//!
//! Invariant: tasks never wait on I/O (`engine::Rendering`), so `Pending`
//! only ends a slice and the worker polls the next task at once; it sleeps
//! only when it has no task, in the blocking `recv`.
//!
//! Lifetime: the thread lives as long as the pool. Warm instances live until
//! evicted (least recently used, beyond `warm_instances`), until their
//! tenant is replaced (a new version), or until an error poisons them (a
//! trap, a timeout, memory exhausted): the next request then gets a fresh
//! instance.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Waker};
use std::time::{Duration, Instant};

use core_affinity::CoreId;
use crossbeam_channel::Receiver;
use tracing::Instrument;

use super::{Job, PoolError, PoolOptions, Rendered};
use crate::engine::{EngineError, Instance, RenderRequest, RenderResponse};
use crate::tenant::{Mode, Tenant};

struct Warm {
    tenant: Arc<str>,
    version: u64,
    instance: Box<dyn Instance>,
    last_used: u64,
}

/// The instances one thread owns, and how a render picks one.
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

    /// This tenant's warm instance (reuse mode) or a new one (fresh mode,
    /// or none warm); it is out of the warm set until [`Instances::check_in`].
    fn check_out(&mut self, tenant: &Tenant) -> Result<Box<dyn Instance>, EngineError> {
        self.tick += 1;
        let reused = match tenant.mode() {
            Mode::Reuse => self
                .warm
                .iter()
                .position(|w| w.tenant == tenant.id && w.version == tenant.version())
                .map(|i| self.warm.swap_remove(i).instance),
            Mode::Fresh => None,
        };
        // An older version of this tenant's instance is never used again.
        self.warm
            .retain(|w| w.tenant != tenant.id || w.version == tenant.version());
        match reused {
            Some(i) => Ok(i),
            None => tenant.plugin.instantiate(&tenant.id),
        }
    }

    /// Keeps `instance` warm after a render that ended in `out`, unless the
    /// tenant is in fresh mode or the error poisoned the instance.
    fn check_in(
        &mut self,
        tenant: &Tenant,
        instance: Box<dyn Instance>,
        out: &Result<RenderResponse, EngineError>,
    ) {
        let keep = tenant.mode() == Mode::Reuse && !matches!(out, Err(e) if e.poisons_instance());
        if !keep {
            return;
        }
        if self.warm.len() >= self.capacity
            && let Some(lru) = self
                .warm
                .iter()
                .enumerate()
                .min_by_key(|(_, w)| w.last_used)
                .map(|(i, _)| i)
        {
            self.warm.swap_remove(lru);
        }
        self.warm.push(Warm {
            tenant: tenant.id.clone(),
            version: tenant.version(),
            instance,
            last_used: self.tick,
        });
    }
}

type Task = Pin<Box<dyn Future<Output = ()>>>;

pub(super) fn run(core: Option<CoreId>, jobs: Receiver<Job>, opts: PoolOptions) {
    if let Some(core) = core
        && !core_affinity::set_for_current(core)
    {
        tracing::warn!(core = core.id, "could not pin the worker to its core");
    }
    let instances = Rc::new(RefCell::new(Instances::new(opts.warm_instances)));
    let mut tasks: VecDeque<Task> = VecDeque::with_capacity(opts.renders_per_worker);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        while tasks.len() < opts.renders_per_worker {
            let job = if tasks.is_empty() {
                match jobs.recv() {
                    Ok(job) => job,
                    Err(_) => return, // The pool is gone and every job done.
                }
            } else {
                match jobs.try_recv() {
                    Ok(job) => job,
                    Err(_) => break,
                }
            };
            if job.reply.is_closed() {
                continue; // The client went away while the job waited.
            }
            tasks.push_front(Box::pin(serve(job, instances.clone())));
        }
        if let Some(mut task) = tasks.pop_front()
            && task.as_mut().poll(&mut cx).is_pending()
        {
            tasks.push_back(task);
        }
    }
}

/// One job, from admission to its reply.
async fn serve(job: Job, instances: Rc<RefCell<Instances>>) {
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
}

/// One render by the deadline, with its time; shared by the workers and the
/// on-runtime comparison path (`Pool::render_here`).
pub(super) async fn render(
    instances: &RefCell<Instances>,
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
    // The borrow ends before the render's first slice: other tasks on this
    // thread check instances out while it runs.
    let mut instance = instances.borrow_mut().check_out(tenant)?;
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
    instances.borrow_mut().check_in(tenant, instance, &out);
    match out {
        Ok(response) => Ok((response, started.elapsed())),
        Err(EngineError::Timeout(_)) if Instant::now() >= deadline => Err(PoolError::Timeout),
        Err(e) => Err(PoolError::Engine(e)),
    }
}
