//! The response headers only the server writes: the ones that frame a
//! response on its connection (`Content-Length`, `Transfer-Encoding`) and the
//! hop-by-hop ones (RFC 9110 7.6.1: `Connection`, `Keep-Alive`, `Proxy-*`,
//! `TE`, `Trailer`, `Upgrade`). One list for every place a tenant can name a
//! response header (a rendered page's head, a streamed head, `_headers`
//! rules), so none of them can make a client read one response's bytes as
//! another's.
//!
//! Invariant: a leaf; it imports nothing of the crate.

/// The names, lower-case, besides every `proxy-*` one.
const FRAMING: [&str; 7] = [
    "connection",
    "content-length",
    "keep-alive",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// Whether `name` (any case) is a header only the server may write.
pub fn is_framing(name: &str) -> bool {
    let is = |n: &str| name.eq_ignore_ascii_case(n);
    FRAMING.iter().any(|n| is(n))
        || name
            .get(..6)
            .is_some_and(|p| p.eq_ignore_ascii_case("proxy-"))
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn framing_and_hop_by_hop_names_are_the_servers() {
        for name in [
            "Content-Length",
            "transfer-encoding",
            "CONNECTION",
            "keep-alive",
            "Proxy-Connection",
            "proxy-authenticate",
            "TE",
            "trailer",
            "Upgrade",
        ] {
            assert!(is_framing(name), "{name}");
        }
        for name in ["content-type", "cache-control", "x-proxy", "etag", "tea"] {
            assert!(!is_framing(name), "{name}");
        }
    }

    crate::unit_tests!(framing_and_hop_by_hop_names_are_the_servers);
}
