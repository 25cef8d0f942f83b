//! The admin API, behind a bearer token:
//!
//! | request | does |
//! |---|---|
//! | `PUT /_ssr/admin/tenants/{id}?host=NAME&mode=reuse\|fresh&engine=wasm\|v8&debug=true&var=NAME=VALUE&allow_fetch=ORIGIN&LIMIT=N` (body: plugin bytes) | register or hot-swap a tenant; `LIMIT` is any of `tenant::LimitOverrides`; `debug` puts failures' detail in its error pages; `allow_fetch` grants an origin to `fetch` |
//! | `GET /_ssr/admin/tenants` | list tenants |
//! | `GET /_ssr/admin/tenants/{id}` | one tenant, with its version and stats |
//! | `DELETE /_ssr/admin/tenants/{id}` | remove a tenant |
//! | `POST /_ssr/admin/tenants/{id}/purge?prefix=/blog` | empty a tenant's cache (on every replica sharing the store) |
//! | `POST /_ssr/admin/tenants/{id}/scheduled?cron=EXPR&time=MS` | run its `scheduled` handler now, as a cron trigger would (`http/scheduled.rs`) |
//! | `PUT\|DELETE /_ssr/admin/tenants/{id}/vars/{name}` (body: the value) | set or remove a var |
//! | `GET /_ssr/admin/tenants/{id}/secrets` | the names of a tenant's secrets |
//! | `PUT\|DELETE /_ssr/admin/tenants/{id}/secrets/{name}` (body: the value) | set or remove a secret |
//! | `GET /_ssr/admin/tenants/{id}/logs` | follow its console lines and render errors (server-sent events) |
//! | `POST /_ssr/admin/tokens?tenant=ID&ttl=90d` | a token for tenant `ID` alone, shown once |
//! | `GET /_ssr/admin/tokens` | every token's record (id, tenant, times), never a token |
//! | `DELETE /_ssr/admin/tokens/{id}` | revoke a token |
//!
//! The admin token reaches everything. A tenant token (`tenant/tokens.rs`)
//! reaches its own tenant's `GET` and `PUT` (a deploy, which keeps the
//! hostnames and limits the operator set), purge, vars, secrets, logs and
//! bindings (`http/bindings.rs`, which lists those routes);
//! anything else is 403 before a handler runs ([`scope`]).
//!
//! Invariants: tokens are compared in constant time; a plugin is fully
//! validated and compiled (off the async threads) before anything is stored
//! or published; a swap, and a change of a var or secret, purges the
//! tenant's cache and drops its warm instances; no answer carries a
//! secret's value.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Serialize;
use subtle::ConstantTimeEq;

use super::AppState;
use super::error::ApiError;
use super::gate::{Gate, Pass};
use crate::tenant::{EnvChange, LimitOverrides, Registration, Settings, Tenant, env};

/// Who an admin request comes from: the operator (the admin token), or a
/// tenant's token, which reaches that tenant alone ([`scope`]).
#[derive(Clone, Debug)]
pub enum Caller {
    Operator,
    /// A tenant token: its tenant's id, and the token's own id.
    Tenant {
        tenant: String,
        token: String,
    },
}

/// What the admin API lets run at once; past each bound, 429 with what to
/// do. `docs/security.md` lists them with their settings.
pub struct Running {
    /// Log followers per tenant, and per tenant token
    /// (`--max-log-followers`); the operator's count per tenant only.
    followers_per_tenant: Arc<Gate<String>>,
    followers_per_token: Arc<Gate<String>>,
    /// Deploys being checked and compiled: in all (`--max-deploys`), and
    /// one per token at a time.
    deploys: Arc<Gate<()>>,
    deploys_per_token: Arc<Gate<String>>,
    /// One purge of a tenant at a time.
    purges: Arc<Gate<String>>,
}

