//! What the fourth security probe found (issue 54), each over real HTTP,
//! on both engines where an engine is involved: a HEAD never stores an
//! empty page for GETs, a tenant frames no response, cache keys are
//! counted and bounded, a tenant token stays within what the operator set
//! and dies with its tenant, followers, connections, purges and deploys
//! are bounded, the app's rules cost one pass over the path, and a
//! tenant's text reaches the log escaped, cut and budgeted.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use ssr::engine::Engines;

use crate::hardening::{connect, read_to_close};
use crate::support::{Client, InProcess, Server, plugin, root, ssr, tempdir, text};
use crate::tokens::{make_token, with_token};

const PROBE: &str = "tests/plugins/probe4.js";
const HELLO: &str = "plugins/hello/render.js";

/// Registers the probe on each engine (`p-wasm`, `p-v8`) with `query`.
fn probes(s: &impl Client, query: &str) -> Vec<String> {
    s.add_on_each_engine("p", PROBE, query)
}

#[test]
fn issue_54_a_head_that_misses_renders_as_get_and_leaves_the_page_whole() {
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for id in probes(&s, "") {
        let path = format!("/t/{id}/head");
        let head = s.send("HEAD", &path, &[], b"");
        assert_eq!(head.status, 200, "{id}");
        assert!(head.body.is_empty(), "{id}: a HEAD got a body");
        assert_eq!(head.header("x-cache"), Some("miss"), "{id}");
        // Its entry is the GET's page, whole, for every visitor after.
        for _ in 0..2 {
            let get = s.get(&path, &[]);
            assert_eq!(get.text(), "the page, for a GET", "{id}");
            assert_eq!(get.header("x-cache"), Some("hit"), "{id}");
        }
        // A HEAD of a stored page has the GET's length and no body.
        let head = s.send("HEAD", &path, &[], b"");
        assert_eq!(head.header("content-length"), Some("19"), "{id}");
        assert!(head.body.is_empty(), "{id}");
    }
}

