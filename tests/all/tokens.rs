//! Tenant tokens (`ssr token`) and following a tenant's log (`ssr tenant
//! logs --follow`): a token reaches its own tenant alone, on every admin
//! endpoint; a follower sees console lines and render errors on both
//! engines, and one that never reads costs renders nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{Client, Server, TOKEN, plugin, ssr, tempdir};

/// `POST /_ssr/admin/tokens` as the operator: (the token, its id).
pub fn make_token(s: &Server, query: &str) -> (String, String) {
    let (status, body) = s.admin("POST", &format!("/_ssr/admin/tokens?{query}"));
    assert_eq!(status, 201, "{body}");
    let made: serde_json::Value = serde_json::from_str(&body).unwrap();
    (
        made["token"].as_str().unwrap().to_string(),
        made["id"].as_str().unwrap().to_string(),
    )
}

/// An admin request with `token`: status and body.
pub fn with_token(s: &Server, token: &str, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let auth = format!("Bearer {token}");
    let r = s.send(method, path, &[("authorization", &auth)], body);
    (r.status, r.text())
}

/// Opens `GET .../tenants/{id}/logs` with `token` on a raw connection and
/// reads up to its first event: the status, and the connection (still
/// open, not read further).
fn open_follower(s: &Server, token: &str, id: &str) -> (u16, std::net::TcpStream) {
    // A small receive window, so that a follower that stops reading is
    // behind after kilobytes, not the megabytes loopback's buffers hold.
    use rustix::net::{AddressFamily, SocketType, sockopt};
    let fd = rustix::net::socket(AddressFamily::INET, SocketType::STREAM, None).unwrap();
    sockopt::set_socket_recv_buffer_size(&fd, 4096).unwrap();
    let addr: std::net::SocketAddr = s.addr.parse().unwrap();
    rustix::net::connect(&fd, &addr).unwrap();
    let mut conn = std::net::TcpStream::from(fd);
    write!(
        conn,
        "GET /_ssr/admin/tenants/{id}/logs HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\nauthorization: Bearer {token}\r\n\r\n"
    )
    .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut seen = Vec::new();
    let mut byte = [0u8; 1];
    while !String::from_utf8_lossy(&seen).contains("\r\n\r\n") {
        conn.read_exact(&mut byte).unwrap();
        seen.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&seen).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, conn)
}