impl Running {
    pub fn new(config: &crate::config::Config) -> Running {
        Running {
            followers_per_tenant: Gate::new(config.max_log_followers),
            followers_per_token: Gate::new(config.max_log_followers),
            deploys: Gate::new(config.max_deploys),
            deploys_per_token: Gate::new(1),
            purges: Gate::new(1),
        }
    }

    /// A place for a deploy by `caller`: its token's, if it has one, and
    /// one of the server's.
    fn deploy(&self, caller: &Caller) -> Result<(Option<Pass<String>>, Pass<()>), ApiError> {
        let token = match caller {
            Caller::Tenant { token, .. } => {
                Some(self.deploys_per_token.enter(token.clone()).ok_or_else(|| {
                    ApiError::TooMany(
                        "this token has a deploy running; send the next one when it is done".into(),
                    )
                })?)
            }
            Caller::Operator => None,
        };
        let server = self.deploys.enter(()).ok_or_else(|| {
            ApiError::TooMany(format!(
                "the server is compiling {} deploys already (--max-deploys); try again in a few seconds",
                self.deploys.max()
            ))
        })?;
        Ok((token, server))
    }
}

/// Rejects requests without the admin token or a live tenant token, and a
/// tenant token's requests beyond its tenant (403, before any handler
/// runs); puts the [`Caller`] in the request for the handlers.
pub async fn authorize(
    State(state): State<Arc<AppState>>,
    mut req: Request,
    next: Next,
) -> Response {
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
        .to_string();
    let operator: bool = given.as_bytes().ct_eq(state.admin_token.as_bytes()).into();
    let caller = if operator {
        Caller::Operator
    } else {
        // A read of the shared store, with one: off the async threads.
        let registry = state.registry.clone();
        match tokio::task::spawn_blocking(move || registry.token_tenant(&given)).await {
            Ok(Ok(Some(record))) => Caller::Tenant {
                tenant: record.tenant,
                token: record.id,
            },
            Ok(Ok(None)) => return ApiError::Unauthorized.into_response(),
            Ok(Err(e)) => return ApiError::from(e).into_response(),
            Err(_) => return ApiError::Internal.into_response(),
        }
    };
    if let Caller::Tenant { tenant, .. } = &caller {
        let path = req.uri().path();
        let path = path.strip_prefix(super::HOST_PREFIX).unwrap_or(path);
        if let Err(why) = scope(req.method(), path, tenant) {
            // The caller holds a token, so its request's body (a plugin, up
            // to the limit) is read before the answer: a client still
            // sending it would see a broken connection instead of why.
            let limit = state.config.max_plugin_mib.bytes();
            let _ = axum::body::to_bytes(req.into_body(), limit).await;
            return ApiError::Forbidden(why).into_response();
        }
    }
    req.extensions_mut().insert(caller);
    next.run(req).await
}

