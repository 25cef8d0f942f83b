//! What real sites need from a renderer (issue 17), over real HTTP on both
//! engines: Workers-style handlers with web-standard `Request` and
//! `Response`, request bodies and their limit, binary responses, and the
//! tenant's `env` (vars and secrets, which never show).

use ssr::engine::EngineKind;

use crate::support::{Client, InProcess, Server, ssr, tempdir, text};

const HANDLER: &str = "tests/plugins/handler.js";
const FORM: (&str, &str) = ("content-type", "application/x-www-form-urlencoded");

/// An in-process server with tenant `h` on each engine (`h-wasm`, `h-v8`),
/// reached by path.
fn server(query: &str) -> (InProcess, Vec<String>) {
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    let ids = s.add_on_each_engine("h", HANDLER, query);
    (s, ids)
}

#[test]
fn a_posted_form_is_read_and_redirected_with_303() {
    let (s, ids) = server("");
    for id in ids {
        let page = s.get(&format!("/t/{id}/form"), &[]);
        assert_eq!(page.status, 200, "{id}");
        assert!(page.text().contains("<form method=\"post\">"), "{id}");
        let posted = s.send(
            "POST",
            &format!("/t/{id}/form"),
            &[FORM],
            b"name=J%C3%BCrg+X",
        );
        assert_eq!(posted.status, 303, "{id}: {}", posted.text());
        assert_eq!(
            posted.header("location"),
            Some("/thanks?name=J%C3%BCrg%20X")
        );
        // A POST is rendered every time, never served from the cache.
        assert_eq!(posted.header("x-cache"), Some("bypass"), "{id}");
        let thanks = s.get(
            &format!("/t/{id}{}", posted.header("location").unwrap()),
            &[],
        );
        assert!(
            thanks.text().contains("thanks, Jürg X"),
            "{id}: {}",
            thanks.text()
        );
    }
}

#[test]
fn request_bodies_reach_the_handler_and_responses_may_be_binary() {
    let (s, ids) = server("");
    let input: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
    for id in ids {
        let r = s.send("PUT", &format!("/t/{id}/bytes"), &[], &input);
        assert_eq!(r.status, 200, "{id}: {}", r.text());
        assert_eq!(r.header("x-in"), Some("3000"), "{id}");
        assert_eq!(r.header("content-type"), Some("application/octet-stream"));
        let expected: Vec<u8> = (0..=255u8).rev().collect();
        assert_eq!(r.body, expected, "{id}");

        let r = s.send(
            "POST",
            &format!("/t/{id}/json"),
            &[("content-type", "application/json")],
            br#"{"a": 2, "b": 40}"#,
        );
        assert_eq!(
            (r.status, r.text()),
            (201, r#"{"got":{"a":2,"b":40},"sum":42}"#.into()),
            "{id}"
        );
        assert_eq!(r.header("content-type"), Some("application/json"));

        let r = s.send(
            "PATCH",
            &format!("/t/{id}/echo?q=1"),
            &[("content-type", "text/plain")],
            "héllo".as_bytes(),
        );
        let echo: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(echo["method"], "PATCH", "{id}");
        assert_eq!(echo["text"], "héllo");
        assert_eq!(echo["used"], true);
        assert_eq!(
            echo["again"],
            "TypeError: Body is unusable: Body has already been read"
        );
        // The handler owns its URL space: the path-routing base is not in
        // its URL but in `x-forwarded-prefix`.
        assert!(
            echo["url"].as_str().unwrap().ends_with("/echo?q=1"),
            "{echo}"
        );
        assert!(!echo["url"].as_str().unwrap().contains("/t/"), "{echo}");
        assert_eq!(echo["prefix"], format!("/t/{id}"));
        // A GET's body is not the renderer's to read.
        let r = s.send("GET", &format!("/t/{id}/echo"), &[], b"");
        let echo: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            (echo["method"].as_str(), echo["length"].as_u64()),
            (Some("GET"), Some(0))
        );
    }
}

