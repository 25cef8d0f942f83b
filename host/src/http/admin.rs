//! The admin API, behind a bearer token:
//!
//! | request | does |
//! |---|---|
//! | `PUT /_ssr/admin/tenants/{id}?host=NAME&mode=reuse\|fresh&engine=wasm\|v8&debug=true&LIMIT=N` (body: plugin bytes) | register or hot-swap a tenant; `LIMIT` is any of `tenant::LimitOverrides`; `debug` puts failures' detail in its error pages |
//! | `GET /_ssr/admin/tenants` | list tenants |
//! | `GET /_ssr/admin/tenants/{id}` | one tenant, with its version and stats |
//! | `DELETE /_ssr/admin/tenants/{id}` | remove a tenant |
//! | `POST /_ssr/admin/tenants/{id}/purge?prefix=/blog` | empty a tenant's cache |
//!
//! Invariants: the token is compared in constant time; a plugin is fully
//! validated and compiled (off the async threads) before anything is stored
//! or published; a swap purges the tenant's cache.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::ApiError;
use crate::tenant::{LimitOverrides, Registration, Settings, Tenant};

/// Rejects requests without the admin bearer token.
pub async fn authorize(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let ok: bool = given.as_bytes().ct_eq(state.admin_token.as_bytes()).into();
    if ok {
        next.run(req).await
    } else {
        ApiError::Unauthorized.into_response()
    }
}

/// A tenant as the API shows it: its registration and its counters.
#[derive(Serialize)]
pub struct TenantView {
    #[serde(flatten)]
    registration: Registration,
    /// The limits in force: those the registration set, else the server's.
    applied_limits: AppliedLimitsView,
    stats: StatsView,
}

#[derive(Serialize)]
struct AppliedLimitsView {
    render_deadline_ms: u128,
    memory_limit_mib: usize,
    max_response_kib: usize,
    max_concurrency: usize,
}

#[derive(Serialize)]
struct StatsView {
    requests: u64,
    renders: u64,
    cache_hits: u64,
    errors: u64,
}

impl From<&Tenant> for TenantView {
    fn from(t: &Tenant) -> TenantView {
        let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
        TenantView {
            registration: t.registration.clone(),
            applied_limits: AppliedLimitsView {
                render_deadline_ms: t.limits.render_deadline.as_millis(),
                memory_limit_mib: t.limits.memory >> 20,
                max_response_kib: t.limits.max_response_bytes >> 10,
                max_concurrency: t.limits.concurrency,
            },
            stats: StatsView {
                requests: t.stats.requests.get(),
                renders: load(&t.stats.renders),
                cache_hits: t.stats.cache_hits.get(),
                errors: load(&t.stats.errors),
            },
        }
    }
}

pub async fn put(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut settings = Settings::default();
    for (k, v) in contract::query_pairs(query.as_deref().unwrap_or("")) {
        match k.as_str() {
            "host" => settings.hosts.push(v),
            "mode" => settings.mode = Some(v.parse().map_err(ApiError::BadRequest)?),
            "engine" => settings.engine = Some(v.parse().map_err(ApiError::BadRequest)?),
            "debug" => {
                settings.debug = match v.as_str() {
                    "true" | "1" => true,
                    "false" | "0" => false,
                    _ => {
                        return Err(ApiError::BadRequest(format!(
                            "`debug` is `true` or `false`, not `{v}`"
                        )));
                    }
                }
            }
            other => {
                if !settings
                    .limits
                    .set(other, &v)
                    .map_err(ApiError::BadRequest)?
                {
                    return Err(ApiError::BadRequest(format!(
                        "unknown setting `{other}`; the settings are `host` (repeatable), `mode` (reuse or fresh), `engine` (wasm or v8), `debug` (true or false) and the limits {}",
                        LimitOverrides::NAMES
                    )));
                }
            }
        }
    }
    let app = state.clone();
    let put = tokio::task::spawn_blocking(move || {
        let put = app.registry.put(&id, &body, settings)?;
        // The old version's warm instances, and their memory, go now.
        app.pool.forget(&id, Some(put.tenant.version()));
        Ok::<_, crate::tenant::TenantError>(put)
    })
    .await
    .map_err(|_| ApiError::Internal)??;
    // Old pages carry the old version in their keys; drop them now.
    state.cache.purge(&put.tenant.id, None);
    tracing::info!(
        tenant = &*put.tenant.id,
        version = put.tenant.version(),
        created = put.created,
        "tenant registered"
    );
    let status = if put.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(TenantView::from(&*put.tenant))).into_response())
}

pub async fn list(State(state): State<Arc<AppState>>) -> Json<Vec<TenantView>> {
    Json(
        state
            .registry
            .list()
            .iter()
            .map(|t| TenantView::from(&**t))
            .collect(),
    )
}

pub async fn show(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<TenantView>, ApiError> {
    let t = state
        .registry
        .get(&id)
        .ok_or_else(|| ApiError::NotFound(format!("no tenant `{id}`")))?;
    Ok(Json(TenantView::from(&*t)))
}

pub async fn remove(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let app = state.clone();
    let rid = id.clone();
    tokio::task::spawn_blocking(move || {
        app.registry.remove(&rid)?;
        app.pool.forget(&rid, None);
        Ok::<_, crate::tenant::TenantError>(())
    })
    .await
    .map_err(|_| ApiError::Internal)??;
    state.cache.purge(&id, None);
    tracing::info!(tenant = id, "tenant removed");
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize)]
pub struct Purged {
    purged: usize,
}

pub async fn purge(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Purged>, ApiError> {
    if state.registry.get(&id).is_none() {
        return Err(ApiError::NotFound(format!("no tenant `{id}`")));
    }
    let prefix = contract::query_pairs(query.as_deref().unwrap_or(""))
        .into_iter()
        .find(|(k, _)| k == "prefix")
        .map(|(_, v)| v);
    let purged = state.cache.purge(&id, prefix.as_deref());
    Ok(Json(Purged { purged }))
}