/// What a tenant token may ask for: `tenant`'s own record, deploy, purge,
/// cron runs, vars, secrets and logs. Everything else is the operator's: listing or
/// removing tenants, other tenants, tokens, metrics.
fn scope(method: &axum::http::Method, path: &str, tenant: &str) -> Result<(), String> {
    use axum::http::Method;
    let refused = || {
        format!(
            "a token of tenant `{tenant}` reaches only its own deploy, vars, secrets, bindings, purge and logs: `{method} {path}` needs the operator's admin token"
        )
    };
    let Some(rest) = path.strip_prefix("/admin/tenants/") else {
        return Err(refused());
    };
    let (id, rest) = rest.split_once('/').unwrap_or((rest, ""));
    if id != tenant {
        return Err(format!(
            "this token reaches tenant `{tenant}` only, not `{id}`"
        ));
    }
    let parts: Vec<&str> = if rest.is_empty() {
        vec![]
    } else {
        rest.split('/').collect()
    };
    let allowed = match (parts.as_slice(), method) {
        ([], m) => m == Method::PUT || m == Method::GET,
        (["purge" | "scheduled"], m) => m == Method::POST,
        (["logs"], m) => m == Method::GET,
        (["secrets"], m) => m == Method::GET,
        (["vars" | "secrets", name], m) => {
            !name.is_empty() && (m == Method::PUT || m == Method::DELETE)
        }
        // Its bindings' state (`http/bindings.rs`).
        (["bindings"], m) => m == Method::GET,
        (["kv", _, "keys"], m) => m == Method::GET,
        (["kv", _, "values", ..], _) => true,
        (["d1", _, "execute" | "migrations", ..], m) => m == Method::POST,
        (["d1", _, "export"], m) => m == Method::GET,
        (["r2", _, "objects", ..], _) => true,
        _ => false,
    };
    if allowed { Ok(()) } else { Err(refused()) }
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
    max_upload_mib: usize,
    max_subrequests: usize,
    max_fetch_kib: usize,
    kv_mib: u64,
    r2_mib: u64,
    d1_mib: u64,
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
                max_upload_mib: t.limits.max_upload_bytes >> 20,
                max_subrequests: t.limits.max_subrequests,
                max_fetch_kib: t.limits.max_fetch_bytes >> 10,
                kv_mib: t.limits.quotas.kv_bytes >> 20,
                r2_mib: t.limits.quotas.r2_bytes >> 20,
                d1_mib: t.limits.quotas.d1_bytes >> 20,
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
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Response, ApiError> {
    let mut settings = Settings::default();
    let mut debug_named = false;
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
            "allow_service" => {
                crate::tenant::validate_id(&v)
                    .map_err(|e| ApiError::BadRequest(format!("`allow_service`: {e}")))?;
                if !settings.allow_service.contains(&v) {
                    settings.allow_service.push(v);
                }
            }
            "var" => {
                let (name, value) = env::parse_var(&v)?;
                settings.vars.insert(name, value);
            }
            "debug" => {
                debug_named = true;
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
                        "unknown setting `{other}`; the settings are `host` (repeatable), `var` (NAME=VALUE, repeatable), `allow_fetch` (an origin, repeatable), `allow_service` (a tenant id, repeatable), `mode` (reuse or fresh), `engine` (wasm or v8), `debug` (true or false) and the limits {}",
                        LimitOverrides::NAMES
                    )));
                }
            }
        }
    }
    if let Caller::Tenant { .. } = caller {
        within_the_operators(&state, &id, &mut settings, debug_named)?;
    }
    let running = state.admin.deploy(&caller)?;
    let app = state.clone();
    let put = tokio::task::spawn_blocking(move || app.registry.put(&id, &body, settings))
        .await
        .map_err(|_| ApiError::Internal)??;
    drop(running);
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

