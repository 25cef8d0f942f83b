//! The page cache (request steps 3, [`Cache::lookup`], and 6,
//! [`Cache::insert`]): a thread-local L1 (`l1.rs`) over a sharded L2
//! (`l2.rs`), holding per URL ([`CacheKey`]) the variants of its page
//! (`l2::Slot`), each an `Arc<CacheEntry>` (`entry.rs`). A hit clones the
//! `Arc` and the body is a `Bytes` (a reference-counted buffer), so a hit
//! copies nothing. `docs/cache.md` says what is stored and how it is keyed.
//!
//! Invariants:
//! - What is kept follows the renderer's policy (`no-store` never, an
//!   explicit TTL for any status, the host default TTL for 200 only), and
//!   never: a response that sets a cookie, one that varies on every header,
//!   one whose body is over the entry limit, or one to a request carrying
//!   `Authorization` unless the renderer gave the TTL ([`Cache::entry`]).
//! - An entry is only served to a request whose values of every header the
//!   URL's responses read or declared equal the values it was rendered for;
//!   a request with `Authorization` only gets an entry with an explicit TTL.
//! - [`Flights::run`] shares one render only among requests whose
//!   full key is equal: a waiter whose headers differ from what the finished
//!   render depended on renders on its own.
//! - Bodies are compressed off the async threads, at most
//!   [`CacheBudget::compressions`] at a time, and a hit never waits for it:
//!   a response in the encoding its request wanted (when a slot is free),
//!   and a stored page in every encoding once a hit asks for one it lacks
//!   ([`Cache::compress_later`]): a page no one asks for again is never
//!   compressed for no one.
//! - Bytes are bounded in total and per tenant (`l2.rs`), keys included;
//!   a key over [`MAX_KEY_BYTES`] is never stored. [`Cache::purge`] drops
//!   one tenant's entries, visiting only those (each thread's L1 drops a
//!   purged slot when it next finds it gone); [`Cache::clear`] drops every
//!   entry and invalidates every thread's L1.

mod api;
mod entry;
mod flight;
mod key;
mod l1;
mod l2;

use l2::Slot;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};

pub use api::CacheApi;
pub use entry::{CacheEntry, Decision, Encoding, X_CACHE, policy_ttl};
pub use flight::Flights;
pub use key::{CacheKey, MAX_KEY_BYTES, Url, Varied};

use crate::counter::Striped;

/// The cache's budgets and policy defaults (from `Config::cache_budget`).
#[derive(Clone, Copy, Debug)]
pub struct CacheBudget {
    /// Bytes over all tenants.
    pub bytes: usize,
    /// Bytes one tenant may hold.
    pub tenant_bytes: usize,
    /// The largest body stored or compressed.
    pub entry_bytes: usize,
    /// The TTL of a 200 whose renderer did not give one.
    pub default_ttl: Duration,
    /// Compressions that may run at once.
    pub compressions: usize,
}

impl From<&crate::config::Config> for CacheBudget {
    fn from(c: &crate::config::Config) -> Self {
        CacheBudget {
            bytes: c.cache_mib.bytes(),
            tenant_bytes: c.cache_tenant_mib.bytes(),
            entry_bytes: c.cache_entry_kib.bytes(),
            default_ttl: c.cache_ttl.duration(),
            compressions: c.workers,
        }
    }
}

/// Where a lookup was answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// The thread-local hot array.
    Hot,
    /// The thread-local map or the shared L2.
    Cold,
}

/// A lookup that found nothing to serve: the headers the URL's responses
/// so far vary on.
pub type Miss = Arc<[String]>;

/// Counters, for `/_ssr/metrics`.
#[derive(Debug, Default)]
pub struct CacheStats {
    /// Hits are counted on every request by every thread: striped.
    pub hot_hits: Striped,
    pub cold_hits: Striped,
    pub misses: AtomicU64,
    pub insertions: AtomicU64,
    /// Stored entries made again with every encoding (`compress_later`).
    pub recompressions: AtomicU64,
    pub evictions: AtomicU64,
}

/// The two-tier cache.
pub struct Cache {
    id: u64,
    l2: l2::L2,
    limits: CacheBudget,
    pub stats: CacheStats,
    compressing: Arc<tokio::sync::Semaphore>,
}

/// Counts a response the policy would keep that the cache refused.
fn not_stored(tenant: &str, reason: &'static str) {
    metrics::counter!("ssr_cache_not_stored_total", "tenant" => tenant.to_string(), "reason" => reason)
        .increment(1);
}

