//! WebSockets a Worker answers with (`new WebSocketPair()`, a `Response`
//! of status 101): a real client (tungstenite over loopback TCP) talks to
//! `ssr serve` on both engines, and to workerd with the same module in the
//! same run (`tests/plugins/websocket-server.js`); then the limits, each
//! with the server and other sockets going on.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use tokio_tungstenite::tungstenite::{self, Message, client::IntoClientRequest};

use crate::support::{Client, Server, plugin};

pub(crate) const SERVER: &str = "tests/plugins/websocket-server.js";

type Socket = tungstenite::WebSocket<TcpStream>;

/// A 101's headers, or a refusal's status and body.
type Opened = Result<(Socket, Vec<(String, String)>), (u16, String)>;

/// Opens a WebSocket to `ws://{addr}{path}`: the socket and the 101's
/// headers, or the refusal (an HTTP response: its status and body).
pub(crate) fn open(addr: &str, path: &str) -> Opened {
    let request = format!("ws://{addr}{path}").into_client_request().unwrap();
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(crate::support::patience(30)))
        .unwrap();
    match tungstenite::client(request, stream) {
        Ok((socket, response)) => {
            let headers = response
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
                .collect();
            Ok((socket, headers))
        }
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            let body = r
                .body()
                .as_deref()
                .map(crate::support::text)
                .unwrap_or_default();
            Err((r.status().as_u16(), body))
        }
        Err(e) => panic!("the WebSocket handshake failed: {e}"),
    }
}

/// Whether the server has `n` WebSockets open within 10 s (a socket's
/// place comes back once its render has heard the close). Asked on a
/// connection of its own, which a client at its connection limit may be
/// refused: asked again then.
fn open_count(s: &Server, n: usize) -> bool {
    crate::support::within(Duration::from_secs(10), || {
        crate::support::metric(s, "ssr_websockets_open") == n as f64
    })
}

/// The next message, as the transcript shows it.
fn read(socket: &mut Socket) -> String {
    match socket.read() {
        Ok(Message::Text(t)) => t.as_str().to_string(),
        Ok(Message::Binary(b)) => format!("bytes {:?}", &b[..]),
        Ok(Message::Close(Some(f))) => format!("close {} {}", u16::from(f.code), f.reason),
        Ok(Message::Close(None)) => "close".into(),
        Ok(other) => format!("{other:?}"),
        Err(e) => format!("error {e}"),
    }
}

/// The conversation every runtime must hold alike: its transcript.
pub(crate) fn converse(socket: &mut Socket) -> Vec<String> {
    let mut said = vec![read(socket)];
    let mut ask = |socket: &mut Socket, message: Message, replies: usize| {
        socket.send(message).unwrap();
        for _ in 0..replies {
            said.push(read(socket));
        }
    };
    ask(socket, Message::text("hi"), 1);
    ask(socket, Message::binary(vec![1u8, 2, 3]), 2);
    ask(socket, Message::text("count"), 1);
    ask(socket, Message::text("wait 300"), 1);
    ask(socket, Message::text("é ünïcode ✓"), 1);
    ask(socket, Message::text("close"), 1);
    // The client answers the server's close; the connection then ends.
    said.push(match socket.read() {
        Err(tungstenite::Error::ConnectionClosed) => "closed".into(),
        other => format!("{other:?}"),
    });
    said
}

