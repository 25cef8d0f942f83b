//! `ApiError` (request step 7): the only place that picks HTTP status codes.
//!
//! Invariant: bodies never carry internal detail (a JavaScript stack, a trap,
//! a path on disk). Renderer failures are logged where they happen, with the
//! tenant, and the client sees a generic page, unless the tenant was
//! registered with `debug=true` ([`ApiError::Detailed`]: its own failure only). Admin errors name the problem
//! in the client's input, since that is what the client must fix.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use thiserror::Error;

use crate::engine::EngineError;
use crate::report::Chain;
use crate::tenant::TenantError;

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
            TenantError::Storage(_) | TenantError::Shared(_) => {
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
