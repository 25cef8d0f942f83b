//! What the second security probe found (issue 32), each over real HTTP on
//! both engines where an engine is involved: a page streamed to one
//! visitor never reaches another, a render's fetches are bounded as their
//! bytes arrive and end with it, and no secret reaches the log through a
//! URL or an escaped form.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::fetch::Origin;
use crate::hardening::{connect, read_to_close};
use crate::support::{Client, InProcess, Server, urlencode, within};

const PROBE: &str = "tests/plugins/probe.js";

/// Registers the probe on each engine (`p-wasm`, `p-v8`) with `query`.
fn probes(s: &impl Client, query: &str) -> Vec<String> {
    s.add_on_each_engine("p", PROBE, query)
}

#[test]
fn issue_32_a_header_read_after_the_head_streamed_still_keys_the_page() {
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for id in probes(&s, "") {
        // Read late after a timer (the page streams), or right after the
        // head (the render may end before the host reads the head, and the
        // page goes out whole): each round with visitors of its own.
        for (round, late) in ["timer", "pull", "timer", "pull"].iter().enumerate() {
            let path = format!("/t/{id}/stream-cookie?late={late}&round={round}");
            let page = |cookie: Option<&str>| {
                let headers: Vec<(&str, &str)> =
                    cookie.map(|c| ("cookie", c)).into_iter().collect();
                let r = s.get(&path, &headers);
                assert_eq!(r.status, 200, "{id} {late}");
                (r.text(), r.header("x-cache").unwrap_or("").to_string())
            };
            let (alice, how) = page(Some("name=alice"));
            assert!(alice.contains("hello name=alice"), "{id} {late}: {alice}");
            assert_eq!(how, "miss", "{id} {late}");
            // Another visitor, and one without a cookie, never get alice's
            // page, however long the first store takes.
            for _ in 0..3 {
                std::thread::sleep(Duration::from_millis(50));
                let (bob, _) = page(Some("name=bob"));
                assert!(bob.contains("hello name=bob"), "{id} {late}: {bob}");
                let (nobody, _) = page(None);
                assert!(nobody.contains("hello nobody"), "{id} {late}: {nobody}");
            }
            // The page is still kept, for the visitor it was rendered for.
            let mut again = String::new();
            let kept = within(Duration::from_secs(5), || {
                let (body, how) = page(Some("name=alice"));
                again = body;
                how == "hit"
            });
            assert!(kept, "{id} {late}: alice's page was never kept");
            assert_eq!(again, alice, "{id} {late}");
        }
    }
}

#[test]
fn issue_32_a_renders_fetches_stop_at_its_byte_cap_as_bytes_arrive() {
    let api = Origin::start();
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let ids = probes(&s, &format!("allow_fetch={}", api.origin()));
    let before = s.rss();
    for id in &ids {
        // 50 requests of 8 MB each at once, under the default 16 MiB a
        // render: before, each was read whole before any was counted.
        let r = s.get(
            &format!("/t/{id}/parallel?n=50&url={}", api.url("/big")),
            &[],
        );
        let grown = s.peak_rss().saturating_sub(before) >> 20;
        assert!(
            grown < 200,
            "{id}: the server's peak memory grew by {grown} MiB for one render's fetches"
        );
        let body = r.text();
        let (bytes, error) = body.split_once(" bytes; ").unwrap();
        let bytes: usize = bytes.parse().unwrap();
        assert!(bytes <= 16 << 20, "{id}: {body}");
        assert_eq!(
            error,
            "TypeError: this render's responses are over its limit of 16777216 bytes (the tenant's `max_fetch_kib`)",
            "{id}"
        );
    }
}

#[test]
fn issue_32_fetches_a_render_never_awaited_end_with_it() {
    let api = Origin::start();
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let ids = probes(&s, &format!("allow_fetch={}", api.origin()));
    for id in &ids {
        // Ten requests to an origin that answers after 3 s, fired and left.
        let r = s.get(&format!("/t/{id}/fire?n=10&url={}", api.url("/slow")), &[]);
        assert_eq!(r.text(), "fired 10", "{id}");
        // Aborted at once (the abort lands when the fetch runtime next
        // polls them), well before the origin would answer.
        let ended = within(Duration::from_secs(1), || {
            s.metric("ssr_fetch_in_flight") == 0.0
        });
        assert!(ended, "{id}: requests outlived their render");
    }
}

#[test]
fn issue_32_urls_with_credentials_are_refused_and_urls_reach_the_log_without_secrets() {
    let api = Origin::start();
    let closed = crate::support::free_port();
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let grant = format!(
        "allow_fetch={}&allow_fetch=http://127.0.0.1:{closed}",
        api.origin()
    );
    for id in probes(&s, &grant) {
        let with_password = format!("http://user:PASSWORD1@127.0.0.1:{}/data.json", api.port);
        let r = s.get(
            &format!("/t/{id}/get?url={}", urlencode(&with_password)),
            &[],
        );
        assert_eq!(
            r.text(),
            format!(
                "TypeError: fetch of http://127.0.0.1:{}/data.json: a URL with credentials (user:password@) cannot be fetched; send them in an Authorization header",
                api.port
            ),
            "{id}"
        );
        // Refused (not granted) and failed (nothing listens): both logged.
        let refused = format!("http://127.0.0.1:{}/x?key=QUERYKEY2", api.port + 1);
        let r = s.get(&format!("/t/{id}/get?url={}", urlencode(&refused)), &[]);
        assert!(r.text().contains("is not allowed"), "{id}: {}", r.text());
        let failed = format!("http://127.0.0.1:{closed}/x?key=QUERYKEY3");
        let r = s.get(&format!("/t/{id}/get?url={}", urlencode(&failed)), &[]);
        assert!(
            r.text().starts_with("TypeError: fetch of"),
            "{id}: {}",
            r.text()
        );
    }
    assert!(s.log_contains("fetch refused") && s.log_contains("fetch failed"));
    let log = s.log.lock().unwrap().clone();
    for secret in ["PASSWORD1", "QUERYKEY2", "QUERYKEY3"] {
        assert!(!log.contains(secret), "{secret} is in the log:\n{log}");
    }
    assert!(log.contains("/x?[query]"), "{log}");
}