#[test]
fn issue_54_a_page_cannot_frame_its_response_or_the_next_one() {
    let s = Server::start(&["--demo=false"]);
    for e in Engines::KINDS {
        let (status, body) = s.add(
            &format!("hostile-{e}"),
            PROBE,
            &format!("engine={e}&host=hostile-{e}.test"),
        );
        assert_eq!(status, 201, "{body}");
    }
    assert_eq!(s.add("other", HELLO, "host=other.test").0, 201);
    for e in Engines::KINDS {
        // Pipelined on one connection: the hostile page, then another
        // tenant's. Each answer is its own tenant's, in order.
        let mut conn = connect(&s);
        write!(
            conn,
            "GET /framing HTTP/1.1\r\nhost: hostile-{e}.test\r\n\r\nGET / HTTP/1.1\r\nhost: other.test\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let all = read_to_close(conn);
        let first = all.find("the hostile page").expect(&all);
        let second = all.find("Hello").expect(&all);
        assert!(first < second, "{e}: {all}");
        assert_eq!(all.matches("HTTP/1.1 200").count(), 2, "{e}: {all}");
        let head = &all[..first];
        for name in [
            "transfer-encoding",
            "keep-alive",
            "upgrade",
            "proxy-connection",
            "trailer",
        ] {
            assert!(
                !head.to_ascii_lowercase().contains(name),
                "{e}: {name} in {head}"
            );
        }
        assert!(head.contains("content-length: 16"), "{e}: {head}");
    }
}

/// A site with `files` in its `public/` and a wrangler config, built: the
/// build's output.
fn build_site(
    tag: &str,
    files: &[(&str, &str)],
    vars: &str,
) -> (std::process::Output, std::path::PathBuf) {
    let dir = tempdir(tag);
    let public = dir.join("public");
    std::fs::create_dir_all(&public).unwrap();
    std::fs::write(public.join("a.html"), "<p>a</p>").unwrap();
    for (name, content) in files {
        std::fs::write(public.join(name), content).unwrap();
    }
    let entry = root().join(PROBE);
    std::fs::write(
        dir.join("wrangler.jsonc"),
        format!(
            r#"{{ "name": "site", "main": {entry:?}, "assets": {{ "directory": "public" }}, "vars": {{ {vars} }} }}"#
        ),
    )
    .unwrap();
    let out_file = dir.join("site.wasm");
    let out = ssr()
        .args(["build", "-o", out_file.to_str().unwrap()])
        .current_dir(&dir)
        .output()
        .unwrap();
    (out, out_file)
}

#[test]
fn issue_54_headers_rules_cannot_set_framing_and_are_bounded() {
    for name in [
        "Content-Length",
        "Transfer-Encoding",
        "Connection",
        "Upgrade",
        "Proxy-Authenticate",
    ] {
        let rules = format!("/*\n  {name}: 0\n");
        let (out, _) = build_site("framing", &[("_headers", &rules)], "");
        let said = text(&out.stderr);
        assert!(!out.status.success(), "{name}: {said}");
        assert!(
            said.contains(&name.to_ascii_lowercase()) && said.contains("only the server"),
            "{said}"
        );
    }
    // Bounds on the work a request pays: lines in all, and one line.
    let many = format!("/*\n{}", "  X-A: b\n".repeat(1001));
    let long = format!("/*\n  X-A: {}\n", "b".repeat(2001));
    for (rules, bound) in [(many, "1000"), (long, "2000")] {
        let (out, _) = build_site("bounds", &[("_headers", &rules)], "");
        let said = text(&out.stderr);
        assert!(!out.status.success() && said.contains(bound), "{said}");
    }
    let dynamic: String = (0..101).map(|i| format!("/d{i}/* /x 301\n")).collect();
    let (out, _) = build_site("dynamic", &[("_redirects", &dynamic)], "");
    let said = text(&out.stderr);
    assert!(
        !out.status.success() && said.contains("100 redirects with"),
        "{said}"
    );

    // A plugin built elsewhere with such a rule is refused at registration.
    let (out, plugin_file) = build_site("elsewhere", &[], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let built = std::fs::read(plugin_file).unwrap();
    let forged = br#"{"headers":[{"pattern":"/*","unset":[],"set":[["content-length","0"]]}]}"#;
    let crafted = ssr::artifact::with_section(
        strip_section(&built, ssr::app::APP_SECTION),
        ssr::app::APP_SECTION,
        forged,
    );
    let s = Server::start(&["--demo=false"]);
    let (status, body) = s.put_bytes("crafted", &crafted, "");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("content-length"), "{body}");
}

/// `bytes` without its custom section `name`.
fn strip_section(bytes: &[u8], name: &str) -> Vec<u8> {
    let mut out = bytes[..8].to_vec();
    let mut at = 8;
    while at < bytes.len() {
        let id = bytes[at];
        let (len, used) = leb128(&bytes[at + 1..]);
        let end = at + 1 + used + len;
        let body = &bytes[at + 1 + used..end];
        let (name_len, name_used) = leb128(body);
        let named = id == 0 && body.get(name_used..name_used + name_len) == Some(name.as_bytes());
        if !named {
            out.extend_from_slice(&bytes[at..end]);
        }
        at = end;
    }
    out
}

fn leb128(bytes: &[u8]) -> (usize, usize) {
    let (mut value, mut shift) = (0usize, 0);
    for (i, b) in bytes.iter().enumerate() {
        value |= ((b & 0x7f) as usize) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            return (value, i + 1);
        }
    }
    panic!("a truncated LEB128");
}

