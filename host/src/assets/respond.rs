//! One asset as the response to a `GET` or `HEAD` ([`respond`]):
//! - `If-None-Match` naming one of its validators: `304`, no body;
//! - `Range` (`GET` only) with one satisfiable byte range, and an `If-Range`
//!   that is absent or its identity validator: `206` with that part of the
//!   identity bytes; an unsatisfiable one: `416`; several ranges, or one that
//!   does not parse: ignored (RFC 9110 14.2 lets a server send the whole);
//! - otherwise `200` in the negotiated encoding, from a head made once.
//!
//! `HEAD` gets the same head as `GET` and no body.

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

/// What a `Range` header asks of a body of `len` bytes: one satisfiable
/// range (`Ok`), none satisfiable (`Err`), or nothing to honour (`None`:
/// several ranges, or a header that does not parse).
fn range_of(range: &HeaderValue, len: u64) -> Option<Result<RangeInclusive<u64>, ()>> {
    let parsed = http_range_header::parse_range_header(range.to_str().ok()?).ok()?;
    match parsed.validate(len) {
        Ok(ranges) if ranges.len() == 1 => Some(Ok(ranges[0].clone())),
        Ok(_) => None,
        Err(_) => Some(Err(())),
    }
}

fn partial(asset: &Asset, part: Result<RangeInclusive<u64>, ()>) -> Response {
    let len = asset.identity().len();
    let mut resp = Response::new(Body::empty());
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, asset.content_type.clone());
    h.insert(header::ETAG, asset.identity_etag().clone());
    h.insert(header::CACHE_CONTROL, asset.cache_control.clone());
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
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
