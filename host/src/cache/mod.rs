//! The page cache (request steps 3, [`Cache::lookup`], and 6,
//! [`Cache::insert`]): a thread-local L1 (`l1.rs`) over a sharded L2
//! (`l2.rs`). Entries are `Arc<CacheEntry>`; a hit clones the `Arc` and the
//! body is a `Bytes` (a reference-counted buffer), so a hit copies nothing.
//!
//! Invariants:
//! - What is cached follows the renderer's policy: `no-store` never, an
//!   explicit TTL for any status, the host default TTL for 200 only.
//! - Each entry keeps its brotli and gzip encodings once made
//!   ([`CacheEntry::body`]); a hit never compresses again.
//! - [`Cache::purge`] and [`Cache::clear`] also invalidate every thread's L1.
//! - [`Cache::single_flight`]: concurrent misses on one key render once.

mod key;
mod l1;
mod l2;

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use bytes::Bytes;
use dashmap::DashMap;

pub use key::CacheKey;

use crate::engine::{CachePolicy, RenderResponse};

/// One response, as served (and maybe stored).
#[derive(Debug)]
pub struct CacheEntry {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The response headers every hit sends (the renderer's, `etag` and
    /// `vary`), made once; a hit clones them and adds only its encoding and
    /// length.
    pub head: HeaderMap,
    pub body: Bytes,
    /// A weak validator: the same for every encoding of the body.
    pub etag: String,
    pub expires: Instant,
    /// Whether this entry was stored (false: served once, not kept).
    pub stored: bool,
    /// Request headers (lower-case) the response varies on: the renderer's
    /// `vary` list and its `vary` header together.
    pub vary: Vec<String>,
    seq: AtomicU64,
    gzip: OnceLock<Option<Bytes>>,
    br: OnceLock<Option<Bytes>>,
}

/// A content coding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Br,
}

impl Encoding {
    pub fn name(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Br => Some("br"),
        }
    }

    /// Picks brotli, then gzip, then identity, among what `accept` (an
    /// `Accept-Encoding` value) allows with a non-zero q.
    pub fn negotiate(accept: &str) -> Encoding {
        let allows = |want: &str| {
            accept.split(',').any(|part| {
                let mut it = part.split(';');
                let name = it.next().unwrap_or("").trim();
                let q = it
                    .find_map(|p| p.trim().strip_prefix("q="))
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .unwrap_or(1.0);
                (name.eq_ignore_ascii_case(want) || name == "*") && q > 0.0
            })
        };
        if allows("br") {
            Encoding::Br
        } else if allows("gzip") {
            Encoding::Gzip
        } else {
            Encoding::Identity
        }
    }
}

/// Below this many bytes compression is not worth its header.
const MIN_COMPRESS: usize = 256;

impl CacheEntry {
    pub fn new(response: RenderResponse, ttl: Option<Duration>) -> Arc<CacheEntry> {
        let mut vary = response.vary;
        for (k, v) in &response.headers {
            if k == "vary" {
                vary.extend(v.split(',').map(|s| s.trim().to_ascii_lowercase()));
            }
        }
        vary.retain(|s| !s.is_empty() && s != "accept-encoding");
        vary.sort();
        vary.dedup();
        let body = Bytes::from(response.body);
        let etag = format!("W/\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(&body));
        let head = head(&response.headers, &vary, &etag);
        Arc::new(CacheEntry {
            head,
            status: response.status,
            headers: response.headers,
            etag,
            expires: Instant::now() + ttl.unwrap_or(Duration::ZERO),
            stored: ttl.is_some(),
            vary,
            body,
            seq: AtomicU64::new(0),
            gzip: OnceLock::new(),
            br: OnceLock::new(),
        })
    }

    fn compressible(&self) -> bool {
        if self.body.len() < MIN_COMPRESS {
            return false;
        }
        let ct = self
            .headers
            .iter()
            .find(|(k, _)| k == "content-type")
            .map_or("", |(_, v)| v.as_str());
        ct.starts_with("text/")
            || ct.contains("json")
            || ct.contains("javascript")
            || ct.contains("xml")
    }

    /// The body in `wanted` encoding, made once and kept; falls back to
    /// identity for small or binary bodies. Returns the encoding used.
    pub fn body(&self, wanted: Encoding) -> (Encoding, Bytes) {
        if wanted == Encoding::Identity || !self.compressible() {
            return (Encoding::Identity, self.body.clone());
        }
        let made = match wanted {
            Encoding::Br => self.br.get_or_init(|| compress_br(&self.body)),
            Encoding::Gzip => self.gzip.get_or_init(|| compress_gzip(&self.body)),
            Encoding::Identity => unreachable!(),
        };
        match made {
            Some(b) => (wanted, b.clone()),
            None => (Encoding::Identity, self.body.clone()),
        }
    }

    /// Whether `if_none_match` (an `If-None-Match` value) matches this
    /// entry (weak comparison, as RFC 9110 asks for this header).
    pub fn matches(&self, if_none_match: &str) -> bool {
        let ours = self.etag.trim_start_matches("W/");
        if_none_match
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || t.trim_start_matches("W/") == ours)
    }
}

