//! `ApiError` (request step 7): the only place that picks HTTP status codes.
//!
//! Invariant: bodies never carry internal detail (a JavaScript stack, a trap,
//! a path on disk). Renderer failures are logged where they happen, with the
//! tenant, and the client sees a generic page, unless the tenant was
//! registered with `debug=true` ([`ApiError::Detailed`]: its own failure only). Admin errors name the problem
//! in the client's input, since that is what the client must fix.

use std::sync::atomic::Ordering;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use thiserror::Error;

use crate::engine::EngineError;
use crate::report::Chain;
use contract::RenderError;

use crate::logs::loggable;
use crate::pool::PoolError;
use crate::tenant::{Tenant, TenantError};

#[derive(Clone, Debug, Error)]
pub enum ApiError {
    /// No tenant serves the request's host (or `/t/<id>`): a plain 404,
    /// which tells a visitor nothing about the host (the log has the detail).
    #[error("not found")]
    NoTenant,
    #[error("the server is busy; retry shortly")]
    Saturated,
    #[error("the page took too long to render")]
    Timeout,
    #[error("the page could not be rendered")]
    RenderFailed,
    /// The renderer's process failed while rendering this request.
    #[error("the page's renderer stopped unexpectedly; try again")]
    BadGateway,
    /// The tenant's renderer is paused for this many seconds.
    #[error("this site's renderer keeps failing; it is paused for {0} s")]
    Paused(u64),
    #[error("the server is shutting down")]
    Unavailable,
    /// The server could not do it now, but may if asked again.
    #[error("{0}")]
    TryAgain(String),
    #[error(
        "missing, wrong, expired or revoked token; send `Authorization: Bearer <token>` with the admin token or a live tenant token"
    )]
    Unauthorized,
    /// A tenant token asked for more than its tenant.
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    TooLarge(String),
    /// The client did not send what it announced in time.
    #[error("{0}")]
    SlowClient(String),
    /// One client asks for more at once than any may.
    #[error("{0}")]
    TooMany(String),
    #[error("internal error")]
    Internal,
    /// A render failure with its detail, for a tenant in debug mode.
    #[error("{0}\n\n{1}")]
    Detailed(Box<ApiError>, String),
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::NoTenant | ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Saturated
            | ApiError::Unavailable
            | ApiError::TryAgain(_)
            | ApiError::Paused(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::BadGateway => StatusCode::BAD_GATEWAY,
            ApiError::Timeout => StatusCode::GATEWAY_TIMEOUT,
            ApiError::RenderFailed | ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::SlowClient(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Detailed(inner, _) => inner.status(),
        }
    }
}

impl From<TenantError> for ApiError {
    fn from(e: TenantError) -> ApiError {
        let said = Chain(&e).to_string();
        match e {
            TenantError::NotFound(_) | TenantError::NoEntry { .. } => ApiError::NotFound(said),
            TenantError::HostTaken { .. } | TenantError::Changed(_) => ApiError::Conflict(said),
            TenantError::Shared(ref source) if source.is_unreachable() => ApiError::TryAgain(said),
            TenantError::StoreReset { .. } | TenantError::StoreDown(_) => ApiError::TryAgain(said),
            TenantError::TooLarge { .. } => ApiError::TooLarge(said),
            TenantError::Plugin(EngineError::Transient(_)) => ApiError::TryAgain(said),
            TenantError::InvalidId(_)
            | TenantError::InvalidHost(_)
            | TenantError::ReservedHost(_)
            | TenantError::Empty
            | TenantError::Limit(_)
            | TenantError::Env(_)
            | TenantError::Assets(_)
            | TenantError::Plugin(_) => ApiError::BadRequest(said),
            TenantError::Storage(_) | TenantError::Shared(_) | TenantError::Bindings(_) => {
                tracing::error!("{said}");
                ApiError::Internal
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut resp = (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!(
                "{} {}: {self}\n",
                status.as_u16(),
                status.canonical_reason().unwrap_or("")
            ),
        )
            .into_response();
        if let ApiError::Paused(secs) = &self {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(*secs));
        } else if status == StatusCode::SERVICE_UNAVAILABLE
            || status == StatusCode::TOO_MANY_REQUESTS
        {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        if status == StatusCode::UNAUTHORIZED {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        resp
    }
}

/// A finished render's counts and times.
pub(super) fn counted(tenant: &Tenant, r: &crate::pool::Rendered) {
    tenant.stats.renders.fetch_add(1, Ordering::Relaxed);
    tenant
        .stats
        .queue_wait_seconds
        .record(r.queue_wait.as_secs_f64());
    tenant
        .stats
        .render_seconds
        .record(r.render_time.as_secs_f64());
}

/// A failed render, counted, logged and made the client's error (with its
/// detail for a tenant in debug mode).
pub(super) fn failed_render(tenant: &Tenant, e: PoolError) -> ApiError {
    tenant.stats.errors.fetch_add(1, Ordering::Relaxed);
    let detail = tenant.registration.debug.then(|| debug_detail(&e));
    let err = failed(&tenant.id, e);
    match detail {
        Some(detail) => ApiError::Detailed(Box::new(err), detail),
        None => err,
    }
}

/// What a tenant registered with `debug=true` sees of its own failure: the
/// JS message and stack, or the limit it hit.
fn debug_detail(e: &PoolError) -> String {
    match e {
        PoolError::Engine(EngineError::Js(e)) => {
            format!("{e}\n{}", e.stack.as_deref().unwrap_or(""))
        }
        other => Chain(other).to_string(),
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
        PoolError::Engine(EngineError::CpuTime(_)) => {
            render_error("cpu");
            tracing::warn!(tenant, "render stopped: {e}");
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
        PoolError::Engine(EngineError::Crashed(why)) => {
            render_error("crash");
            tracing::warn!(
                tenant,
                "render failed: its worker process failed: {}",
                loggable(&why)
            );
            ApiError::BadGateway
        }
        PoolError::Engine(EngineError::Quarantined(left)) => {
            rejected("quarantined");
            ApiError::Paused(left.as_secs().max(1))
        }
        PoolError::Engine(other) => {
            render_error(match other {
                EngineError::OutOfMemory => "memory",
                EngineError::Trap(_) => "trap",
                EngineError::ResponseTooLarge { .. } => "too-large",
                _ => "other",
            });
            let said = Chain(&other).to_string();
            tracing::warn!(tenant, "render failed: {}", loggable(&said));
            ApiError::RenderFailed
        }
    }
}