#[test]
fn issue_54_rules_cost_one_pass_over_the_path() {
    // 100 dynamic redirects that never match, 100 header rules that do.
    let redirects: String = (0..100)
        .map(|i| format!("/r{i}/*/:id/end /x 301\n"))
        .collect();
    let headers: String = (0..100)
        .map(|i| format!("/*\n  X-R{i}: :splat\n"))
        .collect();
    let files = [
        ("_redirects", redirects.as_str()),
        ("_headers", headers.as_str()),
    ];
    let (out, ruled) = build_site("rules", &files, "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (out, bare) = build_site("bare", &[], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = Server::start(&["--demo=false", "--max-header-kib", "64"]);
    for (id, file) in [("ruled", &ruled), ("bare", &bare)] {
        let (status, body) = s.put_bytes(
            id,
            &std::fs::read(file).unwrap(),
            &format!("host={id}.test"),
        );
        assert_eq!(status, 201, "{body}");
    }
    // A 30 KB path of one segment under `/r0/`, and one of many: each rule
    // is a pass over it, not a pass per place a `*` may end.
    let paths = [
        format!("/r0/{}", "a".repeat(30_000)),
        format!("/r0/{}", "a/".repeat(15_000)),
    ];
    let time = |host: &str| {
        let started = Instant::now();
        for path in &paths {
            for _ in 0..5 {
                let r = s.get(path, &[("host", host)]);
                assert_eq!(r.status, 200, "{host}");
            }
        }
        started.elapsed()
    };
    let (bare_time, ruled_time) = (time("bare.test"), time("ruled.test"));
    // The page is the renderer's: the rules' headers apply to assets.
    let asset = s.get("/a", &[("host", "ruled.test")]);
    assert_eq!(asset.header("x-r99"), Some("a"));
    assert!(
        ruled_time < bare_time * 3 + Duration::from_millis(500),
        "with the rules {ruled_time:?}, without {bare_time:?}"
    );

    // A splat may not make a location that leaves the site.
    let (out, open) = build_site("open", &[("_redirects", "/r/* /:splat 302\n")], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        s.put_bytes("open", &std::fs::read(open).unwrap(), "host=open.test")
            .0,
        201
    );
    for (path, want) in [
        ("/r//evil.example", "/evil.example"),
        ("/r//\\evil.example", "/evil.example"),
        ("/r/a", "/a"),
    ] {
        let r = s.get(path, &[("host", "open.test")]);
        assert_eq!(
            (r.status, r.header("location")),
            (302, Some(want)),
            "{path}"
        );
    }
}

#[test]
fn issue_54_an_apps_vars_are_bounded_like_the_operators() {
    let many: Vec<String> = (0..65).map(|i| format!("\"V{i}\": \"x\"")).collect();
    let big = format!("\"BIG\": \"{}\"", "x".repeat(17 << 10));
    for (vars, said_what) in [
        (many.join(", "), "65 vars"),
        (big, "BIG"),
        ("\"__proto__\": \"x\"".to_string(), "__proto__"),
    ] {
        let (out, _) = build_site("vars", &[], &vars);
        let said = text(&out.stderr);
        assert!(!out.status.success(), "{said_what}: {said}");
        assert!(said.contains(said_what), "{said}");
    }
}

#[test]
fn issue_54_cache_keys_are_counted_and_long_ones_never_stored() {
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--cache-mib",
        "16",
        "--cache-tenant-mib",
        "16",
    ]);
    for id in probes(&s, "") {
        // A URL past 8 KiB is rendered, never kept.
        let long = format!("/t/{id}/page?q={}", "x".repeat(9 << 10));
        for _ in 0..2 {
            let r = s.get(&long, &[]);
            assert_eq!(r.header("x-cache"), Some("bypass"), "{id}");
        }
        // The Cache API keeps no key past it either.
        assert_eq!(
            s.get(&format!("/t/{id}/cache-url?len=100"), &[]).text(),
            "kept"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/cache-url?len=9000"), &[]).text(),
            "not kept"
        );
    }
    // Visitors who make up long URLs: the cache's count is what it holds.
    let id = "p-wasm";
    let before = s.rss();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let agent = Server::agent();
                for i in 0..2500 {
                    let url = format!(
                        "http://{addr}/t/{id}/page?t={t}&i={i}&q={}",
                        "y".repeat(7000)
                    );
                    let _ = agent.get(url).call();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let counted = s.metric("ssr_cache_bytes") as usize;
    let grew = s.rss().saturating_sub(before);
    println!("10,000 URLs of 7 KB: the cache counts {counted} bytes, RSS grew {grew}");
    assert!(
        counted <= 16 << 20,
        "the count {counted} is over the budget"
    );
    assert!(
        counted > 8 << 20,
        "10,000 long keys counted only {counted} bytes"
    );
    // What it holds past its count: each thread's L1 (bounded) and the
    // allocator's slack. Before keys were counted: 70 MB of keys uncounted.
    assert!(
        grew <= counted + (32 << 20),
        "RSS grew {} MiB, the cache counts {} MiB",
        grew >> 20,
        counted >> 20
    );
}

