//! One rendered response as the cache holds it ([`CacheEntry`]), what the
//! cache decides about a response before keeping it ([`Decision`]), and
//! content-coding negotiation ([`Encoding`]).
//!
//! Invariants:
//! - An entry is immutable once made, but for the flag that says a copy
//!   with more encodings is being made: serving it never compresses. A
//!   stored entry is made with at most the encoding its own request wanted;
//!   the first hit that wants one it lacks has [`CacheEntry::compressed`]
//!   make a whole new entry with both, off the async threads, which replaces
//!   it in the cache (`Cache::compress_later`).
//! - `vary` holds the request headers the response depends on: those the
//!   renderer declared (its `vary` list and `Vary` header) and those it read
//!   (the prelude records reads). `["*"]` means every header: such a response
//!   is never stored nor shared.
//! - `rendered_for` holds the rendering request's values of `vary`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use bytes::Bytes;

use super::key::Varied;
use contract::CachePolicy;

pub use crate::encoding::Encoding;
use crate::encoding::{Effort, MIN_COMPRESS, compress};

/// What the cache does with one rendered response.
#[derive(Debug)]
pub struct Decision {
    /// How long to keep it; `None`: serve it once, keep nothing.
    pub ttl: Option<Duration>,
    /// The renderer gave a TTL itself (may answer requests that carry
    /// `Authorization`).
    pub explicit: bool,
    /// Request headers the response depends on, sorted; see the module doc.
    pub vary: Vec<String>,
}

/// Whether a `vary` list (as [`vary_of`] makes it) means every header.
pub fn varies_on_all(vary: &[String]) -> bool {
    vary.first().is_some_and(|v| v == "*")
}

/// The request headers a response depends on: the renderer's `vary` list and
/// `Vary` header together, lower-case, sorted; `accept-encoding` (the host
/// negotiates it) and `host` (always in the key) left out; `["*"]` if any
/// says `*`.
pub fn vary_of(response: &contract::Response) -> Vec<String> {
    let declared = response
        .headers
        .iter()
        .filter(|(k, _)| k == "vary")
        .flat_map(|(_, v)| v.split(','));
    let mut vary: Vec<String> = response
        .vary
        .iter()
        .map(String::as_str)
        .chain(declared)
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty() && s != "accept-encoding" && s != "host")
        .collect();
    if vary.iter().any(|s| s == "*") {
        return vec!["*".into()];
    }
    vary.sort();
    vary.dedup();
    vary
}

/// Whether a response came from the cache (`hit`), was rendered for this
/// request (`miss`), or could not be cached (`bypass`).
pub const X_CACHE: HeaderName = HeaderName::from_static("x-cache");

/// What an entry costs beyond its bytes (the `Arc`, the map slot, the
/// `HeaderMap`'s tables), so that many tiny entries still count.
const ENTRY_OVERHEAD: usize = 512;

/// One response, as served (and maybe stored).
#[derive(Debug)]
pub struct CacheEntry {
    pub status: u16,
    pub body: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
    /// The whole response head of a hit in each encoding, by `Encoding as
    /// usize` (the renderer's headers, `etag`, `vary`, `content-length`,
    /// `content-encoding` and `x-cache: hit`), made once: serving clones one
    /// and inserts nothing (`benches/hits.sh`).
    heads: [HeaderMap; 3],
    /// The renderer's validator, or else a weak one of ours (stored
    /// entries only); the same for every encoding.
    pub etag: Option<String>,
    pub expires: Instant,
    /// Whether this entry is kept (false: served once).
    pub stored: bool,
    /// See [`Decision::explicit`].
    pub explicit: bool,
    pub vary: Vec<String>,
    pub rendered_for: Varied,
    /// What keeping it costs the cache, in bytes.
    pub bytes: usize,
    /// Whether its body is worth compressing ([`compressible`]).
    compressible: bool,
    /// Set by the one hit that has a copy with every encoding made.
    compressing: AtomicBool,
}

