//! Outbound `fetch` through the host (issue 17), over real HTTP on both
//! engines: only granted origins are reached, redirects stay inside the
//! grant, every per-request and per-render limit holds with a clear error,
//! and a render waiting on the network holds no worker.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ssr::engine::Engines;

use crate::support::{Client, InProcess, Server, ssr, text};

const FETCHER: &str = "tests/plugins/fetcher.js";

/// A loopback origin for renderers to fetch, one thread per connection,
/// answering by path:
/// - `/data.json`: a small JSON document;
/// - `/echo`: the method, the `x-token` header and the body it got;
/// - `/slow`: "slow", after 3 s;
/// - `/never`: reads the request and never answers;
/// - `/mark`: counts in [`MARKED`], and answers "marked";
/// - `/hold`: answers nothing, and counts in [`HELD_CLOSED`] when the client
///   closes the connection;
/// - `/drip-hold`: answers a chunked body's first chunk ("first"), then
///   nothing more, and counts in [`HELD_CLOSED`] too;
/// - `/huge`: declares 1 GiB and sends zeros until the client leaves;
/// - `/big`: 8 MB of zeros, chunked (no length declared), as fast as the
///   client reads;
/// - `/to-metadata`: a redirect to the cloud metadata address;
/// - `/to-name`: a redirect to itself under the name `localhost`;
/// - `/events`: server-sent events, told apart by the `Last-Event-ID`
///   the client sent;
/// - `/paragraphs`: 200 paragraphs of HTML in 20 chunks (no length
///   declared), so its body streams.
pub struct Origin {
    pub port: u16,
}

impl Origin {
    pub fn start() -> Origin {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for conn in listener.incoming().map_while(Result::ok) {
                std::thread::spawn(move || answer(conn, port));
            }
        });
        Origin { port }
    }

    /// Its origin, `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }
}

/// Requests `/mark` got.
pub static MARKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What `/beacon` got: its method and body, one entry a request.
pub static BEACONS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Connections to `/hold` that their client closed.
pub static HELD_CLOSED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn answer(mut conn: TcpStream, port: u16) {
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    let head_end = loop {
        let Ok(n) = conn.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        got.extend_from_slice(&buf[..n]);
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&got[..head_end]).to_string();
    let header = |name: &str| {
        head.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_string())
    };
    let length: usize = header("content-length").map_or(0, |l| l.parse().unwrap_or(0));
    while got.len() < head_end + length {
        let Ok(n) = conn.read(&mut buf) else { return };
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    let body = String::from_utf8_lossy(&got[head_end..]).to_string();
    let mut words = head.split_whitespace();
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let reply = |status: &str, extra: &str, body: &str| {
        format!(
            "HTTP/1.1 {status}\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    if path == "/drip-hold" {
        let _ = conn.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n",
        );
    }
    if path == "/hold" || path == "/drip-hold" {
        while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
        HELD_CLOSED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        return;
    }
    let out = match path {
        "/data.json" => reply(
            "200 OK",
            "content-type: application/json\r\n",
            r#"{"name":"lamp","price":12}"#,
        ),
        "/echo" => reply(
            "200 OK",
            "content-type: text/plain\r\n",
            &format!(
                "method={method} token={} body={body}",
                header("x-token").unwrap_or_default()
            ),
        ),
        "/beacon" => {
            BEACONS.lock().unwrap().push(format!("{method} {body}"));
            reply("200 OK", "content-type: text/plain\r\n", "seen")
        }
        "/mark" => {
            MARKED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            reply("200 OK", "content-type: text/plain\r\n", "marked")
        }
        "/slow" => {
            std::thread::sleep(Duration::from_secs(3));
            reply("200 OK", "content-type: text/plain\r\n", "slow")
        }
        "/huge" => {
            let _ = conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1073741824\r\n\r\n");
            let zeros = vec![0u8; 64 << 10];
            while conn.write_all(&zeros).is_ok() {}
            return;
        }
        "/big" => {
            let _ = conn.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
            let chunk = [
                format!("{:x}\r\n", 64_000).into_bytes(),
                vec![0u8; 64_000],
                b"\r\n".to_vec(),
            ]
            .concat();
            for _ in 0..125 {
                if conn.write_all(&chunk).is_err() {
                    return;
                }
            }
            let _ = conn.write_all(b"0\r\n\r\n");
            return;
        }
        "/events" => reply(
            "200 OK",
            "content-type: text/event-stream\r\n",
            &match header("last-event-id") {
                None => "retry: 1000\nid: 1\ndata: hello\n\n".to_string(),
                Some(id) => format!("data: again after {id}\n\n"),
            },
        ),
        "/paragraphs" => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ntransfer-encoding: chunked\r\n\r\n",
            );
            for chunk in 0..20 {
                let piece: String = (0..10)
                    .map(|i| format!("<p>paragraph {}</p>", chunk * 10 + i))
                    .collect();
                let _ = write!(conn, "{:x}\r\n{piece}\r\n", piece.len());
            }
            let _ = conn.write_all(b"0\r\n\r\n");
            return;
        }
        "/to-metadata" => reply(
            "302 Found",
            "location: http://169.254.169.254/latest/meta-data/\r\n",
            "",
        ),
        "/to-name" => reply(
            "302 Found",
            &format!("location: http://localhost:{port}/data.json\r\n"),
            "",
        ),
        _ => {
            std::thread::sleep(Duration::from_secs(60));
            return;
        }
    };
    let _ = conn.write_all(out.as_bytes());
}

