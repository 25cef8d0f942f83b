//! The page cache through a real server: hit, miss, TTL, purge, compressed
//! variants, conditional requests, vary; and what a shared cache must never
//! do (issue 14): serve one visitor's page or cookie to another, share a
//! render across keys, key without the host, or grow without bound. Tests
//! that involve the renderer run on every engine. Servers run in this
//! process (`InProcess`) unless a test reads their metrics or memory.

use std::io::Read;
use std::time::{Duration, Instant};

use ssr::engine::Engines;

use crate::support::{Client, InProcess, Reply, Server};

const SLOW: &str = "tests/plugins/slow.js";

/// A server in this process with the slow plugin as tenant `c` on host
/// `c.test`.
fn server(args: &[&str]) -> InProcess {
    let mut all = vec!["--demo=false"];
    all.extend_from_slice(args);
    let s = InProcess::start(&all);
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
    // Another host is another entry (the renderer sees the host).
    assert_eq!(
        s.get("/page", &[("host", "c.test")]).header("x-cache"),
        Some("miss")
    );
    let (_, shown) = s.admin("GET", "/_ssr/admin/tenants/c");
    assert!(shown.contains("\"renders\":2"), "{shown}");
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
    let (status, body) = s.admin("POST", "/_ssr/admin/tenants/c/purge?prefix=/blog");
    assert_eq!(status, 200);
    assert!(body.contains("\"purged\":1"), "{body}");
    assert_eq!(s.get("/t/c/blog/1", &[]).header("x-cache"), Some("miss"));
    assert_eq!(s.get("/t/c/shop/1", &[]).header("x-cache"), Some("hit"));
    s.admin("POST", "/_ssr/admin/tenants/c/purge");
    assert_eq!(s.get("/t/c/shop/1", &[]).header("x-cache"), Some("miss"));
}