/// The headers of every response made from one entry. Headers that describe
/// the bytes on the wire (length, encoding) are set per response instead;
/// a header that is not valid HTTP is dropped.
fn head(headers: &[(String, String)], vary: &[String], etag: &str) -> HeaderMap {
    let mut h = HeaderMap::with_capacity(headers.len() + 3);
    for (k, v) in headers {
        if matches!(
            k.as_str(),
            "content-length"
                | "content-encoding"
                | "etag"
                | "transfer-encoding"
                | "connection"
                | "vary"
        ) {
            continue;
        }
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(k.as_str()),
            HeaderValue::try_from(v.as_str()),
        ) {
            h.append(name, value);
        }
    }
    let mut v = vary.join(", ");
    v.push_str(if v.is_empty() {
        "accept-encoding"
    } else {
        ", accept-encoding"
    });
    h.insert(
        header::VARY,
        HeaderValue::try_from(v).unwrap_or(HeaderValue::from_static("accept-encoding")),
    );
    h.insert(
        header::ETAG,
        HeaderValue::try_from(etag).expect("an etag is ASCII"),
    );
    h
}

fn compress_br(body: &[u8]) -> Option<Bytes> {
    let mut out = Vec::with_capacity(body.len() / 4);
    let params = brotli::enc::BrotliEncoderParams {
        // Quality 5: most of brotli's gain at a small part of quality 11's
        // time; it is paid once per cache entry.
        quality: 5,
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &body[..], &mut out, &params).ok()?;
    Some(Bytes::from(out))
}

fn compress_gzip(body: &[u8]) -> Option<Bytes> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(body.len() / 3),
        flate2::Compression::new(6),
    );
    enc.write_all(body).ok()?;
    enc.finish().ok().map(Bytes::from)
}

/// Where a lookup was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// The thread-local hot array.
    Hot,
    /// The thread-local map or the shared L2.
    Cold,
}

/// Counters, for `/metrics`.
#[derive(Debug, Default)]
pub struct CacheStats {
    pub lookups: AtomicU64,
    pub hot_hits: AtomicU64,
    pub cold_hits: AtomicU64,
    pub misses: AtomicU64,
    pub insertions: AtomicU64,
    pub evictions: AtomicU64,
}

/// The two-tier cache.
pub struct Cache {
    id: u64,
    l2: l2::L2,
    default_ttl: Duration,
    pub stats: CacheStats,
    inflight: DashMap<CacheKey, Arc<Flight>>,
    vary: DashMap<Arc<str>, Arc<Vec<String>>>,
}

/// A failure shared by every waiter of one single-flight render.
pub type FlightError = Arc<dyn std::error::Error + Send + Sync>;

/// One render in flight, and its result once there is one.
type Flight = tokio::sync::OnceCell<Result<Arc<CacheEntry>, FlightError>>;

impl Cache {
    pub fn new(capacity: usize, default_ttl: Duration) -> Cache {
        static IDS: AtomicU64 = AtomicU64::new(0);
        Cache {
            id: IDS.fetch_add(1, Ordering::Relaxed),
            l2: l2::L2::new(capacity),
            default_ttl,
            stats: CacheStats::default(),
            inflight: DashMap::new(),
            vary: DashMap::new(),
        }
    }