impl CacheEntry {
    /// Makes an entry, with the body compressed in each of `encodings`
    /// (CPU-heavy for a large body: call it off the async threads then).
    pub fn new(
        response: contract::Response,
        decision: Decision,
        rendered_for: Varied,
        encodings: &[Encoding],
        max: usize,
    ) -> CacheEntry {
        let compressible = compressible(&response, max);
        let body = Bytes::from(response.body);
        let stored = decision.ttl.is_some();
        // The renderer's own validator when it set one (a framework that
        // answers `If-None-Match` itself needs its tag back), else ours.
        let etag = own_etag(&response.headers).or_else(|| {
            stored.then(|| format!("W/\"{:016x}\"", xxhash_rust::xxh3::xxh3_64(&body)))
        });
        let made = |e: Encoding| encodings.contains(&e).then(|| copy_in(e, &body)).flatten();
        let (gzip, br) = (made(Encoding::Gzip), made(Encoding::Br));
        let (body, gzip, br) = match stored {
            true => (own_pages(body), gzip.map(own_pages), br.map(own_pages)),
            false => (body, gzip, br),
        };
        let bytes = ENTRY_OVERHEAD
            + body.len()
            + gzip.as_ref().map_or(0, Bytes::len)
            + br.as_ref().map_or(0, Bytes::len)
            // The head, in each of the three encodings' copies.
            + 3 * response
                .headers
                .iter()
                .map(|(k, v)| k.len() + v.len())
                .sum::<usize>()
            + rendered_for
                .iter()
                .map(|v| v.as_ref().map_or(0, |v| v.len()))
                .sum::<usize>();
        let head = head(&response.headers, &decision.vary, etag.as_deref());
        CacheEntry {
            status: response.status,
            heads: [
                head_for(&head, Encoding::Identity, Some(&body)),
                head_for(&head, Encoding::Gzip, gzip.as_ref()),
                head_for(&head, Encoding::Br, br.as_ref()),
            ],
            body,
            gzip,
            br,
            etag,
            expires: Instant::now() + decision.ttl.unwrap_or(Duration::ZERO),
            stored,
            explicit: decision.explicit,
            vary: decision.vary,
            rendered_for,
            bytes,
            compressible,
            compressing: AtomicBool::new(false),
        }
    }

    /// Whether a hit that wants `wanted` should have a copy of this entry
    /// with every encoding made: it is stored, worth compressing, lacks
    /// `wanted`, and no other hit has asked yet (this one is the one).
    pub fn wants_compressing(&self, wanted: Encoding) -> bool {
        self.stored
            && self.compressible
            && wanted != Encoding::Identity
            && self.encoded(wanted).0 != wanted
            && !self.compressing.swap(true, Ordering::Relaxed)
    }

    /// Lets a later hit ask again (no compression slot was free).
    pub fn not_compressing(&self) {
        self.compressing.store(false, Ordering::Relaxed);
    }

    /// This entry with both compressed copies (CPU-heavy: off the async
    /// threads).
    pub fn compressed(&self) -> CacheEntry {
        let make = |e: Encoding, had: Option<&Bytes>| {
            had.cloned()
                .or_else(|| copy_in(e, &self.body).map(own_pages))
        };
        let (gzip, br) = (
            make(Encoding::Gzip, self.gzip.as_ref()),
            make(Encoding::Br, self.br.as_ref()),
        );
        let added = |new: &Option<Bytes>, old: &Option<Bytes>| match (new, old) {
            (Some(n), None) => n.len(),
            _ => 0,
        };
        let bytes = self.bytes + added(&gzip, &self.gzip) + added(&br, &self.br);
        // The identity head less its length: the head the others start from.
        let mut head = self.heads[0].clone();
        head.remove(header::CONTENT_LENGTH);
        head.remove(X_CACHE);
        CacheEntry {
            status: self.status,
            heads: [
                self.heads[0].clone(),
                head_for(&head, Encoding::Gzip, gzip.as_ref()),
                head_for(&head, Encoding::Br, br.as_ref()),
            ],
            body: self.body.clone(),
            gzip,
            br,
            etag: self.etag.clone(),
            expires: self.expires,
            stored: self.stored,
            explicit: self.explicit,
            vary: self.vary.clone(),
            rendered_for: self.rendered_for.clone(),
            bytes,
            compressible: self.compressible,
            compressing: AtomicBool::new(true),
        }
    }

