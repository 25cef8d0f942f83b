//! Service bindings: `env.X.fetch(request)` of an app's `services`, a
//! request rendered as its tenant's own, with that tenant's limits, without
//! leaving the host: no socket, no cache, no routing. The server says what
//! renders it once it is up ([`Dispatcher::set`], `http/mod.rs`), so that
//! bindings need nothing of the server's.
//!
//! Invariants:
//! - A chain of calls is at most [`MAX_DEPTH`] deep: each carries its depth
//!   in [`DEPTH_HEADER`], which the host sets, and strips from clients'
//!   requests; past it, the call fails.
//! - A call counts as one of the caller's subrequests, and the callee's
//!   render is bounded by the caller's deadline as well as its own.
//! - A call is a request of an HTTP method, or an RPC call
//!   ([`contract::RPC`]); no other `@` method (a cron trigger's) reaches
//!   the callee.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use serde::Deserialize;

use crate::web::fetch::{FetchError, Fetched};

/// The request header that carries a call's depth.
pub const DEPTH_HEADER: &str = "x-ssr-service-depth";
/// The request header that names the export a service binding's request
/// goes to (its `entrypoint`), which the host sets, and strips from
/// clients' requests as it does [`DEPTH_HEADER`].
pub const ENTRYPOINT_HEADER: &str = "x-ssr-service-entrypoint";
/// The deepest a chain of service calls goes.
pub const MAX_DEPTH: u32 = 16;

/// Whether header `name` is one only the host sets on a service binding's
/// request ([`DEPTH_HEADER`], [`ENTRYPOINT_HEADER`]): never a client's or
/// a caller's.
pub fn is_hosts(name: &str) -> bool {
    name.eq_ignore_ascii_case(DEPTH_HEADER) || name.eq_ignore_ascii_case(ENTRYPOINT_HEADER)
}

/// A render's outcome, as a future the caller's runtime drives.
pub type Rendering = Pin<Box<dyn Future<Output = Result<contract::Response, String>> + Send>>;

/// What renders a service binding's request as its tenant's (the server).
pub trait Dispatch: Send + Sync {
    /// Renders `request` as tenant `request.tenant`'s, by `deadline`.
    fn render(&self, request: contract::Request, deadline: Instant) -> Rendering;
}

/// Where the server's [`Dispatch`] is, once set.
#[derive(Clone, Default)]
pub struct Dispatcher(Arc<OnceLock<Arc<dyn Dispatch>>>);

impl Dispatcher {
    /// The server's, from now on.
    pub fn set(&self, dispatch: Arc<dyn Dispatch>) {
        let _ = self.0.set(dispatch);
    }

    /// Renders `request`: its response as a fetch's.
    pub async fn render(
        &self,
        request: contract::Request,
        deadline: Instant,
    ) -> Result<Fetched, FetchError> {
        let Some(dispatch) = self.0.get().cloned() else {
            return Err(FetchError::Failed(
                "a service binding's request needs a server (`ssr serve`); `ssr render` runs one render alone".into(),
            ));
        };
        let url = request.href.clone();
        let r = dispatch
            .render(request, deadline)
            .await
            .map_err(FetchError::Failed)?;
        Ok(Fetched::answered(r.status, r.headers, r.body, url))
    }
}

/// One call, as the prelude sends it (`calls::SERVICE`): the binding, and
/// the request, its body as the call's bytes.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub binding: String,
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    /// The depth of the render that calls (its request's [`DEPTH_HEADER`]).
    #[serde(default)]
    depth: u32,
}

impl Call {
    /// The request tenant `tenant` renders; a request or an RPC call goes
    /// to its export `entrypoint` (its default export when `None`).
    pub fn request(
        &self,
        tenant: &str,
        entrypoint: Option<&str>,
        body: &[u8],
    ) -> Result<contract::Request, String> {
        let rpc = self.method == contract::RPC;
        if !rpc && self.method.starts_with('@') {
            return Err(format!(
                "env.{}: `{}` is not a method a service binding takes",
                self.binding, self.method
            ));
        }
        let depth = self.depth + 1;
        if depth > MAX_DEPTH {
            return Err(format!(
                "env.{}.fetch(): a chain of service calls is at most {MAX_DEPTH} deep",
                self.binding
            ));
        }
        let mut url = url::Url::parse(&self.url)
            .map_err(|_| format!("env.{}.fetch(): {} is not a URL", self.binding, self.url))?;
        if let (true, Some(e)) = (rpc, entrypoint) {
            url.query_pairs_mut().append_pair("entrypoint", e);
        }
        let to_entrypoint = entrypoint.filter(|_| !rpc);
        let path = url.path().to_string();
        let target = match url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.clone(),
        };
        let mut headers: Vec<(String, String)> = self
            .headers
            .iter()
            .filter(|(k, _)| !is_hosts(k))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect();
        headers.push((DEPTH_HEADER.into(), depth.to_string()));
        if let Some(e) = to_entrypoint {
            headers.push((ENTRYPOINT_HEADER.into(), e.to_string()));
        }
        let body = if matches!(self.method.as_str(), "GET" | "HEAD") {
            Vec::new()
        } else {
            body.to_vec()
        };
        Ok(contract::Request {
            method: match rpc {
                true => contract::RPC.into(),
                false => self.method.to_ascii_uppercase(),
            },
            url: target,
            href: url.to_string(),
            base: String::new(),
            path,
            query: contract::query_pairs(url.query().unwrap_or("")),
            headers,
            tenant: tenant.into(),
            body,
        })
    }
}