/// Whether a request carries credentials (RFC 9111 3.5).
pub fn authorized(headers: &HeaderMap) -> bool {
    headers.contains_key(header::AUTHORIZATION)
}

impl Cache {
    pub fn new(limits: CacheBudget) -> Cache {
        static IDS: AtomicU64 = AtomicU64::new(0);
        Cache {
            id: IDS.fetch_add(1, Ordering::Relaxed),
            l2: l2::L2::new(limits.bytes, limits.tenant_bytes),
            limits,
            stats: CacheStats::default(),
            compressing: Arc::new(tokio::sync::Semaphore::new(limits.compressions.max(1))),
        }
    }

    /// Step 3: `serve`s the entry for a request with `headers` for `url`,
    /// where it lies. Allocates nothing, and touches no shared count, on a
    /// hit from this thread's L1.
    pub fn lookup<R>(
        &self,
        url: &Url,
        headers: &HeaderMap,
        serve: impl FnOnce(&Arc<CacheEntry>, Hit) -> R,
    ) -> Result<R, Miss> {
        let now = Instant::now();
        let authorized = authorized(headers);
        let mut serve = Some(serve);
        let mut answer = |slot: &Slot, hit: Hit| match slot.find(headers, now, authorized) {
            Some(e) => {
                match hit {
                    Hit::Hot => self.stats.hot_hits.add(1),
                    Hit::Cold => self.stats.cold_hits.add(1),
                }
                Ok((serve.take().expect("served once"))(e, hit))
            }
            None => {
                self.stats.misses.fetch_add(1, Ordering::Relaxed);
                Err(slot.vary.clone())
            }
        };
        let from_l1 = url.probe(|key| {
            l1::with(self.id, key, |slot, hot| {
                answer(slot, if hot { Hit::Hot } else { Hit::Cold })
            })
        });
        if let Some(answered) = from_l1 {
            return answered;
        }
        let Some(slot) = url.probe(|key| self.l2.get(key, now)) else {
            self.stats.misses.fetch_add(1, Ordering::Relaxed);
            return Err(Arc::from([]));
        };
        l1::put(self.id, url.key(), slot.clone());
        answer(&slot, Hit::Cold)
    }

    /// What to do with `response`, rendered for a request with `headers`.
    /// A response that is not `cacheable` (to a POST, say) is never kept.
    pub fn decide(
        &self,
        tenant: &str,
        response: &contract::Response,
        headers: &HeaderMap,
        cacheable: bool,
    ) -> Decision {
        let (ttl, explicit) = match cacheable {
            true => entry::policy_ttl(response, self.limits.default_ttl),
            false => (None, false),
        };
        let vary = entry::vary_of(response);
        let refused = if ttl.is_none() {
            None
        } else if response.headers.iter().any(|(k, _)| k == "set-cookie") {
            Some("set-cookie")
        } else if entry::varies_on_all(&vary) {
            Some("vary-all")
        } else if authorized(headers) && !explicit {
            Some("authorization")
        } else if response.body.len() > self.limits.entry_bytes {
            Some("too-large")
        } else {
            None
        };
        if let Some(reason) = refused {
            not_stored(tenant, reason);
        }
        Decision {
            ttl: ttl.filter(|_| refused.is_none()),
            explicit,
            vary,
        }
    }

