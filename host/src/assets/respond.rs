//! One asset as the response to a `GET` or `HEAD` ([`respond`]):
//! - `If-None-Match` naming one of its validators: `304`, no body;
//! - `Range` (`GET` only), read as RFC 9110 section 14 says, with an
//!   `If-Range` that is absent or its identity validator: one satisfiable
//!   byte range gets `206` with that part of the identity bytes; a range
//!   set none of whose ranges is satisfiable (a start past the end, the
//!   suffix `-0`) gets `416`; an invalid one (`5-2`, not `bytes=`, no
//!   digits) is ignored, and so are several satisfiable ranges, which may
//!   overlap (the RFC lets a server send the whole instead): `200`;
//! - otherwise `200` in the negotiated encoding, from a head made once.
//!
//! `HEAD` gets the same head as `GET` and no body. `206` and `416` carry
//! the `200`'s `Vary` and `X-Content-Type-Options`, so a cache keys them
//! alike and no browser sniffs a part.
//!
//! The parser is ours: `http-range-header` 0.4 refuses as unsatisfiable
//! what the RFC says to ignore (an invalid or overlapping set) and a suffix
//! longer than the file, which the RFC says selects all of it.

use std::ops::RangeInclusive;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use super::Asset;
use crate::encoding::Encoding;

/// The response to `method` (GET or HEAD) for `asset`.
pub fn respond(asset: &Asset, method: &Method, req: &HeaderMap, wanted: Encoding) -> Response {
    if let Some(inm) = req.get(header::IF_NONE_MATCH)
        && asset.matches(inm.as_bytes())
    {
        return not_modified(asset, wanted);
    }
    if *method == Method::GET
        && let Some(range) = req.get(header::RANGE)
        && if_range_holds(asset, req)
        && let Some(part) = range_of(range, asset.identity().len() as u64)
    {
        return partial(asset, part);
    }
    let (_, body, head) = asset.encoded(wanted);
    let mut resp = Response::new(Body::empty());
    *resp.headers_mut() = head.clone();
    if *method != Method::HEAD {
        *resp.body_mut() = Body::from(body.clone());
    }
    resp
}

/// `If-Range` is absent, or names the identity bytes' validator (a strong
/// comparison; a date never matches, as the validator is not a date).
fn if_range_holds(asset: &Asset, req: &HeaderMap) -> bool {
    req.get(header::IF_RANGE)
        .is_none_or(|v| v == asset.identity_etag())
}

/// The most ranges one `Range` header may list; more are ignored whole.
const MAX_RANGES: usize = 64;

/// What a `Range` header asks of a body of `len` bytes: one satisfiable
/// range (`Ok`), none satisfiable (`Err`), or nothing to honour (`None`: an
/// invalid header, or several satisfiable ranges).
fn range_of(range: &HeaderValue, len: u64) -> Option<Result<RangeInclusive<u64>, ()>> {
    let value = range.to_str().ok()?;
    let (unit, set) = value.split_once('=')?;
    if !unit.trim().eq_ignore_ascii_case("bytes") {
        return None;
    }
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let mut satisfiable = Vec::new();
    let mut specs = 0;
    // The list may hold empty elements (RFC 9110 5.6.1).
    for spec in set.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        specs += 1;
        if specs > MAX_RANGES {
            return None;
        }
        let (first, last) = spec.split_once('-')?;
        let part = match (first, last) {
            ("", suffix) => match number(suffix)? {
                0 => None,
                n => (len > 0).then(|| len.saturating_sub(n)..=len - 1),
            },
            (first, "") => {
                let first = number(first)?;
                (first < len).then(|| first..=len - 1)
            }
            (first, last) => {
                let (first, last) = (number(first)?, number(last)?);
                if last < first {
                    return None;
                }
                (first < len).then(|| first..=last.min(len - 1))
            }
        };
        satisfiable.extend(part);
    }
    match satisfiable.len() {
        _ if specs == 0 => None,
        0 => Some(Err(())),
        1 => satisfiable.pop().map(Ok),
        _ => None,
    }
}

