//! Web streams in the prelude (`ReadableStream`, `WritableStream`,
//! `TransformStream`, `TextEncoderStream`, `TextDecoderStream`): the same
//! results as Node's own streams on both engines, React's
//! `renderToReadableStream` as a Response body, and bodies that go wrong.

use std::time::{Duration, Instant};

use ssr::engine::{EngineKind, Engines};

use crate::support::{Client, Server, assert_same_as_node, text, within};

#[test]
fn web_streams_behave_as_nodes_on_both_engines() {
    assert_same_as_node("tests/plugins/streams.js", "/", &[]);
}

#[test]
fn pipes_carry_closes_errors_and_aborts_both_ways_and_respect_backpressure_as_in_node() {
    assert_same_as_node("tests/plugins/piping.js", "/", &[]);
}

#[test]
fn writable_streams_abort_after_the_write_in_flight_and_settle_in_the_standards_order_as_in_node() {
    assert_same_as_node("tests/plugins/writable.js", "/", &[]);
}

#[test]
fn byte_streams_byob_readers_transforms_and_async_iteration_behave_as_in_node() {
    assert_same_as_node("tests/plugins/byte-streams.js", "/", &[]);
}

#[test]
fn react_render_to_readable_stream_matches_node_on_both_engines() {
    assert_same_as_node("plugins/stream/app.jsx", "/", &[]);
}

#[test]
fn a_stream_that_goes_wrong_ends_the_response_and_says_why() {
    let server = Server::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("bad-{engine}");
        let (status, body) = server.add(
            &id,
            "tests/plugins/bad-streams.js",
            &format!("engine={engine}"),
        );
        assert_eq!(status, 201, "{body}");
        let mut ok = Conn::get(&server, &format!("/t/{id}/ok"));
        assert!(ok.complete(), "{}", ok.text());
        assert!(ok.text().contains("<p>first</p>"));
        for (path, said) in [
            ("/strings", "the body stream gave a string"),
            ("/halfway", "RangeError: the data source broke halfway"),
            ("/forever", "can never settle"),
        ] {
            // A render that fails before the host has read its head is a
            // plain 500; after, the head and the first chunk went out, and
            // the connection ends without the body's last chunk. Either
            // way the log says why.
            let mut c = Conn::get(&server, &format!("/t/{id}{path}"));
            c.until("\r\n\r\n");
            if !c.text().starts_with("HTTP/1.1 500") {
                assert!(c.until("<p>first</p>"), "{engine} {path}: {}", c.text());
                assert!(c.text().starts_with("HTTP/1.1 200 OK"));
                assert!(!c.complete(), "{engine} {path}: ended cleanly");
            }
            assert!(
                server.log_contains(said),
                "{engine} {path}: no `{said}` in the log:\n{}",
                server.log.lock().unwrap()
            );
        }
        // No worker was lost: the tenant still renders, many times over.
        for _ in 0..8 {
            let mut c = Conn::get(&server, &format!("/t/{id}/ok"));
            assert!(c.complete(), "{}", c.text());
        }
    }
}

const GATE: &str = "tests/plugins/stream-gate.js";

/// A loopback origin whose `/wait` answers only when the test opens the
/// gate, once per opening; `/drip` sends one server-sent event at once and
/// a second when the gate opens; `/never` never answers.
struct Gate {
    port: u16,
    open: std::sync::mpsc::Sender<()>,
}

impl Gate {
    fn start() -> Gate {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (open, opened) = std::sync::mpsc::channel::<()>();
        let opened = std::sync::Arc::new(std::sync::Mutex::new(opened));
        std::thread::spawn(move || {
            for mut conn in listener.incoming().map_while(Result::ok) {
                let opened = opened.clone();
                std::thread::spawn(move || {
                    let mut head = Vec::new();
                    let mut buf = [0; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match conn.read(&mut buf) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    if head.starts_with(b"GET /drip ") {
                        let _ = conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\nB\r\ndata: one\n\n\r\n");
                        if opened.lock().unwrap().recv().is_err() {
                            return;
                        }
                        let _ = conn.write_all(b"B\r\ndata: two\n\n\r\n0\r\n\r\n");
                        return;
                    }
                    if !head.starts_with(b"GET /wait ") {
                        std::thread::sleep(Duration::from_secs(60));
                        return;
                    }
                    if opened.lock().unwrap().recv().is_err() {
                        return;
                    }
                    let _ = conn.write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                    );
                });
            }
        });
        Gate { port, open }
    }

    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn open(&self) {
        self.open.send(()).unwrap();
    }
}

