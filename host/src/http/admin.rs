//! The admin API, behind a bearer token:
//!
//! | request | does |
//! |---|---|
//! | `PUT /_ssr/admin/tenants/{id}?host=NAME&mode=reuse\|fresh&engine=wasm\|v8&debug=true&var=NAME=VALUE&allow_fetch=ORIGIN&LIMIT=N` (body: plugin bytes) | register or hot-swap a tenant; `LIMIT` is any of `tenant::LimitOverrides`; `debug` puts failures' detail in its error pages; `allow_fetch` grants an origin to `fetch` |
//! | `GET /_ssr/admin/tenants` | list tenants |
//! | `GET /_ssr/admin/tenants/{id}` | one tenant, with its version and stats |
//! | `DELETE /_ssr/admin/tenants/{id}` | remove a tenant |
//! | `POST /_ssr/admin/tenants/{id}/purge?prefix=/blog` | empty a tenant's cache (on every replica sharing the store) |
//! | `PUT\|DELETE /_ssr/admin/tenants/{id}/vars/{name}` (body: the value) | set or remove a var |
//! | `GET /_ssr/admin/tenants/{id}/secrets` | the names of a tenant's secrets |
//! | `PUT\|DELETE /_ssr/admin/tenants/{id}/secrets/{name}` (body: the value) | set or remove a secret |
//!
//! Invariants: the token is compared in constant time; a plugin is fully
//! validated and compiled (off the async threads) before anything is stored
//! or published; a swap, and a change of a var or secret, purges the
//! tenant's cache and drops its warm instances; no answer carries a
//! secret's value.

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
use crate::tenant::{EnvChange, LimitOverrides, Registration, Settings, Tenant, env};

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
    /// The names of its secrets (never their values).
    secrets: Vec<String>,
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
    max_request_kib: usize,
    max_subrequests: usize,
    max_fetch_kib: usize,
}

#[derive(Serialize)]
struct StatsView {
    requests: u64,
    renders: u64,
    cache_hits: u64,
    /// Requests answered with a static asset.
    asset_responses: u64,
    errors: u64,
}

impl From<&Tenant> for TenantView {
    fn from(t: &Tenant) -> TenantView {
        let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
        TenantView {
            registration: t.registration.clone(),
            secrets: t.secret_names(),
            applied_limits: AppliedLimitsView {
                render_deadline_ms: t.limits.render_deadline.as_millis(),
                memory_limit_mib: t.limits.memory >> 20,
                max_response_kib: t.limits.max_response_bytes >> 10,
                max_concurrency: t.limits.concurrency,
                max_request_kib: t.limits.max_request_bytes >> 10,
                max_subrequests: t.limits.max_subrequests,
                max_fetch_kib: t.limits.max_fetch_bytes >> 10,
            },
            stats: StatsView {
                requests: t.stats.requests.get(),
                renders: load(&t.stats.renders),
                cache_hits: t.stats.cache_hits.get(),
                asset_responses: t.stats.asset_hits.get(),
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
            "allow_fetch" => {
                let origin = v.parse().map_err(ApiError::BadRequest)?;
                if !settings.allow_fetch.contains(&origin) {
                    settings.allow_fetch.push(origin);
                }
            }
            "var" => {
                let (name, value) = env::parse_var(&v)?;
                settings.vars.insert(name, value);
            }
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
                        "unknown setting `{other}`; the settings are `host` (repeatable), `var` (NAME=VALUE, repeatable), `allow_fetch` (an origin, repeatable), `mode` (reuse or fresh), `engine` (wasm or v8), `debug` (true or false) and the limits {}",
                        LimitOverrides::NAMES
                    )));
                }
            }
        }
    }
    let app = state.clone();
    let put = tokio::task::spawn_blocking(move || app.registry.put(&id, &body, settings))
        .await
        .map_err(|_| ApiError::Internal)??;
    forget_old(&state, &put.tenant);
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