/// The same conversation with ssr on each engine and with workerd, in the
/// same run, gives the same transcript: messages of each kind both ways,
/// what the server sent before its response first, a real timer, and the
/// server's close (4000) with the client's answer.
#[test]
fn a_websocket_server_converses_as_on_workerd_on_both_engines() {
    let s = Server::start(&["--demo=false"]);
    let ids = s.add_on_each_engine("ws", SERVER, "");
    let workerd = crate::apps::Workerd::start(&crate::apps::App::module(
        "websocket-server",
        plugin(SERVER).bundle,
    ));
    let (mut socket, _) = open(&workerd.addr, "/room?room=a").unwrap();
    let expected = converse(&mut socket);
    assert_eq!(
        expected,
        [
            "hello a",
            "echo hi",
            "binary Blob 1,2,3",
            "bytes [3, 2, 1]",
            "count 3",
            "waited true",
            "echo é ünïcode ✓",
            "close 4000 asked to",
            "closed"
        ],
        "workerd's transcript"
    );
    for id in &ids {
        let (mut socket, headers) = open(&s.addr, &format!("/t/{id}/room?room=a")).unwrap();
        assert!(
            headers.iter().any(|(k, v)| k == "x-room" && v == "a"),
            "{id}: the response's own headers go with the 101: {headers:?}"
        );
        assert_eq!(converse(&mut socket), expected, "{id}");
    }
    // The server's `close` event ran, once the client answered.
    let heard = crate::support::within(Duration::from_secs(10), || {
        s.log
            .lock()
            .unwrap()
            .matches("server heard close 4000 asked to true 3")
            .count()
            == ids.len()
    });
    assert!(heard, "{}", s.log.lock().unwrap());
    // A request that asks for no WebSocket gets the Worker's answer.
    for id in &ids {
        let r = s.get(&format!("/t/{id}/"), &[]);
        assert_eq!(
            (r.status, r.text().as_str()),
            (426, "expected a WebSocket upgrade")
        );
    }
}