#[test]
fn the_fetch_api_behaves_as_in_node() {
    let (s, ids) = server("");
    // The same checks Node 20 answers with this exact JSON
    // (`tests/plugins/handler.js`, path /headers).
    let node = r#"{"entries":[["a","1, 3"],["b","2"],["set-cookie","x=1"],["set-cookie","y=2"]],"get":"1, 3","cookies":["x=1","y=2"],"blob":[3,"text/plain","bc"],"form":["v","f.txt","abc","POST"],"ctx":"function","status":"RangeError"}"#;
    for id in ids {
        assert_eq!(s.get(&format!("/t/{id}/headers"), &[]).text(), node, "{id}");
        let r = s.get(&format!("/t/{id}/redirect"), &[("host", "shop.test")]);
        assert_eq!(r.status, 302);
        assert_eq!(r.header("location"), Some("http://shop.test/thanks?name=r"));
        assert_eq!(s.get(&format!("/t/{id}/nowhere"), &[]).status, 404);
    }
}

#[test]
fn a_responses_cache_control_decides_what_the_host_keeps() {
    let (s, ids) = server("");
    for id in ids {
        let cached = format!("/t/{id}/cached");
        assert_eq!(s.get(&cached, &[]).header("x-cache"), Some("miss"));
        assert_eq!(s.get(&cached, &[]).header("x-cache"), Some("hit"), "{id}");
        // `private` is never kept for another visitor.
        let private = format!("/t/{id}/private");
        let (a, b) = (s.get(&private, &[]), s.get(&private, &[]));
        assert_eq!(b.header("x-cache"), Some("miss"), "{id}");
        assert_ne!(a.body, b.body, "{id}");
    }
}