/// After `tenant` became its id's current version: the old version's warm
/// instances (and their memory) and pages (whose keys carry the old
/// version) go now.
pub(super) fn forget_old(state: &AppState, tenant: &Tenant) {
    state.pool.forget(&tenant.id, Some(tenant.version()));
    state.cache.purge(&tenant.id, None);
}

/// After tenant `id` was removed: its warm instances and pages go now.
pub(super) fn forget_removed(state: &AppState, id: &str) {
    state.pool.forget(id, None);
    state.cache.purge(id, None);
}

/// `PUT .../vars/{name}` and `.../secrets/{name}`: the body is the value.
fn value_of(body: &Bytes, name: &str) -> Result<String, ApiError> {
    String::from_utf8(body.to_vec()).map_err(|_| {
        ApiError::BadRequest(format!(
            "the value of `{name}` is not UTF-8; send it as text"
        ))
    })
}

/// Applies one change of a tenant's `env` (it writes and syncs files: off
/// the async threads).
async fn change_env(
    state: &Arc<AppState>,
    id: &str,
    change: EnvChange,
) -> Result<Arc<Tenant>, ApiError> {
    let (app, id) = (state.clone(), id.to_string());
    let tenant = tokio::task::spawn_blocking(move || app.registry.change_env(&id, change))
        .await
        .map_err(|_| ApiError::Internal)??;
    forget_old(state, &tenant);
    Ok(tenant)
}

pub async fn set_var(
    State(state): State<Arc<AppState>>,
    Path((id, name)): Path<(String, String)>,
    body: Bytes,
) -> Result<Json<TenantView>, ApiError> {
    let value = value_of(&body, &name)?;
    let tenant = change_env(&state, &id, EnvChange::SetVar(name.clone(), value)).await?;
    tracing::info!(tenant = id, var = name, "var set");
    Ok(Json(TenantView::from(&*tenant)))
}

pub async fn remove_var(
    State(state): State<Arc<AppState>>,
    Path((id, name)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    change_env(&state, &id, EnvChange::RemoveVar(name.clone())).await?;
    tracing::info!(tenant = id, var = name, "var removed");
    Ok(StatusCode::NO_CONTENT)
}

pub async fn secrets(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Vec<String>>, ApiError> {
    Ok(Json(state.registry.current(&id)?.secret_names()))
}

pub async fn put_secret(
    State(state): State<Arc<AppState>>,
    Path((id, name)): Path<(String, String)>,
    body: Bytes,
) -> Result<StatusCode, ApiError> {
    let value = value_of(&body, &name)?;
    change_env(&state, &id, EnvChange::PutSecret(name.clone(), value)).await?;
    tracing::info!(tenant = id, secret = name, "secret set");
    Ok(StatusCode::NO_CONTENT)
}

pub async fn remove_secret(
    State(state): State<Arc<AppState>>,
    Path((id, name)): Path<(String, String)>,
) -> Result<StatusCode, ApiError> {
    change_env(&state, &id, EnvChange::RemoveSecret(name.clone())).await?;
    tracing::info!(tenant = id, secret = name, "secret removed");
    Ok(StatusCode::NO_CONTENT)
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
    Ok(Json(TenantView::from(&*state.registry.current(&id)?)))
}

pub async fn remove(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let app = state.clone();
    let rid = id.clone();
    tokio::task::spawn_blocking(move || {
        app.registry.remove(&rid)?;
        forget_removed(&app, &rid);
        Ok::<_, crate::tenant::TenantError>(())
    })
    .await
    .map_err(|_| ApiError::Internal)??;
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
    state.registry.current(&id)?;
    let prefix = contract::query_pairs(query.as_deref().unwrap_or(""))
        .into_iter()
        .find(|(k, _)| k == "prefix")
        .map(|(_, v)| v);
    let purged = state.cache.purge(&id, prefix.as_deref());
    // Every other replica sharing the store purges too.
    let app = state.clone();
    tokio::task::spawn_blocking(move || app.registry.announce_purge(&id, prefix.as_deref()))
        .await
        .map_err(|_| ApiError::Internal)??;
    Ok(Json(Purged { purged }))
}
