//! The cache key: tenant (id and version), method, path and query, and the
//! values of the request headers the tenant's renderer declared it varies
//! on.
//!
//! GET and HEAD share keys (a HEAD is answered from the GET entry). The
//! tenant's version is part of the key, so a replaced plugin's pages can
//! never be served for the new one, even before the purge completes.

use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub tenant: Arc<str>,
    pub version: u64,
    /// Path and query as received.
    pub target: String,
    /// `(name, value)` for each declared vary header, in declared order.
    pub vary: Vec<(String, String)>,
}

impl CacheKey {
    /// The key for a request; `vary` names the headers to include and
    /// `header` looks a request header up (lower-case name).
    pub fn new<'a>(
        tenant: &Arc<str>,
        version: u64,
        target: &str,
        vary: &[String],
        header: impl Fn(&str) -> Option<&'a str>,
    ) -> CacheKey {
        CacheKey {
            tenant: tenant.clone(),
            version,
            target: target.to_string(),
            vary: vary
                .iter()
                .map(|name| (name.clone(), header(name).unwrap_or("").to_string()))
                .collect(),
        }
    }
}