/// An in-process server with the fetcher on each engine (`f-wasm`,
/// `f-v8`), granted `origin` and whatever `query` adds.
fn server(origin: &Origin, query: &str) -> (InProcess, Vec<String>) {
    let s = InProcess::start(&[
        "--demo=false",
        "--path-routing",
        "--request-timeout",
        "2000",
    ]);
    let q = format!("allow_fetch={}&{query}", origin.origin());
    let ids = s.add_on_each_engine("f", FETCHER, &q);
    (s, ids)
}

/// The page at `/t/{id}{route}?url={url}`.
fn page(s: &impl Client, id: &str, route: &str, url: &str) -> (u16, String) {
    let join = if route.contains('?') { '&' } else { '?' };
    let r = s.get(&format!("/t/{id}{route}{join}url={url}"), &[]);
    (r.status, r.text())
}

#[test]
fn a_renderer_fetches_granted_origins_only() {
    let api = Origin::start();
    let (s, ids) = server(&api, "");
    for id in &ids {
        let (status, body) = page(&s, id, "/get", &api.url("/data.json"));
        assert_eq!(status, 200, "{id}: {body}");
        assert_eq!(
            body, r#"200 OK application/json {"name":"lamp","price":12}"#,
            "{id}"
        );
        assert_eq!(
            page(&s, id, "/json", &api.url("/data.json")).1,
            r#"json {"name":"lamp","price":12}"#
        );
        assert_eq!(
            page(&s, id, "/immutable", &api.url("/data.json")).1,
            r#"TypeError yes {"name":"lamp","price":12}"#,
            "{id}"
        );

        // A secret goes out in a header and a JSON body in a POST.
        let (status, _) = s.admin_with(
            "PUT",
            &format!("/_ssr/admin/tenants/{id}/secrets/TOKEN"),
            b"s3cr3t",
        );
        assert_eq!(status, 204);
        assert_eq!(
            page(&s, id, "/post", &api.url("/echo")).1,
            r#"200 OK text/plain method=POST token=s3cr3t body={"from":"renderer"}"#,
            "{id}"
        );

        // Everything else is refused with a TypeError naming the origin:
        // another port, the server itself, and a redirect out of the grant.
        let other = format!("http://127.0.0.1:{}/data.json", api.port + 1);
        let (status, body) = page(&s, id, "/get", &other);
        assert_eq!(status, 200);
        assert_eq!(
            body,
            format!(
                "TypeError: fetch of {other}: the origin http://127.0.0.1:{} is not allowed for this site; grant it with `ssr tenant add ... --allow-fetch http://127.0.0.1:{}`",
                api.port + 1,
                api.port + 1
            ),
            "{id}"
        );
        let own = format!("http://{}/_ssr/healthz", s.addr());
        assert!(
            page(&s, id, "/get", &own).1.contains("is not allowed"),
            "{id}"
        );
        let (_, body) = page(&s, id, "/get", &api.url("/to-metadata"));
        assert!(
            body.starts_with("TypeError: fetch of http://169.254.169.254/latest/meta-data/: the origin http://169.254.169.254 is not allowed"),
            "{id}: {body}"
        );
        let (_, body) = page(&s, id, "/get", "file:///etc/passwd");
        assert!(body.starts_with("TypeError: "), "{id}: {body}");
        // A data: URL is answered in the sandbox, with no network, as on
        // Workers.
        assert_eq!(
            page(&s, id, "/get", "data:text/plain,x").1,
            "200 OK text/plain x",
            "{id}"
        );
    }
}