/// The Hono example app's chat (`plugins/hono`, Hono's `upgradeWebSocket`
/// for Workers, built by `ssr build` as its users build it) holds the
/// same conversation on ssr's engines as on workerd.
#[test]
fn the_hono_apps_websocket_converses_as_on_workerd_on_both_engines() {
    let app = crate::apps::app("hono");
    let s = Server::start(&["--demo=false"]);
    let bytes = std::fs::read(&app.plugin).unwrap();
    let chat = |addr: &str, path: &str| {
        let (mut socket, _) = open(addr, path).unwrap();
        let mut said = Vec::new();
        for text in ["hello", "how are you?"] {
            socket.send(Message::text(text)).unwrap();
            said.push(read(&mut socket));
        }
        socket.send(Message::text("bye")).unwrap();
        said.push(read(&mut socket));
        said
    };
    let workerd = crate::apps::Workerd::start(&app);
    let expected = chat(&workerd.addr, "/chat?name=ada");
    assert_eq!(
        expected,
        ["ada said hello", "ada said how are you?", "close 1000 bye"]
    );
    for engine in ssr::engine::Engines::KINDS {
        let id = format!("hono-{engine}");
        let (status, body) = s.put_bytes(&id, &bytes, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        assert_eq!(
            chat(&s.addr, &format!("/t/{id}/chat?name=ada")),
            expected,
            "{id}"
        );
    }
}

/// A client's close reaches the server's `close` event with its code and
/// reason, and a cut connection (no close frame) as 1006, not clean.
#[test]
fn the_clients_close_and_a_cut_connection_reach_the_server_on_both_engines() {
    let s = Server::start(&["--demo=false"]);
    for id in s.add_on_each_engine("ws", SERVER, "") {
        let (mut socket, _) = open(&s.addr, &format!("/t/{id}/")).unwrap();
        assert_eq!(read(&mut socket), "hello ");
        socket
            .close(Some(tungstenite::protocol::CloseFrame {
                code: 3001.into(),
                reason: "bye".into(),
            }))
            .unwrap();
        assert_eq!(
            read(&mut socket),
            "close 3001 bye",
            "{id}: the server answers the close"
        );
        let (mut socket, _) = open(&s.addr, &format!("/t/{id}/")).unwrap();
        assert_eq!(read(&mut socket), "hello ");
        drop(socket);
    }
    let heard = crate::support::within(Duration::from_secs(10), || {
        let log = s.log.lock().unwrap();
        log.matches("server heard close 3001 bye true 3").count() == 2
            && log.matches("server heard close 1006  false 3").count() == 2
    });
    assert!(heard, "{}", s.log.lock().unwrap());
}

/// A socket outlives the request timeout while messages come, and each
/// message gets the tenant's CPU time again: three messages that each
/// spin 300 ms pass a 500 ms render deadline together, not one by one.
#[test]
fn a_socket_lives_past_the_request_timeout_with_cpu_time_per_message_on_both_engines() {
    let s = Server::start(&[
        "--demo=false",
        "--request-timeout",
        "1000",
        "--render-deadline",
        "500",
    ]);
    for id in s.add_on_each_engine("ws", SERVER, "") {
        let (mut socket, _) = open(&s.addr, &format!("/t/{id}/")).unwrap();
        assert_eq!(read(&mut socket), "hello ");
        let started = Instant::now();
        for _ in 0..3 {
            socket.send(Message::text("spin 300")).unwrap();
            assert_eq!(read(&mut socket), "spun true", "{id}");
        }
        std::thread::sleep(Duration::from_millis(1200));
        socket.send(Message::text("count")).unwrap();
        assert_eq!(read(&mut socket), "count 4", "{id}");
        assert!(started.elapsed() > Duration::from_secs(2));
        // One message that spins past the deadline ends its render: the
        // socket closes (1011), and the server goes on.
        // (It would spin for a minute of wall-clock time: its CPU time,
        // however slowly a busy machine gives it, ends it first.)
        socket.send(Message::text("spin 60000")).unwrap();
        assert_eq!(
            read(&mut socket),
            "close 1011 the server's handler failed",
            "{id}"
        );
        let (mut again, _) = open(&s.addr, &format!("/t/{id}/")).unwrap();
        assert_eq!(read(&mut again), "hello ");
    }
}

/// The limits, each a setting: a message over the size closes the socket
/// (1009); sockets past the tenant's
/// count are refused (429); a flood the client does not read is bounded
/// and refused to the Worker, not held; bad upgrades are refused by name;
/// a 101 without a client's upgrade fails its render. The server and
/// other sockets go on through each.
#[test]
fn websocket_limits_hold_and_bad_upgrades_are_refused_on_both_engines() {
    let s = Server::start(&[
        "--demo=false",
        "--max-websocket-message-kib",
        "32",
        "--max-websockets-per-tenant",
        "2",
    ]);
    for id in s.add_on_each_engine("ws", SERVER, "") {
        let path = format!("/t/{id}/");
        let (mut keep, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut keep), "hello ");
        // Too large.
        let (mut big, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut big), "hello ");
        big.send(Message::binary(vec![7u8; 33 << 10])).unwrap();
        let said = read(&mut big);
        assert!(said.starts_with("close 1009 "), "{id}: {said}");
        // Two open already (the big one's place comes back when its
        // render has heard the close): the third is refused.
        assert!(open_count(&s, 1), "{id}");
        let (mut second, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut second), "hello ");
        let refused = open(&s.addr, &path).map(|_| ()).unwrap_err();
        assert_eq!(refused.0, 429, "{id}: {refused:?}");
        assert!(
            refused.1.contains("--max-websockets-per-tenant"),
            "{refused:?}"
        );
        drop(second);
        keep.send(Message::text("flood 0")).unwrap();
        assert_eq!(read(&mut keep), "flooded");
        // The Worker's messages of 64 KiB are over the 32 KiB limit:
        // refused to it at once.
        keep.send(Message::text("flood 3")).unwrap();
        assert_eq!(read(&mut keep), "refused TypeError", "{id}");
        // Bad upgrades.
        let key = "dGhlIHNhbXBsZSBub25jZQ==";
        let bad = s.send(
            "POST",
            &path,
            &[
                ("upgrade", "websocket"),
                ("connection", "upgrade"),
                ("sec-websocket-version", "13"),
                ("sec-websocket-key", key),
            ],
            b"x",
        );
        assert_eq!(
            (bad.status, bad.text().as_str()),
            (
                400,
                "400 Bad Request: a WebSocket upgrade must be a GET request\n"
            )
        );
        let bad = s.get(
            &path,
            &[
                ("upgrade", "websocket"),
                ("connection", "upgrade"),
                ("sec-websocket-version", "8"),
                ("sec-websocket-key", key),
            ],
        );
        assert_eq!(
            (bad.status, bad.text().as_str()),
            (
                400,
                "400 Bad Request: a WebSocket upgrade needs `Sec-WebSocket-Version: 13`\n"
            )
        );
        // A 101 for a request that asked for none.
        let r = s.get(&format!("/t/{id}/?status101"), &[]);
        assert_eq!(r.status, 500, "{id}: {}", r.text());
        // And the server goes on.
        let (mut after, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut after), "hello ");
    }
    assert!(
        s.log_contains("a Response of status 101 answers only a request that asked to upgrade")
    );
}