    /// Makes the entry for `response`, rendered for a request with `headers`
    /// that accepts `wanted`: compressed in `wanted` if a compression slot is
    /// free now (else it goes uncompressed), whether it is kept or not; a
    /// kept one gets its other encodings when a hit asks for them
    /// ([`Cache::compress_later`]). Compression runs on the blocking pool.
    pub async fn entry(
        &self,
        tenant: &str,
        response: contract::Response,
        headers: &HeaderMap,
        wanted: Encoding,
        cacheable: bool,
    ) -> Result<Arc<CacheEntry>, tokio::task::JoinError> {
        let decision = self.decide(tenant, &response, headers, cacheable);
        // For `*`, one absent value: such an entry is never kept or shared.
        let rendered_for = key::varied(headers, &decision.vary);
        let max = self.limits.entry_bytes;
        let compressible = entry::compressible(&response, max);
        let slot = || self.compressing.clone().try_acquire_owned().ok();
        let (permit, encodings): (_, &'static [Encoding]) = match wanted {
            _ if !compressible => (None, &[]),
            Encoding::Br => slot().map_or((None, &[]), |p| (Some(p), &[Encoding::Br])),
            Encoding::Gzip => slot().map_or((None, &[]), |p| (Some(p), &[Encoding::Gzip])),
            Encoding::Identity => (None, &[]),
        };
        if encodings.is_empty() {
            return Ok(Arc::new(CacheEntry::new(
                response,
                decision,
                rendered_for,
                &[],
                max,
            )));
        }
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            Arc::new(CacheEntry::new(
                response,
                decision,
                rendered_for,
                encodings,
                max,
            ))
        })
        .await
    }

    /// After a hit on `entry` (stored as `key`) that wanted an encoding it
    /// lacks ([`CacheEntry::wants_compressing`]): makes the entry again
    /// with every encoding, on the blocking pool if a compression slot is
    /// free now (else a later hit asks again), and puts it in `entry`'s
    /// place unless that changed meanwhile. The hit itself is served as the
    /// entry is.
    pub fn compress_later(self: &Arc<Self>, key: CacheKey, entry: Arc<CacheEntry>) {
        let (Some(permit), Ok(runtime)) = (
            self.compressing.clone().try_acquire_owned().ok(),
            tokio::runtime::Handle::try_current(),
        ) else {
            entry.not_compressing();
            return;
        };
        let cache = self.clone();
        runtime.spawn_blocking(move || {
            let _permit = permit;
            let whole = Arc::new(entry.compressed());
            if cache.l2.replace(&key, &entry, whole) {
                cache.stats.recompressions.fetch_add(1, Ordering::Relaxed);
            }
        });
    }

    /// Step 6: keeps `entry` (if it is to be kept) as `key`'s variant for a
    /// request with `headers`.
    pub fn insert(&self, key: CacheKey, entry: &Arc<CacheEntry>, headers: &HeaderMap) {
        if !entry.stored {
            return;
        }
        if key.len() > key::MAX_KEY_BYTES {
            not_stored(key.tenant(), "key-too-long");
            return;
        }
        if entry.bytes > self.limits.tenant_bytes {
            not_stored(key.tenant(), "too-large");
            return;
        }
        let (slot, evicted) = self.l2.insert(key.clone(), entry.clone(), headers);
        l1::put(self.id, key, slot);
        self.stats.insertions.fetch_add(1, Ordering::Relaxed);
        self.stats
            .evictions
            .fetch_add(evicted as u64, Ordering::Relaxed);
    }

    /// Drops the entries of `key`; whether it had any.
    pub fn remove(&self, key: &CacheKey) -> bool {
        use std::borrow::Borrow;
        self.l2.remove(key.borrow())
    }

    /// Drops `tenant`'s entries (those under `prefix` only, if given).
    /// Costs in proportion to the tenant's own entries: the threads' L1s
    /// are not emptied (other tenants keep theirs), and drop a purged
    /// slot when they next find it gone.
    pub fn purge(&self, tenant: &str, prefix: Option<&str>) -> usize {
        self.l2.purge(tenant, prefix)
    }

    /// Keys visited by purges and by evictions of one tenant: the work
    /// they did (`ssr_cache_purge_visited_total`).
    pub fn visited(&self) -> u64 {
        self.l2.visited()
    }

    pub fn clear(&self) {
        self.l2.clear();
        l1::invalidate_all();
    }

    /// URLs with a stored page.
    /// The TTL of a 200 whose renderer gave none.
    pub fn default_ttl(&self) -> Duration {
        self.limits.default_ttl
    }

    /// The largest body kept.
    pub fn entry_limit(&self) -> usize {
        self.limits.entry_bytes
    }

    pub fn len(&self) -> usize {
        self.l2.len()
    }

    pub fn is_empty(&self) -> bool {
        self.l2.is_empty()
    }

    /// Bytes held, in total.
    pub fn bytes(&self) -> usize {
        self.l2.bytes()
    }

    /// Bytes held by each tenant.
    pub fn bytes_by_tenant(&self) -> Vec<(Arc<str>, usize)> {
        self.l2.bytes_by_tenant()
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;
    use contract::CachePolicy;

    fn limits(bytes: usize, tenant_bytes: usize) -> CacheBudget {
        CacheBudget {
            bytes,
            tenant_bytes,
            entry_bytes: 64 << 10,
            default_ttl: Duration::from_secs(60),
            compressions: 1,
        }
    }

    fn response(body: &str, cache: CachePolicy, status: u16) -> contract::Response {
        contract::Response {
            status,
            headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
            body: body.into(),
            cache,
            vary: vec![],
        }
    }

    static NONE: std::sync::LazyLock<HeaderMap> = std::sync::LazyLock::new(HeaderMap::new);

    fn url<'a>(tenant: &'a str, target: &'a str) -> Url<'a> {
        Url::new(tenant, 1, &NONE, "", target)
    }

    fn key(tenant: &str, target: &str) -> CacheKey {
        url(tenant, target).key()
    }

    fn entry(c: &Cache, body: &str, cache: CachePolicy) -> Arc<CacheEntry> {
        let r = response(body, cache, 200);
        let d = c.decide("t", &r, &HeaderMap::new(), true);
        Arc::new(CacheEntry::new(r, d, Varied::default(), &[], 1 << 20))
    }

    fn hit(c: &Cache, url: Url) -> Option<Hit> {
        c.lookup(&url, &NONE, |_, hit| hit).ok()
    }

    fn policy_is_honoured() {
        let c = Cache::new(limits(1 << 20, 1 << 20));
        let ttl = |r: contract::Response| c.decide("t", &r, &HeaderMap::new(), true).ttl;
        assert_eq!(
            ttl(response("x", CachePolicy::HostDefault, 200)),
            Some(Duration::from_secs(60))
        );
        assert_eq!(ttl(response("x", CachePolicy::HostDefault, 404)), None);
        assert_eq!(
            ttl(response("x", CachePolicy::Ttl(5), 404)),
            Some(Duration::from_secs(5))
        );
        assert_eq!(ttl(response("x", CachePolicy::NoStore, 200)), None);
        let mut cookie = response("x", CachePolicy::Ttl(5), 200);
        cookie.headers.push(("set-cookie".into(), "a=b".into()));
        assert_eq!(ttl(cookie), None, "a cookie is never stored");
    }

    fn second_lookup_on_a_thread_is_a_hot_hit() {
        let c = Cache::new(limits(1 << 20, 1 << 20));
        let e = entry(&c, "x", CachePolicy::HostDefault);
        c.insert(key("t", "/"), &e, &HeaderMap::new());
        assert!(hit(&c, url("t", "/")).is_some());
        assert_eq!(hit(&c, url("t", "/")), Some(Hit::Hot));
        c.purge("t", None);
        assert!(
            hit(&c, url("t", "/")).is_none(),
            "purge must reach this thread's L1"
        );
        assert_eq!(c.bytes(), 0, "purge gives the bytes back");
    }

    fn expired_entries_are_swept_before_the_cache_fills() {
        let c = Cache::new(limits(1 << 30, 1 << 30));
        let e = entry(&c, "x", CachePolicy::Ttl(1));
        std::thread::sleep(Duration::from_millis(1100));
        for i in 0..(l2::MAX_VARIANTS * 3) {
            c.insert(key("t", &format!("/{i}")), &e, &HeaderMap::new());
        }
        // A sweep after 64 inserts (the cache is small): at most the ones
        // since the last remain.
        assert!(c.len() < 64, "{} expired entries kept", c.len());
    }

    fn a_large_cache_sweeps_once_an_eighth_of_its_slots_were_inserted() {
        let c = Cache::new(limits(1 << 30, 1 << 30));
        let live = entry(&c, "x", CachePolicy::Ttl(3600));
        let dead = entry(&c, "x", CachePolicy::Ttl(1));
        std::thread::sleep(Duration::from_millis(1100));
        for i in 0..1024 {
            c.insert(key("t", &format!("/live/{i}")), &live, &HeaderMap::new());
        }
        for i in 0..1024 {
            c.insert(key("t", &format!("/dead/{i}")), &dead, &HeaderMap::new());
        }
        // Swept often enough that the expired never outnumber an eighth of
        // the slots by more than one sweep's worth, and never the live.
        let expired = c.len() - 1024;
        assert!(
            expired <= c.len() / 8 + 1,
            "{expired} expired of {} kept",
            c.len()
        );
    }

    fn bytes_are_bounded_in_total_and_per_tenant() {
        let c = Cache::new(limits(64 << 10, 32 << 10));
        let body = "x".repeat(1000);
        for i in 0..200 {
            for t in ["a", "b", "c"] {
                let e = entry(&c, &body, CachePolicy::HostDefault);
                c.insert(key(t, &format!("/{i}")), &e, &HeaderMap::new());
                assert!(c.bytes() <= 64 << 10, "{} bytes", c.bytes());
                for (_, used) in c.bytes_by_tenant() {
                    assert!(used <= 32 << 10, "{used} bytes for one tenant");
                }
            }
        }
        assert!(c.stats.evictions.load(Ordering::Relaxed) > 500);
        assert!(hit(&c, url("c", "/199")).is_some(), "the newest stays");
        assert!(hit(&c, url("a", "/0")).is_none(), "the oldest went");
        c.clear();
        assert_eq!(c.bytes(), 0);
    }

    fn a_kept_entry_is_compressed_for_its_request_then_in_every_encoding_once_asked() {
        let c = Cache::new(limits(1 << 20, 1 << 20));
        let body = "<p>hello</p>".repeat(100);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let made = |wanted| {
            rt.block_on(c.entry(
                "t",
                response(&body, CachePolicy::HostDefault, 200),
                &HeaderMap::new(),
                wanted,
                true,
            ))
            .unwrap()
        };
        // Rendered for a client that takes none: no compressed copy.
        let plain = made(Encoding::Identity);
        assert_eq!(plain.encoded(Encoding::Br).0, Encoding::Identity);
        // The first hit wanting one asks for both; the others do not ask.
        assert!(plain.wants_compressing(Encoding::Br));
        assert!(!plain.wants_compressing(Encoding::Gzip));
        let whole = plain.compressed();
        let (enc, br, head) = whole.encoded(Encoding::Br);
        assert_eq!(enc, Encoding::Br);
        assert!(br.len() < body.len() / 4);
        assert_eq!(head.get("content-length").unwrap(), &br.len().to_string());
        assert_eq!(whole.encoded(Encoding::Gzip).0, Encoding::Gzip);
        assert_eq!(whole.encoded(Encoding::Identity).1.len(), body.len());
        assert_eq!(whole.etag, plain.etag);
        assert!(whole.bytes > plain.bytes);
        assert!(!whole.wants_compressing(Encoding::Gzip));
        // Rendered for a client that takes br: that copy only.
        let for_br = made(Encoding::Br);
        assert_eq!(for_br.encoded(Encoding::Br).0, Encoding::Br);
        assert_eq!(for_br.encoded(Encoding::Gzip).0, Encoding::Identity);
    }

    fn an_entry_made_again_with_its_copies_takes_its_place_within_the_budget() {
        let c = Cache::new(limits(1 << 20, 24 << 10));
        // Pages that fill the tenant's budget uncompressed, and compress
        // to about half: their two copies cannot fit without an eviction.
        let body: String = (0u64..600)
            .map(|i| format!("{:x} ", i.wrapping_mul(2_654_435_761) % 1_000_003))
            .collect();
        let mut kept = Vec::new();
        for i in 0..12 {
            let e = entry(&c, &body, CachePolicy::HostDefault);
            c.insert(key("a", &format!("/{i}")), &e, &HeaderMap::new());
            kept.push((key("a", &format!("/{i}")), e));
        }
        let (k, old) = kept.last().unwrap().clone();
        let before = c.l2.tenant_bytes("a");
        assert!(c.l2.replace(&k, &old, Arc::new(old.compressed())));
        assert!(
            c.l2.tenant_bytes("a") <= 24 << 10,
            "{} bytes",
            c.l2.tenant_bytes("a")
        );
        // It serves its copies now, and the old entry is no one's.
        let served = c.lookup(&url("a", "/11"), &NONE, |e, _| e.encoded(Encoding::Br).0);
        assert_eq!(served, Ok(Encoding::Br));
        assert!(!c.l2.replace(&k, &old, Arc::new(old.compressed())));
        assert!(before > 0);
    }

    fn etag_matching_is_weak_and_accepts_lists() {
        let c = Cache::new(limits(1 << 20, 1 << 20));
        let e = entry(&c, "x", CachePolicy::HostDefault);
        let etag = e.etag.clone().unwrap();
        assert!(e.matches(&etag));
        assert!(e.matches(&format!("\"other\", {}", etag.trim_start_matches("W/"))));
        assert!(e.matches("*"));
        assert!(!e.matches("\"nope\""));
    }

    crate::unit_tests!(
        policy_is_honoured,
        second_lookup_on_a_thread_is_a_hot_hit,
        expired_entries_are_swept_before_the_cache_fills,
        a_large_cache_sweeps_once_an_eighth_of_its_slots_were_inserted,
        bytes_are_bounded_in_total_and_per_tenant,
        a_kept_entry_is_compressed_for_its_request_then_in_every_encoding_once_asked,
        an_entry_made_again_with_its_copies_takes_its_place_within_the_budget,
        etag_matching_is_weak_and_accepts_lists
    );
}
