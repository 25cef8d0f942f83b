//! The cache key, and the request header values a response varies on.
//!
//! A [`CacheKey`] names one URL of one tenant version as the renderer saw it:
//! tenant id and version, the `Host` header, and the path and query. Under a
//! key the cache keeps variants, one per combination of the values of the
//! request headers the URL's responses read or declared ([`Varied`]).
//!
//! Invariants:
//! - A header's value in a key is the value the renderer was given: every
//!   occurrence that is valid text, joined with ", " in order (the prelude
//!   joins repeated headers the same way), or absent. [`seen`] is the one
//!   place that makes it.
//! - GET and HEAD share keys (a HEAD is answered from the GET entry).
//! - The tenant's version is part of the key, so a replaced plugin's pages
//!   can never be served for the new one, even before the purge completes.

use std::borrow::Cow;
use std::sync::Arc;

use axum::http::HeaderMap;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub tenant: Arc<str>,
    pub version: u64,
    /// The `Host` header, as the renderer saw it ("" when absent).
    pub host: String,
    /// Path and query as received.
    pub target: String,
}

impl CacheKey {
    pub fn new(tenant: &Arc<str>, version: u64, headers: &HeaderMap, target: &str) -> CacheKey {
        CacheKey {
            tenant: tenant.clone(),
            version,
            host: seen(headers, "host")
                .map(Cow::into_owned)
                .unwrap_or_default(),
            target: target.to_string(),
        }
    }
}

/// The values of some request headers, in the order of a list of names:
/// `None` where the request had no such header.
pub type Varied = Box<[Option<Box<str>>]>;

/// The value of request header `name` (lower-case) as the renderer sees it.
pub fn seen<'a>(headers: &'a HeaderMap, name: &str) -> Option<Cow<'a, str>> {
    let mut values = headers.get_all(name).iter().filter_map(|v| v.to_str().ok());
    let first = values.next()?;
    match values.next() {
        None => Some(Cow::Borrowed(first)),
        Some(second) => {
            let mut joined = format!("{first}, {second}");
            for v in values {
                joined.push_str(", ");
                joined.push_str(v);
            }
            Some(Cow::Owned(joined))
        }
    }
}

/// The request's values for `names`.
pub fn varied(headers: &HeaderMap, names: &[String]) -> Varied {
    names
        .iter()
        .map(|n| seen(headers, n).map(|v| v.into()))
        .collect()
}

/// Whether the request's values for `names` are `values`, without
/// allocating for headers that appear once.
pub fn matches(headers: &HeaderMap, names: &[String], values: &[Option<Box<str>>]) -> bool {
    names
        .iter()
        .zip(values)
        .all(|(n, v)| seen(headers, n).as_deref() == v.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_headers_are_joined_as_the_renderer_sees_them() {
        let mut h = HeaderMap::new();
        h.append("accept-language", "en".parse().unwrap());
        h.append("accept-language", "<script>".parse().unwrap());
        assert_eq!(seen(&h, "accept-language").unwrap(), "en, <script>");
        assert_eq!(seen(&h, "cookie"), None);
        let names = vec!["accept-language".to_string(), "cookie".to_string()];
        let v = varied(&h, &names);
        assert!(matches(&h, &names, &v));
        let mut only_en = HeaderMap::new();
        only_en.append("accept-language", "en".parse().unwrap());
        assert!(!matches(&only_en, &names, &v));
    }
}
