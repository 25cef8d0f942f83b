//! One pinned worker: pulls jobs from the shared queue and renders them on
//! instances it owns.
//!
//! Lifetime: the thread lives as long as the pool. Warm instances live until
//! evicted (least recently used, beyond `warm_instances`), until their
//! tenant is replaced (a new version), or until an error poisons them (a
//! trap, a timeout, memory exhausted): the next request then gets a fresh
//! instance.

use std::sync::Arc;
use std::time::Instant;

use core_affinity::CoreId;
use crossbeam_channel::Receiver;

use super::{Job, PoolError, PoolOptions, Rendered};
use crate::engine::EngineError;
use crate::engine::wasm::{WasmEngine, WasmInstance};
use crate::tenant::Mode;

struct Warm {
    tenant: Arc<str>,
    version: u64,
    instance: WasmInstance,
    last_used: u64,
}

pub(super) fn run(
    index: usize,
    core: Option<CoreId>,
    jobs: Receiver<Job>,
    engine: Arc<WasmEngine>,
    opts: PoolOptions,
) {
    if let Some(core) = core
        && !core_affinity::set_for_current(core)
    {
        tracing::warn!(
            worker = index,
            core = core.id,
            "could not pin the worker to its core"
        );
    }
    let mut warm: Vec<Warm> = Vec::with_capacity(opts.warm_instances);
    let mut tick = 0u64;
    while let Ok(job) = jobs.recv() {
        tick += 1;
        let started = Instant::now();
        let queue_wait = started - job.enqueued;
        if job.reply.is_closed() {
            continue; // The client went away while the job waited.
        }
        let remaining = job.deadline.saturating_duration_since(started);
        if remaining.is_zero() {
            let _ = job.reply.send(Err(PoolError::Timeout));
            continue;
        }
        let deadline = remaining.min(opts.render_deadline);
        let tenant = &job.tenant;
        let _span = tracing::debug_span!(
            "render",
            tenant = &*tenant.id,
            route = job.request.path.as_str()
        )
        .entered();

        let mut instance = match tenant.mode {
            Mode::Reuse => warm
                .iter()
                .position(|w| w.tenant == tenant.id && w.version == tenant.version)
                .map(|i| warm.swap_remove(i).instance),
            Mode::Fresh => None,
        };
        // An older version of this tenant's instance is never used again.
        warm.retain(|w| w.tenant != tenant.id || w.version == tenant.version);
        let result = match instance
            .take()
            .map(Ok)
            .unwrap_or_else(|| engine.instantiate(&tenant.plugin, &tenant.id))
        {
            Err(e) => Err(e),
            Ok(mut inst) => {
                let out = inst.render(&job.request, deadline);
                let keep =
                    tenant.mode == Mode::Reuse && !matches!(&out, Err(e) if e.poisons_instance());
                if keep {
                    if warm.len() >= opts.warm_instances
                        && let Some(lru) = warm
                            .iter()
                            .enumerate()
                            .min_by_key(|(_, w)| w.last_used)
                            .map(|(i, _)| i)
                    {
                        warm.swap_remove(lru);
                    }
                    warm.push(Warm {
                        tenant: tenant.id.clone(),
                        version: tenant.version,
                        instance: inst,
                        last_used: tick,
                    });
                }
                out
            }
        };
        let render_time = started.elapsed();
        let reply = match result {
            Ok(response) => Ok(Rendered {
                response,
                queue_wait,
                render_time,
            }),
            Err(EngineError::Timeout(_)) if Instant::now() >= job.deadline => {
                Err(PoolError::Timeout)
            }
            Err(e) => Err(PoolError::Engine(e)),
        };
        let _ = job.reply.send(reply);
    }
}