    /// A stand-in for a response that was streamed to its own client
    /// (`http::routes`): kept by no one, so a request that shared its render
    /// renders for itself (`Flights::run`).
    pub fn streamed() -> CacheEntry {
        let response = contract::Response {
            status: 200,
            headers: Vec::new(),
            cache: CachePolicy::NoStore,
            vary: Vec::new(),
            body: Vec::new(),
        };
        let decision = Decision {
            ttl: None,
            explicit: false,
            vary: Vec::new(),
        };
        CacheEntry::new(response, decision, Box::default(), &[], 0)
    }

    /// The head of a streamed response, made as an entry's is (the
    /// renderer's valid headers, `vary`), without a length or validator.
    pub fn stream_head(response: &contract::Response) -> HeaderMap {
        let etag = own_etag(&response.headers);
        head(&response.headers, &vary_of(response), etag.as_deref())
    }

    /// The body in `wanted` encoding if the entry has it, else as rendered,
    /// with the encoding used and the head of a hit in it.
    pub fn encoded(&self, wanted: Encoding) -> (Encoding, &Bytes, &HeaderMap) {
        let made = match wanted {
            Encoding::Br => self.br.as_ref(),
            Encoding::Gzip => self.gzip.as_ref(),
            Encoding::Identity => None,
        };
        match made {
            Some(b) => (wanted, b, &self.heads[wanted as usize]),
            None => (Encoding::Identity, &self.body, &self.heads[0]),
        }
    }

    /// Whether `if_none_match` (an `If-None-Match` value) matches this
    /// entry (weak comparison, as RFC 9110 asks for this header).
    pub fn matches(&self, if_none_match: &str) -> bool {
        let Some(etag) = &self.etag else {
            return false;
        };
        let ours = etag.trim_start_matches("W/");
        if_none_match
            .split(',')
            .map(str::trim)
            .any(|t| t == "*" || t.trim_start_matches("W/") == ours)
    }
}

/// `body` compressed in `e`, if that makes it smaller.
fn copy_in(e: Encoding, body: &Bytes) -> Option<Bytes> {
    compress(e, body, Effort::Serving).filter(|c| c.len() < body.len())
}

/// The head of a hit in `encoding` (`head` with its encoding, length and
/// `x-cache`); an encoding the entry lacks is never served (`encoded` falls
/// back to identity) and has an empty head.
fn head_for(head: &HeaderMap, encoding: Encoding, body: Option<&Bytes>) -> HeaderMap {
    let Some(body) = body else {
        return HeaderMap::new();
    };
    let mut h = head.clone();
    h.reserve(3);
    if let Some(name) = encoding.name() {
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static(name));
    }
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    h.insert(X_CACHE, HeaderValue::from_static("hit"));
    h
}

/// Bodies this large are kept in pages of their own: glibc's initial mmap
/// threshold. A smaller block is reused by the heap once freed, and serving
/// a 100 KiB page from a mapping of its own was about 4% slower than from the
/// heap (`benches/hits.sh`, four alternating runs).
const OWN_PAGES: usize = 128 << 10;

