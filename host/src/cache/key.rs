//! The cache key, and the request header values a response varies on.
//!
//! A [`CacheKey`] names one URL of one tenant version as the renderer saw it:
//! tenant id and version, the `Host` header (one: a request with two is
//! refused before it gets here), the base path it was routed by (`/t/<id>`
//! or none), and the path and query. Under a
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

use std::borrow::{Borrow, Cow};
use std::cell::RefCell;
use std::sync::Arc;

use axum::http::{HeaderMap, header};

/// One URL of one tenant version, as one string (`tenant NUL version NUL
/// host NUL base NUL target`), so that a lookup probes the maps with a `&str` built in
/// a reused buffer ([`Url::probe`]) and allocates nothing. None of the parts
/// can hold a NUL: tenant ids are checked at registration, and header values
/// and request targets with control characters never reach here.
///
/// Shared (`Arc`): the thread-local tiers and the tenant's index of its
/// keys hold the same bytes, not copies of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(Arc<str>);

impl Borrow<str> for CacheKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl CacheKey {
    pub fn tenant(&self) -> &str {
        self.0.split('\0').next().unwrap_or("")
    }

    /// Its length in bytes, as the cache charges it.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Path and query, after the base.
    pub fn target(&self) -> &str {
        self.0.splitn(5, '\0').nth(4).unwrap_or("")
    }
}

/// The parts of a [`CacheKey`], borrowed from the request.
#[derive(Clone, Copy, Debug)]
pub struct Url<'a> {
    pub tenant: &'a str,
    pub version: u64,
    /// The `Host` header, as the renderer saw it ("" when absent).
    pub host: &'a str,
    /// The path prefix the request was routed by (`/t/<id>`), or "": the
    /// renderer's links depend on it.
    pub base: &'a str,
    /// Path and query as received, after the base.
    pub target: &'a str,
}

/// The longest key the cache keeps: a URL (with its tenant, host and base)
/// longer than this is rendered every time and never stored, so a client
/// cannot fill memory with keys it makes up. 8 KiB is the request line most
/// servers and proxies take.
pub const MAX_KEY_BYTES: usize = 8 << 10;

thread_local! {
    static PROBE: RefCell<String> = const { RefCell::new(String::new()) };
}

impl<'a> Url<'a> {
    pub fn new(
        tenant: &'a str,
        version: u64,
        headers: &'a HeaderMap,
        base: &'a str,
        target: &'a str,
    ) -> Self {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        Url {
            tenant,
            version,
            host,
            base,
            target,
        }
    }

    fn write(&self, out: &mut String) {
        use std::fmt::Write;
        out.clear();
        let _ = write!(
            out,
            "{}\0{:x}\0{}\0{}\0{}",
            self.tenant, self.version, self.host, self.base, self.target
        );
    }

    /// The length of its key, without making it.
    pub fn key_len(&self) -> usize {
        // Four NULs and the version in hex.
        let version = (64 - self.version.leading_zeros()).div_ceil(4).max(1) as usize;
        self.tenant.len() + self.host.len() + self.base.len() + self.target.len() + 4 + version
    }

    /// Whether its key is too long to keep ([`MAX_KEY_BYTES`]): such a URL
    /// is rendered every time and never stored.
    pub fn too_long(&self) -> bool {
        self.key_len() > MAX_KEY_BYTES
    }

    pub fn key(&self) -> CacheKey {
        let mut s = String::new();
        self.write(&mut s);
        CacheKey(s.into())
    }

    /// Runs `f` with this URL's key as a `&str`, made in a thread-local
    /// buffer.
    pub fn probe<T>(&self, f: impl FnOnce(&str) -> T) -> T {
        PROBE.with_borrow_mut(|buf| {
            self.write(buf);
            f(buf)
        })
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

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn a_key_keeps_its_parts() {
        let mut h = HeaderMap::new();
        h.insert("host", "a.test:8080".parse().unwrap());
        let url = Url::new("shop", 7, &h, "/t/shop", "/blog/1?x=1");
        let key = url.key();
        assert_eq!((key.tenant(), key.target()), ("shop", "/blog/1?x=1"));
        url.probe(|probe| assert_eq!(probe, Borrow::<str>::borrow(&key)));
        assert_eq!(url.key_len(), key.len());
        let url = Url::new("shop", u64::MAX, &h, "", "/");
        assert_eq!(url.key_len(), url.key().len());
        let url = Url::new("shop", 0, &h, "", "/");
        assert_eq!(url.key_len(), url.key().len());
    }

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

    crate::unit_tests!(
        a_key_keeps_its_parts,
        repeated_headers_are_joined_as_the_renderer_sees_them
    );
}
