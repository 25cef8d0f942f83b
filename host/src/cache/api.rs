//! The Workers Cache API (`caches.default`, `caches.open(name)`: `match`,
//! `put`, `delete`) for a tenant's own code, kept in the page cache
//! (`calls::CACHE`). A framework's own caching is then real: it is bounded
//! by the tenant's and the server's cache budgets, evicted and expired like
//! pages, and emptied by a purge of the tenant.
//!
//! Invariants:
//! - A Cache API entry can never answer a page request, nor a page one of
//!   its calls: its key's base starts with a control character
//!   ([`CacheApi::url`]), which no routed base can (`""` or `/t/<id>`).
//! - The rules are the page cache's own ([`Cache::decide`]): a response
//!   that sets a cookie, varies on `*`, says `no-store` or `private`, or is
//!   over the entry limit is not kept; a `Vary`ing response is found only
//!   for a request with the same values of those headers. `put` refuses a
//!   body over the entry limit with a message naming it, as Workers
//!   refuses one over its own limit.
//! - The tenant's version is part of the key, as for pages: a new version
//!   starts with an empty Cache API.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use contract::{CachePolicy, Reply};
use serde::Deserialize;

use super::{Cache, CacheEntry, Encoding, Url, X_CACHE, key};

/// A tenant version's handle on the cache, for its Cache API calls.
#[derive(Clone)]
pub struct CacheApi {
    pub cache: Arc<Cache>,
    pub version: u64,
}

/// One call: `op` on the cache `name`, for the request `url` with
/// `headers`; `put` brings the response's head, its body as the call's bytes.
#[derive(Deserialize)]
struct Args {
    op: String,
    name: String,
    url: String,
    headers: Vec<(String, String)>,
    response: Option<Head>,
}

/// A response's head, in the prelude's normalized form (`ttl`: -1 the
/// host's default, -2 no-store, else seconds).
#[derive(Deserialize)]
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
    ttl: i64,
}

/// What `match` found: `{status, headers}` with the body as the bytes.
#[derive(serde::Serialize)]
struct Found<'a> {
    status: u16,
    headers: Vec<(&'a str, &'a str)>,
}

impl CacheApi {
    /// The base under which the cache `name`'s entries lie.
    fn base(name: &str) -> String {
        format!("\u{1}cache\u{1}{name}")
    }

    /// Runs one call for `tenant`.
    pub fn call(&self, tenant: &str, args: &str, data: &[u8]) -> Result<Reply, String> {
        let a: Args = serde_json::from_str(args)
            .map_err(|e| format!("cache: bad arguments {args:?}: {e}"))?;
        if a.name.chars().chain(a.url.chars()).any(char::is_control) {
            return Err("cache: a cache name or URL may not hold control characters".into());
        }
        let mut headers = HeaderMap::new();
        for (k, v) in &a.headers {
            if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
                headers.append(k, v);
            }
        }
        let base = Self::base(&a.name);
        let url = Url {
            tenant,
            version: self.version,
            host: "",
            base: &base,
            target: &a.url,
        };
        match a.op.as_str() {
            "match" => Ok(self.find(&url, &headers)),
            "put" => {
                let head = a.response.ok_or("cache: put needs the response's head")?;
                self.put(&url, &headers, head, data)?;
                Ok(Reply::default())
            }
            "delete" => Ok(Reply {
                value: self.cache.remove(&url.key()).to_string(),
                data: Vec::new(),
            }),
            op => Err(format!("cache: no operation \"{op}\"")),
        }
    }

    fn find(&self, url: &Url, headers: &HeaderMap) -> Reply {
        let found = self.cache.lookup(url, headers, |entry, _| {
            let (_, body, head) = entry.encoded(Encoding::Identity);
            let found = Found {
                status: entry.status,
                headers: head
                    .iter()
                    .filter(|(k, _)| **k != X_CACHE)
                    .filter_map(|(k, v)| Some((k.as_str(), v.to_str().ok()?)))
                    .collect(),
            };
            Reply {
                value: serde_json::to_string(&found).expect("a head serializes"),
                data: body.to_vec(),
            }
        });
        found.unwrap_or_else(|_| Reply {
            value: "null".into(),
            data: Vec::new(),
        })
    }

    fn put(&self, url: &Url, headers: &HeaderMap, head: Head, body: &[u8]) -> Result<(), String> {
        let limit = self.cache.entry_limit();
        if body.len() > limit {
            return Err(format!(
                "cache.put: the response's body is {} bytes, over the cache's entry limit of {limit} bytes (--cache-entry-kib)",
                body.len()
            ));
        }
        let response = contract::Response {
            status: head.status,
            headers: head.headers,
            body: body.to_vec(),
            cache: match head.ttl {
                -2 => CachePolicy::NoStore,
                n if n < 0 => CachePolicy::HostDefault,
                n => CachePolicy::Ttl(u32::try_from(n).unwrap_or(u32::MAX)),
            },
            vary: Vec::new(),
        };
        let decision = self.cache.decide(url.tenant, &response, headers, true);
        let rendered_for = key::varied(headers, &decision.vary);
        let entry = Arc::new(CacheEntry::new(response, decision, rendered_for, &[], 0));
        self.cache.insert(url.key(), &entry, headers);
        Ok(())
    }
}
