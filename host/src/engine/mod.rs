//! Rendering engines: what turns a [`RenderRequest`] into a
//! [`RenderResponse`] by running a tenant's JavaScript.
//!
//! Today there is one, [`wasm::WasmEngine`] (QuickJS in a Wasmtime
//! component); the V8 engine joins it behind one trait when it lands.
//!
//! Invariant: an engine never panics on what a plugin does; every failure of
//! the JavaScript or of the sandbox is an [`EngineError`].

pub mod wasm;

use std::fmt;
use std::time::Duration;

use thiserror::Error;

use crate::artifact::ArtifactError;

/// The default render deadline: long enough for a heavy SSR page, short
/// enough that a stuck renderer frees its worker quickly.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(1);
/// The default cap on one instance's linear memory.
pub const DEFAULT_MEMORY_LIMIT: usize = 256 << 20;

/// One request, as handed to a renderer.
#[derive(Clone, Debug, Default)]
pub struct RenderRequest {
    pub method: String,
    /// Path and query as received.
    pub url: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub tenant: String,
}

impl RenderRequest {
    /// A request for `url` (path and optional query), with the query split
    /// into percent-decoded pairs.
    pub fn get(tenant: &str, url: &str) -> Self {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        RenderRequest {
            method: "GET".into(),
            url: url.into(),
            path: path.into(),
            query: form_urlencoded_pairs(query),
            headers: Vec::new(),
            tenant: tenant.into(),
        }
    }
}

/// Splits `a=1&b=x+y` into decoded pairs, as `URLSearchParams` would.
pub fn form_urlencoded_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'+', _) => out.push(b' '),
            (b'%', Some(b)) => {
                out.push(b);
                i += 2;
            }
            (b, _) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The renderer's caching wish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CachePolicy {
    HostDefault,
    NoStore,
    Ttl(u32),
}

/// A rendered response.
#[derive(Clone, Debug)]
pub struct RenderResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub cache: CachePolicy,
    pub vary: Vec<String>,
}

/// The kinds of JavaScript failure, as in the WIT `error-kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsErrorKind {
    Exception,
    BadResult,
    NeverSettled,
    NotInitialized,
}

impl fmt::Display for JsErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsErrorKind::Exception => "exception",
            JsErrorKind::BadResult => "bad result",
            JsErrorKind::NeverSettled => "promise never settled",
            JsErrorKind::NotInitialized => "not initialized",
        })
    }
}

/// Why an engine could not load a plugin or render a request.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    #[error("compiling the plugin failed: {0}")]
    Compile(String),
    #[error("instantiating the plugin failed: {0}")]
    Instantiate(String),
    #[error("render failed ({kind}): {message}")]
    Js {
        kind: JsErrorKind,
        message: String,
        stack: Option<String>,
    },
    #[error("render exceeded its deadline of {0:?}")]
    Timeout(Duration),
    #[error("render exceeded its memory limit")]
    OutOfMemory,
    #[error("the response body is {size} bytes, over the limit of {limit} bytes")]
    ResponseTooLarge { size: usize, limit: usize },
    #[error("the plugin trapped: {0}")]
    Trap(String),
}

impl EngineError {
    /// Whether the instance that produced this error must be discarded.
    pub fn poisons_instance(&self) -> bool {
        matches!(
            self,
            EngineError::Timeout(_) | EngineError::OutOfMemory | EngineError::Trap(_)
        )
    }
}
