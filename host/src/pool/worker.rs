//! One pinned worker: pulls jobs from the shared queue and renders them on
//! instances it owns ([`Instances`]).
//!
//! Lifetime: the thread lives as long as the pool. Warm instances live until
//! evicted (least recently used, beyond `warm_instances`), until their
//! tenant is replaced (a new version), or until an error poisons them (a
//! trap, a timeout, memory exhausted): the next request then gets a fresh
//! instance.

use std::sync::Arc;
use std::time::{Duration, Instant};

use core_affinity::CoreId;
use crossbeam_channel::Receiver;

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

    /// Renders on this tenant's warm instance (reuse) or a new one (fresh,
    /// or none warm), keeping it warm afterwards unless it is poisoned.
    pub(super) fn render(
        &mut self,
        tenant: &Tenant,
        request: &RenderRequest,
        deadline: Duration,
    ) -> Result<RenderResponse, EngineError> {
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
        let mut instance = match reused {
            Some(i) => i,
            None => tenant.plugin.instantiate(&tenant.id)?,
        };
        let out = instance.render(request, deadline);
        let keep = tenant.mode() == Mode::Reuse && !matches!(&out, Err(e) if e.poisons_instance());
        if keep {
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
        out
    }
}

pub(super) fn run(index: usize, core: Option<CoreId>, jobs: Receiver<Job>, opts: PoolOptions) {
    if let Some(core) = core
        && !core_affinity::set_for_current(core)
    {
        tracing::warn!(
            worker = index,
            core = core.id,
            "could not pin the worker to its core"
        );
    }
    let mut instances = Instances::new(opts.warm_instances);
    while let Ok(job) = jobs.recv() {
        let started = Instant::now();
        let queue_wait = started - job.enqueued;
        if job.reply.is_closed() {
            continue; // The client went away while the job waited.
        }
        let reply = render(
            &mut instances,
            &opts,
            &job.tenant,
            &job.request,
            job.deadline,
            started,
        )
        .map(|(response, render_time)| Rendered {
            response,
            queue_wait,
            render_time,
        });
        let _ = job.reply.send(reply);
    }
}

/// One render by the deadline, with its time; shared by the workers and the
/// on-runtime comparison path (`Pool::render_here`).
pub(super) fn render(
    instances: &mut Instances,
    opts: &PoolOptions,
    tenant: &Tenant,
    request: &RenderRequest,
    deadline: Instant,
    started: Instant,
) -> Result<(RenderResponse, Duration), PoolError> {
    let remaining = deadline.saturating_duration_since(started);
    if remaining.is_zero() {
        return Err(PoolError::Timeout);
    }
    let _span = tracing::debug_span!(
        "render",
        tenant = &*tenant.id,
        route = request.path.as_str()
    )
    .entered();
    match instances.render(tenant, request, remaining.min(opts.render_deadline)) {
        Ok(response) if response.body.len() > opts.max_response_bytes => {
            Err(PoolError::Engine(EngineError::ResponseTooLarge {
                size: response.body.len(),
                limit: opts.max_response_bytes,
            }))
        }
        Ok(response) => Ok((response, started.elapsed())),
        Err(EngineError::Timeout(_)) if Instant::now() >= deadline => Err(PoolError::Timeout),
        Err(e) => Err(PoolError::Engine(e)),
    }
}