/// A client that never reads while the Worker floods it: what the server
/// holds for it stays bounded (the socket's own bound refuses the
/// Worker's sends), and other clients are served meanwhile.
#[test]
fn a_client_that_never_reads_costs_a_bounded_amount_on_both_engines() {
    let s = Server::start(&["--demo=false"]);
    for id in s.add_on_each_engine("ws", SERVER, "") {
        let path = format!("/t/{id}/");
        let (mut slow, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut slow), "hello ");
        // 256 MiB asked: past what the kernel's buffers take, the socket
        // holds at most 16 MiB unread, and refuses the Worker's sends.
        slow.send(Message::text("flood 4096")).unwrap();
        let refused = "flood refused: WebSocket send(): the peer has not read the last 16 MiB sent";
        let before = s.log.lock().unwrap().matches(refused).count();
        let held = crate::support::within(Duration::from_secs(60), || {
            s.log.lock().unwrap().matches(refused).count() > before
        });
        assert!(held, "{id}: the Worker's flood was never refused");
        let (mut other, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut other), "hello ");
        other.send(Message::text("count")).unwrap();
        assert_eq!(read(&mut other), "count 1");
        // Read now: what was held comes, and the socket goes on.
        slow.send(Message::text("count")).unwrap();
        let mut floods = 0;
        let last = loop {
            let said = read(&mut slow);
            if said.len() == 65536 {
                floods += 1;
                continue;
            }
            break said;
        };
        assert!(
            floods < 4096,
            "{id}: every message was held for a client that read none"
        );
        assert_eq!(last, "count 2", "{id}");
    }
    assert!(s.get("/_ssr/healthz", &[]).status == 200);
}

/// Clients that misuse a socket cost a bounded amount: a frame announcing
/// 64 MiB is refused on its header (1009), before its payload; a client
/// opening socket after socket meets its connection
/// limit (`--max-connections-per-client`), the sockets open counting as
/// its connections. The server serves throughout.
#[test]
fn bad_websocket_clients_are_bounded_on_both_engines() {
    use std::io::Write;
    let s = Server::start(&["--demo=false", "--max-connections-per-client", "3"]);
    for id in s.add_on_each_engine("ws", SERVER, "") {
        let path = format!("/t/{id}/");
        // 64 MiB announced, 4 bytes of mask, no payload.
        let (mut huge, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut huge), "hello ");
        let mut head = vec![0x82u8, 0x80 | 127];
        head.extend_from_slice(&(64u64 << 20).to_be_bytes());
        head.extend_from_slice(&[1, 2, 3, 4]);
        huge.get_mut().write_all(&head).unwrap();
        let said = read(&mut huge);
        assert!(said.starts_with("close 1009 "), "{id}: {said}");
        drop(huge);
        // Three sockets: the client's three connections, once the sockets
        // before have ended on the server.
        assert!(open_count(&s, 0), "{id}");
        let three: Vec<_> = (0..3)
            .map(|_| {
                let (mut socket, _) = open(&s.addr, &path).unwrap();
                assert_eq!(read(&mut socket), "hello ");
                socket
            })
            .collect();
        let request = format!("ws://{}{path}", s.addr)
            .into_client_request()
            .unwrap();
        let stream = TcpStream::connect(&s.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        assert!(
            tungstenite::client(request, stream).is_err(),
            "{id}: a fourth connection of the client's was served"
        );
        drop(three);
        assert!(open_count(&s, 0), "{id}");
    }
}