/// `bytes` moved into an anonymous mapping of its own when it is large, so
/// that dropping the entry (purge, eviction, expiry) gives the memory back to
/// the kernel at once. In the heap it would often stay resident: glibc raises
/// its mmap threshold after the first large free and serves later large
/// bodies from heaps it rarely trims (a purge of 160 MiB of 4 MiB pages
/// released nothing; `cache::issue_14_purge_returns_the_memory`). Costs one
/// copy per kept body; a mapping that fails keeps the heap copy.
fn own_pages(bytes: Bytes) -> Bytes {
    if bytes.len() < OWN_PAGES {
        return bytes;
    }
    let Ok(mut map) = memmap2::MmapMut::map_anon(bytes.len()) else {
        return bytes;
    };
    map.copy_from_slice(&bytes);
    match map.make_read_only() {
        Ok(map) => Bytes::from_owner(map),
        Err(_) => bytes,
    }
}

/// Whether a body of this type and size is worth compressing.
pub fn compressible(response: &contract::Response, max: usize) -> bool {
    if response.body.len() < MIN_COMPRESS || response.body.len() > max {
        return false;
    }
    let ct = response
        .headers
        .iter()
        .find(|(k, _)| k == "content-type")
        .map_or("", |(_, v)| v.as_str());
    crate::encoding::compressible_type(ct)
}

/// The `ETag` a renderer set, if it is a valid header value.
fn own_etag(headers: &[(String, String)]) -> Option<String> {
    headers
        .iter()
        .find(|(k, v)| k == "etag" && HeaderValue::try_from(v.as_str()).is_ok())
        .map(|(_, v)| v.clone())
}

/// The headers of every response made from one entry. Headers that describe
/// the bytes on the wire (length, encoding) are set per response instead;
/// a header that is not valid HTTP is dropped.
fn head(headers: &[(String, String)], vary: &[String], etag: Option<&str>) -> HeaderMap {
    let mut h = HeaderMap::with_capacity(headers.len() + 3);
    for (k, v) in headers {
        let per_response = matches!(k.as_str(), "content-encoding" | "etag" | "vary");
        if per_response || crate::framing::is_framing(k) {
            continue;
        }
        if let (Ok(name), Ok(value)) = (
            HeaderName::try_from(k.as_str()),
            HeaderValue::try_from(v.as_str()),
        ) {
            h.append(name, value);
        }
    }
    let vary = if varies_on_all(vary) {
        "*".to_string()
    } else {
        let mut v = vary.join(", ");
        v.push_str(if v.is_empty() { "" } else { ", " });
        v.push_str("accept-encoding");
        v
    };
    h.insert(
        header::VARY,
        HeaderValue::try_from(vary).unwrap_or(HeaderValue::from_static("*")),
    );
    if let Some(etag) = etag {
        h.insert(
            header::ETAG,
            HeaderValue::try_from(etag).expect("an etag is checked or ours"),
        );
    }
    h
}

/// The policy's TTL for `response`, and whether the renderer chose it.
pub fn policy_ttl(
    response: &contract::Response,
    default_ttl: Duration,
) -> (Option<Duration>, bool) {
    let (ttl, explicit) = match response.cache {
        CachePolicy::NoStore => return (None, false),
        CachePolicy::Ttl(s) => (Duration::from_secs(s.into()), true),
        CachePolicy::HostDefault if response.status == 200 => (default_ttl, false),
        CachePolicy::HostDefault => return (None, false),
    };
    ((!ttl.is_zero()).then_some(ttl), explicit)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn response(vary: &[&str], headers: &[(&str, &str)]) -> contract::Response {
        contract::Response {
            status: 200,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: Vec::new(),
            cache: CachePolicy::HostDefault,
            vary: vary.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn vary_joins_the_list_and_the_header() {
        let r = response(
            &["Cookie"],
            &[("vary", "Accept-Language, accept-encoding, host")],
        );
        assert_eq!(vary_of(&r), vec!["accept-language", "cookie"]);
        let r = response(&["cookie", "*"], &[]);
        assert_eq!(vary_of(&r), vec!["*"]);
    }

    crate::unit_tests!(vary_joins_the_list_and_the_header);
}
