//! Public pages (request step 1): an HTTP request becomes a
//! `contract::Request`, then goes through [`resolve`] (tenant), the cache's
//! lookup, [`submit`] (pool) and the cache's insert, and [`respond`] turns
//! the entry into a response (encoding, ETag, 304).
//!
//! Routing: the `Host` header picks the tenant among registered hostnames.
//! Under path routing (`Config::path_routing`), `/t/{id}/...` picks tenant
//! `id` first, and the renderer sees the path without that base (and the
//! base, to make links with). Every tenant under `/t/` shares one web origin,
//! which is why it is off by default with a data dir.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::ApiError;
use crate::cache::{CacheEntry, Encoding, Url, X_CACHE};
use crate::config::RenderOn;
use crate::engine::console::loggable;
use contract::{ErrorKind, RenderError};

use crate::engine::EngineError;
use crate::pool::PoolError;
use crate::tenant::Tenant;

/// Serves one public request. It takes the request whole: axum's
/// `HeaderMap` extractor would clone every header of every request.
pub async fn page(State(state): State<Arc<AppState>>, req: Request) -> Response {
    let (parts, _body) = req.into_parts();
    match serve(&state, parts.method, &parts.uri, &parts.headers).await {
        Ok(resp) => resp,
        Err(e) => e.into_response(),
    }
}

async fn serve(
    state: &AppState,
    method: Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    if headers.get_all(header::HOST).iter().nth(1).is_some() {
        return Err(ApiError::BadRequest(
            "the request has more than one Host header; send exactly one".into(),
        ));
    }
    let (tenant, base, target) = resolve(state, uri, headers)?;
    tenant.stats.requests.add(1);
    let wanted = Encoding::negotiate(headers);
    if method != Method::GET && method != Method::HEAD {
        let request = request(&tenant, &method, uri, base, &target, headers);
        let entry = submit(state, &tenant, request, headers, wanted, false).await?;
        return Ok(respond(&entry, headers, "bypass", &method, wanted));
    }
    let url = Url::new(&tenant.id, tenant.version(), headers, base, &target);
    let hit = state.cache.lookup(&url, headers, |entry, _| {
        respond(entry, headers, "hit", &method, wanted)
    });
    let vary = match hit {
        Ok(resp) => {
            tenant.stats.cache_hits.add(1);
            return Ok(resp);
        }
        Err(vary) => vary,
    };
    // Only a miss pays for mapping the request and owning its key.
    let key = url.key();
    let request = request(&tenant, &method, uri, base, &target, headers);
    let render = || async {
        let entry = submit(state, &tenant, request, headers, wanted, true).await?;
        state.cache.insert(key.clone(), &entry, headers);
        Ok(entry)
    };
    // A request with credentials never shares a render (RFC 9111 3.5).
    let rendered = if crate::cache::authorized(headers) {
        render().await
    } else {
        state.flights.run(&key, &vary, headers, render).await
    };
    let entry = rendered?;
    Ok(respond(&entry, headers, "miss", &method, wanted))
}

/// Step 2: which tenant, the base path it was routed by (`/t/<id>` or ""),
/// and the target (path and query) its renderer sees after the base.
fn resolve<'a>(
    state: &AppState,
    uri: &'a Uri,
    headers: &HeaderMap,
) -> Result<(Arc<Tenant>, &'a str, Cow<'a, str>), ApiError> {
    let target = uri.path_and_query().map_or("/", |pq| pq.as_str());
    if state.config.path_routing()
        && let Some(rest) = target.strip_prefix("/t/")
    {
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let id = &rest[..end];
        let Some(tenant) = state.registry.get(id) else {
            tracing::info!(tenant = ?id, "404: no tenant of this id (path routing)");
            return Err(ApiError::NoTenant);
        };
        let inner = &rest[end..];
        let inner = if inner.starts_with('/') {
            Cow::Borrowed(inner)
        } else {
            Cow::Owned(format!("/{inner}"))
        };
        return Ok((tenant, &target[..3 + end], inner));
    }
    let host = header_str(headers, header::HOST).unwrap_or("");
    let Some(tenant) = state.registry.resolve_host(host) else {
        tracing::info!(
            host = ?host,
            "404: no tenant serves this host; register one with `ssr tenant add <id> <plugin.wasm> --host <host>`"
        );
        return Err(ApiError::NoTenant);
    };
    Ok((tenant, "", Cow::Borrowed(target)))
}

fn request(
    tenant: &Tenant,
    method: &Method,
    uri: &Uri,
    base: &str,
    target: &str,
    headers: &HeaderMap,
) -> contract::Request {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    // As received: plain HTTP (TLS ends in front of ssr), the Host header.
    let host = header_str(headers, header::HOST).unwrap_or("localhost");
    let received = uri.path_and_query().map_or("/", |pq| pq.as_str());
    contract::Request {
        method: method.as_str().to_string(),
        url: target.to_string(),
        href: format!("http://{host}{received}"),
        base: base.to_string(),
        path: path.to_string(),
        query: contract::query_pairs(query),
        headers: headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect(),
        tenant: tenant.id.to_string(),
    }
}