/// The first hit that wants an encoding the stored page lacks is served as
/// it is and has the page compressed in every encoding, for the hits after.
fn hit_in(s: &impl Client, path: &str, encoding: &str) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let r = s.get(path, &[("accept-encoding", encoding)]);
        assert_eq!(r.header("x-cache"), Some("hit"), "{path}");
        if r.header("content-encoding").is_some() || Instant::now() > deadline {
            return r;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn compressed_variants_decode_to_the_same_page() {
    let s = server(&[]);
    let plain = s.get("/t/c/big?big=1", &[]);
    let br = hit_in(&s, "/t/c/big?big=1", "gzip, br");
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
fn a_stored_page_is_compressed_when_a_hit_asks_for_an_encoding_not_when_it_is_stored() {
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("c", SLOW, "host=c.test").0, 201);
    // Rendered for a client that takes no compression: stored as it is.
    let plain = s.get("/t/c/big?big=1&lazy=1", &[]);
    assert_eq!(plain.header("x-cache"), Some("miss"));
    assert_eq!(s.metric("ssr_cache_recompressions_total"), 0.0);
    // The first hit that wants br is served as stored, and has it made.
    let first = s.get("/t/c/big?big=1&lazy=1", &[("accept-encoding", "br")]);
    assert_eq!(first.header("x-cache"), Some("hit"));
    assert_eq!(first.header("content-encoding"), None);
    assert_eq!(first.body, plain.body);
    let br = hit_in(&s, "/t/c/big?big=1&lazy=1", "br");
    assert_eq!(br.header("content-encoding"), Some("br"));
    // Both encodings were made at once: gzip needs no second compression.
    let gz = s.get("/t/c/big?big=1&lazy=1", &[("accept-encoding", "gzip")]);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(s.metric("ssr_cache_recompressions_total"), 1.0);
    assert_eq!(br.header("etag"), plain.header("etag"));
    // A client that wants compression gets it on the render's own response.
    let rendered = s.get("/t/c/big?big=1&lazy=2", &[("accept-encoding", "gzip")]);
    assert_eq!(rendered.header("x-cache"), Some("miss"));
    assert_eq!(rendered.header("content-encoding"), Some("gzip"));
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
    let (_, shown) = s.admin("GET", "/_ssr/admin/tenants/c");
    assert!(shown.contains("\"renders\":1"), "{shown}");
}

const VISITOR: &str = "tests/plugins/visitor.js";

/// A server process with the visitor plugin registered once per engine, as
/// tenants `v-<engine>` on host `v-<engine>.test`: for tests that read its
/// log, metrics or memory.
pub fn visitors(args: &[&str]) -> (Server, Vec<String>) {
    let mut all = vec!["--demo=false"];
    all.extend_from_slice(args);
    visitors_on(Server::start(&all))
}

/// [`visitors`] in this process.
fn visitors_here() -> (InProcess, Vec<String>) {
    visitors_on(InProcess::start(&["--demo=false"]))
}

fn visitors_on<S: Client>(s: S) -> (S, Vec<String>) {
    let ids: Vec<String> = Engines::KINDS
        .iter()
        .map(|engine| {
            let id = format!("v-{engine}");
            let query = format!("engine={engine}&host={id}.test");
            assert_eq!(s.add(&id, VISITOR, &query).0, 201);
            id
        })
        .collect();
    (s, ids)
}

fn cached(r: &Reply) -> &str {
    r.header("x-cache").unwrap_or("-")
}

#[test]
fn issue_14_a_page_that_sets_a_cookie_is_never_stored() {
    let (s, ids) = visitors(&[]);
    for id in &ids {
        let url = format!("/t/{id}/login");
        let alice = s.get(&url, &[("cookie", "alice")]);
        assert!(alice.text().contains("hello alice"), "{}", alice.text());
        for who in [
            vec![],
            vec![("authorization", "Bearer bob")],
            vec![("cookie", "bob")],
        ] {
            let other = s.get(&url, &who);
            assert_eq!(cached(&other), "miss", "{id}: {who:?}");
            assert!(!other.text().contains("alice"), "{id}: {}", other.text());
            assert!(
                !other.header("set-cookie").unwrap_or("").contains("alice"),
                "{id}: alice's session went to {who:?}"
            );
        }
        let refused = format!(r#"ssr_cache_not_stored_total{{tenant="{id}",reason="set-cookie"}}"#);
        assert_eq!(s.metric(&refused), 4.0, "{id}");
    }
}

#[test]
fn issue_14_a_page_that_reads_the_cookie_is_kept_per_cookie() {
    let (s, ids) = visitors_here();
    for id in &ids {
        let url = format!("/t/{id}/me");
        let alice = s.get(&url, &[("cookie", "alice")]);
        assert_eq!(cached(&alice), "miss");
        assert!(alice.header("vary").unwrap().contains("cookie"), "{id}");
        let again = s.get(&url, &[("cookie", "alice")]);
        assert_eq!((cached(&again), &again.body), ("hit", &alice.body), "{id}");
        for (who, expect) in [(vec![("cookie", "bob")], "user=bob"), (vec![], "user=-")] {
            let other = s.get(&url, &who);
            assert_eq!(cached(&other), "miss", "{id}: {who:?}");
            assert!(other.text().contains(expect), "{id}: {}", other.text());
        }
    }
}

#[test]
fn issue_14_requests_with_credentials_are_not_answered_from_cache() {
    let (s, ids) = visitors(&[]);
    for id in &ids {
        let url = format!("/t/{id}/plain");
        let anonymous = s.get(&url, &[]);
        assert_eq!(cached(&s.get(&url, &[])), "hit");
        let auth = [("authorization", "Bearer alice")];
        let alice = s.get(&url, &auth);
        assert_eq!(cached(&alice), "miss", "{id}");
        assert_ne!(alice.body, anonymous.body, "{id}: a render of its own");
        assert_eq!(cached(&s.get(&url, &auth)), "miss", "{id}: and not kept");
        assert_eq!(s.get(&url, &[]).body, anonymous.body, "{id}");
        // A TTL the renderer gave makes a page shareable.
        let public = format!("/t/{id}/public");
        s.get(&public, &auth);
        assert_eq!(cached(&s.get(&public, &auth)), "hit", "{id}");
        assert_eq!(cached(&s.get(&public, &[])), "hit", "{id}");
        let refused =
            format!(r#"ssr_cache_not_stored_total{{tenant="{id}",reason="authorization"}}"#);
        assert_eq!(s.metric(&refused), 2.0, "{id}");
    }
}

#[test]
fn issue_14_single_flight_never_shares_a_render_across_cookies() {
    let (s, ids) = visitors_here();
    for id in &ids {
        // A new URL each round: the first renders, whose vary is not known
        // yet; then the same URL again, once it is.
        for round in 0..12 {
            for path in ["me", "declared"] {
                let urls = [
                    format!("/t/{id}/{path}?ms=150&round={round}"),
                    format!("/t/{id}/{path}?ms=150&round={round}"),
                ];
                let pages: Vec<Reply> = std::thread::scope(|scope| {
                    let s = &s;
                    let handles: Vec<_> = ["alice", "bob", "alice", "bob"]
                        .iter()
                        .zip(urls.iter().cycle())
                        .map(|(who, url)| {
                            scope.spawn(move || (who, s.get(url, &[("cookie", who)])))
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| {
                            let (who, page) = h.join().unwrap();
                            assert!(
                                page.text().contains(&format!("user={who}")),
                                "{id} {path} round {round}: {who} got {}",
                                page.text()
                            );
                            page
                        })
                        .collect()
                });
                assert_eq!(pages.len(), 4);
            }
        }
    }
}

#[test]
fn issue_14_pages_that_vary_on_different_headers_keep_their_own_entries() {
    let (s, ids) = visitors_here();
    for id in &ids {
        let public = format!("/t/{id}/maybe");
        let first = s.get(&public, &[("cookie", "alice")]);
        assert!(first.text().contains("public"));
        // Another page of the tenant varies on the cookie...
        let personal = format!("/t/{id}/maybe?personal=1");
        assert!(
            s.get(&personal, &[("cookie", "alice")])
                .text()
                .contains("user=alice")
        );
        assert!(
            s.get(&personal, &[("cookie", "bob")])
                .text()
                .contains("user=bob")
        );
        // ...which does not split the public page's entry.
        for who in ["bob", "carol"] {
            let again = s.get(&public, &[("cookie", who)]);
            assert_eq!((cached(&again), &again.body), ("hit", &first.body), "{id}");
        }
        // A presence test varies on the header too.
        let stable = s.get(&format!("/t/{id}/has"), &[]);
        assert!(stable.text().contains("stable"));
        let beta = s.get(&format!("/t/{id}/has"), &[("x-beta", "1")]);
        assert!(beta.text().contains("beta"), "{id}: {}", beta.text());
        // A render that lists the headers varies on all of them.
        let all = s.get(&format!("/t/{id}/all"), &[]);
        assert_eq!(all.header("vary"), Some("*"), "{id}");
        assert_eq!(cached(&s.get(&format!("/t/{id}/all"), &[])), "miss", "{id}");
    }
}

#[test]
fn issue_14_the_host_is_part_of_the_key() {
    let (s, ids) = visitors_here();
    for id in &ids {
        let evil = s.get(&format!("/t/{id}/canon"), &[("host", "evil.example")]);
        assert!(evil.text().contains("//evil.example/app.js"));
        let real = s.get("/canon", &[("host", &format!("{id}.test"))]);
        assert_eq!(cached(&real), "miss", "{id}");
        assert!(!real.text().contains("evil"), "{id}: {}", real.text());
        let two = s.raw(&format!(
            "GET /t/{id}/canon HTTP/1.1\nhost: {id}.test\nhost: evil.example"
        ));
        assert_eq!(two.status, 400, "{id}");
        assert!(
            two.text().contains("more than one Host header"),
            "{}",
            two.text()
        );
    }
}

#[test]
fn issue_14_a_repeated_header_is_keyed_as_the_renderer_sees_it() {
    let (s, ids) = visitors_here();
    for id in &ids {
        let host = format!("host: {id}.test");
        let both = s.raw(&format!(
            "GET /lang HTTP/1.1\n{host}\naccept-language: en\naccept-language: <script>"
        ));
        assert!(
            both.text().contains("lang=en, <script>"),
            "{id}: {}",
            both.text()
        );
        let en = s.raw(&format!("GET /lang HTTP/1.1\n{host}\naccept-language: en"));
        assert_eq!(cached(&en), "miss", "{id}");
        assert!(en.text().contains("lang=en "), "{id}: {}", en.text());
        assert!(!en.text().contains("script"), "{id}");
    }
}

#[test]
fn issue_14_the_cache_is_bounded_by_bytes_and_purge_gives_them_back() {
    let (s, ids) = visitors(&[
        "--cache-mib",
        "8",
        "--cache-tenant-mib",
        "3",
        "--cache-entry-kib",
        "512",
    ]);
    let id = &ids[0];
    let bytes = format!(r#"ssr_cache_tenant_bytes{{tenant="{id}"}}"#);
    for i in 0..30 {
        let page = s.get(&format!("/t/{id}/p{i}?kib=256"), &[]);
        assert_eq!(page.body.len() / 1024, 256);
        assert!(s.metric(&bytes) <= (3 << 20) as f64, "{}", s.metric(&bytes));
    }
    assert!(s.metric(&bytes) > (1 << 20) as f64, "{}", s.metric(&bytes));
    assert_eq!(cached(&s.get(&format!("/t/{id}/p29?kib=256"), &[])), "hit");
    assert_eq!(cached(&s.get(&format!("/t/{id}/p0?kib=256"), &[])), "miss");
    // Over the entry limit: served whole, uncompressed, not kept.
    let url = format!("/t/{id}/big?kib=600");
    let big = s.get(&url, &[("accept-encoding", "gzip")]);
    assert_eq!(
        (big.body.len() / 1024, big.header("content-encoding")),
        (600, None)
    );
    assert_eq!(cached(&s.get(&url, &[])), "miss");
    let refused = format!(r#"ssr_cache_not_stored_total{{tenant="{id}",reason="too-large"}}"#);
    assert_eq!(s.metric(&refused), 2.0);
    s.admin("POST", &format!("/_ssr/admin/tenants/{id}/purge"));
    assert_eq!(s.metric(&bytes), 0.0);
    assert_eq!(s.metric("ssr_cache_bytes"), 0.0);
}

#[test]
fn issue_14_purge_returns_the_memory() {
    let (s, ids) = visitors(&[
        "--cache-mib",
        "1024",
        "--cache-tenant-mib",
        "1024",
        "--cache-entry-kib",
        "8192",
    ]);
    let id = &ids[0];
    // Instances grow to render a large page once; that memory is theirs,
    // not the cache's: measure from there.
    for i in 0..4 {
        s.get(&format!("/t/{id}/warm{i}?kib=4096"), &[]);
    }
    s.admin("POST", &format!("/_ssr/admin/tenants/{id}/purge"));
    let before = s.rss();
    for i in 0..40 {
        s.get(&format!("/t/{id}/p{i}?kib=4096"), &[]);
    }
    let full = s.rss();
    assert!(full > before + (120 << 20), "{before} -> {full}");
    s.admin("POST", &format!("/_ssr/admin/tenants/{id}/purge"));
    // Every thread's L1 empties itself at its next lookup.
    for _ in 0..8 {
        s.get(&format!("/t/{id}/warm"), &[]);
    }
    let after = s.rss();
    assert!(
        after < before + (full - before) / 4,
        "resident memory {before} -> {full} -> {after} after the purge"
    );
}

#[test]
fn issue_14_only_a_get_or_head_of_a_stored_page_gets_304() {
    let (s, ids) = visitors_here();
    let id = &ids[0];
    let url = format!("/t/{id}/plain");
    let etag = s.get(&url, &[]).header("etag").unwrap().to_string();
    assert_eq!(s.get(&url, &[("if-none-match", &etag)]).status, 304);
    let post = Server::agent()
        .post(s.url(&url))
        .header("if-none-match", &etag)
        .send_empty()
        .unwrap();
    assert_eq!(post.status(), 200);
    // A page not kept has no validator to match.
    let login = s.get(&format!("/t/{id}/login"), &[]);
    assert_eq!(login.header("etag"), None);
    assert_eq!(
        s.get(&format!("/t/{id}/login"), &[("if-none-match", "*")])
            .status,
        200
    );
}

#[test]
fn issue_14_accept_encoding_follows_rfc_9110() {
    let (s, ids) = visitors_here();
    let url = format!("/t/{}/text?kib=4", ids[0]);
    // Stored, then made in every encoding by the first hit that asks.
    assert_eq!(s.get(&url, &[]).header("x-cache"), Some("miss"));
    assert_eq!(
        hit_in(&s, &url, "gzip").header("content-encoding"),
        Some("gzip")
    );
    for (accept, expect) in [
        ("gzip, br", Some("br")),
        ("br;q=0, *", Some("gzip")),
        ("gzip;q=0, br;q=0", None),
        ("*;q=0, identity", None),
        ("br;q=0.5, gzip", Some("gzip")),
    ] {
        let r = s.get(&url, &[("accept-encoding", accept)]);
        assert_eq!(r.header("content-encoding"), expect, "{accept}");
    }
}