#[test]
fn a_tenant_token_reaches_its_own_tenant_alone_on_every_endpoint() {
    let data = tempdir("tokens");
    let s = Server::stored(data.to_str().unwrap());
    let hello = std::fs::read(plugin("plugins/hello/render.js").plugin).unwrap();
    assert_eq!(s.put_bytes("other", &hello, "var=A=1").0, 201);
    let (token, id) = make_token(&s, "tenant=shop");

    // Its own tenant: a first deploy registers it, then everything the
    // token is for.
    let own: &[(&str, &str, &[u8], u16)] = &[
        ("PUT", "/_ssr/admin/tenants/shop", &hello, 201),
        ("PUT", "/_ssr/admin/tenants/shop", &hello, 200),
        ("GET", "/_ssr/admin/tenants/shop", b"", 200),
        ("PUT", "/_ssr/admin/tenants/shop/vars/GREETING", b"hi", 200),
        ("DELETE", "/_ssr/admin/tenants/shop/vars/GREETING", b"", 204),
        ("PUT", "/_ssr/admin/tenants/shop/secrets/KEY", b"k", 204),
        ("GET", "/_ssr/admin/tenants/shop/secrets", b"", 200),
        ("DELETE", "/_ssr/admin/tenants/shop/secrets/KEY", b"", 204),
        ("POST", "/_ssr/admin/tenants/shop/purge", b"", 200),
    ];
    for (method, path, body, want) in own {
        let (status, said) = with_token(&s, &token, method, path, body);
        assert_eq!(status, *want, "{method} {path}: {said}");
    }
    assert_eq!(open_follower(&s, &token, "shop").0, 200);
    assert_eq!(s.get("/t/shop/", &[]).status, 200);

    // Everything else: 403, naming why, and nothing changes.
    let (_, before) = s.admin("GET", "/_ssr/admin/tenants/other");
    let beyond: &[(&str, &str, &[u8])] = &[
        ("GET", "/_ssr/admin/tenants", b""),
        ("GET", "/_ssr/admin/tenants/other", b""),
        ("PUT", "/_ssr/admin/tenants/other", &hello),
        ("DELETE", "/_ssr/admin/tenants/other", b""),
        ("POST", "/_ssr/admin/tenants/other/purge", b""),
        ("PUT", "/_ssr/admin/tenants/other/vars/A", b"2"),
        ("DELETE", "/_ssr/admin/tenants/other/vars/A", b""),
        ("GET", "/_ssr/admin/tenants/other/secrets", b""),
        ("PUT", "/_ssr/admin/tenants/other/secrets/K", b"x"),
        ("DELETE", "/_ssr/admin/tenants/other/secrets/K", b""),
        ("GET", "/_ssr/admin/tenants/other/logs", b""),
        ("DELETE", "/_ssr/admin/tenants/shop", b""),
        ("GET", "/_ssr/metrics", b""),
        ("POST", "/_ssr/admin/tokens?tenant=shop", b""),
        ("POST", "/_ssr/admin/tokens?tenant=other", b""),
        ("GET", "/_ssr/admin/tokens", b""),
        ("DELETE", &*format!("/_ssr/admin/tokens/{id}"), b""),
        // Percent-encoding does not make another id its own.
        ("GET", "/_ssr/admin/tenants/sh%6fp", b""),
        (
            "PUT",
            "/_ssr/admin/tenants/shop?host=shop.example.com",
            &hello,
        ),
        ("PUT", "/_ssr/admin/tenants/shop?max_concurrency=64", &hello),
    ];
    for (method, path, body) in beyond {
        let (status, said) = with_token(&s, &token, method, path, body);
        assert_eq!(status, 403, "{method} {path}: {said}");
        assert!(said.contains("shop"), "{method} {path}: {said}");
    }
    let (_, after) = s.admin("GET", "/_ssr/admin/tenants/other");
    assert_eq!(before, after);
    assert_eq!(s.get("/t/other/", &[]).status, 200);
    assert_eq!(s.get("/t/shop/", &[]).status, 200);
    let (_, tokens) = s.admin("GET", "/_ssr/admin/tokens");
    assert!(tokens.contains(&id), "{tokens}");

    // The hostnames and limits are the operator's: a deploy that names
    // none keeps them; one that names the same ones passes.
    let (status, body) = s.put_bytes("shop", &hello, "host=shop.example.com&max_concurrency=2");
    assert_eq!(status, 200, "{body}");
    let (status, body) = with_token(&s, &token, "PUT", "/_ssr/admin/tenants/shop", &hello);
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("shop.example.com") && body.contains("\"max_concurrency\":2"),
        "{body}"
    );
    let same = "/_ssr/admin/tenants/shop?host=shop.example.com&max_concurrency=2";
    assert_eq!(with_token(&s, &token, "PUT", same, &hello).0, 200);
    assert_eq!(s.get("/", &[("host", "shop.example.com")]).status, 200);
}

#[test]
fn a_revoked_expired_or_forged_token_is_401_and_tokens_persist_hashed() {
    let data = tempdir("tokens-life");
    let s = Server::stored(data.to_str().unwrap());
    assert_eq!(s.add("shop", "plugins/hello/render.js", "").0, 201);
    let shop = "/_ssr/admin/tenants/shop";
    // 3 s: long enough to be used at once on a busy machine.
    let (short, _) = make_token(&s, "tenant=shop&ttl=3s");
    let (kept, _) = make_token(&s, "tenant=shop&ttl=90d");
    let (revoked, revoked_id) = make_token(&s, "tenant=shop");
    for t in [&short, &kept, &revoked] {
        assert_eq!(with_token(&s, t, "GET", shop, b"").0, 200);
    }
    let (status, body) = s.admin("DELETE", &format!("/_ssr/admin/tokens/{revoked_id}"));
    assert_eq!(status, 204, "{body}");
    assert_eq!(
        s.admin("DELETE", &format!("/_ssr/admin/tokens/{revoked_id}"))
            .0,
        404
    );
    let (status, body) = with_token(&s, &revoked, "GET", shop, b"");
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("revoked"), "{body}");
    std::thread::sleep(Duration::from_millis(4100));
    assert_eq!(with_token(&s, &short, "GET", shop, b"").0, 401);
    // Forged: a live token's id with another secret, and junk.
    let forged = format!("{}{}", &kept[..kept.len() - 4], "0000");
    for t in [forged.as_str(), "ssr_", "ssr_zz_zz", ""] {
        assert_eq!(with_token(&s, t, "GET", shop, b"").0, 401, "{t}");
    }
    // Bad input is named.
    for (query, names) in [
        ("ttl=90d", "tenant"),
        ("tenant=shop&ttl=soon", "ttl"),
        ("tenant=Bad!", "Bad!"),
    ] {
        let (status, body) = s.admin("POST", &format!("/_ssr/admin/tokens?{query}"));
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(names), "{query}: {body}");
    }

    // Stored hashed, readable by the server's user alone; a restart keeps
    // what was made and what was revoked.
    let file = data.join("tokens.json");
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(
        !stored.contains(&kept[20..]) && stored.contains("sha256"),
        "{stored}"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let (_, listed) = s.admin("GET", "/_ssr/admin/tokens");
    assert!(
        !listed.contains("sha256") && !listed.contains(&kept[20..]),
        "{listed}"
    );
    drop(s);
    let s = Server::stored(data.to_str().unwrap());
    assert_eq!(with_token(&s, &kept, "GET", shop, b"").0, 200);
    assert_eq!(with_token(&s, &revoked, "GET", shop, b"").0, 401);
}