/// Steps 4 and 5: render on the pool, within the request timeout, and make
/// the response's entry (kept later only if `cacheable` and the cache's
/// rules allow).
async fn submit(
    state: &AppState,
    tenant: &Arc<Tenant>,
    request: contract::Request,
    headers: &HeaderMap,
    wanted: Encoding,
    cacheable: bool,
) -> Result<Arc<CacheEntry>, ApiError> {
    let deadline = Instant::now() + state.config.request_timeout.duration();
    let outcome = if state.config.render_on == RenderOn::Runtime {
        // Deliberately blocks this async thread for the whole render, as
        // rendering on an event loop does: the comparison the pool is for.
        state.pool.render_here(tenant, &request, deadline)
    } else {
        state.pool.render(tenant, request, deadline).await
    };
    match outcome.and_then(|r| checked_status(r.response.status).map(|()| r)) {
        Ok(r) => {
            tenant.stats.renders.fetch_add(1, Ordering::Relaxed);
            tenant
                .stats
                .queue_wait_seconds
                .record(r.queue_wait.as_secs_f64());
            tenant
                .stats
                .render_seconds
                .record(r.render_time.as_secs_f64());
            state
                .cache
                .entry(&tenant.id, r.response, headers, wanted, cacheable)
                .await
                .map_err(|e| {
                    tracing::error!(tenant = %tenant.id, "making a cache entry failed: {e}");
                    ApiError::Internal
                })
        }
        Err(e) => {
            tenant.stats.errors.fetch_add(1, Ordering::Relaxed);
            let detail = tenant.registration.debug.then(|| debug_detail(&e));
            let err = failed(&tenant.id, e);
            Err(match detail {
                Some(detail) => ApiError::Detailed(Box::new(err), detail),
                None => err,
            })
        }
    }
}

/// A renderer's status must be a final one the host can send: 1xx would
/// switch or confuse the connection (the prelude refuses them too, but a
/// plugin need not use the prelude).
fn checked_status(status: u16) -> Result<(), PoolError> {
    if (200..=599).contains(&status) {
        return Ok(());
    }
    Err(PoolError::Engine(EngineError::Js(RenderError::new(
        ErrorKind::BadResult,
        format!("the renderer returned status {status}; use an integer from 200 to 599"),
    ))))
}

/// What a tenant registered with `debug=true` sees of its own failure: the
/// JS message and stack, or the limit it hit.
fn debug_detail(e: &PoolError) -> String {
    match e {
        PoolError::Engine(EngineError::Js(e)) => {
            format!("{e}\n{}", e.stack.as_deref().unwrap_or(""))
        }
        other => other.to_string(),
    }
}

/// Logs a failed render with its detail and counts it (a rejection, or a
/// render error by kind); the client gets a generic error.
fn failed(tenant: &str, e: PoolError) -> ApiError {
    let render_error = |kind: &'static str| {
        metrics::counter!("ssr_render_errors_total", "tenant" => tenant.to_string(), "kind" => kind)
            .increment(1);
    };
    let rejected = |reason: &'static str| {
        metrics::counter!("ssr_rejections_total", "tenant" => tenant.to_string(), "reason" => reason)
            .increment(1);
        ApiError::Saturated
    };
    match e {
        PoolError::Saturated => rejected("saturated"),
        PoolError::TenantBusy => rejected("tenant-busy"),
        PoolError::Timeout | PoolError::Engine(EngineError::Timeout(_)) => {
            render_error("timeout");
            tracing::warn!(tenant, "render timed out: {e}");
            ApiError::Timeout
        }
        PoolError::Closed => {
            render_error("other");
            ApiError::Unavailable
        }
        PoolError::Engine(EngineError::Js(RenderError {
            kind,
            message,
            stack,
        })) => {
            render_error("script");
            let stack = loggable(stack.as_deref().unwrap_or(""));
            tracing::warn!(tenant, %kind, %stack, "render failed: {}", loggable(&message));
            ApiError::RenderFailed
        }
        PoolError::Engine(other) => {
            render_error(match other {
                EngineError::OutOfMemory => "memory",
                EngineError::Trap(_) => "trap",
                EngineError::ResponseTooLarge { .. } => "too-large",
                _ => "other",
            });
            tracing::warn!(tenant, "render failed: {}", loggable(&other.to_string()));
            ApiError::RenderFailed
        }
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Turns an entry into a response: 304 for a GET or HEAD whose
/// `If-None-Match` matches a stored 2xx entry, else the body in the
/// negotiated encoding (if the entry has it). The entry's headers were made
/// once, when it was created.
fn respond(
    entry: &CacheEntry,
    req: &HeaderMap,
    cache: &'static str,
    method: &Method,
    wanted: Encoding,
) -> Response {
    let (_, body, head) = entry.encoded(wanted);
    let mut resp = Response::new(Body::empty());
    let h = resp.headers_mut();
    *h = head.clone();
    if cache != "hit" {
        h.insert(X_CACHE, HeaderValue::from_static(cache));
    }
    let conditional = (*method == Method::GET || *method == Method::HEAD)
        && entry.stored
        && (200..300).contains(&entry.status);
    let not_modified =
        conditional && header_str(req, header::IF_NONE_MATCH).is_some_and(|inm| entry.matches(inm));
    let status = if not_modified { 304 } else { entry.status };
    // 204 and 304 have no content (RFC 9110 6.4.1), whatever was rendered.
    let bodiless = matches!(status, 204 | 304);
    if bodiless {
        h.remove(header::CONTENT_LENGTH);
        h.remove(header::CONTENT_ENCODING);
    }
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    if *method != Method::HEAD && !bodiless {
        *resp.body_mut() = Body::from(body.clone());
    }
    resp
}
