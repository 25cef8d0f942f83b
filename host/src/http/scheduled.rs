//! Cron triggers: at the start of each minute (UTC), every tenant whose
//! app has a cron trigger (`triggers.crons`, `crate::cron`) that fires then
//! runs its `scheduled` handler: a request of its own
//! (`contract::Request::scheduled`) on the pool, with the tenant's limits
//! (its CPU time, `--request-timeout`, its concurrency), logged to the
//! tenant's log and counted in `ssr_scheduled_total` (`outcome`: `ok`,
//! `error`, or `elsewhere` where another replica claimed the run). `ssr tenant trigger`
//! runs one by hand through the admin API ([`run`]).
//!
//! Invariants:
//! - One run per tenant, cron and minute across a cluster: the replica
//!   that claims it in the shared store (`Registry::claim`) runs it; the
//!   others skip it. A server of its own store runs every one.
//! - A run that fails or never ends is bounded as a request is, and
//!   logged; the next minute's runs go on regardless.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::extract::{Path, RawQuery, State};

use super::AppState;
use super::error::ApiError;
use crate::tenant::Tenant;

/// How long a replica's claim to a minute's run lasts: past any run, so
/// that no other replica claims it again.
const CLAIMED_FOR: Duration = Duration::from_secs(3600);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Fires every tenant's cron triggers at the start of each minute, while
/// the server is up.
pub(super) async fn tick(state: Weak<AppState>) {
    loop {
        let now = now_ms();
        let minute = (now / 60_000 + 1) * 60_000;
        tokio::time::sleep(Duration::from_millis(minute - now)).await;
        let Some(state) = state.upgrade() else {
            return;
        };
        for tenant in state.registry.list() {
            for cron in &tenant.assets.app.crons {
                let fires = crate::cron::parse(cron).is_ok_and(|s| s.fires_at(minute));
                if !fires {
                    continue;
                }
                let what = format!("cron:{}:{minute}:{cron}", tenant.id);
                match state.registry.claim(&what, CLAIMED_FOR) {
                    Ok(true) => {}
                    Ok(false) => {
                        metrics::counter!("ssr_scheduled_total", "tenant" => tenant.id.to_string(), "outcome" => "elsewhere")
                            .increment(1);
                        continue;
                    }
                    Err(e) => {
                        tracing::warn!(
                            tenant = &*tenant.id,
                            cron,
                            "cron trigger skipped: its claim failed: {e}"
                        );
                        continue;
                    }
                }
                let (state, tenant, cron) = (state.clone(), tenant.clone(), cron.clone());
                tokio::spawn(async move {
                    let _ = run(&state, &tenant, &cron, minute).await;
                });
            }
        }
    }
}

/// Runs `tenant`'s `scheduled` handler for `cron` at `time_ms`, within the
/// tenant's limits: how long it took, or why it failed (logged to the
/// tenant's log either way).
pub(super) async fn run(
    state: &Arc<AppState>,
    tenant: &Arc<Tenant>,
    cron: &str,
    time_ms: u64,
) -> Result<Duration, String> {
    let started = Instant::now();
    let deadline = started + state.config.request_timeout.duration();
    let request = contract::Request::scheduled(&tenant.id, cron, time_ms);
    let outcome = state.pool.render(tenant, request, deadline, None).await;
    let took = started.elapsed();
    let (outcome, out) = match outcome {
        Ok(r) => {
            super::error::counted(tenant, &r);
            tracing::info!(
                tenant = &*tenant.id,
                cron,
                ms = took.as_millis() as u64,
                "cron trigger ran"
            );
            ("ok", Ok(took))
        }
        Err(e) => {
            let why = crate::report::Chain(&e).to_string();
            let _ = super::error::failed_render(tenant, e);
            tracing::warn!(tenant = &*tenant.id, cron, "cron trigger failed: {why}");
            ("error", Err(why))
        }
    };
    metrics::counter!("ssr_scheduled_total", "tenant" => tenant.id.to_string(), "outcome" => outcome)
        .increment(1);
    out
}

/// What a run by hand answers.
#[derive(serde::Serialize)]
pub struct Ran {
    pub cron: String,
    #[serde(rename = "scheduledTime")]
    pub scheduled_time: u64,
    pub outcome: &'static str,
    pub ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `POST /_ssr/admin/tenants/{id}/scheduled?cron=EXPR&time=MS`: runs the
/// tenant's `scheduled` handler now, as its trigger `cron` would (any
/// valid expression, as `wrangler dev --test-scheduled` takes; the first
/// of its app's when none is given), for the minute `time` (now unless
/// given). A handler that fails answers 200 with `outcome: "error"`.
pub async fn trigger(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Ran>, ApiError> {
    let tenant = state.registry.current(&id)?;
    let pairs = contract::query_pairs(query.as_deref().unwrap_or(""));
    let asked = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let cron = match asked("cron") {
        Some(cron) => cron,
        None => tenant
            .assets
            .app
            .crons
            .first()
            .cloned()
            .unwrap_or_else(|| "* * * * *".into()),
    };
    crate::cron::parse(&cron).map_err(ApiError::BadRequest)?;
    let time = match asked("time") {
        Some(t) => t.parse().map_err(|_| {
            ApiError::BadRequest(format!("time={t} is not milliseconds since the epoch"))
        })?,
        None => now_ms(),
    };
    let out = run(&state, &tenant, &cron, time).await;
    let (outcome, ms, error) = match out {
        Ok(took) => ("ok", took.as_millis() as u64, None),
        Err(e) => ("error", 0, Some(e)),
    };
    Ok(Json(Ran {
        cron,
        scheduled_time: time,
        outcome,
        ms,
        error,
    }))
}