/// `ssr tenant logs ID --follow` with `token`, started and following.
pub struct Follow {
    child: std::process::Child,
    pub lines: std::sync::mpsc::Receiver<String>,
}

impl Follow {
    pub fn start(s: &Server, token: &str, id: &str) -> Follow {
        let mut child = ssr()
            .args(["tenant", "logs", id, "--follow", "--server"])
            .arg(format!("http://{}", s.addr))
            .env("SSR_TOKEN", token)
            .env_remove("SSR_ADMIN_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        assert!(first.contains("following tenant"), "{first}");
        let (tx, lines) = std::sync::mpsc::channel();
        let out = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Follow { child, lines }
    }

    /// Lines printed until one contains `needle` (within 5 s).
    pub fn until(&self, needle: &str) -> Vec<String> {
        let mut seen = Vec::new();
        let ends = Instant::now() + Duration::from_secs(5);
        while let Some(left) = ends.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.contains(needle);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("no line with `{needle}` within 5 s; printed: {seen:#?}");
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_follower_sees_console_lines_and_render_errors_with_the_request_on_both_engines() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    for engine in ["wasm", "v8"] {
        let id = format!("chatty-{engine}");
        assert_eq!(
            s.add(&id, "tests/plugins/chatty.js", &format!("engine={engine}"))
                .0,
            201
        );
        let (token, _) = make_token(&s, &format!("tenant={id}"));
        let follow = Follow::start(&s, &token, &id);
        assert_eq!(s.get(&format!("/t/{id}/?q=1"), &[]).status, 200);
        let seen = follow.until("one line");
        let line = seen.last().unwrap();
        assert!(
            line.contains(" info ") && line.contains(&format!("GET /t/{id}/?q=1")),
            "{engine}: {line}"
        );
        assert!(
            line.starts_with("20") && line.contains('T'),
            "{engine}: {line}"
        );
        assert_eq!(s.get(&format!("/t/{id}/throw"), &[]).status, 500);
        let seen = follow.until("boom");
        let line = seen.last().unwrap();
        assert!(
            line.contains(" error ") && line.contains("/throw"),
            "{engine}: {line}"
        );
        // The error's message and stack follow on lines of their own,
        // indented: its text forges no line of the log.
        while let Ok(more) = follow.lines.recv_timeout(Duration::from_millis(300)) {
            assert!(more.starts_with("    "), "{engine}: {more}");
        }
        // Another tenant's lines are not its.
        assert_eq!(s.add("quiet", "tests/plugins/chatty.js", "").0, 201);
        assert_eq!(s.get("/t/quiet/", &[]).status, 200);
        assert!(
            follow
                .lines
                .recv_timeout(Duration::from_millis(300))
                .is_err()
        );
        s.admin("DELETE", "/_ssr/admin/tenants/quiet");
    }
}

#[test]
fn a_follower_that_never_reads_loses_lines_counted_slows_no_render_and_is_cut_off() {
    let s = Server::start(&["--demo=false", "--path-routing", "--send-timeout", "2000"]);
    assert_eq!(s.add("chatty", "tests/plugins/chatty.js", "").0, 201);
    let (token, _) = make_token(&s, "tenant=chatty");
    let (status, _stuck) = open_follower(&s, &token, "chatty");
    assert_eq!(status, 200);
    assert_eq!(s.metric("ssr_log_followers"), 1.0);
    let ends = Instant::now() + Duration::from_secs(20);
    let mut slowest = Duration::ZERO;
    for n in 0.. {
        if s.metric(r#"ssr_log_lines_dropped_total{tenant="chatty"}"#) > 0.0 {
            break;
        }
        assert!(Instant::now() < ends, "no line was dropped in 20 s");
        let asked = Instant::now();
        // 256 lines a render (the console's budget), none from the cache.
        assert_eq!(s.get(&format!("/t/chatty/many?n={n}"), &[]).status, 200);
        slowest = slowest.max(asked.elapsed());
    }
    assert!(
        slowest < Duration::from_secs(1),
        "a render took {slowest:?}"
    );
    // Its writes make no progress: past --send-timeout it is let go.
    let gone = crate::support::within(Duration::from_secs(10), || {
        s.metric("ssr_log_followers") == 0.0
    });
    assert!(gone, "the follower that never reads is still connected");
}

/// `ssr deploy` in `dir` with `token` (and `args`): exit success, stdout,
/// stderr.
fn deploy(s: &Server, token: &str, dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = ssr()
        .arg("deploy")
        .args(args)
        .arg("--quiet")
        .current_dir(dir)
        .env("SSR_SERVER", format!("http://{}", s.addr))
        .env("SSR_TOKEN", token)
        .env_remove("SSR_ADMIN_TOKEN")
        .output()
        .unwrap();
    (
        out.status.success(),
        crate::support::text(&out.stdout),
        crate::support::text(&out.stderr),
    )
}

#[test]
fn ssr_deploy_registers_a_site_from_its_config_on_both_engines_and_shows_changes_first() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let dir = tempdir("deploy");
    std::fs::write(
        dir.join("index.js"),
        "export default { fetch(r, env) { console.log('hit'); return new Response(`${env.WHO} on ${env.ENGINE}`) } }",
    )
    .unwrap();
    for engine in ["wasm", "v8"] {
        let id = format!("site-{engine}");
        let config = format!(
            "name = \"{id}\"\nmain = \"index.js\"\nengine = \"{engine}\"\nhosts = [\"{id}.example.com\"]\nallow_service = [\"billing\"]\n[vars]\nWHO = \"me\"\nENGINE = \"{engine}\"\n[limits]\nmax_concurrency = 3\n"
        );
        std::fs::write(dir.join("ssr.toml"), &config).unwrap();
        // Shown first, and nothing changes.
        let (ok, out, err) = deploy(&s, TOKEN, &dir, &["--dry-run"]);
        assert!(ok, "{err}");
        assert!(out.contains(&format!("would create `{id}`")), "{out}");
        assert!(out.contains(&format!("host = {id}.example.com")), "{out}");
        assert_eq!(s.admin("GET", &format!("/_ssr/admin/tenants/{id}")).0, 404);
        // The operator's deploy: everything the config says.
        let (ok, out, err) = deploy(&s, TOKEN, &dir, &[]);
        assert!(ok, "{err}");
        assert!(out.contains(&format!("deployed `{id}`, version")), "{out}");
        let (_, shown) = s.admin("GET", &format!("/_ssr/admin/tenants/{id}"));
        for want in [
            format!("\"engine\":\"{engine}\""),
            format!("\"hosts\":[\"{id}.example.com\"]"),
            "\"allow_service\":[\"billing\"]".to_string(),
            "\"max_concurrency\":3".to_string(),
        ] {
            assert!(shown.contains(&want), "{want}: {shown}");
        }
        let host = format!("{id}.example.com");
        let page = s.get("/", &[("host", &host)]);
        assert_eq!(page.text(), format!("me on {engine}"));
        // The same config again: a new build, and no setting changes.
        let (ok, out, _) = deploy(&s, TOKEN, &dir, &["--dry-run"]);
        assert!(
            ok && out.contains("would update") && out.lines().count() == 2,
            "{out}"
        );
        // A var changed: the dry run names it.
        std::fs::write(dir.join("ssr.toml"), config.replace("\"me\"", "\"you\"")).unwrap();
        let (_, out, _) = deploy(&s, TOKEN, &dir, &["--dry-run"]);
        assert!(out.contains("vars:") && out.contains("WHO=you"), "{out}");
    }

    // A tenant token deploys its own site, and no other: 403, nothing made.
    let (token, _) = make_token(&s, "tenant=site-wasm");
    let config = std::fs::read_to_string(dir.join("ssr.toml")).unwrap();
    let own = config.replace("site-v8", "site-wasm");
    std::fs::write(dir.join("ssr.toml"), own.replace("\"v8\"", "\"wasm\"")).unwrap();
    let (ok, out, err) = deploy(&s, &token, &dir, &[]);
    assert!(ok, "{out}{err}");
    // The engine is the operator's: a token's deploy cannot switch it.
    std::fs::write(dir.join("ssr.toml"), &own).unwrap();
    let (ok, _, err) = deploy(&s, &token, &dir, &[]);
    assert!(
        !ok && err.contains("403") && err.contains("engine"),
        "{err}"
    );
    std::fs::write(dir.join("ssr.toml"), config.replace("site-v8", "elsewhere")).unwrap();
    let (ok, _, err) = deploy(&s, &token, &dir, &[]);
    assert!(!ok && err.contains("403"), "{err}");
    assert_eq!(s.admin("GET", "/_ssr/admin/tenants/elsewhere").0, 404);

    // A bad config names its line, and nothing is built or sent.
    std::fs::write(
        dir.join("ssr.toml"),
        "name = \"x\"\nmain = \"index.js\"\ncolour = 1\n",
    )
    .unwrap();
    let (ok, _, err) = deploy(&s, TOKEN, &dir, &[]);
    assert!(
        !ok && err.contains("line 3") && err.contains("colour"),
        "{err}"
    );
}
