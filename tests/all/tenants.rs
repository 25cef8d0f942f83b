//! Tenants over the admin API and routing, on a real server over loopback:
//! register, replace (hot swap), delete, validation, persistence and crash
//! safety.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::support::{Client, Server, tempdir};
use ssr::engine::Engines;

const HELLO: &str = "plugins/hello/render.js";
const PREACT: &str = "plugins/preact/app.jsx";

#[test]
fn register_route_replace_and_delete() {
    let s = Server::start(&["--demo=false"]);
    let (status, body) = s.add("shop", HELLO, "host=shop.test&host=www.shop.test");
    assert_eq!(status, 201, "{body}");
    assert!(
        body.contains("\"version\"") && body.contains("shop.test"),
        "{body}"
    );

    // By path: the renderer sees the path without the /t/{id} prefix.
    let r = s.get("/t/shop/greet?name=Ada", &[]);
    assert_eq!(r.status, 200);
    assert!(
        r.text().contains("Hello, Ada!") && r.text().contains("GET /greet for tenant shop"),
        "{}",
        r.text()
    );
    // By host, port ignored, case-insensitive.
    let r = s.get("/x?name=Bo", &[("host", "WWW.Shop.Test:8080")]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("Hello, Bo!"));
    // The Host header is part of the cache key as the renderer saw it.
    assert_eq!(
        s.get("/x?name=Bo", &[("host", "WWW.Shop.Test:8080")])
            .header("x-cache"),
        Some("hit")
    );
    assert_eq!(
        s.get("/x?name=Bo", &[("host", "www.shop.test")])
            .header("x-cache"),
        Some("miss")
    );

    // Replace: a new version, its own pages, the old cache gone.
    let (status, body) = s.add("shop", PREACT, "host=shop.test");
    assert_eq!(status, 200, "{body}");
    let r = s.get("/x?name=Bo", &[("host", "shop.test")]);
    assert_eq!(r.header("x-cache"), Some("miss"));
    assert!(r.text().contains("tasks"), "{}", r.text());
    // The replaced registration's other hostname is released.
    assert_eq!(s.get("/", &[("host", "www.shop.test")]).status, 404);

    let (status, list) = s.admin("GET", "/_ssr/admin/tenants");
    assert_eq!(status, 200);
    assert!(list.contains("\"id\":\"shop\""), "{list}");

    assert_eq!(s.admin("DELETE", "/_ssr/admin/tenants/shop").0, 204);
    // A plain 404 that tells a visitor nothing; the log has the detail.
    let r = s.get("/t/shop/", &[]);
    assert_eq!(
        (r.status, r.text().as_str()),
        (404, "404 Not Found: not found\n")
    );
    let r = s.get("/", &[("host", "shop.test")]);
    assert_eq!(
        (r.status, r.text().as_str()),
        (404, "404 Not Found: not found\n")
    );
    assert!(s.log_contains(r#"host="shop.test""#));
    assert!(s.log_contains("no tenant serves this host"));
    assert_eq!(s.admin("DELETE", "/_ssr/admin/tenants/shop").0, 404);
}

#[test]
fn a_plugins_memory_image_is_made_at_registration_not_in_a_request() {
    // Wasmtime makes a compiled plugin's memory image (a sealed memfd) the
    // first time it is needed. Made at registration, a rare refusal from the
    // kernel fails the registration, which says to retry, never a request.
    let images = |s: &Server| {
        std::fs::read_dir(format!("/proc/{}/fd", s.child.id()))
            .unwrap()
            .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
            .filter(|target| target.to_string_lossy().contains("wasm-memory-image"))
            .count()
    };
    let s = Server::start(&["--demo=false"]);
    assert_eq!(images(&s), 0);
    let (status, body) = s.add("shop", HELLO, "");
    assert_eq!(status, 201, "{body}");
    assert!(images(&s) > 0, "no memory image after registration");
    assert_eq!(s.get("/t/shop/", &[]).status, 200);
}

#[test]
fn admin_requires_the_token() {
    let s = Server::start(&["--demo=false"]);
    let r = s.get("/_ssr/admin/tenants", &[]);
    assert_eq!(r.status, 401);
    let r = s.get(
        "/_ssr/admin/tenants",
        &[("authorization", "Bearer wrong-token")],
    );
    assert_eq!(r.status, 401);
    assert_eq!(s.admin("GET", "/_ssr/admin/tenants").0, 200);
}

#[test]
fn bad_registrations_get_4xx_naming_the_problem() {
    let s = Server::start(&["--demo=false"]);
    let (status, body) = s.put_bytes("Bad_Id", b"x", "");
    assert_eq!(status, 400);
    assert!(body.contains("invalid tenant id `Bad_Id`"), "{body}");
    let (status, body) = s.put_bytes("ok", b"\0asm\x01\0\0\0", "");
    assert_eq!(status, 400);
    assert!(body.contains("core WebAssembly module"), "{body}");
    let (status, body) = s.put_bytes("ok", b"", "");
    assert_eq!(status, 400);
    assert!(body.contains("empty"), "{body}");
    let (status, body) = s.add("ok", HELLO, "host=bad%20host");
    assert_eq!(status, 400);
    assert!(body.contains("invalid hostname"), "{body}");
    let (status, body) = s.add("ok", HELLO, "mode=sometimes");
    assert_eq!(status, 400);
    assert!(body.contains("use `reuse` or `fresh`"), "{body}");
    assert_eq!(s.add("one", HELLO, "host=a.test").0, 201);
    let (status, body) = s.add("two", HELLO, "host=a.test");
    assert_eq!(status, 409);
    assert!(body.contains("already routes to tenant `one`"), "{body}");
    // Nothing was registered by the failures.
    let (_, list) = s.admin("GET", "/_ssr/admin/tenants");
    assert!(
        !list.contains("\"ok\"") && !list.contains("\"two\""),
        "{list}"
    );
}

#[test]
fn issue_32_no_tenant_claims_an_ip_address_or_localhost_itself() {
    let s = Server::start(&["--demo=false"]);
    for host in ["127.0.0.1", "localhost", "169.254.169.254", "0x7f.1"] {
        let (status, body) = s.add("claims", HELLO, &format!("host={host}"));
        assert_eq!(status, 400, "{host}: {body}");
        assert!(
            body.contains(&format!(
                "hostname `{host}` is an IP address or `localhost` itself"
            )),
            "{body}"
        );
    }
    assert_eq!(s.add("claims", HELLO, "host=shop.localhost").0, 201);
    let page = s.get("/", &[("host", "shop.localhost")]);
    assert_eq!(page.status, 200);
    // The server's own address still routes to no tenant.
    let page = s.get("/", &[("host", "127.0.0.1")]);
    assert_eq!(page.status, 404);
}

#[test]
fn tenants_survive_a_restart_without_recompiling() {
    let dir = tempdir("restart");
    let data = dir.to_str().unwrap();
    let s = Server::stored(data);
    assert_eq!(s.add("keep", HELLO, "host=keep.test&mode=fresh").0, 201);
    assert_eq!(s.add("gone", HELLO, "").0, 201);
    assert_eq!(s.admin("DELETE", "/_ssr/admin/tenants/gone").0, 204);
    // An app whose wrangler config sets a var, with no assets: the var
    // comes back with it.
    let greeting = std::fs::read(crate::node_modules::greeting_app()).unwrap();
    for engine in Engines::KINDS {
        let id = format!("greet-{engine}");
        let (status, body) = s.put_bytes(&id, &greeting, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
    }
    // SIGTERM: graceful, exit 0.
    let status = s.stop("TERM");
    assert!(status.success(), "{status:?}");

    let compiled: Vec<_> = std::fs::read_dir(dir.join("plugins"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
        .collect();
    assert_eq!(compiled.len(), 2, "two compiled plugins are stored");

    let s = Server::stored(data);
    let r = s.get("/?name=again", &[("host", "keep.test")]);
    assert_eq!(r.status, 200);
    assert!(r.text().contains("Hello, again!"));
    let (_, shown) = s.admin("GET", "/_ssr/admin/tenants/keep");
    assert!(shown.contains("\"mode\":\"fresh\""), "{shown}");
    assert_eq!(s.get("/t/gone/", &[]).status, 404);
    for engine in Engines::KINDS {
        let page = s.get(&format!("/t/greet-{engine}/"), &[]);
        assert_eq!(page.text(), "Howdy", "{engine}");
    }
    assert!(
        !s.log.lock().unwrap().contains("compiling again"),
        "the stored compiled plugin must load"
    );
}

#[test]
fn registration_is_never_half_written_after_a_crash() {
    let dir = tempdir("crash");
    let data = dir.to_str().unwrap();
    let plugins = [
        std::fs::read(crate::support::plugin(HELLO).plugin).unwrap(),
        std::fs::read(crate::support::plugin(PREACT).plugin).unwrap(),
    ];
    for round in 0..3 {
        let s = Server::stored(data);
        if round == 0 {
            for (t, plugin) in plugins.iter().enumerate() {
                assert_eq!(s.put_bytes(&format!("t{t}"), plugin, "").0, 201);
            }
        }
        // Replace plugins in a loop, and SIGKILL the server in the middle.
        let stop = Arc::new(AtomicBool::new(false));
        let puts = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for t in 0..2 {
                let (s, stop, puts, plugins) = (&s, stop.clone(), puts.clone(), &plugins);
                scope.spawn(move || {
                    let mut i = t;
                    while !stop.load(Ordering::Relaxed) {
                        let Ok(r) = Server::agent()
                            .put(s.url(&format!("/_ssr/admin/tenants/t{t}")))
                            .header("Authorization", &format!("Bearer {}", s.token))
                            .send(&plugins[i % 2][..])
                        else {
                            break;
                        };
                        if r.status().is_success() {
                            puts.fetch_add(1, Ordering::Relaxed);
                        }
                        i += 1;
                    }
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(1200 + 900 * round));
            let _ = std::process::Command::new("kill")
                .arg("-KILL")
                .arg(s.child.id().to_string())
                .status();
            stop.store(true, Ordering::Relaxed);
        });
        drop(s);
        eprintln!(
            "round {round}: {} replacements finished before the kill",
            puts.load(Ordering::Relaxed)
        );
        let s = Server::stored(data);
        for t in 0..2 {
            let r = s.get(&format!("/t/t{t}/"), &[]);
            assert_eq!(
                r.status,
                200,
                "round {round}: tenant t{t} after the crash: {}",
                r.text()
            );
            let page = r.text();
            assert!(
                page.contains("Hello, world!") || page.contains("tasks"),
                "{page}"
            );
        }
    }
}

#[test]
fn hot_swap_under_load_fails_no_request() {
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("swap", HELLO, "").0, 201);
    let stop = AtomicBool::new(false);
    let served = AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (s, stop, served, failures) = (&s, &stop, &served, &failures);
            scope.spawn(move || {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    // A new query each time: every request renders.
                    let r = s.get(&format!("/t/swap/?n={t}-{i}"), &[]);
                    if r.status == 200 {
                        served.fetch_add(1, Ordering::Relaxed);
                    } else {
                        failures.lock().unwrap().push((r.status, r.text()));
                    }
                    i += 1;
                }
            });
        }
        for entry in [PREACT, HELLO, PREACT, HELLO] {
            let (status, body) = s.add("swap", entry, "");
            assert_eq!(status, 200, "{body}");
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(
        served.load(Ordering::Relaxed) > 20,
        "too few requests to mean anything"
    );
    assert!(
        failures.lock().unwrap().is_empty(),
        "{:?}",
        failures.lock().unwrap()
    );
}

#[test]
fn cli_adds_lists_and_removes_tenants() {
    let s = Server::start(&["--demo=false"]);
    let plugin = crate::support::plugin(HELLO).plugin;
    let cli = |args: &[&str]| {
        crate::support::ssr()
            .arg("tenant")
            .args(args)
            .args(["--server", &s.url("")])
            .env("SSR_ADMIN_TOKEN", &s.token)
            .output()
            .unwrap()
    };
    let out = cli(&[
        "add",
        "blog",
        plugin.to_str().unwrap(),
        "--host",
        "blog.test",
    ]);
    assert!(
        out.status.success(),
        "{}",
        crate::support::text(&out.stderr)
    );
    assert!(crate::support::text(&out.stdout).contains("\"id\":\"blog\""));
    // Served by hostname, from cache the second time, and by path.
    assert_eq!(
        s.get("/", &[("host", "blog.test")]).header("x-cache"),
        Some("miss")
    );
    assert_eq!(
        s.get("/", &[("host", "blog.test")]).header("x-cache"),
        Some("hit")
    );
    // By path, the request's own Host makes another entry.
    assert_eq!(s.get("/t/blog/", &[]).header("x-cache"), Some("miss"));
    let ls = cli(&["ls"]);
    assert!(crate::support::text(&ls.stdout).contains("blog.test"));
    assert!(cli(&["purge", "blog"]).status.success());
    assert!(cli(&["rm", "blog"]).status.success());
    let again = cli(&["rm", "blog"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        crate::support::text(&again.stderr).contains("404"),
        "{}",
        crate::support::text(&again.stderr)
    );
    // Without a token the CLI says how to get one.
    let out = crate::support::ssr()
        .args(["tenant", "ls", "--server", &s.url("")])
        .env_remove("SSR_ADMIN_TOKEN")
        .output()
        .unwrap();
    assert!(crate::support::text(&out.stderr).contains("SSR_ADMIN_TOKEN"));
}

/// The address `--admin-listen 127.0.0.1:0` got, as the server printed it.
fn admin_addr(s: &Server) -> String {
    s.log
        .lock()
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("ssr admin API listening on http://"))
        .expect("the admin address is printed")
        .to_string()
}

#[test]
fn admin_api_can_listen_on_its_own_address() {
    let s = Server::start(&["--demo=false", "--admin-listen", "127.0.0.1:0"]);
    let admin = admin_addr(&s);
    // Not on the public address...
    assert_eq!(s.put_bytes("x", b"not read", "").0, 404);
    // ...only on its own.
    let bytes = std::fs::read(crate::support::plugin(HELLO).plugin).unwrap();
    let r = Server::agent()
        .put(format!("http://{admin}/_ssr/admin/tenants/x"))
        .header("Authorization", &format!("Bearer {}", s.token))
        .send(&bytes[..])
        .unwrap();
    assert_eq!(r.status(), 201);
    assert_eq!(s.get("/t/x/", &[]).status, 200);
    let r = Server::agent()
        .get(format!("http://{admin}/_ssr/admin/tenants"))
        .call()
        .unwrap();
    assert_eq!(r.status(), 401, "the token is still required there");
}

#[test]
fn issue_15_a_stored_registration_that_cannot_apply_is_skipped_and_the_rest_serve() {
    let dir = tempdir("bad-record");
    let data = dir.to_str().unwrap();
    let s = Server::stored(data);
    assert_eq!(s.add("bad", HELLO, "max_concurrency=2").0, 201);
    assert_eq!(s.add("good", HELLO, "").0, 201);
    assert!(s.stop("TERM").success());
    // A record written by an older build, or by hand, with a limit no
    // server can apply.
    let record = dir.join("tenants/bad.json");
    let text = std::fs::read_to_string(&record).unwrap();
    let set = "\"max_concurrency\": 2";
    assert!(text.contains(set), "{text}");
    let huge = "\"max_concurrency\": 2305843009213693952";
    std::fs::write(&record, text.replace(set, huge)).unwrap();
    let s = Server::stored(data);
    assert_eq!(s.get("/t/good/", &[]).status, 200);
    assert_eq!(s.get("/t/bad/", &[]).status, 404);
    assert!(s.log_contains("skipping a stored tenant"));
    assert!(s.log_contains("`max_concurrency` 2305843009213693952 is out of range"));
    assert_eq!(s.metric("ssr_tenants_skipped_total"), 1.0);
}

#[test]
fn issue_15_stored_plugins_are_named_by_sha256_written_once_and_checked() {
    use sha2::Digest;
    let dir = tempdir("sha256");
    let data = dir.to_str().unwrap();
    let plugins = dir.join("plugins");
    let sha = |entry: &str| {
        let bytes = std::fs::read(crate::support::plugin(entry).plugin).unwrap();
        sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let s = Server::stored(data);
    assert_eq!(s.add("a", HELLO, "").0, 201);
    assert_eq!(s.add("b", PREACT, "engine=v8").0, 201);
    let (hello, preact) = (sha(HELLO), sha(PREACT));
    for name in [format!("{hello}.wasm"), format!("{preact}.wasm")] {
        assert!(plugins.join(&name).is_file(), "{name} is stored");
    }
    // Compiled: named by the plugin and the engine's key, once.
    let compiled: Vec<_> = std::fs::read_dir(&plugins)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cwasm"))
        .collect();
    let [name] = &compiled[..] else {
        panic!("one compiled plugin: {compiled:?}")
    };
    let key = name
        .strip_prefix(&format!("{hello}."))
        .and_then(|n| n.strip_suffix(".cwasm"))
        .unwrap_or_else(|| panic!("{name}"));
    assert!(
        key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()),
        "{name}"
    );
    let (_, shown) = s.admin("GET", "/_ssr/admin/tenants/a");
    assert!(
        shown.contains(&format!("\"digest\":\"{hello}\"")),
        "{shown}"
    );
    // Registering the same bytes again leaves the compiled file alone.
    let compiled = plugins.join(name);
    let before = std::fs::metadata(&compiled).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(s.add("a", HELLO, "").0, 200);
    assert_eq!(s.add("c", HELLO, "").0, 201);
    let after = std::fs::metadata(&compiled).unwrap().modified().unwrap();
    assert_eq!(before, after, "a content-addressed file is written once");
    assert!(s.stop("TERM").success());

    // Another plugin's bytes under b's name: b is skipped, never run.
    std::fs::copy(
        crate::support::plugin(HELLO).plugin,
        plugins.join(format!("{preact}.wasm")),
    )
    .unwrap();
    let s = Server::stored(data);
    assert_eq!(s.get("/t/a/", &[]).status, 200);
    assert_eq!(s.get("/t/b/", &[]).status, 404);
    assert!(s.log_contains("does not hash to its name"));
    assert_eq!(s.metric("ssr_tenants_skipped_total"), 1.0);
}

/// Waits (up to 60 s) until the server says it is ready.
#[test]
fn issue_15_demo_tenants_never_replace_a_registration_and_are_never_stored() {
    // One example plugin, so that the demo is quick.
    let examples = tempdir("demo-plugins");
    std::fs::create_dir_all(examples.join("hello")).unwrap();
    std::fs::copy(
        crate::support::root().join(HELLO),
        examples.join("hello/render.js"),
    )
    .unwrap();
    let env = [("SSR_PLUGINS_DIR", examples.to_str().unwrap())];
    let dir = tempdir("demo-data");
    let data = dir.to_str().unwrap();
    let token = "test-token-0123456789";
    let start = |args: &[&str]| {
        let all = [&["--admin-token", token, "--path-routing"], args].concat();
        let mut s = Server::launch_env(&all, &env);
        s.token = token.to_string();
        s
    };

    // The operator's `hello`, registered before the demo starts (or while
    // it registers, below) is never replaced by the demo's.
    let s = start(&["--data-dir", data]);
    assert_eq!(s.add("hello", PREACT, "").0, 201);
    drop(s);
    let s = start(&["--demo", "--data-dir", data]);
    assert!(matches!(s.add("hello", PREACT, "").0, 200 | 201));
    s.wait_ready();
    assert!(s.log_contains("demo tenant hello skipped"));
    // The first page lists the demo's tenants, never the operator's.
    let index = s.get("/", &[]);
    let page = index.text();
    assert_eq!(index.status, 200, "{page}");
    assert!(page.contains("<a href=\"/t/hello-v8/\">"), "{page}");
    assert!(!page.contains("/t/hello/"), "{page}");
    assert!(s.get("/t/hello/", &[]).text().contains("tasks</h1>"));
    let demo = s.get("/t/hello-v8/?name=Ada", &[]);
    assert!(
        demo.text().contains("Hello, Ada!"),
        "the demo serves the rest"
    );
    let (_, list) = s.admin("GET", "/_ssr/admin/tenants");
    assert!(list.contains("\"demo\":true"), "{list}");
    let stored: Vec<_> = std::fs::read_dir(dir.join("tenants"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(stored, ["hello.json"], "demo tenants are never stored");
    assert!(s.stop("TERM").success());

    // Without --demo, a data dir serves what the operator registered only.
    let s = start(&["--data-dir", data]);
    s.wait_ready();
    assert!(s.get("/t/hello/", &[]).text().contains("tasks</h1>"));
    assert_eq!(s.get("/t/hello-v8/", &[]).status, 404);
    assert_eq!(s.get("/", &[]).status, 404, "no demo, no first page");
    drop(s);

    // In memory, the demo is on by default.
    let s = start(&[]);
    s.wait_ready();
    assert!(
        s.get("/t/hello/?name=Ada", &[])
            .text()
            .contains("Hello, Ada!")
    );
}

#[test]
fn issue_15_the_hosts_endpoints_are_out_of_the_tenants_url_space() {
    let echo = "tests/plugins/echo.js";
    let rendered = |r: &crate::support::Reply| r.status == 200 && r.header("x-echo") == Some("GET");
    let site = [("host", "site.test")];
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("site", echo, "host=site.test").0, 201);
    // The paths the host used to answer on every tenant hostname are the
    // tenant's.
    for path in ["/metrics", "/healthz", "/readyz", "/admin/tenants"] {
        assert!(rendered(&s.get(path, &site)), "{path} is the tenant's");
    }
    // The host's own are under /_ssr: health for anyone, the rest with the
    // token.
    assert_eq!(s.get("/_ssr/healthz", &site).text(), "ok\n");
    s.wait_ready();
    assert_eq!(s.get("/_ssr/readyz", &site).status, 200);
    assert_eq!(s.get("/_ssr/metrics", &site).status, 401);
    let wrong = [("authorization", "Bearer wrong-token-0123456789")];
    assert_eq!(s.get("/_ssr/metrics", &wrong).status, 401);
    assert!(
        s.metrics_text()
            .contains(r#"ssr_requests_total{tenant="site"}"#)
    );
    assert_eq!(s.get("/_ssr/admin/tenants", &site).status, 401);
    assert_eq!(s.get("/_ssr/nothing", &site).status, 404);
    drop(s);

    // With an admin listener, the public one is the tenants' alone.
    let s = Server::start(&["--demo=false", "--admin-listen", "127.0.0.1:0"]);
    let admin = admin_addr(&s);
    let bytes = std::fs::read(crate::support::plugin(echo).plugin).unwrap();
    let auth = format!("Bearer {}", s.token);
    let r = Server::agent()
        .put(format!(
            "http://{admin}/_ssr/admin/tenants/site?host=site.test"
        ))
        .header("Authorization", &auth)
        .send(&bytes[..])
        .unwrap();
    assert_eq!(r.status(), 201);
    for path in ["/_ssr/healthz", "/_ssr/metrics", "/_ssr/admin/tenants"] {
        assert!(rendered(&s.get(path, &site)), "{path} is the tenant's");
    }
    let status = |path: &str, auth: Option<&str>| {
        let mut req = Server::agent().get(format!("http://{admin}{path}"));
        if let Some(a) = auth {
            req = req.header("Authorization", a);
        }
        req.call().unwrap().status().as_u16()
    };
    assert_eq!(status("/_ssr/healthz", None), 200);
    assert_eq!(status("/_ssr/metrics", None), 401);
    assert_eq!(status("/_ssr/metrics", Some(&auth)), 200);
}

#[test]
fn issue_15_path_routing_is_opt_in_and_the_renderer_gets_its_base_and_absolute_url() {
    let links = "tests/plugins/links.js";
    let s = Server::start(&["--demo=false"]);
    for (id, engine) in [("a", "wasm"), ("b", "v8")] {
        let query = format!("host={id}.test&engine={engine}");
        assert_eq!(s.add(id, links, &query).0, 201);
        // In memory, path routing is on: the renderer learns its base, and
        // the URL as received.
        let host = [("host", "dev.test:8080")];
        let r = s.get(&format!("/t/{id}/page?x=1"), &host);
        let want = format!(
            r#"<a href="/t/{id}/next">next</a> <link rel="canonical" href="http://dev.test:8080/t/{id}/page?x=1"> url=/page?x=1"#
        );
        assert_eq!(r.text(), want, "{engine}");
        // By hostname, no base. The same tenant, Host and path under /t/
        // are another cache entry: the links differ.
        let host = format!("{id}.test");
        let r = s.get("/page?x=1", &[("host", &host)]);
        assert_eq!(r.header("x-cache"), Some("miss"));
        let want = format!(
            r#"<a href="/next">next</a> <link rel="canonical" href="http://{id}.test/page?x=1"> url=/page?x=1"#
        );
        assert_eq!(r.text(), want, "{engine}");
        let r = s.get(&format!("/t/{id}/page?x=1"), &[("host", &host)]);
        assert_eq!(r.header("x-cache"), Some("miss"));
        assert!(r.text().contains(&format!("/t/{id}/next")), "{engine}");
    }
    drop(s);

    // Off by default with a data dir (and when asked): /t/ is a path of the
    // host-routed tenant like any other, so tenants never share an origin.
    let dir = tempdir("path-routing");
    let data = dir.to_str().unwrap();
    for args in [&["--data-dir", data][..], &["--path-routing=false"][..]] {
        let s = Server::start(&[&["--demo=false"], args].concat());
        assert_eq!(s.add("a", links, "host=a.test").0, 201);
        assert_eq!(s.get("/t/a/page", &[]).status, 404, "{args:?}");
        let r = s.get("/t/a/page", &[("host", "a.test")]);
        assert!(r.text().ends_with("url=/t/a/page"), "{}", r.text());
    }
}