/// A Worker as a WebSocket client (`tests/plugins/websocket-client.js`),
/// to another tenant's WebSocket server through the same ssr: `new
/// WebSocket(url)` with its `open`, `message` and `close` events, and
/// `fetch` with `Upgrade: websocket` answering 101 with the `webSocket` to
/// accept; only to an origin the tenant was granted (else `error`, then
/// `close` 1006).
#[test]
fn a_worker_opens_websockets_as_a_client_to_granted_origins_on_both_engines() {
    let s = Server::start(&["--demo=false"]);
    s.add_on_each_engine("ws", SERVER, "");
    let grant = format!("allow_fetch=http://{}", s.addr);
    for id in s.add_on_each_engine("client", "tests/plugins/websocket-client.js", &grant) {
        for server in ["ws-wasm", "ws-v8"] {
            let to = format!("ws://{}/t/{server}/", s.addr);
            let r = s.get(
                &format!("/t/{id}/?to={}", crate::support::urlencode(&to)),
                &[],
            );
            assert_eq!(
                r.text(),
                [
                    format!("state 0 {to}").as_str(),
                    "InvalidStateError",
                    "open 1",
                    "hello ",
                    "echo hi",
                    "close 4000 asked to true 3"
                ]
                .join("\n"),
                "{id} to {server}"
            );
            let r = s.get(
                &format!("/t/{id}/fetch?to={}", crate::support::urlencode(&to)),
                &[],
            );
            assert_eq!(
                r.text(),
                "status 101 true 1\nhello \necho hi\ncount 2\nclose 1000 done true",
                "{id} to {server} by fetch"
            );
        }
        // A server that answers 403, not 101: `fetch` gets that answer,
        // `new WebSocket` an error.
        let to = format!("ws://{}/t/ws-wasm/?refuse", s.addr);
        let r = s.get(
            &format!("/t/{id}/fetch?to={}", crate::support::urlencode(&to)),
            &[],
        );
        assert_eq!(r.text(), "refused 403 no sockets here", "{id}");
        let r = s.get(
            &format!("/t/{id}/?to={}", crate::support::urlencode(&to)),
            &[],
        );
        assert_eq!(
            r.text(),
            format!("state 0 {to}\nInvalidStateError\nerror\nclose 1006  false 3"),
            "{id}"
        );
        // An origin the tenant was not granted.
        let to = "ws://10.9.8.7:9/";
        let r = s.get(
            &format!("/t/{id}/?to={}", crate::support::urlencode(to)),
            &[],
        );
        assert_eq!(
            r.text(),
            format!("state 0 {to}\nInvalidStateError\nerror\nclose 1006  false 3"),
            "{id}"
        );
    }
    assert!(s.log_contains("the origin http://10.9.8.7:9 is not allowed for this site"));
}

/// A socket with no message either way for `--websocket-idle` is closed
/// (1001), its render hearing the close; so is one whose client sends a
/// frame a byte at a time (a slowloris), since bytes that make no message
/// are no activity. (Alone on its server: a 2 s idle time would close the
/// other tests' sockets on a busy machine.)
#[test]
fn idle_sockets_and_dribbled_frames_are_closed_on_both_engines() {
    use std::io::Write;
    let s = Server::start(&["--demo=false", "--websocket-idle", "2"]);
    for id in s.add_on_each_engine("ws", SERVER, "") {
        let path = format!("/t/{id}/");
        let (mut idle, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut idle), "hello ");
        let started = Instant::now();
        assert_eq!(read(&mut idle), "close 1001 the WebSocket was idle", "{id}");
        assert!(started.elapsed() >= Duration::from_millis(1500));
        // A text frame announcing 100 bytes, sent a byte every 400 ms
        // until the server answers: no message ever completes, so the
        // socket is idle (bytes that make no message are no activity), and
        // it is closed before the frame could be whole.
        let (mut slow, _) = open(&s.addr, &path).unwrap();
        assert_eq!(read(&mut slow), "hello ");
        slow.get_mut()
            .write_all(&[0x81, 0x80 | 100, 0, 0, 0, 0])
            .unwrap();
        let stream = slow.get_ref().try_clone().unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let dribble = std::thread::spawn(move || {
            let mut stream = stream;
            let mut sent = 0;
            while sent < 100 && !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(400));
                if stream.write_all(b"x").is_err() {
                    break;
                }
                sent += 1;
            }
            sent
        });
        assert_eq!(read(&mut slow), "close 1001 the WebSocket was idle", "{id}");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let sent = dribble.join().unwrap();
        assert!(
            sent < 100,
            "{id}: the frame was whole ({sent} bytes) before the close"
        );
    }
    let heard = crate::support::within(Duration::from_secs(10), || {
        s.log
            .lock()
            .unwrap()
            .matches("server heard close 1001 the WebSocket was idle false 3")
            .count()
            == 4
    });
    assert!(heard, "{}", s.log.lock().unwrap());
}
