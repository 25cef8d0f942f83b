//! Public HTTP hardening over raw loopback sockets: slow clients are cut
//! off, oversized heads refused, and open connections capped.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::{Client, Server};

pub fn connect(s: &Server) -> TcpStream {
    let stream = TcpStream::connect(&s.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Reads until the server closes the connection; returns what it sent.
pub fn read_to_close(mut stream: TcpStream) -> String {
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn a_slow_client_is_cut_off_and_others_are_served() {
    let s = Server::start(&["--demo=false", "--header-timeout", "300"]);
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    // Half a request head, then nothing more.
    let mut slow = connect(&s);
    slow.write_all(b"GET /t/good/ HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .unwrap();
    let started = Instant::now();
    assert_eq!(s.get("/t/good/?meanwhile", &[]).status, 200);
    let said = read_to_close(slow);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the slow connection was not closed"
    );
    assert!(!said.contains("200 OK"), "{said}");
    // An idle kept-alive connection is closed after the same time.
    let mut idle = connect(&s);
    idle.write_all(b"GET /_ssr/healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let said = read_to_close(idle);
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
}

#[test]
fn an_oversized_head_is_refused_with_431() {
    let s = Server::start(&["--demo=false", "--max-header-kib", "8"]);
    let mut c = connect(&s);
    let big = "a".repeat(16 << 10);
    c.write_all(
        format!("GET /_ssr/healthz HTTP/1.1\r\nHost: x\r\nX-Big: {big}\r\n\r\n").as_bytes(),
    )
    .unwrap();
    let said = read_to_close(c);
    assert!(said.starts_with("HTTP/1.1 431"), "{said}");
    assert_eq!(s.get("/_ssr/healthz", &[]).status, 200);
}

#[test]
fn connections_over_the_limit_and_its_reserve_wait_for_a_free_one() {
    let s = Server::start(&["--demo=false", "--max-connections", "2"]);
    // The listener's places, and the reserve for the host's endpoints
    // (`probe4.rs` shows what the reserve answers).
    let reserve = ssr::http::listen::RESERVED_CONNECTIONS;
    let held: Vec<TcpStream> = (0..2 + reserve).map(|_| connect(&s)).collect();
    std::thread::sleep(Duration::from_millis(200));
    let hasty: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_millis(700)))
        .build()
        .into();
    assert!(
        hasty.get(s.url("/_ssr/healthz")).call().is_err(),
        "a connection was served past the limit and its reserve"
    );
    drop(held);
    assert_eq!(s.get("/_ssr/healthz", &[]).status, 200);
}

#[test]
fn issue_15_a_renderer_status_is_a_final_one_and_204_or_304_has_no_body() {
    let (s, ids) = crate::cache::visitors(&[]);
    for id in &ids {
        for code in ["101", "199", "600"] {
            let r = s.get(&format!("/t/{id}/status?code={code}"), &[]);
            assert_eq!(r.status, 500, "{id}: status {code}");
        }
        assert!(s.log_contains("use an integer from 200 to 599"), "{id}");
        for code in [204, 304] {
            let r = s.raw(&format!("GET /t/{id}/status?code={code} HTTP/1.1\nhost: x"));
            assert_eq!(r.status, code, "{id}");
            assert!(r.body.is_empty(), "{id}: {code} sent {:?}", r.text());
            assert_eq!(r.header("content-length"), None, "{id}: {code}");
        }
        assert_eq!(s.get(&format!("/t/{id}/status?code=599"), &[]).status, 599);
    }
}

#[test]
fn issue_15_an_empty_or_short_admin_token_is_refused() {
    for token in ["", "short-token"] {
        let out = crate::support::ssr()
            .args(["serve", "--demo=false", "--listen", "127.0.0.1:0"])
            .env("SSR_ADMIN_TOKEN", token)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{token:?} was accepted");
        let err = crate::support::text(&out.stderr);
        assert!(
            err.contains("admin token") && err.contains("at least 16"),
            "{err}"
        );
    }
}

#[test]
fn issue_15_a_generated_admin_token_is_kept_private_in_the_data_dir() {
    use std::os::unix::fs::PermissionsExt;
    let dir = crate::support::tempdir("token");
    let args = [
        "--demo=false",
        "--path-routing",
        "--data-dir",
        dir.to_str().unwrap(),
    ];
    let admin = |s: &Server, auth: &str| {
        Server::agent()
            .get(s.url("/_ssr/admin/tenants"))
            .header("Authorization", auth)
            .call()
            .unwrap()
            .status()
            .as_u16()
    };
    let first = Server::launch(&args);
    let path = dir.join("admin-token");
    let token = std::fs::read_to_string(&path).unwrap();
    assert!(token.len() >= 16);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let printed = first.log.lock().unwrap().clone();
    assert!(
        !printed.contains(&token),
        "the token was printed:\n{printed}"
    );
    assert_eq!(admin(&first, &format!("Bearer {token}")), 200);
    assert_eq!(admin(&first, "Bearer "), 401);
    drop(first);
    // A restart keeps the same token.
    let second = Server::launch(&args);
    assert!(!second.log.lock().unwrap().contains(&token));
    assert_eq!(admin(&second, &format!("Bearer {token}")), 200);
}

#[test]
fn issue_32_an_admin_token_long_but_guessable_is_refused_at_start() {
    let spaces = format!("{}x", " ".repeat(15));
    for (token, why) in [
        (spaces.as_str(), "it holds whitespace"),
        (
            "xxxxxxxxxxxxxxxxxxxx",
            "it has 1 distinct characters; use at least 10",
        ),
    ] {
        let out = crate::support::ssr()
            .args(["serve", "--demo=false", "--listen", "127.0.0.1:0"])
            .env("SSR_ADMIN_TOKEN", token)
            .output()
            .unwrap();
        let err = crate::support::text(&out.stderr);
        assert!(!out.status.success(), "{token:?} was accepted");
        assert!(
            err.contains("the admin token") && err.contains(why),
            "{err}"
        );
        assert!(
            !err.contains("xxxxxxxxxxxxxxxx"),
            "the token was printed: {err}"
        );
    }
    // A kept token file that is weak is refused too, naming the file.
    let dir = crate::support::tempdir("weak-token");
    std::fs::write(dir.join("admin-token"), "aaaaaaaaaaaaaaaaaaaaaaaa\n").unwrap();
    let out = crate::support::ssr()
        .args([
            "serve",
            "--demo=false",
            "--listen",
            "127.0.0.1:0",
            "--data-dir",
        ])
        .arg(&dir)
        .env_remove("SSR_ADMIN_TOKEN")
        .output()
        .unwrap();
    let err = crate::support::text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("admin-token is too weak"), "{err}");
}

#[test]
fn settings_come_from_the_file_then_the_environment_then_the_flags() {
    let dir = crate::support::tempdir("config-file");
    let file = dir.join("ssr.toml");
    let serve = |file_text: &str, env: &[(&str, &str)], flags: &[&str]| {
        std::fs::write(&file, file_text).unwrap();
        let mut cmd = crate::support::ssr();
        cmd.args([
            "serve",
            "--demo=false",
            "--listen",
            "127.0.0.1:0",
            "--config",
        ])
        .arg(&file)
        .args(flags)
        .env_remove("SSR_ADMIN_TOKEN")
        .envs(env.iter().copied());
        cmd
    };
    let refused = |mut cmd: std::process::Command, needle: &str| {
        let out = cmd.output().unwrap();
        let err = crate::support::text(&out.stderr);
        assert!(!out.status.success() && err.contains(needle), "{err}");
    };
    // A file key is the flag's name; an unknown one is named.
    refused(serve("wrokers = 2\n", &[], &[]), "unknown field `wrokers`");
    // The file applies ...
    refused(serve("admin-token = \"short\"\n", &[], &[]), "at least 16");
    // ... the environment overrides it, and a flag overrides both.
    let good = "test-token-0123456789";
    refused(
        serve(
            "admin-token = \"short\"\n",
            &[("SSR_ADMIN_TOKEN", "short-too")],
            &[],
        ),
        "is 9 bytes",
    );
    let mut child = serve(
        "admin-token = \"short\"\n",
        &[("SSR_ADMIN_TOKEN", "short-too")],
        &["--admin-token", good],
    )
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut line = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.starts_with("ssr listening on"), "{line}");
}