#[test]
fn issue_54_a_purge_visits_its_own_tenants_entries_alone() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    assert_eq!(s.add("big", PROBE, "").0, 201);
    assert_eq!(s.add("small", PROBE, "").0, 201);
    for i in 0..500 {
        assert_eq!(s.get(&format!("/t/big/page?i={i}"), &[]).status, 200);
    }
    for i in 0..5 {
        assert_eq!(s.get(&format!("/t/small/page?i={i}"), &[]).status, 200);
    }
    let visited = || s.metric("ssr_cache_purge_visited_total");
    let before = visited();
    let (status, body) = s.admin("POST", "/_ssr/admin/tenants/small/purge");
    assert_eq!((status, body.as_str()), (200, "{\"purged\":5}"));
    let cost = visited() - before;
    assert!(cost <= 5.0, "a purge of 5 entries visited {cost}");
    // The other tenant's pages are still there...
    let r = s.get("/t/big/page?i=3", &[]);
    assert_eq!(r.header("x-cache"), Some("hit"), "{:?}", r.headers);
    // ...and its own purge visits them all: the count is the work.
    let before = visited();
    let (status, body) = s.admin("POST", "/_ssr/admin/tenants/big/purge");
    assert_eq!((status, body.as_str()), (200, "{\"purged\":500}"));
    assert_eq!(visited() - before, 500.0);
}

#[test]
fn issue_54_a_tenant_token_may_narrow_what_the_operator_set_never_widen_it() {
    let data = tempdir("narrow");
    let s = Server::stored(data.to_str().unwrap());
    let hello = std::fs::read(plugin(HELLO).plugin).unwrap();
    let granted = "allow_fetch=https://api.example.com&allow_fetch=https://cdn.example.com";
    assert_eq!(s.put_bytes("shop", &hello, granted).0, 201);
    let (token, _) = make_token(&s, "tenant=shop");
    let deploy = |query: &str| {
        with_token(
            &s,
            &token,
            "PUT",
            &format!("/_ssr/admin/tenants/shop?{query}"),
            &hello,
        )
    };
    for (query, field) in [
        ("allow_fetch=http://127.0.0.1:1", "fetch grants"),
        ("allow_fetch=http://169.254.169.254", "fetch grants"),
        ("engine=v8", "engine"),
        ("mode=fresh", "isolation mode"),
        ("debug=true", "debug"),
        ("max_concurrency=64", "limits"),
    ] {
        let (status, said) = deploy(query);
        assert_eq!(status, 403, "{query}: {said}");
        assert!(said.contains(field), "{query}: {said}");
    }
    // Narrower, or the same: accepted, and what it did not name stays.
    let (status, said) = deploy("allow_fetch=https://api.example.com&engine=wasm&debug=false");
    assert_eq!(status, 200, "{said}");
    assert!(
        !said.contains("cdn.example.com") && said.contains("api.example.com"),
        "{said}"
    );
    let (status, said) = deploy("");
    assert_eq!(status, 200, "{said}");
    assert!(
        said.contains("api.example.com") && said.contains("\"engine\":\"wasm\""),
        "{said}"
    );
    // A token's first deploy of its tenant gets the server's defaults.
    let (fresh, _) = make_token(&s, "tenant=fresh");
    let first = |query: &str| {
        with_token(
            &s,
            &fresh,
            "PUT",
            &format!("/_ssr/admin/tenants/fresh?{query}"),
            &hello,
        )
    };
    assert_eq!(first("allow_fetch=http://127.0.0.1:1").0, 403);
    assert_eq!(first("engine=v8").0, 403);
    assert_eq!(first("").0, 201);
}