/// A server with the gate handler on each engine (`g-wasm`, `g-v8`),
/// granted the gate's origin, with `extra` settings.
fn gated(gate: &Gate, extra: &str) -> Server {
    let server = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--request-timeout",
        "20000",
    ]);
    for engine in Engines::KINDS {
        let query = format!(
            "engine={engine}&allow_fetch={o}&var=ORIGIN={o}&render_deadline_ms=15000{extra}",
            o = gate.origin()
        );
        let (status, body) = server.add(&format!("g-{engine}"), GATE, &query);
        assert_eq!(status, 201, "{body}");
    }
    server
}

/// A request over its own connection, read as it comes.
struct Conn {
    conn: std::net::TcpStream,
    got: Vec<u8>,
}

impl Conn {
    fn get(server: &Server, path: &str) -> Conn {
        use std::io::Write;
        let mut conn = std::net::TcpStream::connect(&server.addr).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let host = &server.addr;
        write!(
            conn,
            "GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        Conn {
            conn,
            got: Vec::new(),
        }
    }

    /// Reads until `needle` has come, or the connection ends.
    fn until(&mut self, needle: &str) -> bool {
        use std::io::Read;
        let mut buf = [0; 65536];
        loop {
            if text(&self.got).contains(needle) {
                return true;
            }
            match self.conn.read(&mut buf) {
                Ok(0) | Err(_) => return false,
                Ok(n) => self.got.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// Reads to the end (the server closes: `connection: close`) and says
    /// whether the response came whole: a chunked body with its last chunk,
    /// or a body of its `content-length`.
    fn complete(&mut self) -> bool {
        use std::io::Read;
        let _ = self.conn.read_to_end(&mut self.got);
        let all = self.text();
        let Some((head, body)) = all.split_once("\r\n\r\n") else {
            return false;
        };
        if head.contains("transfer-encoding: chunked") {
            return body.ends_with("0\r\n\r\n");
        }
        head.lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .is_some_and(|n| n.parse() == Ok(body.len()))
    }

    fn text(&self) -> String {
        text(&self.got)
    }
}

#[test]
fn a_streamed_body_reaches_the_client_chunk_by_chunk_as_it_is_made() {
    let gate = Gate::start();
    let server = gated(&gate, "");
    for engine in Engines::KINDS {
        let mut c = Conn::get(&server, &format!("/t/g-{engine}/steps?n=3"));
        // The head and the first chunk come while the render waits on the
        // gate: nothing was collected first.
        assert!(c.until("<p>chunk 1</p>"), "{engine}: {}", c.text());
        let head = c.text();
        assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        assert!(
            head.contains("x-cache: bypass") || head.contains("x-cache: miss"),
            "{head}"
        );
        assert!(
            !head.contains("chunk 2"),
            "{engine}: chunk 2 before the gate opened"
        );
        gate.open();
        assert!(c.until("<p>chunk 2</p>"), "{engine}: {}", c.text());
        assert!(!c.text().contains("chunk 3"));
        gate.open();
        // The last chunk, then the chunked body's end.
        assert!(c.complete(), "{engine}: {}", c.text());
        assert!(c.text().contains("<p>chunk 3</p>"));
    }
}

/// A fetched body arrives as the origin sends it: a response passed
/// through is streamed to the client, and an `EventSource` dispatches
/// each event when it comes, each before the origin sends the next.
#[test]
fn a_fetched_body_and_an_event_source_stream_as_the_origin_sends_on_both_engines() {
    let gate = Gate::start();
    let server = gated(&gate, "");
    for engine in Engines::KINDS {
        for (path, first, second) in [
            ("proxy", "data: one", "data: two"),
            ("events", "<p>one</p>", "<p>two</p>"),
        ] {
            let mut c = Conn::get(&server, &format!("/t/g-{engine}/{path}"));
            assert!(c.until(first), "{engine} {path}: {}", c.text());
            assert!(c.text().starts_with("HTTP/1.1 200 OK"), "{}", c.text());
            assert!(
                !c.text().contains(second),
                "{engine} {path}: the second part came before the origin sent it"
            );
            gate.open();
            assert!(c.complete(), "{engine} {path}: {}", c.text());
            assert!(c.text().contains(second), "{engine} {path}: {}", c.text());
        }
    }
}

#[test]
fn a_page_that_awaits_a_timer_takes_as_long_and_a_timed_stream_is_sent_in_two_parts_on_both_engines()
 {
    let server = Server::per_engine("timed", "tests/plugins/timed.js");
    for engine in Engines::KINDS {
        let started = Instant::now();
        let r = server.get(&format!("/t/timed-{engine}/wait"), &[]);
        let took = started.elapsed();
        assert_eq!(
            (r.status, r.text().as_str()),
            (200, "waited true"),
            "{engine}"
        );
        assert!(took >= Duration::from_millis(300), "{engine}: {took:?}");
        // Sent as it was made: each part is a chunk of its own in the
        // chunked body (13 and 12 bytes), however late the client reads.
        let started = Instant::now();
        let mut c = Conn::get(&server, &format!("/t/timed-{engine}/stream"));
        assert!(c.complete(), "{engine}: {}", c.text());
        assert!(started.elapsed() >= Duration::from_millis(300), "{engine}");
        let body = c.text();
        assert!(
            body.contains("transfer-encoding: chunked"),
            "{engine}: {body}"
        );
        assert!(
            body.contains("\r\nD\r\n<p>before</p>\r\nC\r\n<p>after</p>\r\n0\r\n"),
            "{engine}: {body}"
        );
    }
}

#[test]
fn a_cacheable_stream_is_kept_once_complete() {
    let gate = Gate::start();
    let server = gated(&gate, "");
    for (stored, engine) in Engines::KINDS.iter().enumerate() {
        let path = format!("/t/g-{engine}/kept?n=2");
        let mut c = Conn::get(&server, &path);
        assert!(c.until("<p>chunk 1</p>"), "{engine}");
        gate.open();
        assert!(c.complete(), "{engine}: {}", c.text());
        // Stored once complete (a moment later, off the request's path).
        // Watched on the metrics, not by asking for the page: a request
        // before the store would render again and wait at the gate, and
        // take the next engine's opening.
        let kept = (0..500).any(|_| {
            let insertions = server.metric("ssr_cache_insertions_total");
            insertions > stored as f64 || {
                std::thread::sleep(Duration::from_millis(20));
                false
            }
        });
        assert!(kept, "{engine}: the stream was not kept");
        let hit = server.get(&path, &[]);
        assert_eq!(hit.header("x-cache"), Some("hit"), "{engine}");
        assert_eq!(hit.text(), "<p>chunk 1</p>\n<p>chunk 2</p>\n");
    }
}

#[test]
fn a_client_that_leaves_mid_stream_ends_the_render_and_frees_its_worker() {
    let gate = Gate::start();
    let server = gated(&gate, "&max_concurrency=1");
    for engine in Engines::KINDS {
        let mut c = Conn::get(&server, &format!("/t/g-{engine}/steps?n=5"));
        assert!(c.until("<p>chunk 1</p>"), "{engine}");
        drop(c);
        // The render's next chunks find no client (the first write after
        // the close may still be taken by the socket), and the render ends.
        for _ in 0..4 {
            gate.open();
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            server.log_contains("the client went away"),
            "{engine}:\n{}",
            server.log.lock().unwrap()
        );
        // Its one permit (max_concurrency=1) is free again: a new stream runs.
        let mut again = Conn::get(&server, &format!("/t/g-{engine}/steps?n=1"));
        assert!(again.complete(), "{engine}: {}", again.text());
        server.log.lock().unwrap().clear();
    }
}

#[test]
fn the_request_timeout_ends_a_stream_that_never_finishes() {
    let gate = Gate::start();
    let server = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--request-timeout",
        "1500",
    ]);
    for engine in Engines::KINDS {
        let query = format!(
            "engine={engine}&allow_fetch={o}&var=ORIGIN={o}",
            o = gate.origin()
        );
        let (status, body) = server.add(&format!("h-{engine}"), GATE, &query);
        assert_eq!(status, 201, "{body}");
        let mut c = Conn::get(&server, &format!("/t/h-{engine}/hang"));
        assert!(c.until("the only chunk"), "{engine}: {}", c.text());
        // The connection ends without the chunked body's last chunk.
        assert!(!c.complete(), "{engine}: {}", c.text());
        assert!(server.log_contains("render timed out"), "{engine}");
    }
}

#[test]
fn a_stream_has_no_length_limit_and_a_client_that_reads_nothing_holds_about_a_window() {
    let gate = Gate::start();
    let server = gated(&gate, "&max_response_kib=1024");
    for engine in Engines::KINDS {
        // 64 MiB, past the tenant's limit of 1 MiB for a body returned
        // whole, to a client that reads nothing for a while: its renderer
        // waits for it, so the host holds about a window of it
        // (`unsent::WINDOW`, 1 MiB; on V8, 16 writes more), not the stream
        // (the kernel's socket buffers take some too).
        let mut c = Conn::get(&server, &format!("/t/g-{engine}/big?mib=64"));
        let held = || server.metric("ssr_unsent_bytes");
        let waiting = within(Duration::from_secs(10), || held() > (1 << 20) as f64);
        assert!(waiting, "{engine}: never behind: {}", held());
        std::thread::sleep(Duration::from_millis(500));
        assert!(held() < (3 << 20) as f64, "{engine}: held {}", held());
        // Read, it all comes, and the stream ends well.
        assert!(c.complete(), "{engine}: cut after {} bytes", c.got.len());
        let body = c.got.iter().filter(|&&b| b == b'x').count();
        assert!(
            (64 << 20..(64 << 20) + 64).contains(&body),
            "{engine}: {body} bytes"
        );
        assert!(within(Duration::from_secs(5), || held() == 0.0));
    }
}

/// Issue 33, item 9: a page whose data takes 1.4 s streams whole with the
/// defaults (its waits cost no CPU time), and one that burns CPU between
/// waits is stopped at its CPU time however little wall time it took.
#[test]
fn waiting_costs_no_cpu_time_and_burning_cpu_between_waits_is_stopped() {
    let gate = Gate::start();
    let server = Server::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let query = format!(
            "engine={engine}&allow_fetch={o}&var=ORIGIN={o}",
            o = gate.origin()
        );
        let (status, body) = server.add(&format!("d-{engine}"), GATE, &query);
        assert_eq!(status, 201, "{body}");
        let mut c = Conn::get(&server, &format!("/t/d-{engine}/steps?n=3"));
        assert!(c.until("chunk 1"), "{engine}: {}", c.text());
        for _ in 0..2 {
            std::thread::sleep(Duration::from_millis(700));
            gate.open();
        }
        assert!(c.until("chunk 3"), "{engine}: {}", c.text());
        assert!(c.complete(), "{engine}: {}", c.text());

        // Up to 99 bursts of counted work, each after a wait, against a
        // tenant's 500 ms of CPU time: each burst costs about 25 ms here
        // (less work on V8, which runs the loop compiled), far under the
        // limit on a machine 10 times slower, and the CPU time is the same
        // whatever else loads the machine; they add up past it within 99
        // bursts on one 4 times faster.
        let (status, body) = server.add(
            &format!("e-{engine}"),
            GATE,
            &format!("{query}&render_deadline_ms=500"),
        );
        assert_eq!(status, 201, "{body}");
        let work = match engine {
            EngineKind::Wasm => 80_000,
            _ => 1_800_000,
        };
        let mut c = Conn::get(&server, &format!("/t/e-{engine}/burn?n=100&work={work}"));
        assert!(c.until("burst 1"), "{engine}: {}", c.text());
        for _ in 0..99 {
            gate.open();
        }
        c.until("never there");
        assert!(!c.complete(), "{engine}: {}", c.text());
        assert!(
            c.text().contains("burst 2"),
            "{engine}: no burst alone is cut: {}",
            c.text()
        );
        assert!(!c.text().contains("burst 100"), "{engine}: {}", c.text());
        assert!(
            server.log_contains("used up its CPU time of 500ms"),
            "{engine}: {}",
            server.log.lock().unwrap()
        );
        server.log.lock().unwrap().clear();
    }
}