#[test]
fn a_granted_name_that_resolves_to_a_private_address_reaches_nothing() {
    let api = Origin::start();
    let by_name = format!("http://localhost:{}", api.port);
    let (s, ids) = server(&api, &format!("allow_fetch={by_name}"));
    for id in &ids {
        // Granted by name, the redirect is followed, but the name resolves
        // to loopback only: no connection is made.
        let (_, body) = page(&s, id, "/get", &api.url("/to-name"));
        assert!(
            body.starts_with(&format!(
                "TypeError: fetch of http://localhost:{}/data.json failed",
                api.port
            )) && body.contains("resolves to no public address"),
            "{id}: {body}"
        );
    }
}

#[test]
fn every_fetch_limit_holds_with_a_clear_error() {
    let api = Origin::start();
    let (s, ids) = server(&api, "render_deadline_ms=1500&max_fetch_kib=2");
    for id in &ids {
        // A response past the tenant's bytes: the 1 GiB one is cut at once.
        let started = Instant::now();
        let (status, body) = page(&s, id, "/get", &api.url("/huge"));
        assert_eq!(status, 200, "{id}: {body}");
        assert_eq!(
            body,
            "TypeError: this render's responses are over its limit of 2048 bytes (the tenant's `max_fetch_kib`)",
            "{id}"
        );
        assert!(started.elapsed() < Duration::from_secs(1), "{id}");

        // 51 requests: the 51st is refused.
        let (_, body) = page(&s, id, "/many?n=51", &api.url("/data.json"));
        assert!(
            body.starts_with("50 ok; TypeError: fetch of")
                && body.ends_with(
                    "this render has made 50 requests, its limit (the tenant's `max_subrequests`)"
                ),
            "{id}: {body}"
        );

        // An origin that never answers: the wait costs no CPU time, and the
        // request's timeout (2 s here) ends it.
        let started = Instant::now();
        let (status, _) = page(&s, id, "/get", &api.url("/never"));
        assert_eq!(status, 504, "{id}");
        assert!(started.elapsed() < Duration::from_secs(4), "{id}");

        // A timeout around a fetch follows real time while it is in flight.
        let (_, body) = page(&s, id, "/race?ms=200", &api.url("/slow"));
        assert_eq!(body, "timed out", "{id}");
    }
}