#[test]
fn issue_54_removing_a_tenant_revokes_its_tokens() {
    let data = tempdir("revoke");
    let s = Server::stored(data.to_str().unwrap());
    let hello = std::fs::read(plugin(HELLO).plugin).unwrap();
    assert_eq!(s.put_bytes("shop", &hello, "").0, 201);
    let (token, id) = make_token(&s, "tenant=shop");
    assert_eq!(
        with_token(&s, &token, "GET", "/_ssr/admin/tenants/shop", b"").0,
        200
    );
    assert_eq!(s.admin("DELETE", "/_ssr/admin/tenants/shop").0, 204);
    // Another customer's tenant of the same id: the old token is nothing.
    assert_eq!(s.put_bytes("shop", &hello, "").0, 201);
    assert_eq!(
        s.admin("PUT", "/_ssr/admin/tenants/shop/secrets/KEY").0,
        204
    );
    for (method, path) in [
        ("GET", "/_ssr/admin/tenants/shop"),
        ("GET", "/_ssr/admin/tenants/shop/secrets"),
        ("PUT", "/_ssr/admin/tenants/shop"),
    ] {
        let (status, said) = with_token(&s, &token, method, path, b"");
        assert_eq!(status, 401, "{method} {path}: {said}");
    }
    let (_, tokens) = s.admin("GET", "/_ssr/admin/tokens");
    assert!(!tokens.contains(&id), "{tokens}");
    // Across a restart too.
    drop(s);
    let s = Server::stored(data.to_str().unwrap());
    assert_eq!(
        with_token(&s, &token, "GET", "/_ssr/admin/tenants/shop", b"").0,
        401
    );
}

/// Opens a log follower with `token`: its status, and the connection.
fn follow(s: &Server, token: &str, id: &str) -> (u16, std::net::TcpStream) {
    let mut conn = connect(s);
    write!(
        conn,
        "GET /_ssr/admin/tenants/{id}/logs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {token}\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        conn.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let status = text(&head).split(' ').nth(1).unwrap().parse().unwrap();
    (status, conn)
}

#[test]
fn issue_54_followers_and_connections_are_bounded_and_the_listener_keeps_serving() {
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--max-log-followers",
        "2",
        "--max-connections-per-client",
        "8",
    ]);
    assert_eq!(s.add("shop", HELLO, "").0, 201);
    assert_eq!(s.add("other", HELLO, "").0, 201);
    let (token, _) = make_token(&s, "tenant=shop");
    let (second, _) = make_token(&s, "tenant=shop");
    let mut open = vec![follow(&s, &token, "shop"), follow(&s, &token, "shop")];
    assert!(open.iter().all(|(status, _)| *status == 200));
    // Past the token's bound, and the tenant's with another token: 429.
    assert_eq!(follow(&s, &token, "shop").0, 429);
    assert_eq!(follow(&s, &second, "shop").0, 429);
    // The operator's follower of another tenant, and the sites, go on.
    let (status, conn) = follow(&s, crate::support::TOKEN, "other");
    assert_eq!(status, 200);
    assert_eq!(s.get("/t/other/", &[]).status, 200);
    // Closed, a follower gives its place back.
    drop(conn);
    open.pop();
    let back = crate::support::within(Duration::from_secs(5), || {
        follow(&s, &second, "shop").0 == 200
    });
    assert!(back, "a closed follower's place did not come back");

    // Connections from one address: past 8, closed at once.
    drop(open);
    let held: Vec<_> = (0..8).map(|_| connect(&s)).collect();
    std::thread::sleep(Duration::from_millis(200));
    let extra = connect(&s);
    assert_eq!(read_to_close(extra), "", "a ninth connection was kept");
    drop(held);
    let served = crate::support::within(Duration::from_secs(5), || {
        std::net::TcpStream::connect(&s.addr).is_ok() && s.get("/_ssr/healthz", &[]).status == 200
    });
    assert!(served, "the listener did not serve once they closed");
}

