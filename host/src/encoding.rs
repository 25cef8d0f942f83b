//! Content codings: which one a request gets ([`Encoding::negotiate`]),
//! which bodies are worth compressing ([`compressible_type`]), and the
//! compression itself ([`compress`]). Shared by the page cache, which
//! compresses a rendered page once per entry, and `ssr build`, which
//! precompresses a plugin's static assets once per build.
//!
//! Invariant: a compressed copy is only ever kept when it is smaller than
//! the body; callers check, this module only compresses.

use axum::http::{HeaderMap, header};
use bytes::Bytes;

/// A content coding the host can serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Identity = 0,
    Gzip = 1,
    Br = 2,
}

impl Encoding {
    pub fn name(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Br => Some("br"),
        }
    }

    /// The coding to send for a request's `Accept-Encoding`, as RFC 9110
    /// (12.5.3) says: a coding's own q-value if named, else the q-value of
    /// `*` if present; `q=0` excludes; identity is acceptable unless excluded
    /// (and, unnamed, preferred least).
    /// Among acceptable codings the highest q wins, ties going to brotli,
    /// then gzip, then identity. No header, or one that does not parse,
    /// gets identity. Parsing is `fly-accept-encoding`'s.
    pub fn negotiate(headers: &HeaderMap) -> Encoding {
        use fly_accept_encoding::Encoding as E;
        if !headers.contains_key(header::ACCEPT_ENCODING) {
            return Encoding::Identity;
        }
        let (mut br, mut gzip, mut identity, mut star) = (None, None, None, None);
        for item in fly_accept_encoding::encodings_iter(headers) {
            let Ok((coding, q)) = item else {
                return Encoding::Identity;
            };
            let slot = match coding {
                Some(E::Brotli) => &mut br,
                Some(E::Gzip) => &mut gzip,
                Some(E::Identity) => &mut identity,
                Some(_) => continue,
                None => &mut star,
            };
            *slot = Some(q);
        }
        let br = br.or(star).unwrap_or(0.0);
        let gzip = gzip.or(star).unwrap_or(0.0);
        // Unnamed, identity is acceptable but the least preferred.
        let identity = identity.or(star).unwrap_or(f32::MIN_POSITIVE);
        if br > 0.0 && br >= gzip && br >= identity {
            Encoding::Br
        } else if gzip > 0.0 && gzip >= identity {
            Encoding::Gzip
        } else {
            Encoding::Identity
        }
    }
}

/// Below this many bytes compression is not worth its header.
pub const MIN_COMPRESS: usize = 256;

/// Whether a body of this `Content-Type` is text that compresses (HTML,
/// CSS, JavaScript, JSON, XML, SVG...). Images, fonts (WOFF2 is brotli
/// already) and archives are not.
pub fn compressible_type(content_type: &str) -> bool {
    let ct = content_type.trim_start();
    ct.starts_with("text/")
        || ct.contains("json")
        || ct.contains("javascript")
        || ct.contains("xml")
        || ct.contains("svg")
        || ct.starts_with("application/wasm")
}

/// How hard to compress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// Per cache entry, on the request path: brotli 5 and gzip 6, most of
    /// the gain at a small part of the best levels' time.
    Serving,
    /// Once per build (static assets): brotli 11 and gzip 9.
    Best,
}

/// `body` compressed with `encoding` (`None` for identity, or on failure).
pub fn compress(encoding: Encoding, body: &[u8], effort: Effort) -> Option<Bytes> {
    use std::io::Write;
    let (br_quality, gzip_level) = match effort {
        Effort::Serving => (5, 6),
        Effort::Best => (11, 9),
    };
    match encoding {
        Encoding::Br => {
            let mut out = Vec::with_capacity(body.len() / 4);
            // A window no larger than the body needs (no smaller than
            // 128 KiB, where brotli switches to hashers with larger tables):
            // the encoder allocates and zeroes a ring buffer of twice the
            // window per call, 8 MiB at the default, which was half the
            // CPU of a server storing a new 5 KiB page per request (perf:
            // `RingBufferInitBuffer`'s memset). plugins/hello on V8, a new
            // query per request (benches/miss.lua), `wrk -t1 -c4 -d4s`:
            // 792 and 893 req/s before, 1,523 and 1,640 after; the same
            // bytes out within a few (472 and 473).
            let lgwin = body
                .len()
                .clamp(1 << 17, 1 << 22)
                .next_power_of_two()
                .trailing_zeros();
            let params = brotli::enc::BrotliEncoderParams {
                quality: br_quality,
                lgwin: lgwin as i32,
                ..Default::default()
            };
            brotli::BrotliCompress(&mut &body[..], &mut out, &params).ok()?;
            out.shrink_to_fit();
            Some(Bytes::from(out))
        }
        Encoding::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(body.len() / 3),
                flate2::Compression::new(gzip_level),
            );
            enc.write_all(body).ok()?;
            let mut out = enc.finish().ok()?;
            // A kept copy must not keep the spare capacity it was made in.
            out.shrink_to_fit();
            Some(Bytes::from(out))
        }
        Encoding::Identity => None,
    }
}

/// `data` decoded from `encoding`, or `None` if it is not valid in that
/// coding or decodes to more than `limit` bytes.
pub fn decompress(encoding: Encoding, data: &[u8], limit: usize) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    let reader: Box<dyn Read + '_> = match encoding {
        Encoding::Identity => return (data.len() <= limit).then(|| data.to_vec()),
        Encoding::Gzip => Box::new(flate2::read::GzDecoder::new(data)),
        Encoding::Br => Box::new(brotli::Decompressor::new(data, 4096)),
    };
    reader.take(limit as u64 + 1).read_to_end(&mut out).ok()?;
    (out.len() <= limit).then_some(out)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn accept(v: &str) -> Encoding {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT_ENCODING, v.parse().unwrap());
        Encoding::negotiate(&h)
    }

    fn negotiation_follows_rfc_9110() {
        assert_eq!(accept("gzip, deflate, br"), Encoding::Br);
        assert_eq!(accept("gzip, br;q=0"), Encoding::Gzip);
        assert_eq!(accept("identity"), Encoding::Identity);
        assert_eq!(accept(""), Encoding::Identity);
        assert_eq!(Encoding::negotiate(&HeaderMap::new()), Encoding::Identity);
        // `*` covers only what is not named.
        assert_eq!(accept("br;q=0, *"), Encoding::Gzip);
        assert_eq!(accept("*;q=0, identity"), Encoding::Identity);
        assert_eq!(accept("*"), Encoding::Br);
        // The highest q wins.
        assert_eq!(accept("br;q=0.5, gzip;q=0.9"), Encoding::Gzip);
        assert_eq!(accept("gzip;q=0.5, identity;q=0.9"), Encoding::Identity);
        // Unparsable q-values get identity.
        assert_eq!(accept("br;q=2"), Encoding::Identity);
    }

    fn compression_round_trips_within_the_limit() {
        let body = "<p>hello</p>".repeat(200);
        for e in [Encoding::Br, Encoding::Gzip] {
            for effort in [Effort::Serving, Effort::Best] {
                let c = compress(e, body.as_bytes(), effort).unwrap();
                assert!(c.len() < body.len());
                assert_eq!(decompress(e, &c, body.len()).unwrap(), body.as_bytes());
                assert_eq!(decompress(e, &c, body.len() - 1), None);
            }
            assert_eq!(decompress(e, b"not compressed", 1 << 20), None);
        }
    }

    crate::unit_tests!(
        negotiation_follows_rfc_9110,
        compression_round_trips_within_the_limit
    );
}