#[test]
fn bad_grants_are_refused_with_the_form_to_use() {
    let s = InProcess::start(&["--demo=false"]);
    for bad in ["127.0.0.1:9000", "http://x.test/api", "ftp://x.test"] {
        let (status, body) = s.add("f", FETCHER, &format!("allow_fetch={bad}"));
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(
            body.contains(&format!("`{bad}` is not an origin to fetch"))
                && body.contains("write scheme://host[:port], like http://127.0.0.1:9000"),
            "{body}"
        );
    }
    let plugin = crate::support::plugin(FETCHER).plugin;
    let out = ssr()
        .arg("render")
        .arg(&plugin)
        .args(["/get?url=http://x.test/", "--allow-fetch", "x.test"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("`x.test` is not an origin to fetch"),
        "{}",
        text(&out.stderr)
    );
}

/// `EventSource` over the tenant's own `fetch`: within its grant it
/// reads a real server's events, reconnects when the server ends the
/// stream and sends `Last-Event-ID`; outside it, the source gets the
/// grant's refusal as its `error` and closes.
#[test]
fn an_event_source_reads_a_granted_origin_and_reconnects_on_both_engines() {
    let api = Origin::start();
    let plugin = crate::support::plugin("tests/plugins/event-source-net.js").plugin;
    for engine in Engines::KINDS {
        let run = |grant: &[&str]| {
            let out = ssr()
                .arg("render")
                .arg(&plugin)
                .arg(format!("/?url={}", api.url("/events")))
                .args(["--engine", engine.as_str(), "--timeout-ms", "10000"])
                .args(grant)
                .output()
                .unwrap();
            assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
            text(&out.stdout)
        };
        assert_eq!(
            run(&["--allow-fetch", &api.origin()]),
            r#"[["open",1],["message","hello","1"],["error",0,"The server disconnected."],["open",1],["message","again after 1","1"]]"#,
            "{engine}"
        );
        let refused = run(&[]);
        assert!(
            refused.starts_with(r#"[["error",2,"#)
                && refused.contains("is not allowed for this site"),
            "{engine}: {refused}"
        );
    }
}

/// A fetched body that streams (no length declared) goes through what
/// apps do with one: `HTMLRewriter` rewrites it as it arrives, and a
/// clone reads the same bytes as the original, on both engines.
#[test]
fn a_streamed_fetched_body_is_rewritten_and_cloned_on_both_engines() {
    let api = Origin::start();
    let (s, ids) = server(&api, "");
    for id in &ids {
        let (status, body) = page(&s, id, "/rewrite", &api.url("/paragraphs"));
        assert_eq!(status, 200, "{id}: {body}");
        assert_eq!(
            body.matches(r#"<p class="seen">"#).count(),
            200,
            "{id}: {body}"
        );
        assert!(
            body.ends_with("<p class=\"seen\">paragraph 199</p>"),
            "{id}"
        );
        let (_, body) = page(&s, id, "/tee", &api.url("/paragraphs"));
        assert_eq!(body, "3890 3890 true <p>paragraph 0</p><p", "{id}");
    }
}

#[test]
fn ssr_render_fetches_too() {
    let api = Origin::start();
    let plugin = crate::support::plugin(FETCHER).plugin;
    for engine in Engines::KINDS {
        let url = format!("/get?url={}", api.url("/data.json"));
        let run = |grant: &[&str]| {
            ssr()
                .arg("render")
                .arg(&plugin)
                .arg(&url)
                .args(["--engine", engine.as_str()])
                .args(grant)
                .output()
                .unwrap()
        };
        let out = run(&["--allow-fetch", &api.origin()]);
        assert_eq!(
            text(&out.stdout),
            r#"200 OK application/json {"name":"lamp","price":12}"#,
            "{engine}: {}",
            text(&out.stderr)
        );
        let out = run(&[]);
        assert!(
            text(&out.stdout).contains("is not allowed for this site"),
            "{engine}"
        );
    }
}

/// GETs `path` on another thread; the handle yields status and body.
fn get_later(s: &Server, path: &str) -> JoinHandle<(u16, String)> {
    let url = s.url(path);
    std::thread::spawn(move || {
        let mut r = Server::agent().get(&url).call().unwrap();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
        )
    })
}

#[test]
fn renders_waiting_on_the_network_hold_no_worker() {
    let api = Origin::start();
    // Two workers, and two threads for V8 renders.
    let s = Server::start(&[
        "--demo=false",
        "--workers",
        "2",
        "--v8-threads",
        "2",
        "--request-timeout",
        "10000",
    ]);
    for engine in Engines::KINDS {
        let waits = format!("waits-{engine}");
        let grant = format!(
            "engine={engine}&allow_fetch={}&max_concurrency=20&render_deadline_ms=8000",
            api.origin()
        );
        assert_eq!(s.add(&waits, FETCHER, &grant).0, 201);
        let other = format!("other-{engine}");
        let query = format!("engine={engine}");
        assert_eq!(s.add(&other, "plugins/hello/render.js", &query).0, 201);
        // 20 renders wait for an origin that answers after 3 s.
        let slow = format!("/t/{waits}/get?url={}", api.url("/slow"));
        let waiting: Vec<_> = (0..20)
            .map(|i| get_later(&s, &format!("{slow}&i={i}")))
            .collect();
        std::thread::sleep(Duration::from_millis(700));
        let started = Instant::now();
        let page = s.get(&format!("/t/{other}/?during=waits"), &[]);
        let took = started.elapsed();
        assert_eq!(page.status, 200, "{engine}");
        assert!(
            waiting.iter().all(|t| !t.is_finished()),
            "{engine}: the other tenant was served only after the waiting renders ended ({took:?})"
        );
        for t in waiting {
            let (status, body) = t.join().unwrap();
            assert_eq!(
                (status, body.as_str()),
                (200, "200 OK text/plain slow"),
                "{engine}"
            );
        }
        let ok = format!(
            "ssr_fetch_requests_total{{tenant=\"{waits}\",origin=\"{}\",outcome=\"ok\"}}",
            api.origin()
        );
        assert_eq!(s.metric(&ok), 20.0, "{}", s.metrics_text());
    }
    assert!(s.metrics_text().contains("ssr_fetch_seconds"));
    // A refusal is counted and logged by tenant and reason.
    let other_port = format!("http://127.0.0.1:{}/", api.port + 1);
    let r = s.get(&format!("/t/waits-wasm/get?url={other_port}"), &[]);
    assert!(r.text().contains("is not allowed"));
    assert_eq!(
        s.metric("ssr_fetch_refused_total{tenant=\"waits-wasm\",reason=\"origin\"}"),
        1.0
    );
    assert!(s.log_contains("fetch refused"));
}

/// The shop's API (`node plugins/shop/api.mjs`), expecting `token`; stopped
/// on drop.
struct ShopApi {
    child: std::process::Child,
    port: u16,
}

impl ShopApi {
    fn start(token: &str) -> ShopApi {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = std::process::Command::new("node")
            .arg(crate::support::root().join("plugins/shop/api.mjs"))
            .arg(port.to_string())
            .env("SHOP_API_TOKEN", token)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "the shop's API did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        ShopApi { child, port }
    }
}

impl Drop for ShopApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_shop_calls_its_api_with_a_secret_and_takes_a_posted_order_on_both_engines() {
    let api = ShopApi::start("shop-api-token-42");
    let origin = format!("http://127.0.0.1:{}", api.port);
    let s = InProcess::start(&["--demo=false"]);
    for engine in Engines::KINDS {
        let id = format!("shop-{engine}");
        let host = format!("{id}.localhost");
        let query = format!("engine={engine}&host={host}&allow_fetch={origin}&var=API={origin}");
        let (status, body) = s.add(&id, "plugins/shop/shop.js", &query);
        assert_eq!(status, 201, "{body}");
        let at = [("host", host.as_str())];
        // Without its token the API refuses, and the page says so.
        let page = s.get("/product/1", &at);
        assert_eq!(page.status, 502, "{engine}: {}", page.text());
        let (status, _) = s.admin_with(
            "PUT",
            &format!("/_ssr/admin/tenants/{id}/secrets/API_TOKEN"),
            b"shop-api-token-42",
        );
        assert_eq!(status, 204);
        let page = s.get("/product/1", &at);
        assert_eq!(page.status, 200, "{engine}");
        assert!(
            page.text().contains("<h1>Desk lamp</h1><p>39 EUR</p>"),
            "{engine}: {}",
            page.text()
        );
        let form = ("content-type", "application/x-www-form-urlencoded");
        let posted = s.send("POST", "/product/2", &[at[0], form], b"quantity=3");
        assert_eq!(posted.status, 303, "{engine}: {}", posted.text());
        let location = posted.header("location").unwrap().to_string();
        let path = location.strip_prefix(&format!("http://{host}")).unwrap();
        let thanks = s.get(path, &at);
        assert!(
            thanks.text().contains(": 3 x Oak shelf."),
            "{engine}: {}",
            thanks.text()
        );
    }
}