/// A component made by hand: one core module with one function of `body`
/// bytes of `nop`s, exported as `export` if given.
fn crafted(body: usize, export: Option<&str>) -> Vec<u8> {
    fn leb(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }
    fn section(id: u8, content: &[u8], out: &mut Vec<u8>) {
        out.push(id);
        leb(content.len(), out);
        out.extend_from_slice(content);
    }
    let mut code = vec![0x00]; // no locals
    code.extend(std::iter::repeat_n(0x01, body)); // nop
    code.push(0x0b); // end
    let mut entry = Vec::new();
    leb(code.len(), &mut entry);
    entry.extend_from_slice(&code);
    let mut module = b"\0asm\x01\0\0\0".to_vec();
    section(1, &[1, 0x60, 0, 0], &mut module); // type () -> ()
    section(3, &[1, 0], &mut module); // one function of type 0
    section(10, &[&[1u8][..], &entry].concat(), &mut module);
    let mut component = b"\0asm\x0d\0\x01\0".to_vec();
    section(1, &module, &mut component);
    if let Some(name) = export {
        // One export: its name, then core module 0, no type.
        let mut exports = vec![1, 0x00];
        leb(name.len(), &mut exports);
        exports.extend_from_slice(name.as_bytes());
        exports.extend_from_slice(&[0x00, 0x11, 0x00, 0x00]);
        section(11, &exports, &mut component);
    }
    component
}

#[test]
fn issue_54_a_deploy_is_checked_before_anything_compiles() {
    let s = Server::start(&["--demo=false"]);
    let contract = format!(
        "{}@{}",
        ssr::artifact::RENDERER_INTERFACE,
        ssr::artifact::CONTRACT_VERSION
    );
    for (bytes, said) in [
        // Not a plugin: refused by what it exports, before compiling.
        (crafted(4 << 20, None), "it is not an ssr plugin"),
        // A plugin's name, but more code than a plugin brings.
        (crafted(2 << 20, Some(&contract)), "bytes of code"),
    ] {
        let started = Instant::now();
        let (status, body) = s.put_bytes("crafted", &bytes, "");
        assert_eq!(status, 400, "{body}");
        assert!(body.contains(said), "{body}");
        println!("refused in {:?}", started.elapsed());
    }
    assert_eq!(s.admin("GET", "/_ssr/admin/tenants/crafted").0, 404);
}

#[test]
fn issue_54_wait_until_failures_are_escaped_cut_and_budgeted_on_both_engines() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    for id in probes(&s, "") {
        for _ in 0..5 {
            let r = s.get(&format!("/t/{id}/wait-until?bytes={}", 4 << 20), &[]);
            assert_eq!(r.text(), "ok", "{id}");
        }
        assert!(s.log_contains("ctx.waitUntil() work failed"), "{id}");
    }
    let log = s.log.lock().unwrap().clone();
    assert!(
        !log.lines()
            .any(|l| l.contains("FORGED") && !l.contains("ctx.waitUntil")),
        "a forged line:\n{log}"
    );
    assert!(!log.contains('\u{1b}'), "an escape reached the log");
    assert!(
        log.len() < 2 << 20,
        "40 MiB of failures wrote {} bytes of log",
        log.len()
    );
}