#[test]
fn issue_32_a_pem_secret_is_redacted_however_the_renderer_writes_it() {
    let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n\"quoted\"\\part\n-----END PRIVATE KEY-----\n";
    let s = Server::start(&["--demo=false", "--path-routing"]);
    for id in probes(&s, "debug=true") {
        let (status, _) = s.admin_with(
            "PUT",
            &format!("/_ssr/admin/tenants/{id}/secrets/KEY"),
            pem.as_bytes(),
        );
        assert_eq!(status, 204);
        for how in ["json", "object", "throw", "throw-object"] {
            let r = s.get(&format!("/t/{id}/leak?how={how}"), &[]);
            let page = r.text();
            assert!(!page.contains("MIIEvQ"), "{id} {how}: {page}");
            if how.starts_with("throw") {
                assert!(page.contains("[secret KEY]"), "{id} {how}: {page}");
            }
        }
    }
    assert!(s.log_contains("[secret KEY]"));
    let log = s.log.lock().unwrap().clone();
    assert!(!log.contains("MIIEvQ"), "the key is in the log:\n{log}");
}

/// A raw connection to `s` that sends `head` (lines joined with CRLF,
/// ending with the blank line) and reads with a 10 s limit.
fn send_head(s: &Server, head: &str) -> TcpStream {
    let mut c = connect(s);
    let head = format!("{}\r\n\r\n", head.replace('\n', "\r\n"));
    c.write_all(head.as_bytes()).unwrap();
    c
}

#[test]
fn issue_32_a_body_that_does_not_come_is_answered_408_and_closed() {
    let s = Server::start(&["--demo=false", "--path-routing", "--body-timeout", "500"]);
    probes(&s, "");
    let started = Instant::now();
    let mut c = send_head(
        &s,
        "POST /t/p-wasm/upload HTTP/1.1\nhost: x\ncontent-length: 100",
    );
    c.write_all(b"only ten b").unwrap();
    let said = read_to_close(c);
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(said.contains("did not arrive within 500 ms"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(5));
    // A body sent at once is read.
    let r = s.send("POST", "/t/p-wasm/upload", &[], &[7; 100]);
    assert_eq!((r.status, r.text().as_str()), (200, "got 100 bytes"));
}

#[test]
fn issue_32_connections_waiting_on_bodies_cannot_fill_the_listener() {
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--max-connections",
        "8",
        "--max-uploads-per-client",
        "4",
        "--body-timeout",
        "60000",
    ]);
    probes(&s, "");
    // As many connections as the listener takes, each announcing a body
    // it never sends.
    let idle: Vec<TcpStream> = (0..8)
        .map(|_| {
            send_head(
                &s,
                "POST /t/p-wasm/upload HTTP/1.1\nhost: x\ncontent-length: 100",
            )
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let hasty: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(3)))
        .build()
        .into();
    let health = hasty.get(s.url("/_ssr/healthz")).call();
    assert!(
        health.is_ok_and(|r| r.status() == 200),
        "the listener stopped answering"
    );
    // Past the client's share, each was refused at once and closed.
    let mut refused = 0;
    for mut c in idle {
        c.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut got = [0; 12];
        if c.read(&mut got).is_ok_and(|n| n > 0) {
            assert_eq!(&got, b"HTTP/1.1 429");
            refused += 1;
        }
    }
    assert_eq!(refused, 4);
}

#[test]
fn issue_32_clients_that_never_read_hold_bounded_memory_for_a_bounded_time() {
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--send-timeout",
        "1500",
        "--max-unsent-mib",
        "32",
        "--max-response-kib",
        "24576",
    ]);
    probes(&s, "");
    let unsent = || s.metric("ssr_unsent_bytes");
    // A whole page of 24 MiB to a client that reads nothing: the kernel's
    // buffers take a few MiB of it, the rest waits, counted.
    let get = |route: &str| send_head(&s, &format!("GET /t/p-wasm/{route} HTTP/1.1\nhost: x"));
    let whole = get("big?kib=24576");
    let counted = within(Duration::from_secs(10), || unsent() >= (12 << 20) as f64);
    assert!(
        counted,
        "the bytes waiting were never counted: {}",
        unsent()
    );
    // Another such page would pass the bound: refused, not held. A
    // streamed one, to another client that reads nothing, is held as far
    // as the bound (and cut there: `web::stream`'s tests).
    let r = s.get("/t/p-wasm/big?kib=24576&again", &[]);
    assert_eq!(r.status, 503, "{}", r.text());
    let streamed = get("stream-big?kib=24576");
    std::thread::sleep(Duration::from_millis(500));
    assert!(unsent() <= (32 << 20) as f64, "{}", unsent());
    // The host's own answers do not wait.
    assert_eq!(s.get("/_ssr/healthz", &[]).status, 200);
    // After the send timeout the stalled connections are closed, and what
    // they held is given back.
    let freed = within(Duration::from_secs(10), || unsent() == 0.0);
    assert!(freed, "the stalled clients kept their bytes: {}", unsent());
    for c in [whole, streamed] {
        let got = read_to_close(c);
        assert!(got.len() < 24 << 20, "a stalled client got its whole page");
    }
    assert_eq!(s.get("/t/p-wasm/big?kib=1", &[]).status, 200);
}