/// Sends `head` and then `chunks` (each `n` bytes of `byte`) chunked on
/// a connection of its own; answers the response as text.
fn send_chunked(s: &InProcess, head: &str, chunks: usize, n: usize) -> String {
    use std::io::{Read, Write};
    let mut conn = std::net::TcpStream::connect(s.addr()).unwrap();
    write!(
        conn,
        "{head}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let chunk = vec![b'x'; n];
    for _ in 0..chunks {
        // A server that answered early closes the connection: stop then.
        if write!(conn, "{n:x}\r\n").is_err()
            || conn.write_all(&chunk).is_err()
            || conn.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let _ = conn.write_all(b"0\r\n\r\n");
    let mut out = Vec::new();
    let _ = conn.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn a_body_past_max_request_kib_streams_into_the_renderer_up_to_max_upload_mib() {
    let (s, ids) = server("max_request_kib=1&max_upload_mib=2");
    // 1.5 MiB, not a multiple of any piece, every byte different in turn.
    let input: Vec<u8> = (0..1_572_871u32).map(|i| (i * 31 % 251) as u8).collect();
    let want = {
        use sha2::Digest;
        let sum = sha2::Sha256::digest(&input);
        sum.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    for id in ids {
        // Within max_request_kib it comes whole; past it, as it arrives,
        // in pieces, every byte in order.
        let r = s.send("POST", &format!("/t/{id}/echo"), &[], &[b'x'; 1024]);
        assert_eq!(r.status, 200, "{id}: at the limit");
        let r = s.send("POST", &format!("/t/{id}/digest"), &[], &input);
        assert_eq!(r.status, 200, "{id}: {}", r.text());
        let got: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(got["bytes"], input.len(), "{id}");
        assert_eq!(got["chunks"], "many", "{id}");
        assert_eq!(got["sha256"], want.as_str(), "{id}");
        // Read whole by the handler as well.
        let r = s.send("PUT", &format!("/t/{id}/bytes"), &[], &input);
        assert_eq!(r.header("x-in"), Some("1572871"), "{id}: {}", r.text());
        // Chunked, so only reading finds out; the same bytes.
        let out = send_chunked(
            &s,
            &format!("POST /t/{id}/digest HTTP/1.1\r\nhost: a"),
            100,
            10_000,
        );
        assert!(out.starts_with("HTTP/1.1 200"), "{id}: {out}");
        assert!(out.contains(r#""bytes":1000000"#), "{id}: {out}");
        // Past max_upload_mib: declared, a 413 before reading anything
        // (the head alone is sent).
        let out = {
            use std::io::{Read, Write};
            let mut conn = std::net::TcpStream::connect(s.addr()).unwrap();
            let head = format!(
                "POST /t/{id}/echo HTTP/1.1\r\nhost: a\r\ncontent-length: {}\r\n\r\n",
                (2 << 20) + 1
            );
            conn.write_all(head.as_bytes()).unwrap();
            let mut out = Vec::new();
            let _ = conn.read_to_end(&mut out);
            String::from_utf8_lossy(&out).into_owned()
        };
        assert!(out.starts_with("HTTP/1.1 413"), "{id}: {out}");
        assert!(
            out.contains("over this site's limit of 2 MiB"),
            "{id}: {out}"
        );
        // Chunked: the renderer's read fails, naming the limit; a handler
        // that catches it answers as it will (422), one that does not
        // fails its render, which is answered 413 with it.
        for (head, status) in [("POST /digest", 422), ("PUT /bytes", 413)] {
            let (method, path) = head.split_once(' ').unwrap();
            let head = format!("{method} /t/{id}{path} HTTP/1.1\r\nhost: a");
            let out = send_chunked(&s, &head, 30, 100_000);
            assert!(
                out.starts_with(&format!("HTTP/1.1 {status}")),
                "{id}: {out}"
            );
            assert!(
                out.contains("limit of 2 MiB (max_upload_mib)"),
                "{id}: {out}"
            );
        }
        // The tenant serves on.
        let r = s.send("POST", &format!("/t/{id}/digest"), &[], b"abc");
        assert_eq!(r.status, 200, "{id}");
    }
    // The server's caps bound what a tenant may set.
    for (limit, flag) in [
        (
            "max_request_kib=2048",
            "over the server's --max-request-kib 1024",
        ),
        (
            "max_upload_mib=101",
            "over the server's --max-upload-mib 100",
        ),
    ] {
        let (status, body) = s.add("big", HANDLER, limit);
        assert_eq!(status, 400, "{body}");
        assert!(body.contains(flag), "{body}");
    }
}

#[test]
fn vars_and_secrets_reach_env_and_secrets_never_show() {
    let data = tempdir("env");
    let data = data.to_str().unwrap();
    let s = Server::stored(data);
    let (status, body) = s.add(
        "shop",
        HANDLER,
        "engine=wasm&debug=true&var=API=http://127.0.0.1:9/x%3Fa%3Db",
    );
    assert_eq!(status, 201, "{body}");
    assert!(
        body.contains(r#""vars":{"API":"http://127.0.0.1:9/x?a=b"}"#),
        "{body}"
    );
    const SECRET: &str = "tok-5e3f9c1a-never-shown";
    assert_eq!(
        s.admin_with(
            "PUT",
            "/_ssr/admin/tenants/shop/secrets/TOKEN",
            SECRET.as_bytes()
        )
        .0,
        204
    );

    let env = s.get("/t/shop/env", &[]).text();
    assert_eq!(
        env,
        r#"{"keys":["API","TOKEN"],"api":"http://127.0.0.1:9/x?a=b","frozen":true}"#
    );
    assert_eq!(
        s.get("/t/shop/secret", &[]).text(),
        format!("length {}", SECRET.len())
    );
    // A debug tenant's error page, and the log, say which secret, not its value.
    let failed = s.get("/t/shop/secret?throw=1", &[]);
    assert_eq!(failed.status, 500);
    assert!(
        failed.text().contains("bad token [secret TOKEN]"),
        "{}",
        failed.text()
    );
    assert!(s.log_contains("token is [secret TOKEN]"));
    let shown = s.admin("GET", "/_ssr/admin/tenants/shop").1;
    assert!(shown.contains(r#""secrets":["TOKEN"]"#), "{shown}");
    assert_eq!(
        s.admin("GET", "/_ssr/admin/tenants/shop/secrets").1,
        r#"["TOKEN"]"#
    );
    let file = std::path::Path::new(data).join("secrets/shop.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    for place in [
        shown,
        s.admin("GET", "/_ssr/admin/tenants").1,
        s.metrics_text(),
        s.log.lock().unwrap().clone(),
        std::fs::read_to_string(std::path::Path::new(data).join("tenants/shop.json")).unwrap(),
    ] {
        assert!(!place.contains(SECRET), "a secret showed: {place}");
    }

    // A change takes effect at once, without a new plugin: the cached page
    // of the old env is gone.
    assert_eq!(s.get("/t/shop/env", &[]).header("x-cache"), Some("hit"));
    let (status, body) = s.admin_with("PUT", "/_ssr/admin/tenants/shop/vars/MORE", b"1");
    assert_eq!(status, 200, "{body}");
    let env = s.get("/t/shop/env", &[]);
    assert_eq!(env.header("x-cache"), Some("miss"));
    assert!(
        env.text().contains(r#"["API","MORE","TOKEN"]"#),
        "{}",
        env.text()
    );

    // Bad input names the problem.
    let (status, body) = s.admin_with("PUT", "/_ssr/admin/tenants/shop/secrets/not-an-id", b"v");
    assert_eq!(status, 400);
    assert!(body.contains("`not-an-id` is not a valid name"), "{body}");
    let (status, body) = s.admin_with("PUT", "/_ssr/admin/tenants/shop/secrets/API", b"v");
    assert_eq!(status, 400);
    assert!(body.contains("`API` is both a var and a secret"), "{body}");
    assert_eq!(
        s.admin("DELETE", "/_ssr/admin/tenants/shop/secrets/NOPE").0,
        404
    );
    let (status, body) = s.add("other", HANDLER, "var=NOEQUALS");
    assert_eq!(status, 400);
    assert!(body.contains("has no `=`"), "{body}");

    // They survive a restart.
    drop(s);
    let s = Server::stored(data);
    assert!(
        s.get("/t/shop/env", &[])
            .text()
            .contains(r#"["API","MORE","TOKEN"]"#)
    );
    assert_eq!(
        s.get("/t/shop/secret", &[]).text(),
        format!("length {}", SECRET.len())
    );
    // Removing the tenant removes its secrets.
    assert_eq!(s.admin("DELETE", "/_ssr/admin/tenants/shop").0, 204);
    assert!(!file.exists());
}

#[test]
fn the_cli_manages_vars_and_secrets_and_renders_with_vars() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let built = crate::support::plugin(HANDLER);
    let cli = |args: &[&str], stdin: Option<&str>| {
        use std::io::Write;
        let mut child = ssr()
            .arg("tenant")
            .args(args)
            .args(["--server", &s.url(""), "--token", &s.token])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        (out.status.success(), text(&out.stdout) + &text(&out.stderr))
    };
    let plugin = built.plugin.to_str().unwrap();
    let (ok, said) = cli(
        &[
            "add",
            "cli",
            plugin,
            "--var",
            "API=http://a",
            "--engine",
            EngineKind::V8.as_str(),
        ],
        None,
    );
    assert!(ok, "{said}");
    let (ok, said) = cli(&["secret", "put", "cli", "TOKEN"], Some("from-stdin-123\n"));
    assert!(ok, "{said}");
    assert_eq!(cli(&["secret", "ls", "cli"], None).1.trim(), r#"["TOKEN"]"#);
    assert_eq!(s.get("/t/cli/secret", &[]).text(), "length 14");
    assert!(cli(&["var", "set", "cli", "API", "http://b"], None).0);
    assert!(
        s.get("/t/cli/env", &[])
            .text()
            .contains(r#""api":"http://b""#)
    );
    assert!(cli(&["secret", "rm", "cli", "TOKEN"], None).0);
    assert!(cli(&["var", "rm", "cli", "API"], None).0);
    assert!(s.get("/t/cli/env", &[]).text().contains(r#""keys":[]"#));
    let (ok, said) = cli(&["var", "rm", "cli", "API"], None);
    assert!(
        !ok && said.contains("tenant `cli` has no var `API`"),
        "{said}"
    );

    // `ssr render` takes vars and a body too.
    let out = ssr()
        .args([
            "render",
            plugin,
            "/env",
            "--var",
            "API=http://c",
            "--var",
            "X=1",
        ])
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        r#"{"keys":["API","X"],"api":"http://c","frozen":true}"#
    );
    let out = ssr()
        .args(["render", plugin, "/json", "-d", r#"{"a":1,"b":2}"#])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), r#"{"got":{"a":1,"b":2},"sum":3}"#);
    let out = ssr()
        .args(["render", plugin, "/", "--var", "1X=2"])
        .output()
        .unwrap();
    assert!(
        text(&out.stderr).contains("`1X` is not a valid name"),
        "{}",
        text(&out.stderr)
    );
}