fn partial(asset: &Asset, part: Result<RangeInclusive<u64>, ()>) -> Response {
    let len = asset.identity().len();
    let mut resp = Response::new(Body::empty());
    let h = resp.headers_mut();
    // The 200's head, less what describes its body.
    let (_, _, whole) = asset.encoded(Encoding::Identity);
    for name in [
        header::CONTENT_TYPE,
        header::CACHE_CONTROL,
        header::ACCEPT_RANGES,
        header::X_CONTENT_TYPE_OPTIONS,
        header::VARY,
    ] {
        if let Some(v) = whole.get(&name) {
            h.insert(name, v.clone());
        }
    }
    h.insert(header::ETAG, asset.identity_etag().clone());
    match part {
        Ok(r) => {
            let (start, end) = (*r.start() as usize, *r.end() as usize);
            h.insert(
                header::CONTENT_RANGE,
                HeaderValue::try_from(format!("bytes {start}-{end}/{len}")).expect("digits"),
            );
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(end + 1 - start));
            *resp.status_mut() = StatusCode::PARTIAL_CONTENT;
            *resp.body_mut() = Body::from(asset.identity().slice(start..=end));
        }
        Err(()) => {
            h.insert(
                header::CONTENT_RANGE,
                HeaderValue::try_from(format!("bytes */{len}")).expect("digits"),
            );
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(0));
            *resp.status_mut() = StatusCode::RANGE_NOT_SATISFIABLE;
        }
    }
    resp
}

/// A `304`: the validator and caching headers a `200` would have carried
/// (RFC 9110 15.4.5), no content.
fn not_modified(asset: &Asset, wanted: Encoding) -> Response {
    let (_, _, head) = asset.encoded(wanted);
    let mut resp = Response::new(Body::empty());
    let h = resp.headers_mut();
    for name in [header::ETAG, header::CACHE_CONTROL, header::VARY] {
        if let Some(v) = head.get(&name) {
            h.insert(name, v.clone());
        }
    }
    *resp.status_mut() = StatusCode::NOT_MODIFIED;
    resp
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn range(value: &str, len: u64) -> Option<Result<RangeInclusive<u64>, ()>> {
        range_of(&HeaderValue::from_str(value).unwrap(), len)
    }

    fn ranges_are_read_as_rfc_9110_says() {
        // One satisfiable range: served.
        assert_eq!(range("bytes=0-4", 10), Some(Ok(0..=4)));
        assert_eq!(range("bytes=5-", 10), Some(Ok(5..=9)));
        assert_eq!(range("bytes=-3", 10), Some(Ok(7..=9)));
        assert_eq!(range("bytes=8-100", 10), Some(Ok(8..=9)));
        assert_eq!(range("Bytes = 1-1", 10), Some(Ok(1..=1)));
        // A suffix longer than the body is all of it.
        assert_eq!(range("bytes=-100", 10), Some(Ok(0..=9)));
        // One satisfiable among unsatisfiable ones: that one.
        assert_eq!(range("bytes=20-30, 2-3", 10), Some(Ok(2..=3)));
        // None satisfiable: 416.
        assert_eq!(range("bytes=10-", 10), Some(Err(())));
        assert_eq!(range("bytes=-0", 10), Some(Err(())));
        assert_eq!(range("bytes=0-0", 0), Some(Err(())));
        // Invalid, several, or overlapping: ignored (200).
        for ignored in [
            "bytes=5-2",
            "bytes=0-1,5-2",
            "bytes=0-5,3-8",
            "bytes=0-1,4-5",
            "bytes=",
            "bytes=-",
            "bytes=a-b",
            "bytes=+1-2",
            "items=0-1",
            "0-1",
        ] {
            assert_eq!(range(ignored, 10), None, "{ignored}");
        }
        let many = format!("bytes={}", vec!["0-0"; MAX_RANGES + 1].join(","));
        assert_eq!(range(&many, 10), None);
    }

    crate::unit_tests!(ranges_are_read_as_rfc_9110_says);
}