#[test]
fn issue_54_a_host_call_over_the_frame_limit_is_a_javascript_error_on_v8() {
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--memory-limit-mib",
        "512",
    ]);
    for id in probes(&s, "") {
        let said = s.get(&format!("/t/{id}/compress?mib=20"), &[]).text();
        assert!(
            said.starts_with("packed ") || said.contains("smaller pieces"),
            "{id}: {said}"
        );
        // The process lived: no crash was counted.
        assert_eq!(
            s.get(&format!("/t/{id}/compress?mib=1"), &[])
                .text()
                .split(' ')
                .next(),
            Some("packed")
        );
    }
    assert_eq!(
        s.metric("ssr_v8_worker_crashes_total{tenant=\"p-v8\"}"),
        0.0
    );
}

#[test]
fn issue_54_an_absolute_form_request_is_for_its_targets_host() {
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("a", PROBE, "host=a.localhost").0, 201);
    assert_eq!(s.add("b", HELLO, "host=b.localhost").0, 201);
    let r = s.raw("GET http://b.localhost/ HTTP/1.1\nhost: a.localhost");
    assert!(text(&r.body).contains("Hello"), "{}", text(&r.body));
    // And its cache entry is b's: a plain request to a is a's page.
    let a = s.get("/x", &[("host", "a.localhost")]);
    assert_eq!(a.text(), "the page at /x");
}

#[test]
fn issue_54_an_unknown_admin_path_answers_as_a_known_one_without_a_token() {
    let s = Server::start(&["--demo=false"]);
    for path in [
        "/_ssr/admin/tenants",
        "/_ssr/admin/nothing",
        "/_ssr/admin",
        "/_ssr/metrics/x",
    ] {
        assert_eq!(s.get(path, &[]).status, 401, "{path}");
    }
    let auth = format!("Bearer {}", crate::support::TOKEN);
    assert_eq!(
        s.get("/_ssr/admin/nothing", &[("authorization", &auth)])
            .status,
        404
    );
}

#[test]
fn issue_54_a_followers_lines_carry_the_requests_path_escaped() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    assert_eq!(s.add("chatty", "tests/plugins/chatty.js", "").0, 201);
    let (token, _) = make_token(&s, "tenant=chatty");
    let follow = crate::tokens::Follow::start(&s, &token, "chatty");
    // A target with a bidi override (U+202E) and a C1 control (U+009B,
    // a terminal's CSI) as raw bytes: hyper takes them as they are.
    let mut conn = connect(&s);
    conn.write_all(
        b"GET /t/chatty/\xe2\x80\xaegnp.exe\xc2\x9b31m HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    )
    .unwrap();
    let answer = read_to_close(conn);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let seen = follow.until("one line");
    let line = seen.last().unwrap();
    assert!(
        !line.contains('\u{202e}') && !line.contains('\u{9b}'),
        "{line:?}"
    );
    assert!(line.contains("\\u{202e}gnp.exe\\u{9b}31m"), "{line:?}");
}