    /// The request headers `tenant`'s responses have declared they vary on.
    pub fn vary_for(&self, tenant: &Arc<str>) -> Arc<Vec<String>> {
        self.vary.get(tenant).map(|v| v.clone()).unwrap_or_default()
    }

    /// How long to keep `response`, or `None` not to store it.
    pub fn ttl_for(&self, response: &RenderResponse) -> Option<Duration> {
        let ttl = match response.cache {
            CachePolicy::NoStore => return None,
            CachePolicy::Ttl(s) => Duration::from_secs(s.into()),
            CachePolicy::HostDefault if response.status == 200 => self.default_ttl,
            CachePolicy::HostDefault => return None,
        };
        (!ttl.is_zero()).then_some(ttl)
    }

    pub fn lookup(&self, key: &CacheKey) -> Option<(Arc<CacheEntry>, Hit)> {
        let now = Instant::now();
        self.stats.lookups.fetch_add(1, Ordering::Relaxed);
        let found = match l1::get(self.id, key, now) {
            Some(l1::Hit::Hot(e)) => Some((e, Hit::Hot)),
            Some(l1::Hit::Warm(e)) => Some((e, Hit::Cold)),
            None => self.l2.get(key, now).map(|e| {
                l1::put(self.id, key.clone(), e.clone());
                (e, Hit::Cold)
            }),
        };
        match &found {
            Some((_, Hit::Hot)) => self.stats.hot_hits.fetch_add(1, Ordering::Relaxed),
            Some((_, Hit::Cold)) => self.stats.cold_hits.fetch_add(1, Ordering::Relaxed),
            None => self.stats.misses.fetch_add(1, Ordering::Relaxed),
        };
        found
    }

    /// Stores a rendered entry (if it is meant to be stored) and learns the
    /// headers its tenant varies on.
    pub fn insert(&self, key: CacheKey, entry: &Arc<CacheEntry>, vary: &[String]) {
        if !vary.is_empty() && self.vary_for(&key.tenant).as_slice() != vary {
            self.vary
                .insert(key.tenant.clone(), Arc::new(vary.to_vec()));
        }
        if !entry.stored {
            return;
        }
        let evicted = self.l2.insert(key.clone(), entry.clone());
        l1::put(self.id, key, entry.clone());
        self.stats.insertions.fetch_add(1, Ordering::Relaxed);
        self.stats
            .evictions
            .fetch_add(evicted as u64, Ordering::Relaxed);
    }

    /// Runs `render` once for all concurrent callers with the same key.
    /// A caller that joined another's render of a response that was not
    /// stored (no-store, an error page) renders for itself: only what may
    /// be cached is shared.
    pub async fn single_flight<F, Fut>(
        &self,
        key: &CacheKey,
        render: F,
    ) -> Result<Arc<CacheEntry>, FlightError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Arc<CacheEntry>, FlightError>>,
    {
        let cell = self.inflight.entry(key.clone()).or_default().clone();
        let mut render = Some(render);
        let out = cell
            .get_or_init(|| (render.take().expect("called once"))())
            .await
            .clone();
        self.inflight.remove_if(key, |_, c| Arc::ptr_eq(c, &cell));
        match (render, &out) {
            (Some(own), Ok(entry)) if !entry.stored => own().await,
            _ => out,
        }
    }

    /// Drops `tenant`'s entries (those under `prefix` only, if given).
    pub fn purge(&self, tenant: &str, prefix: Option<&str>) -> usize {
        let n = self.l2.purge(tenant, prefix);
        l1::invalidate_all();
        n
    }

    pub fn clear(&self) {
        self.l2.clear();
        l1::invalidate_all();
    }

    pub fn len(&self) -> usize {
        self.l2.len()
    }

