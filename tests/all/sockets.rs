//! Outbound TCP sockets (issue 56: Workers' `connect()`, `node:net` and
//! `node:tls`), over real TCP on loopback on both engines: only granted
//! addresses open, bytes go both ways with half-close (and at once: a
//! large write while the peer answers), a large reply arrives whole in
//! chunks, TLS misuse and a failed handshake give clear
//! errors, and no connection outlives its render.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ssr::engine::Engines;

use crate::support::{Client, InProcess};

const SOCKETS: &str = "tests/plugins/sockets.js";

/// Connections to the peer that sent `HOLD` and that their client then
/// closed.
static HELD_CLOSED: AtomicUsize = AtomicUsize::new(0);

/// A loopback peer, a thread per connection: `BIG n\n` gets `n` bytes
/// (byte `i` is `i % 251`) and the end; `HOLD\n` gets nothing, and counts
/// in [`HELD_CLOSED`] when its client leaves; anything else is echoed in
/// upper case as it comes, and `|bye` follows the client's end.
fn peer() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().map_while(Result::ok) {
            std::thread::spawn(move || serve(conn));
        }
    });
    port
}

fn serve(mut conn: TcpStream) {
    let mut buf = [0; 4096];
    let mut first = true;
    loop {
        let n = match conn.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let got = &buf[..n];
        if first && got.starts_with(b"BIG ") {
            let n: usize = String::from_utf8_lossy(&got[4..]).trim().parse().unwrap();
            let all: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            let _ = conn.write_all(&all);
            return;
        }
        if first && got.starts_with(b"HOLD") {
            while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
            HELD_CLOSED.fetch_add(1, Ordering::SeqCst);
            return;
        }
        first = false;
        if conn.write_all(&got.to_ascii_uppercase()).is_err() {
            return;
        }
    }
    let _ = conn.write_all(b"|bye");
}

/// An in-process server with the sockets plugin on each engine
/// (`s-wasm`, `s-v8`), granted `tcp://127.0.0.1:PORT`.
fn server(port: u16) -> (InProcess, Vec<String>) {
    let s = InProcess::start(&[
        "--demo=false",
        "--path-routing",
        "--request-timeout",
        "2000",
    ]);
    let ids = s.add_on_each_engine("s", SOCKETS, &format!("allow_fetch=tcp://127.0.0.1:{port}"));
    (s, ids)
}

fn page(s: &InProcess, id: &str, route: &str, addr: &str) -> (u16, String) {
    let join = if route.contains('?') { '&' } else { '?' };
    let r = s.get(&format!("/t/{id}{route}{join}addr={addr}"), &[]);
    (r.status, r.text())
}

#[test]
fn a_renderer_talks_tcp_to_granted_addresses_only_on_both_engines() {
    let port = peer();
    let (s, ids) = server(port);
    let addr = format!("127.0.0.1:{port}");
    for id in &ids {
        assert_eq!(
            page(&s, id, "/echo?msg=hello", &addr),
            (200, "remote ok HELLO|bye".to_string()),
            "{id}"
        );
        // 3 MB, read as the renderer asks for it, in chunks.
        let n = 3_000_000usize;
        let sum = (0..n).map(|i| i % 251).sum::<usize>() % 65521;
        assert_eq!(
            page(&s, id, &format!("/big?n={n}"), &addr).1,
            format!("{n} bytes, sum {sum}, in chunks"),
            "{id}"
        );
        // 12 MB written while it comes back: more than the buffers of
        // both ends hold, so reading and writing must go on at once.
        assert_eq!(
            page(&s, id, "/pump?n=12000000", &addr).1,
            "12000004 bytes back, in upper case",
            "{id}"
        );
        assert_eq!(
            page(&s, id, "/net?msg=over%20net", &addr).1,
            "connect true OVER NET|bye read 12 wrote 8 error false",
            "{id}"
        );
        // Another port, a name that resolves to loopback, and a port of
        // the server itself: refused, naming the grant to add.
        let other = format!("127.0.0.1:{}", port + 1);
        assert_eq!(
            page(&s, id, "/refused", &other).1,
            format!(
                "Error: connect to {other}: the address is not allowed for this site; grant it with `ssr tenant add ... --allow-fetch tcp://{other}`"
            ),
            "{id}"
        );
        let (_, body) = page(&s, id, "/refused", &format!("localhost:{port}"));
        assert!(
            body.contains("is not allowed for this site"),
            "{id}: {body}"
        );
        let (_, body) = page(&s, id, "/refused", "127.0.0.1:99999");
        assert_eq!(
            body, "TypeError: connect(): the port must be an integer from 0 to 65535, not 99999",
            "{id}"
        );
        assert_eq!(
            page(&s, id, "/tls", &addr).1,
            "TypeError: startTls() can only be called on a socket made with secureTransport \"starttls\"; upgraded true on; handshake refused",
            "{id}"
        );
        let (_, body) = page(&s, id, "/net-tls", &addr);
        assert_eq!(
            body, "tls error: TLS handshake with db.example failed",
            "{id}"
        );
    }
}

#[test]
fn a_granted_name_that_resolves_to_a_private_address_connects_nowhere() {
    let port = peer();
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for e in Engines::KINDS {
        let id = format!("n-{e}");
        let q = format!("engine={e}&allow_fetch=tcp://localhost:{port}");
        assert_eq!(s.add(&id, SOCKETS, &q).0, 201);
        let (_, body) = page(&s, &id, "/refused", &format!("localhost:{port}"));
        assert_eq!(
            body,
            format!(
                "Error: connect to localhost:{port}: localhost resolves to no public address; a private one is reached only by granting its IP address"
            ),
            "{id}"
        );
    }
}

#[test]
fn no_connection_outlives_its_render() {
    let port = peer();
    let (s, ids) = server(port);
    let addr = format!("127.0.0.1:{port}");
    for (i, id) in ids.iter().enumerate() {
        let (status, body) = page(&s, id, "/hold", &addr);
        assert_eq!(status, 504, "{id}: {body}");
        // The peer sees its client leave when the render ends.
        let until = Instant::now() + Duration::from_secs(5);
        while HELD_CLOSED.load(Ordering::SeqCst) < i + 1 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(HELD_CLOSED.load(Ordering::SeqCst), i + 1, "{id}");
    }
}