#[test]
fn issue_54_a_long_host_call_does_not_hold_its_neighbours_on_the_worker() {
    // Both tenants' renders interleave on the workers (two).
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--render-deadline",
        "20000",
    ]);
    assert_eq!(s.add("keys", PROBE, "engine=wasm").0, 201);
    assert_eq!(s.add("next", HELLO, "engine=wasm").0, 201);
    let page = |i: usize| {
        std::thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        assert_eq!(s.get(&format!("/t/next/?miss={i}"), &[]).status, 200);
        started.elapsed()
    };
    // The ninth decile, not the slowest: on a machine whose cores the long
    // calls share, one neighbour request in a hundred may wait on the
    // scheduler (201 ms once on a 2-core CI), while one held by its worker
    // waits on every request that lands beside a call.
    let decile = |mut times: Vec<Duration>| {
        times.sort();
        times[times.len() * 9 / 10]
    };
    let alone = decile((0..30).map(page).collect());
    for (round, long) in ["pbkdf2", "rsa"].iter().enumerate() {
        // Six clients making the long call until the neighbour is
        // measured, a new render for each (a render that goes on after its
        // first long call may be moved to the worker's background lane:
        // its first call is the one that held the worker).
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let makers: Vec<_> = (0..6)
            .map(|m| {
                let (addr, stop) = (s.addr.clone(), stop.clone());
                std::thread::spawn(move || {
                    let agent = Server::agent();
                    let mut made = 0;
                    for i in 0.. {
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            break;
                        }
                        let url = format!("http://{addr}/t/keys/{long}?m={m}&i={i}");
                        made += usize::from(agent.get(url).call().is_ok_and(|r| r.status() == 200));
                    }
                    made
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let from = 100 * (round + 1);
        let beside = decile((from..from + 100).map(page).collect());
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let made: usize = makers.into_iter().map(|m| m.join().unwrap()).sum();
        println!(
            "the neighbour's ninth decile alone {alone:?}, beside {made} {long} renders {beside:?}"
        );
        assert!(made > 0, "{long}: none made");
        // Before: a request that came while its worker ran the call waited
        // for it (0.56 s and 1.03 s of 25, beside RSA keys of 3,072 bits).
        assert!(
            beside < alone * 5 + Duration::from_millis(100),
            "{long}: the neighbour's ninth decile went from {alone:?} to {beside:?}"
        );
    }
}

#[test]
fn issue_54_built_plugins_fit_the_code_bounds() {
    for entry in [HELLO, "plugins/react/app.jsx", PROBE] {
        let path = plugin(entry).plugin;
        let bytes = std::fs::read(&path).unwrap();
        let outline = ssr::artifact::outline(&bytes).unwrap();
        println!(
            "{entry}: {} bytes of code, its largest function {}",
            outline.code_bytes, outline.largest_function
        );
        // Room to grow: a runtime twice as large still fits.
        assert!(
            outline.code_bytes <= ssr::artifact::MAX_CODE_BYTES / 2,
            "{entry}"
        );
        assert!(
            outline.largest_function <= ssr::artifact::MAX_FUNCTION_BYTES / 2,
            "{entry}"
        );
        ssr::artifact::check_before_compiling(&bytes).unwrap();
    }
}

#[test]
fn issue_54_the_hosts_endpoints_get_in_when_clients_hold_every_connection() {
    let s = Server::start(&[
        "--demo=false",
        "--path-routing",
        "--max-connections",
        "3",
        "--max-connections-per-client",
        "100",
    ]);
    assert_eq!(s.add("shop", HELLO, "").0, 201);
    // Three followers of the log hold every place (they never end).
    let held: Vec<_> = (0..3)
        .map(|_| follow(&s, crate::support::TOKEN, "shop"))
        .collect();
    assert!(held.iter().all(|(status, _)| *status == 200));
    // The reserve answers the host's endpoints, and no page.
    assert_eq!(s.get("/_ssr/healthz", &[]).status, 200);
    assert_eq!(s.admin("GET", "/_ssr/admin/tenants/shop").0, 200);
    let page = s.get("/t/shop/", &[]);
    assert_eq!(page.status, 503, "{}", page.text());
    drop(held);
    let back = crate::support::within(Duration::from_secs(5), || {
        s.get("/t/shop/", &[]).status == 200
    });
    assert!(back, "pages did not come back once the followers left");
}

#[test]
fn issue_54_novel_code_compiles_first_within_limits() {
    let contract = format!(
        "{}@{}",
        ssr::artifact::RENDERER_INTERFACE,
        ssr::artifact::CONTRACT_VERSION
    );
    // Within the code bounds, and code no server has compiled.
    let novel = crafted(200 << 10, Some(&contract));
    let s = Server::start(&["--demo=false", "--compile-memory-mib", "16"]);
    let (status, body) = s.put_bytes("novel", &novel, "");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("--compile-memory-mib"), "{body}");
    // A plugin of `ssr build` brings no novel code: it starts no check.
    s.wait_ready();
    let (status, body) = s.add("hello", HELLO, "");
    assert_eq!(status, 201, "{body}");
}