/// A tenant token's deploy stays within what the operator set: it may
/// narrow it, never widen it. What the operator registered (or, for a
/// tenant not registered yet, the server's defaults) is the bound:
/// - hostnames and limits (a hostname is a claim on a name someone must
///   have checked, a limit a share of the machine): the same, or none named
///   (then the registered ones stay);
/// - the engine and the isolation mode: the same, or none named;
/// - `allow_fetch`: origins the operator granted, or none named (then the
///   granted ones stay);
/// - `debug`: may be turned off, not on; not named, it stays.
///
/// Anything else is 403, naming the field.
fn within_the_operators(
    state: &AppState,
    id: &str,
    settings: &mut Settings,
    debug_named: bool,
) -> Result<(), ApiError> {
    let registered = state
        .registry
        .get(id)
        .filter(|t| !t.registration.demo)
        .map(|t| t.registration.clone());
    let defaults = state.registry.defaults();
    let (hosts, limits, grants, callable, debug) = registered
        .as_ref()
        .map(|r| {
            (
                r.hosts.clone(),
                r.limits.clone(),
                r.allow_fetch.clone(),
                r.allow_service.clone(),
                r.debug,
            )
        })
        .unwrap_or_default();
    let engine = registered
        .as_ref()
        .map_or_else(Default::default, |r| r.engine);
    let mode = registered.as_ref().map_or(defaults.mode, |r| r.mode);
    let refused = |what: &str, registered: String| {
        Err(ApiError::Forbidden(format!(
            "a tenant token cannot change tenant `{id}`'s {what} (registered: {registered}); ask the operator, or deploy without it"
        )))
    };
    let named = |h: &[String]| -> Vec<String> {
        let mut h: Vec<String> = h
            .iter()
            .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
            .collect();
        h.sort();
        h
    };
    if settings.hosts.is_empty() {
        settings.hosts = hosts;
    } else if named(&settings.hosts) != named(&hosts) {
        return refused("hostnames", format!("{hosts:?}"));
    }
    if settings.limits == LimitOverrides::default() {
        settings.limits = limits;
    } else if settings.limits != limits {
        return refused("limits", format!("{limits:?}"));
    }
    match settings.engine {
        Some(named) if named != engine => return refused("engine", engine.to_string()),
        _ => settings.engine = Some(engine),
    }
    match settings.mode {
        Some(named) if named != mode => return refused("isolation mode", mode.to_string()),
        _ => settings.mode = Some(mode),
    }
    if settings.allow_fetch.is_empty() {
        settings.allow_fetch = grants;
    } else if let Some(wider) = settings.allow_fetch.iter().find(|o| !grants.contains(o)) {
        let granted: Vec<String> = grants.iter().map(|o| o.to_string()).collect();
        return refused(
            &format!("fetch grants (it named {wider})"),
            format!("{granted:?}"),
        );
    }
    // Which tenants it may call is the operator's alone.
    if settings.allow_service.is_empty() {
        settings.allow_service = callable;
    } else if named(&settings.allow_service) != named(&callable) {
        return refused("service grants", format!("{callable:?}"));
    }
    if !debug_named {
        settings.debug = debug;
    } else if settings.debug && !debug {
        return refused("debug mode", "off".into());
    }
    Ok(())
}

/// `POST /_ssr/admin/tokens?tenant=ID&ttl=90d`: a token that reaches
/// tenant `ID` only, shown this once.
pub async fn create_token(
    State(state): State<Arc<AppState>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let (mut tenant, mut ttl) = (None, None);
    for (k, v) in contract::query_pairs(query.as_deref().unwrap_or("")) {
        match k.as_str() {
            "tenant" => tenant = Some(v),
            "ttl" => {
                ttl = Some(humantime::parse_duration(&v).map_err(|e| {
                    ApiError::BadRequest(format!(
                        "`ttl` is a duration such as `90d` or `12h`, not `{v}`: {e}"
                    ))
                })?)
            }
            other => {
                return Err(ApiError::BadRequest(format!(
                    "unknown setting `{other}`; a token takes `tenant` (its tenant's id) and `ttl` (such as `90d`)"
                )));
            }
        }
    }
    let Some(tenant) = tenant else {
        return Err(ApiError::BadRequest(
            "name the token's tenant: `tenant=ID`".into(),
        ));
    };
    let app = state.clone();
    let made = tokio::task::spawn_blocking(move || app.registry.create_token(&tenant, ttl))
        .await
        .map_err(|_| ApiError::Internal)??;
    tracing::info!(
        tenant = &*made.record.tenant,
        token = &*made.record.id,
        "tenant token created"
    );
    Ok((StatusCode::CREATED, Json(made)).into_response())
}

/// `GET /_ssr/admin/tokens`: every token's record, never a token.
pub async fn list_tokens(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    let app = state.clone();
    let all = tokio::task::spawn_blocking(move || app.registry.tokens())
        .await
        .map_err(|_| ApiError::Internal)??;
    Ok(Json(all).into_response())
}

