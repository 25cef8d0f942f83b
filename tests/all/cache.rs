//! The page cache through a real server: hit, miss, TTL, purge, compressed
//! variants, conditional requests, vary.

use std::io::Read;

use crate::support::Server;

const SLOW: &str = "tests/plugins/slow.js";

fn server(args: &[&str]) -> Server {
    let mut all = vec!["--no-demo"];
    all.extend_from_slice(args);
    let s = Server::start(&all);
    assert_eq!(s.add("c", SLOW, "host=c.test").0, 201);
    s
}

#[test]
fn cache_hit_skips_the_render() {
    let s = server(&[]);
    let a = s.get("/t/c/page", &[]);
    let b = s.get("/t/c/page", &[]);
    assert_eq!(
        (a.header("x-cache"), b.header("x-cache")),
        (Some("miss"), Some("hit"))
    );
    // The body carries a random number: equal bodies mean one render.
    assert_eq!(a.body, b.body);
    // By host, the same page is the same entry.
    assert_eq!(
        s.get("/page", &[("host", "c.test")]).header("x-cache"),
        Some("hit")
    );
    let (_, shown) = s.admin("GET", "/admin/tenants/c");
    assert!(shown.contains("\"renders\":1"), "{shown}");
}

#[test]
fn ttl_expiry_and_policies() {
    let s = server(&["--cache-ttl", "60"]);
    // The renderer's own TTL of 1 s.
    assert_eq!(s.get("/t/c/a?ttl=1", &[]).header("x-cache"), Some("miss"));
    assert_eq!(s.get("/t/c/a?ttl=1", &[]).header("x-cache"), Some("hit"));
    std::thread::sleep(std::time::Duration::from_millis(1300));
    assert_eq!(s.get("/t/c/a?ttl=1", &[]).header("x-cache"), Some("miss"));
    // no-store, and non-200 without an explicit TTL, are not kept.
    s.get("/t/c/b?nostore=1", &[]);
    assert_eq!(
        s.get("/t/c/b?nostore=1", &[]).header("x-cache"),
        Some("miss")
    );
    assert_eq!(s.get("/t/c/b?status=404", &[]).status, 404);
    assert_eq!(
        s.get("/t/c/b?status=404", &[]).header("x-cache"),
        Some("miss")
    );
    // ...unless the renderer gives a TTL.
    s.get("/t/c/b?status=404&ttl=30", &[]);
    assert_eq!(
        s.get("/t/c/b?status=404&ttl=30", &[]).header("x-cache"),
        Some("hit")
    );
}

#[test]
fn purge_empties_a_tenant_or_a_prefix() {
    let s = server(&[]);
    s.get("/t/c/blog/1", &[]);
    s.get("/t/c/shop/1", &[]);
    let (status, body) = s.admin("POST", "/admin/tenants/c/purge?prefix=/blog");
    assert_eq!(status, 200);
    assert!(body.contains("\"purged\":1"), "{body}");
    assert_eq!(s.get("/t/c/blog/1", &[]).header("x-cache"), Some("miss"));
    assert_eq!(s.get("/t/c/shop/1", &[]).header("x-cache"), Some("hit"));
    s.admin("POST", "/admin/tenants/c/purge");
    assert_eq!(s.get("/t/c/shop/1", &[]).header("x-cache"), Some("miss"));
}

#[test]
fn compressed_variants_decode_to_the_same_page() {
    let s = server(&[]);
    let plain = s.get("/t/c/big?big=1", &[]);
    let br = s.get("/t/c/big?big=1", &[("accept-encoding", "gzip, br")]);
    let gz = s.get("/t/c/big?big=1", &[("accept-encoding", "gzip")]);
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(plain.header("content-encoding"), None);
    assert!(br.body.len() < plain.body.len() / 4);
    let mut from_br = Vec::new();
    brotli::Decompressor::new(&br.body[..], 4096)
        .read_to_end(&mut from_br)
        .unwrap();
    let mut from_gz = Vec::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_end(&mut from_gz)
        .unwrap();
    assert_eq!(from_br, plain.body);
    assert_eq!(from_gz, plain.body);
    assert_eq!(br.header("etag"), plain.header("etag"));
    assert!(br.header("vary").unwrap().contains("accept-encoding"));
}

#[test]
fn if_none_match_gets_304() {
    let s = server(&[]);
    let first = s.get("/t/c/etag", &[]);
    let etag = first.header("etag").unwrap().to_string();
    let again = s.get("/t/c/etag", &[("if-none-match", &etag)]);
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    assert_eq!(
        s.get("/t/c/etag", &[("if-none-match", "\"other\"")]).status,
        200
    );
}

#[test]
fn declared_vary_headers_split_the_cache() {
    let s = server(&[]);
    let fr = s.get("/t/c/v?vary=1", &[("accept-language", "fr")]);
    assert!(fr.text().contains("lang=fr"));
    let de = s.get("/t/c/v?vary=1", &[("accept-language", "de")]);
    assert!(de.text().contains("lang=de"), "{}", de.text());
    assert_eq!(
        s.get("/t/c/v?vary=1", &[("accept-language", "fr")]).body,
        fr.body
    );
    assert!(fr.header("vary").unwrap().contains("accept-language"));
}

#[test]
fn head_is_served_without_a_body() {
    let s = server(&[]);
    let r = Server::agent().head(s.url("/t/c/h")).call().unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("content-length").is_some());
}

#[test]
fn concurrent_misses_render_once() {
    let s = server(&[]);
    let bodies: Vec<Vec<u8>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|_| {
                let s = &s;
                scope.spawn(move || s.get("/t/c/flight?ms=400", &[]).body)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    // Each render draws a new random number: one body means one render.
    assert!(bodies.windows(2).all(|w| w[0] == w[1]));
    let (_, shown) = s.admin("GET", "/admin/tenants/c");
    assert!(shown.contains("\"renders\":1"), "{shown}");
}