    pub fn is_empty(&self) -> bool {
        self.l2.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(body: &str, cache: CachePolicy, status: u16) -> RenderResponse {
        RenderResponse {
            status,
            headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
            body: body.into(),
            cache,
            vary: vec![],
        }
    }

    fn key(target: &str) -> CacheKey {
        CacheKey::new(&"t".into(), 1, target, &[], |_| None)
    }

    #[test]
    fn negotiation_prefers_br_then_gzip() {
        assert_eq!(Encoding::negotiate("gzip, deflate, br"), Encoding::Br);
        assert_eq!(Encoding::negotiate("gzip, br;q=0"), Encoding::Gzip);
        assert_eq!(Encoding::negotiate("identity"), Encoding::Identity);
        assert_eq!(Encoding::negotiate(""), Encoding::Identity);
    }

    #[test]
    fn policy_is_honoured() {
        let c = Cache::new(10, Duration::from_secs(60));
        assert_eq!(
            c.ttl_for(&response("x", CachePolicy::HostDefault, 200)),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            c.ttl_for(&response("x", CachePolicy::HostDefault, 404)),
            None
        );
        assert_eq!(
            c.ttl_for(&response("x", CachePolicy::Ttl(5), 404)),
            Some(Duration::from_secs(5))
        );
        assert_eq!(c.ttl_for(&response("x", CachePolicy::NoStore, 200)), None);
    }

    #[test]
    fn second_lookup_on_a_thread_is_a_hot_hit() {
        let c = Cache::new(10, Duration::from_secs(60));
        let e = CacheEntry::new(
            response("x", CachePolicy::HostDefault, 200),
            Some(Duration::from_secs(60)),
        );
        c.insert(key("/"), &e, &[]);
        assert_eq!(c.lookup(&key("/")).unwrap().1, Hit::Cold);
        assert_eq!(c.lookup(&key("/")).unwrap().1, Hit::Hot);
        c.purge("t", None);
        assert!(
            c.lookup(&key("/")).is_none(),
            "purge must reach this thread's L1"
        );
    }

    #[test]
    fn expired_entries_are_swept_before_the_cache_fills() {
        let c = Cache::new(640, Duration::from_secs(60));
        let e = CacheEntry::new(
            response("x", CachePolicy::Ttl(0), 200),
            Some(Duration::ZERO),
        );
        for i in 0..5 {
            c.insert(key(&format!("/{i}")), &e, &[]);
        }
        assert_eq!(c.len(), 5, "kept until the next sweep");
        for i in 5..25 {
            c.insert(key(&format!("/{i}")), &e, &[]);
        }
        // A sweep every 10 inserts: at most the 5 since the last one remain.
        assert!(c.len() <= 5, "{} expired entries kept", c.len());
    }

    #[test]
    fn capacity_is_kept_by_evicting_the_oldest() {
        let c = Cache::new(64, Duration::from_secs(60));
        for i in 0..100 {
            let e = CacheEntry::new(
                response("x", CachePolicy::HostDefault, 200),
                Some(Duration::from_secs(60)),
            );
            c.insert(key(&format!("/{i}")), &e, &[]);
        }
        assert!(c.len() <= 64);
        assert!(c.stats.evictions.load(Ordering::Relaxed) >= 36);
        c.clear();
        assert!(c.lookup(&key("/99")).is_none());
    }

    #[test]
    fn encodings_are_made_once_and_kept() {
        let body = "<p>hello</p>".repeat(100);
        let e = CacheEntry::new(response(&body, CachePolicy::HostDefault, 200), None);
        let (enc, br1) = e.body(Encoding::Br);
        assert_eq!(enc, Encoding::Br);
        let (_, br2) = e.body(Encoding::Br);
        assert_eq!(
            br1.as_ptr(),
            br2.as_ptr(),
            "the second hit must reuse the encoding"
        );
        assert!(br1.len() < body.len() / 4);
        let (enc, _) = e.body(Encoding::Gzip);
        assert_eq!(enc, Encoding::Gzip);
    }

    #[test]
    fn etag_matching_is_weak_and_accepts_lists() {
        let e = CacheEntry::new(response("x", CachePolicy::HostDefault, 200), None);
        assert!(e.matches(&e.etag));
        assert!(e.matches(&format!("\"other\", {}", e.etag.trim_start_matches("W/"))));
        assert!(e.matches("*"));
        assert!(!e.matches("\"nope\""));
    }
}