/// `DELETE /_ssr/admin/tokens/{id}`: the token stops working at once.
pub async fn revoke_token(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let app = state.clone();
    let key = id.clone();
    let gone = tokio::task::spawn_blocking(move || app.registry.revoke_token(&key))
        .await
        .map_err(|_| ApiError::Internal)??;
    if !gone {
        return Err(ApiError::NotFound(format!("no token `{id}`")));
    }
    tracing::info!(token = &*id, "tenant token revoked");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `GET /_ssr/admin/tenants/{id}/logs`: the tenant's console lines and
/// render errors as server-sent events, from now on (`logs.rs`): `ready`
/// once following, then `line` (its JSON), and `dropped` (`{"lines": N}`)
/// when this reader fell behind and lost lines.
pub async fn logs(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    connection: Option<Extension<super::listen::Connection>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    use axum::response::sse::{Event, KeepAlive, Sse};
    state.registry.current(&id)?;
    let running = &state.admin;
    let too_many = |whose: &str| {
        ApiError::TooMany(format!(
            "{whose} has {} log followers open (--max-log-followers); close one first",
            running.followers_per_tenant.max()
        ))
    };
    let per_token = match &caller {
        Caller::Tenant { token, .. } => Some(
            running
                .followers_per_token
                .enter(token.clone())
                .ok_or_else(|| too_many("this token"))?,
        ),
        Caller::Operator => None,
    };
    let per_tenant = running
        .followers_per_tenant
        .enter(id.clone())
        .ok_or_else(|| too_many(&format!("tenant `{id}`")))?;
    // A follower that stops reading is then behind after some kilobytes:
    // it loses lines (counted) and, past `--send-timeout`, its connection.
    if let Some(Extension(connection)) = connection {
        connection.limit_send_buffer(crate::logs::SEND_BUFFER);
    }
    let follower = crate::logs::follow(&id);
    let ready = Event::default().event("ready").data(&id);
    // The places are the stream's: given back when the connection ends.
    let held = (follower, per_tenant, per_token);
    let lines = futures_util::stream::unfold(held, |(mut follower, a, b)| async move {
        let event = match follower.next().await {
            crate::logs::Next::Line(line) => Event::default()
                .event("line")
                .json_data(&*line)
                .unwrap_or_default(),
            crate::logs::Next::Lost(n) => Event::default()
                .event("dropped")
                .data(format!("{{\"lines\":{n}}}")),
        };
        Some((Ok::<_, std::convert::Infallible>(event), (follower, a, b)))
    });
    let events =
        futures_util::stream::StreamExt::chain(futures_util::stream::iter([Ok(ready)]), lines);
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// After `tenant` became its id's current version: the old version's warm
/// instances (and their memory) and pages (whose keys carry the old
/// version) go now.
pub(super) fn forget_old(state: &AppState, tenant: &Tenant) {
    state.pool.forget(&tenant.id, Some(tenant.version()));
    state.cache.purge(&tenant.id, None);
    if let Some(objects) = state.registry.stores().objects() {
        objects.reset(&tenant.id);
    }
}

/// After tenant `id` was removed: its warm instances and pages go now.
pub(super) fn forget_removed(state: &AppState, id: &str) {
    state.pool.forget(id, None);
    state.cache.purge(id, None);
    if let Some(objects) = state.registry.stores().objects() {
        objects.reset(id);
    }
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
    let _one = state.admin.purges.enter(id.clone()).ok_or_else(|| {
        ApiError::TooMany(format!(
            "a purge of tenant `{id}` is running; send the next one when it is done"
        ))
    })?;
    // Off the async threads: it costs in proportion to the tenant's own
    // entries, and every other replica sharing the store purges too.
    let app = state.clone();
    let purged = tokio::task::spawn_blocking(move || {
        let purged = app.cache.purge(&id, prefix.as_deref());
        app.registry.announce_purge(&id, prefix.as_deref())?;
        Ok::<_, crate::tenant::TenantError>(purged)
    })
    .await
    .map_err(|_| ApiError::Internal)??;
    Ok(Json(Purged { purged }))
}
