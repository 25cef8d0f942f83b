//! Apps built for Cloudflare Workers (issue 33), over real HTTP on both
//! engines: the `cloudflare:workers` module and the `WorkerEntrypoint`
//! class form of a handler.

use ssr::engine::Engines;

use std::path::PathBuf;
use std::time::Duration;

use crate::support::{Client, InProcess, root, ssr, text};

const WORKERS: &str = "tests/plugins/workers.js";

/// The plugin built from [`WORKERS`], once per run. It imports a module,
/// so it is bundled: with the esbuild of `plugins/` (found above the
/// working directory), as an app's own would be.
fn plugin() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let out = root().join("target/test-plugins/workers.wasm");
            let built = ssr()
                .arg("build")
                .arg(root().join(WORKERS))
                .arg("-o")
                .arg(&out)
                .current_dir(root().join("plugins"))
                .output()
                .unwrap();
            assert!(built.status.success(), "{}", text(&built.stderr));
            out
        })
        .clone()
}

/// What `tests/plugins/workers.js` answers when its `env` holds `keys` and
/// `GREETING` is `greeting`.
fn expected(keys: &[&str], greeting: &str) -> String {
    let keys: Vec<String> = keys.iter().map(|k| format!("\"{k}\"")).collect();
    format!(
        concat!(
            r#"{{"path":"/x","atTopLevel":[],"settled":"at build time","live":"{g}","keys":[{k}],"has":true,"mine":"{g}","#,
            r#""ctx":"function","waitUntil":"function","written":"TypeError","#,
            r#""durable":"made"}}"#
        ),
        g = greeting,
        k = keys.join(",")
    )
}

#[test]
fn cloudflare_workers_gives_a_live_env_and_a_worker_entrypoint_class_handles_requests() {
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("w-{engine}");
        let bytes = std::fs::read(plugin()).unwrap();
        let (status, body) = s.put_bytes(&id, &bytes, &format!("engine={engine}&var=GREETING=hi"));
        assert_eq!(status, 201, "{body}");
        let page = s.get(&format!("/t/{id}/x"), &[]);
        assert_eq!(page.status, 200, "{engine}: {}", page.text());
        assert_eq!(page.text(), expected(&["GREETING"], "hi"), "{engine}");
        // A var changed, and a secret added: the next request sees both.
        let vars = format!("/_ssr/admin/tenants/{id}/vars/GREETING");
        assert_eq!(s.admin_with("PUT", &vars, b"hello").0, 200);
        let secret = format!("/_ssr/admin/tenants/{id}/secrets/TOKEN");
        assert_eq!(s.admin_with("PUT", &secret, b"s3cr3t-value").0, 204);
        let page = s.get(&format!("/t/{id}/x"), &[]);
        assert_eq!(
            page.text(),
            expected(&["GREETING", "TOKEN"], "hello"),
            "{engine}"
        );
    }
}

#[test]
fn ssr_render_runs_a_worker_entrypoint_with_its_vars() {
    let plugin = plugin();
    for engine in Engines::KINDS {
        let out = ssr()
            .arg("render")
            .arg(&plugin)
            .args(["/x", "--engine", engine.as_str(), "--var", "GREETING=hi"])
            .output()
            .unwrap();
        assert_eq!(
            text(&out.stdout),
            expected(&["GREETING"], "hi"),
            "{engine}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn abort_controllers_events_and_dom_exceptions_behave_as_in_node() {
    crate::support::assert_same_as_node("tests/plugins/abort.js", "/", &[]);
    // Where the DOM standard is newer than Node 20: AbortSignal.any.
    let built = crate::support::plugin("tests/plugins/abort.js");
    for &engine in Engines::KINDS {
        let out = crate::support::render_on(engine, &built.plugin, "/?only=any", &[]);
        assert_eq!(
            text(&out.stdout),
            r#"[["root sees second aborted: true","first","second"],"why"]"#,
            "{engine}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_fetch_whose_signal_aborts_rejects_with_its_reason_on_both_engines() {
    let api = crate::fetch::Origin::start();
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("a-{engine}");
        let query = format!("engine={engine}&allow_fetch={}", api.origin());
        let (status, body) = s.add(&id, "tests/plugins/fetcher.js", &query);
        assert_eq!(status, 201, "{body}");
        // The origin answers after 3 s; the signal gives up after 200 ms.
        let started = std::time::Instant::now();
        let page = s.get(
            &format!("/t/{id}/abort?ms=200&url={}", api.url("/slow")),
            &[],
        );
        assert_eq!(
            page.text(),
            "TimeoutError: The operation was aborted due to timeout",
            "{engine}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{engine}"
        );
    }
}

/// A fetch given up through its signal before its response came, and a
/// body cancelled while it still arrives, each close their connection at
/// once, while the render goes on (waiting 3 s on another path).
#[test]
fn an_aborted_fetch_closes_its_connection_at_once_while_the_render_goes_on() {
    use std::sync::atomic::Ordering;
    let api = crate::fetch::Origin::start();
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("h-{engine}");
        let query = format!("engine={engine}&allow_fetch={}", api.origin());
        assert_eq!(s.add(&id, "tests/plugins/fetcher.js", &query).0, 201);
        for (route, held, said) in [
            (
                "abort?ms=200&",
                "/hold",
                "TimeoutError: The operation was aborted due to timeout",
            ),
            ("cancel?", "/drip-hold", "first; then slow"),
        ] {
            let before = crate::fetch::HELD_CLOSED.load(Ordering::SeqCst);
            let path = format!(
                "/t/{id}/{route}url={}&then={}",
                api.url(held),
                api.url("/slow")
            );
            std::thread::scope(|scope| {
                let page = scope.spawn(|| s.get(&path, &[]));
                // The held connection closes long before the render ends.
                assert!(
                    crate::support::within(Duration::from_millis(1500), || {
                        crate::fetch::HELD_CLOSED.load(Ordering::SeqCst) > before
                    }),
                    "{engine} {route}: the request's connection is still open"
                );
                assert!(!page.is_finished(), "{engine} {route}");
                assert_eq!(page.join().unwrap().text(), said, "{engine} {route}");
            });
        }
    }
}

/// Issue 33, item 4: the incoming request's `signal` aborts when its client
/// goes away before the response is complete; a fetch made with it is
/// aborted (its connection closed), and the render goes on to run what
/// follows.
#[test]
fn request_signal_aborts_when_the_client_goes_away() {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    let api = crate::fetch::Origin::start();
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("l-{engine}");
        let query = format!("engine={engine}&allow_fetch={}", api.origin());
        assert_eq!(s.add(&id, "tests/plugins/fetcher.js", &query).0, 201);
        let (closed, marked) = (
            crate::fetch::HELD_CLOSED.load(Ordering::SeqCst),
            crate::fetch::MARKED.load(Ordering::SeqCst),
        );
        let path = format!(
            "/t/{id}/leave?url={}&then={}",
            api.url("/hold"),
            api.url("/mark")
        );
        let mut client = std::net::TcpStream::connect(s.addr()).unwrap();
        write!(client, "GET {path} HTTP/1.1\r\nhost: localhost\r\n\r\n").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        // While the client waits, the render waits on `/hold`.
        assert_eq!(
            crate::fetch::HELD_CLOSED.load(Ordering::SeqCst),
            closed,
            "{engine}"
        );
        drop(client);
        let aborted = crate::support::within(Duration::from_secs(5), || {
            crate::fetch::HELD_CLOSED.load(Ordering::SeqCst) > closed
                && crate::fetch::MARKED.load(Ordering::SeqCst) > marked
        });
        assert!(
            aborted,
            "{engine}: the signal did not abort, or the render did not go on"
        );
    }
}

/// `navigator.sendBeacon` as on `workerd`: true at once, and a POST of its
/// body through the tenant's `fetch` grant, as the request's `waitUntil`
/// work, on both engines.
#[test]
fn a_beacon_is_posted_after_the_response_through_the_fetch_grant() {
    let api = crate::fetch::Origin::start();
    let s = crate::support::Server::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("b-{engine}");
        let query = format!("engine={engine}&allow_fetch={}", api.origin());
        assert_eq!(s.add(&id, "tests/plugins/fetcher.js", &query).0, 201);
        let path = format!(
            "/t/{id}/beacon?url={}&body=ping-{engine}",
            api.url("/beacon")
        );
        let page = s.get(&path, &[]);
        assert_eq!(
            (page.status, page.text().as_str()),
            (200, "true"),
            "{engine}"
        );
        let sent = format!("POST ping-{engine}");
        assert!(
            crate::support::within(Duration::from_secs(8), || {
                crate::fetch::BEACONS.lock().unwrap().contains(&sent)
            }),
            "{engine}: no beacon: {:?}",
            crate::fetch::BEACONS.lock().unwrap()
        );
    }
}

#[test]
fn wait_until_work_runs_after_the_response_and_its_failures_are_logged_and_counted() {
    use std::sync::atomic::Ordering;
    let api = crate::fetch::Origin::start();
    let s = crate::support::Server::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("u-{engine}");
        let query = format!("engine={engine}&allow_fetch={}", api.origin());
        assert_eq!(s.add(&id, "tests/plugins/fetcher.js", &query).0, 201);
        let before = crate::fetch::MARKED.load(Ordering::SeqCst);
        // The work waits 3 s on `/slow`, then marks; the page comes first.
        let started = std::time::Instant::now();
        let page = s.get(
            &format!(
                "/t/{id}/after?url={}&then={}",
                api.url("/slow"),
                api.url("/mark")
            ),
            &[],
        );
        assert_eq!(
            (page.status, page.text().as_str()),
            (200, "answered before the work"),
            "{engine}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{engine}");
        assert_eq!(crate::fetch::MARKED.load(Ordering::SeqCst), before);
        assert!(
            crate::support::within(Duration::from_secs(8), || {
                crate::fetch::MARKED.load(Ordering::SeqCst) > before
            }),
            "{engine}: the work never ran"
        );
        // The mark arrives while the work is still running: its outcome is
        // counted when it settles, a moment later.
        for outcome in ["ok", "failed"] {
            let series = format!("ssr_wait_until_total{{tenant=\"{id}\",outcome=\"{outcome}\"}}");
            let counted =
                crate::support::within(Duration::from_secs(5), || s.metric(&series) >= 1.0);
            assert!(counted, "{engine}: {series} never counted");
            assert_eq!(s.metric(&series), 1.0, "{engine}: {series}");
        }
        assert!(s.log_contains("ctx.waitUntil() work failed: Error: the work failed on purpose"));
    }
}

#[test]
fn wait_until_work_that_can_never_end_is_ended_and_logged_and_the_tenant_goes_on() {
    let api = crate::fetch::Origin::start();
    let s = crate::support::Server::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("n-{engine}");
        let query = format!("engine={engine}&allow_fetch={}", api.origin());
        assert_eq!(s.add(&id, "tests/plugins/fetcher.js", &query).0, 201);
        let page = s.get(&format!("/t/{id}/forever"), &[]);
        assert_eq!((page.status, page.text().as_str()), (200, "answered"));
        assert!(s.log_contains("never settle"), "{engine}");
        let next = s.get(&format!("/t/{id}/get?url={}", api.url("/data.json")), &[]);
        assert_eq!(next.status, 200, "{engine}: {}", next.text());
        s.log.lock().unwrap().clear();
    }
}

#[test]
fn crypto_subtle_gives_what_node_gives_for_every_algorithm_on_both_engines() {
    crate::support::assert_same_as_node("tests/plugins/subtle.js", "/", &[]);
}

#[test]
fn crypto_subtle_aes_ctr_kw_rsa_oaep_ecdh_x25519_p521_and_key_wrapping_give_what_node_gives_on_both_engines()
 {
    crate::support::assert_same_as_node("tests/plugins/subtle-more.js", "/", &[]);
}

#[test]
fn crypto_subtle_ed448_and_x448_give_what_node_gives_on_both_engines() {
    crate::support::assert_same_as_node("tests/plugins/subtle-448.js", "/", &[]);
}

#[test]
fn crypto_subtle_sha3_cshake_kmac_aes_ocb_and_chacha20_poly1305_give_openssls_and_nists_answers_on_both_engines()
 {
    let reference = std::process::Command::new("node")
        .arg(root().join("tests/plugins/subtle-drafts.node.mjs"))
        .output()
        .expect("running node");
    assert!(reference.status.success(), "{}", text(&reference.stderr));
    let expected: serde_json::Value = serde_json::from_slice(&reference.stdout).unwrap();
    let built = crate::support::plugin("tests/plugins/subtle-drafts.js");
    for &engine in Engines::KINDS {
        let out = crate::support::render_on(engine, &built.plugin, "/", &[]);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for (section, want) in expected.as_object().unwrap() {
            for (case, want) in want.as_object().unwrap() {
                assert_eq!(&got[section][case], want, "{engine}: {section} {case}");
            }
        }
    }
}

#[test]
fn crypto_subtle_refuses_bad_input_by_its_spec_name_and_says_what_is_wrong() {
    let built = crate::support::plugin("tests/plugins/subtle-edges.js");
    for &engine in Engines::KINDS {
        let out = crate::support::render_on(engine, &built.plugin, "/", &[]);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let says = |key: &str, start: &str| {
            let got = v[key].as_str().unwrap_or_default();
            assert!(got.starts_with(start), "{engine} {key}: {got}");
        };
        says(
            "atTopLevel",
            "TypeError: generateKey: a key made at the top level, which runs at build time",
        );
        assert_eq!((&v["equal"], &v["unequal"]), (&true.into(), &false.into()));
        says(
            "lengths",
            "TypeError: timingSafeEqual: the two buffers must have the same length",
        );
        assert_eq!(v["generated"], 512, "{engine}");
        says(
            "badJwk",
            "DataError: the jwk key data is not a valid RSA-PSS key: the JWK has no \"e\"",
        );
        says("badBase64", "DataError: the JWK's \"k\" is not base64url");
        says(
            "badDer",
            "DataError: the spki key data is not a valid ECDSA key: ",
        );
        says(
            "curve",
            "NotSupportedError: importKey: the curve \"P-192\" is not supported (P-256, P-384, P-521)",
        );
        says(
            "iterations",
            "OperationError: iterations must be 1 to 1000000, not 5000000",
        );
        says(
            "tag",
            "OperationError: AES-GCM's tagLength is 32, 64, 96, 104, 112, 120 or 128, not 100",
        );
        says(
            "iv",
            "NotSupportedError: AES-GCM takes an iv of 12, 16 or 32 bytes here, not 8",
        );
        says(
            "label",
            "NotSupportedError: RSA-OAEP takes a label of UTF-8 text here",
        );
        // issue 34: before, the host searched for its primes forever,
        // holding a worker thread that no limit could stop.
        says(
            "evenExponent",
            "OperationError: an RSA key's publicExponent is 3 or 65537",
        );
    }
}

#[test]
fn caches_keep_what_the_workers_cache_api_keeps_per_tenant_by_the_page_cache_rules() {
    let s = InProcess::start(&["--demo=false", "--path-routing", "--cache-entry-kib", "64"]);
    for engine in Engines::KINDS {
        let (a, b) = (format!("c-{engine}"), format!("d-{engine}"));
        for id in [&a, &b] {
            let (status, body) = s.add(id, "tests/plugins/caches.js", &format!("engine={engine}"));
            assert_eq!(status, 201, "{body}");
        }
        let call = |id: &str, query: &str| s.get(&format!("/t/{id}/?{query}"), &[]).text();
        // Read at the top level, at build time.
        assert_eq!(call(&a, ""), "\"function\"", "{engine}");
        assert_eq!(call(&a, "op=match&key=one"), "\"miss\"", "{engine}");
        assert_eq!(call(&a, "op=put&key=one"), "\"put\"", "{engine}");
        assert_eq!(
            call(&a, "op=match&key=one"),
            r#"[200,"value of one","kept","HIT"]"#,
            "{engine}"
        );
        // Another tenant, and another cache of the same tenant, see nothing.
        assert_eq!(call(&b, "op=match&key=one"), "\"miss\"", "{engine}");
        assert_eq!(
            call(&a, "op=match&key=one&cache=other"),
            "\"miss\"",
            "{engine}"
        );
        // Never kept: a cookie, no-store, private.
        for query in ["cookie=1", "cc=no-store", "cc=private,max-age=60"] {
            assert_eq!(call(&a, &format!("op=put&key=no&{query}")), "\"put\"");
            assert_eq!(call(&a, "op=match&key=no"), "\"miss\"", "{engine} {query}");
        }
        // A varying response is found only with the same header values.
        assert_eq!(
            call(&a, "op=put&key=v&vary=accept-language&lang=fr"),
            "\"put\""
        );
        assert_eq!(
            call(&a, "op=match&key=v&lang=fr"),
            r#"[200,"value of v","kept","HIT"]"#
        );
        assert_eq!(call(&a, "op=match&key=v&lang=en"), "\"miss\"", "{engine}");
        // Refused with the Workers API's errors.
        for (query, says) in [
            (
                "method=POST",
                "TypeError: cache.put: only a response to a GET request",
            ),
            (
                "status=206",
                "TypeError: cache.put: a partial response (206)",
            ),
            ("vary=*", "TypeError: cache.put: a response with Vary: *"),
            (
                "size=100000",
                "TypeError: cache.put: the response's body is 100000 bytes, over the cache's entry limit of 65536 bytes",
            ),
        ] {
            let out = call(&a, &format!("op=put&key=bad&{query}"));
            assert!(
                out.starts_with(&format!("\"{says}")),
                "{engine} {query}: {out}"
            );
        }
        // Deleted once; a purge of the tenant empties it too.
        assert_eq!(call(&a, "op=delete&key=one"), "true", "{engine}");
        assert_eq!(call(&a, "op=delete&key=one"), "false", "{engine}");
        assert_eq!(call(&a, "op=match&key=one"), "\"miss\"", "{engine}");
        assert_eq!(call(&a, "op=put&key=two"), "\"put\"");
        let purge = s.admin("POST", &format!("/_ssr/admin/tenants/{a}/purge"));
        assert_eq!(purge.0, 200, "{}", purge.1);
        assert_eq!(call(&a, "op=match&key=two"), "\"miss\"", "{engine}");
    }
}

/// Workers' `request.cf` and `response.cf` (`tests/plugins/request-cf.js`):
/// an object on the incoming request, and what `init.cf` gives, copied,
/// checked and mutable, as `workerd` answers.
#[test]
fn request_and_response_cf_answer_as_on_workerd_on_both_engines() {
    // workerd 2026-11-17's answer to the same module.
    let workerd = "incoming: object undefined\n\
                   made: {\"cacheTtl\":5,\"country\":\"NZ\"} true proto\n\
                   copied: {\"cacheTtl\":5,\"country\":\"NZ\"} false\n\
                   plain: undefined undefined\n\
                   refused: TypeError Incorrect type for the 'cf' field on 'RequestInitializerDict': the provided value is not of type 'Object'.\n\
                   response: {\"a\":1}\n\
                   mutable: AU";
    crate::node_modules::renders_as_workerd("request-cf", workerd);
}

/// Modules that are not JavaScript import by wrangler's rules: Text and
/// Data by its defaults (`.sql`, `.html`, `.bin`) and by the app's own
/// (`.md`), a Data module as an `ArrayBuffer`. The answer is `workerd`'s
/// for the same modules (checked 2026-11-17 with `text`/`data` modules).
#[test]
fn text_and_data_modules_import_by_wranglers_rules_on_both_engines() {
    let index = "import sql from './schema.sql';\n\
        import page from './page.html';\n\
        import notes from './notes.md';\n\
        import data from './blob.bin';\n\
        export default { fetch() {\n\
          return new Response(JSON.stringify({ sql, page, notes, data: [Object.prototype.toString.call(data), data.byteLength, [...new Uint8Array(data)]] }));\n\
        } };\n";
    let files = |rules: &'static str| {
        [
            ("wrangler.jsonc", rules),
            ("index.js", index),
            ("schema.sql", "create table t (id integer);\n"),
            ("page.html", "<p>hi</p>\n"),
            ("notes.md", "# Notes\n"),
            ("blob.bin", "\u{0}\u{1}é"),
        ]
    };
    let (plugin, out) = crate::node_modules::build_app(
        "module-rules",
        &files(
            r#"{ "name": "rules", "main": "index.js", "compatibility_date": "2026-11-01",
                 "rules": [{ "type": "Text", "globs": ["**/*.md"], "fallthrough": true }] }"#,
        ),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for &engine in Engines::KINDS {
        let out = crate::support::render_on(engine, &plugin, "/", &[]);
        assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            r##"{"sql":"create table t (id integer);\n","page":"<p>hi</p>\n","notes":"# Notes\n","data":["[object ArrayBuffer]",4,[0,1,195,169]]}"##,
            "{engine}"
        );
    }
    // Without `fallthrough`, the app's Text rule replaces the default one,
    // as in wrangler: `.sql` and `.html` have no rule, and the error says
    // what to add for each.
    let (_, out) = crate::node_modules::build_app(
        "module-rules-replaced",
        &files(
            r#"{ "name": "rules", "main": "index.js",
                 "rules": [{ "type": "Text", "globs": ["**/*.md"] }] }"#,
        ),
    );
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        ["html", "sql"].iter().all(|e| {
            err.contains(&format!("imports a .{e} file, and no module rule says how"))
                && err.contains(&format!(r#"{{ "type": "Text", "globs": ["**/*.{e}"] }}"#))
        }),
        "{err}"
    );
    // A WebAssembly module is refused with the reason.
    let (_, out) = crate::node_modules::build_app(
        "module-rules-wasm",
        &[
            (
                "wrangler.jsonc",
                r#"{ "name": "wasm", "main": "index.js" }"#,
            ),
            (
                "index.js",
                "import add from './add.wasm';\nexport default { fetch() { return new Response(String(add)); } };\n",
            ),
            ("add.wasm", "\u{0}asm\u{1}\u{0}\u{0}\u{0}"),
        ],
    );
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("imports a WebAssembly module (a .wasm file")
            && err.contains("ssr runs no WebAssembly a site brings"),
        "{err}"
    );
}

/// Workers' byte streams, `IdentityTransformStream` and `FixedLengthStream`
/// (`wit/prelude/19_workers_streams.js`): what each side gives, when a write
/// resolves, the length's checks and their errors, as `workerd` answers
/// them (2026-11-17) on both engines.
#[test]
fn identity_and_fixed_length_streams_answer_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "workers-streams",
        r##"{
 "classes": [
  true,
  true,
  true,
  0,
  0
 ],
 "bytes, views and text": [
  1,
  2,
  3,
  2,
  1,
  9,
  8,
  7,
  6,
  104,
  195,
  169
 ],
 "a write waits for its read": [
  "pending",
  [
   "ok",
   {
    "done": false,
    "value": [
     1
    ]
   }
  ],
  [
   "ok",
   null
  ],
  "pending"
 ],
 "a byob read": [
  [
   "ok",
   {
    "done": false,
    "value": [
     1,
     2
    ]
   }
  ],
  [
   "ok",
   {
    "done": false,
    "value": [
     3,
     4,
     5
    ]
   }
  ]
 ],
 "the high-water mark": [
  4,
  1,
  1
 ],
 "not bytes": [
  [
   "rejected",
   "TypeError: This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side."
  ]
 ],
 "exactly the length": [
  [
   "ok",
   {
    "done": false,
    "value": [
     1,
     2,
     3
    ]
   }
  ],
  [
   "ok",
   {
    "done": true
   }
  ],
  [
   "ok",
   null
  ],
  [
   "ok",
   null
  ]
 ],
 "too many": [
  [
   "ok",
   {
    "done": false,
    "value": [
     1,
     2
    ]
   }
  ],
  [
   "rejected",
   "TypeError: Attempt to write too many bytes through a FixedLengthStream."
  ],
  [
   "ok",
   null
  ],
  [
   "ok",
   null
  ]
 ],
 "too few": [
  [
   "ok",
   {
    "done": false,
    "value": [
     1
    ]
   }
  ],
  [
   "rejected",
   "TypeError: FixedLengthStream did not see all expected bytes before close()."
  ],
  [
   "ok",
   null
  ]
 ],
 "canceled": [
  [
   "ok",
   null
  ],
  [
   "rejected",
   "Error: why"
  ],
  [
   "rejected",
   "Error: why"
  ]
 ],
 "aborted": [
  [
   "ok",
   null
  ],
  [
   "rejected",
   "Error: boom"
  ]
 ],
 "length negative": "threw TypeError: The value cannot be converted because it is negative and this API expects a positive bigint.",
 "length not an integer": "made",
 "length text": "threw TypeError: The value cannot be converted because it is not an integer.",
 "length none": "threw TypeError: The value cannot be converted because it is not an integer.",
 "a response body": [
  [],
  "AB"
 ]
}"##,
    );
}

/// The event classes `workerd` has beyond `Event` and `ErrorEvent`
/// (`CustomEvent`, `MessageEvent`, `CloseEvent`, and those only the
/// runtime makes), `reportError` and the global `origin`, as `workerd`
/// answers them (2026-11-17) on both engines.
#[test]
fn event_classes_report_error_and_origin_answer_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "event-classes",
        r##"{
 "origin": [
  "string",
  "null"
 ],
 "CustomEvent": [
  "x",
  {
   "a": 1
  },
  true,
  true,
  "[object CustomEvent]",
  0,
  null
 ],
 "CustomEvent dispatched": [
  "ping",
  42,
  true
 ],
 "CustomEvent without a type": "threw TypeError: Failed to construct 'CustomEvent': constructor parameter 1 is not of type 'string'.",
 "MessageEvent": [
  "message",
  {
   "n": 5
  },
  "https://a.example",
  "7",
  null,
  [],
  0,
  true
 ],
 "MessageEvent defaults": [
  null,
  "",
  "",
  null,
  []
 ],
 "CloseEvent": [
  "close",
  1001,
  "away",
  true,
  0,
  "",
  false
 ],
 "PromiseRejectionEvent": "threw TypeError: Illegal constructor",
 "ExtendableEvent": "threw TypeError: Illegal constructor",
 "FetchEvent": "threw TypeError: Illegal constructor",
 "ScheduledEvent": "threw TypeError: Illegal constructor",
 "TailEvent": "threw TypeError: Illegal constructor",
 "TraceEvent": "threw TypeError: Illegal constructor",
 "runtime events extend ExtendableEvent": [
  true,
  true
 ],
 "reportError": [
  true,
  [
   "ErrorEvent",
   "Uncaught Error: boom",
   "boom"
  ],
  0
 ]
}"##,
    );
}

/// `EventSource` as `workerd` has it: streams through a `fetcher` parsed
/// (multi-line data, comments, unknown fields, CR, LF and CR LF, a
/// byte-order mark, a character split between chunks), ids kept and
/// reset, typed events, a reconnection that sends `Last-Event-ID` after
/// the stream's `retry:`, each refusal (a status, a content type, no body
/// twice, a bad URL, credentials, a locked stream) in `workerd`'s words,
/// `EventSource.from`, and `on<type>` properties on any `EventTarget`;
/// compared with `workerd`'s answer on both engines.
#[test]
fn event_source_reads_event_streams_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "event-source",
        r#"{"headers":[["state",0,"http://example.org/headers"],["open","open",1],["message","text/event-stream|no-cache|null","","http://example.org",true],["closed",2]],"reconnect":[["state",0,"http://example.org/reconnect"],["open","open",1],["message","first","7","http://example.org",true],["error",0,true,["Error","The server disconnected."]],["open","open",1],["message","again 7","7","http://example.org",true],["closed",2]],"ids":[["state",0,"http://example.org/ids"],["open","open",1],["message","a","1","http://example.org",true],["message","b","1","http://example.org",true],["message","c","","http://example.org",true],["message","d","2","http://example.org",true],["message","e","","http://example.org",true],["closed",2]],"parse":[["state",0,"http://example.org/parse"],["open","open",1],["message","one\ntwo","","http://example.org",true],["message"," two spaces\ntail","","http://example.org",true],["message","end","","http://example.org",true],["closed",2]],"typed":[["state",0,"http://example.org/typed"],["open","open",1],["test","first","","http://example.org",true],["other","second","","http://example.org",true],["message","plain","","http://example.org",true],["closed",2]],"status":[["state",0,"http://example.org/status"],["error",2,true,["AbortError","The response status code was 500."]],["closed",2]],"type":[["state",0,"http://example.org/type"],["error",2,true,["AbortError","The content type 'text/plain' is invalid."]],["closed",2]],"untyped":[["state",0,"http://example.org/untyped"],["error",2,true,["AbortError","The content type 'text/plain;charset=UTF-8' is invalid."]],["closed",2]],"empty":[["state",0,"http://example.org/empty"],["error",0,true,["Error","The server provided no content. Will try reconnecting."]],["error",2,true,["Error","The server provided no content."]],["closed",2]],"closedAtOnce":[2,[]],"from":[["state",1,""],["after bom",""],["split\nx",""],["é","3"],["é","3"],["error",2,["Error","The server disconnected."]]],"refused":[["SyntaxError","Cannot open an EventSource to 'not a valid url'. The URL is invalid."],["SyntaxError","Cannot open an EventSource to '123'. The URL is invalid."],["NotSupportedError","The init.withCredentials option is not supported. It must be false or undefined."],"returned",["TypeError","Failed to execute 'from' on 'EventSource': parameter 1 is not of type 'JsReadableStream'."],["TypeError","This ReadableStream is locked."]],"dispose":[1,2],"shape":{"constants":[0,1,2,2],"proto":[true,true,true,true,true,true,true],"inherits":true,"tag":"[object EventSource]","handlers":[null,null,false]},"onProperties":["onping ping","listener","onabort"]}"#,
    );
}

/// `HTMLRewriter` as Workers have it, on the parser `workerd` runs
/// (`lol_html`): every handler kind (elements by selector, comments, text,
/// the doctype, end tags, the document's end) and every change a handler
/// makes, async handlers and content read from a stream or response,
/// selectors and names refused in `workerd`'s words, a handler's error
/// ending the body, a large body through two rewriters; compared with
/// `workerd`'s answer on both engines.
#[test]
fn html_rewriter_rewrites_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "html-rewriter",
        r#"{"transforms":{"status":[203,"yes","526","text/html; charset=utf-8"],"body":"<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n<html><head><title>T &amp; t</title></head>\n<body class=\"b\">\n<i>before</i><div id=\"a\" class=\"z\" data-new=\"n<&quot;&>\">[pre]one <b>two</b> three<u>app</u></div>&lt;after &amp; text&gt;\n<p class=\"keep\">para<!-- changed --><after-comment></p>\n<ul><LI-X>1</LI-X><li class=\"odd\"><b>two</b></li><LI-X>3</LI-X></ul>\n<a href=\"https://example.com/x.PNG\">link</a><picture></picture><br/>\n<svg><circle r=\"1\"/></svg>\nkept<article>old!</article><hr>\n</body></html><!-- appended -->","seen":[["html",[],"http://www.w3.org/1999/xhtml",false],["head",[],"http://www.w3.org/1999/xhtml",false],["title",[],"http://www.w3.org/1999/xhtml",false],["body",[["class","b"]],"http://www.w3.org/1999/xhtml",false],["div",[["id","a"],["class","x y"],["data-k","v"]],"http://www.w3.org/1999/xhtml",false],["b",[],"http://www.w3.org/1999/xhtml",false],["p",[["class","keep"]],"http://www.w3.org/1999/xhtml",false],["ul",[],"http://www.w3.org/1999/xhtml",false],["li",[],"http://www.w3.org/1999/xhtml",false],["li",[["class","odd"]],"http://www.w3.org/1999/xhtml",false],["li",[],"http://www.w3.org/1999/xhtml",false],["a",[["href","http://example.com/x.PNG"]],"http://www.w3.org/1999/xhtml",false],["img",[["src","i.png"]],"http://www.w3.org/1999/xhtml",false],["br",[],"http://www.w3.org/1999/xhtml",false],["svg",[],"http://www.w3.org/2000/svg",false],["circle",[["r","1"]],"http://www.w3.org/2000/svg",false],["span",[["data-remove",""]],"http://www.w3.org/1999/xhtml",false],["em",[["data-unwrap",""]],"http://www.w3.org/1999/xhtml",false],["section",[],"http://www.w3.org/1999/xhtml",false]],"kept":["z",false,null,[["id","a"],["class","z"],["data-new","n<\"&>"]]],"texts":"one |false|truetwo|false|true three|false|true","comments":[[" inner ",false]],"doctype":["html","-//W3C//DTD XHTML 1.0 Strict//EN","http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"]},"async":{"body":"<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n<html><head><title>T &amp; t</title><!-- head note --></head>\n<body class=\"b\">\n<div id=\"a\" class=\"x y\" data-k=\"v\">one <b>two</b> three</div>\n<p class=\"keep\">para<!-- inner --><s>streamed</s> then</p>\n<ul><li data-later=\"yes\">1</li><li class=\"odd\" data-later=\"yes\">2</li><li data-later=\"yes\">3</li></ul>\n<a href=\"http://example.com/x.PNG\">link</a><img src=\"i.png\"><br/>\n<svg><circle r=\"1\"/></svg>\n<span data-remove>gone</span><em data-unwrap>kept</em><section>from a stream</section>\n</body></html>","order":["start null","end","start odd","end","start null","end"]},"gone":[["TypeError","This content token is no longer valid. Content tokens are only valid during the execution of the relevant content handler."],["TypeError","This content token is no longer valid. Content tokens are only valid during the execution of the relevant content handler."]],"errors":{"selectors":[["TypeError","Parser error: Unsupported pseudo-class or pseudo-element in selector."],["TypeError","Parser error: The selector is empty."],["TypeError","Parser error: Dangling combinator in selector."],["TypeError","Parser error: Unexpected end of selector."],["TypeError","Parser error: Selectors with explicit namespaces are not supported."],["returned","ok"],["TypeError","Parser error: The selector is empty."],["TypeError","Parser error: Unsupported pseudo-class or pseudo-element in selector."],["returned","ok"],["returned","ok"],["returned","ok"],["TypeError","Parser error: Unsupported combinator `~` in selector."],["TypeError","Parser error: Unsupported combinator `+` in selector."]],"transform":[["TypeError","Failed to execute 'transform' on 'HTMLRewriter': parameter 1 is not of type 'Response'."],["TypeError","HTMLRewriter cannot transform an error response"]],"nullBody":true,"badName":[["TypeError","Parser error: ` ` character is forbidden in the attribute name"],["TypeError","Parser error: Tag name can't be empty."],["TypeError","Parser error: ` ` character is forbidden in the tag name"],["TypeError","Replacing content in HTML comments using a ReadableStream or Response object is not implemented. You must provide a string."],["TypeError","Parser error: Comment text shouldn't contain a comment-closing sequence."]],"thrown":["RangeError","from the handler"],"rejected":["Error","async boom"],"voidEndTag":[["TypeError","Parser error: No end tag."]]},"streaming":{"links":600,"length":42356,"hash":1318633404,"head":"<p  id=\"p0\">paragraph 0 .<a href=\"/0\" rel=\"nofollow\">link.</a></p><p id=\"p1\">paragraph 1 .<a href=\"/1\" rel=\"nofollow\">li"},"shape":{"type":"function","chain":true,"tag":"[object HTMLRewriter]","proto":["constructor","on","onDocument","transform"],"globals":["undefined","undefined","undefined","undefined","undefined","undefined"]}}"#,
    );
}

/// A rewritten page as the server sends it, on both engines: its status
/// and headers kept but for a length the rewriting made wrong (sent
/// chunked, as `workerd` sends it), its body rewritten as it streams, an
/// async handler awaited mid-document.
#[test]
fn a_rewritten_response_is_served_streamed_with_its_headers_on_both_engines() {
    let s = InProcess::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("rw-{engine}");
        assert_eq!(
            s.add(
                &id,
                "tests/plugins/html-rewriter.js",
                &format!("engine={engine}")
            )
            .0,
            201
        );
        let page = s.get(&format!("/t/{id}/served"), &[]);
        assert_eq!(page.status, 203, "{engine}");
        assert_eq!(page.header("x-kept"), Some("yes"), "{engine}");
        assert_eq!(page.header("content-length"), None, "{engine}");
        assert_eq!(
            page.text(),
            r#"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html><head><title>T &amp; t</title><!-- head note --></head>
<body class="b">
<div id="a" class="x y" data-k="v">one <b>two</b> three</div>
<p class="keep">para<!-- inner --></p>
<ul><li>1</li><li class="odd">2</li><li>3</li></ul>
<a href="http://example.com/x.PNG" rel="nofollow">link</a><b>added</b><img src="i.png"><br/>
<svg><circle r="1"/></svg>
<em data-unwrap>kept</em><section>old</section>
</body></html>"#,
            "{engine}"
        );
    }
}

/// `URLPattern` as Workers have it: patterns from strings (with a base)
/// and inits, one made at a module's top level, their components,
/// `test` and `exec` with named, numbered, optional, repeated and
/// wildcard groups, `ignoreCase`, inputs that are no URL, and what the
/// standard refuses; compared with `workerd`'s answer on both engines.
#[test]
fn url_pattern_matches_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "url-pattern",
        r#"{"patterns":[["returned",["https","*","*","example.com","","/books/:id","*","*",false]],["returned",["https","*","*","example.com","","/books/:id?","*","*",false]],["returned",["*","*","*","{*.}?example.com","*","/*","*","*",false]],["returned",["http{s}?","*","*","*","8080","*","*","*",false]],["TypeError"],["TypeError"],["TypeError"],["returned",["*","*","*","*","*","/Case/:v","*","*",false]],["returned",["https","user:pass","*","example.com","","/x","q=1","h",false]],["returned",["*","*","*","*","*","*","page=:n","top",false]],["returned",["*","*","*","*","*","*","*","*",false]],["returned",["*","*","*","*","*","*","*","*",false]],["returned",["*","*","*","*","","/*.png","*","*",false]],["returned",["https","*","*","api.example.com","","/api/v:version/*","*","*",false]]],"matches":[["returned",[true,{"inputs":["https://x.test/books/42"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"x.test","groups":{"0":"x.test"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/books/42","groups":{"id":"42"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[false,null]],["returned",[true,{"inputs":["/books/7","https://y.test"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"y.test","groups":{"0":"y.test"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/books/7","groups":{"id":"7"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":[{"pathname":"/books/9"}],"protocol":{"input":"","groups":{"0":""}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"","groups":{"0":""}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/books/9","groups":{"id":"9"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://example.com/books"],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"example.com","groups":{}},"port":{"input":"","groups":{}},"pathname":{"input":"/books","groups":{}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://example.com/books/1"],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"example.com","groups":{}},"port":{"input":"","groups":{}},"pathname":{"input":"/books/1","groups":{"id":"1"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://a.b.example.com/x"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"a.b.example.com","groups":{"0":"a.b"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/x","groups":{"0":"/x"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://example.com/"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"example.com","groups":{}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/","groups":{"0":"/"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[false,null]],["returned",[true,{"inputs":["https://h/files/a/b/c.txt"],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{}},"port":{"input":"","groups":{}},"pathname":{"input":"/files/a/b/c.txt","groups":{"path":"a/b/c.txt"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://h/a/b"],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{}},"port":{"input":"","groups":{}},"pathname":{"input":"/a/b","groups":{}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://h/a/1/2/b"],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{}},"port":{"input":"","groups":{}},"pathname":{"input":"/a/1/2/b","groups":{"x":"1/2"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://h/12/abc"],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{}},"port":{"input":"","groups":{}},"pathname":{"input":"/12/abc","groups":{"0":"12","name":"abc"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://h/cAsE/X"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{"0":"h"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/cAsE/X","groups":{"v":"X"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[false,null]],["returned",[true,{"inputs":["https://h/?page=3"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{"0":"h"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/","groups":{"0":"/"}},"search":{"input":"page=3","groups":{"n":"3"}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["ftp://h.test/img/a.png"],"protocol":{"input":"ftp","groups":{"0":"ftp"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h.test","groups":{"0":"h.test"}},"port":{"input":"","groups":{}},"pathname":{"input":"/img/a.png","groups":{"0":"img/a"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":[{"protocol":"https","hostname":"x"}],"protocol":{"input":"https","groups":{}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"x","groups":{"0":"x"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"","groups":{"0":""}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[true,{"inputs":["https://h/café/1"],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{"0":"h"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/caf%C3%A9/1","groups":{"x":"1"}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]],["returned",[false,null]],["returned",[true,{"inputs":[{"pathname":"/","baseURL":"https://h"}],"protocol":{"input":"https","groups":{"0":"https"}},"username":{"input":"","groups":{"0":""}},"password":{"input":"","groups":{"0":""}},"hostname":{"input":"h","groups":{"0":"h"}},"port":{"input":"","groups":{"0":""}},"pathname":{"input":"/","groups":{}},"search":{"input":"","groups":{"0":""}},"hash":{"input":"","groups":{"0":""}}}]]],"refused":[["TypeError"],["TypeError"],["TypeError"],["TypeError"],["TypeError"],["TypeError"],["TypeError"],["TypeError"]],"meta":{"type":"function","proto":["constructor","exec","hasRegExpGroups","hash","hostname","password","pathname","port","protocol","search","test","username"],"tag":"[object URLPattern]","inputs":["https://x.test/books/1"],"initInputs":[{"pathname":"/books/2"}]}}"#,
    );
}

/// `crypto`, `navigator`, `caches` and its caches, and the global object
/// (a `ServiceWorkerGlobalScope`), are instances of interface objects no
/// one else can make (`crypto instanceof Crypto`),
/// with their members on the prototype, and every global class is named
/// as its global (`Response.name`), as on `workerd`; compared with its
/// answer on both engines.
#[test]
fn singletons_are_instances_of_their_interface_objects_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "interfaces",
        r#"{"classes":{"Crypto":["function","Crypto",["TypeError","Illegal constructor"],"[object Crypto]"],"SubtleCrypto":["function","SubtleCrypto",["TypeError","Illegal constructor"],"[object SubtleCrypto]"],"CryptoKey":["function","CryptoKey",["TypeError","Illegal constructor"],"[object CryptoKey]"],"Navigator":["function","Navigator",["TypeError","Illegal constructor"],"[object Navigator]"],"CacheStorage":["function","CacheStorage",["TypeError","Illegal constructor"],"[object CacheStorage]"],"Cache":["function","Cache",["TypeError","Illegal constructor"],"[object Cache]"],"ServiceWorkerGlobalScope":["function","ServiceWorkerGlobalScope",["TypeError","Illegal constructor"],"[object ServiceWorkerGlobalScope]"],"WorkerGlobalScope":["function","WorkerGlobalScope",["TypeError","Illegal constructor"],"[object WorkerGlobalScope]"]},"called":[["TypeError","Illegal constructor"],["TypeError","Illegal constructor"],["TypeError","Illegal constructor"]],"instances":[true,true,true,true,true,true,true,false,false],"shapes":{"crypto":[[],[true,true,true],true],"tags":["[object Crypto]","[object Navigator]","[object CacheStorage]","[object Cache]","[object SubtleCrypto]"],"caches":[true,"function"],"global":["[object ServiceWorkerGlobalScope]","ServiceWorkerGlobalScope","function",true]},"names":[]}"#,
    );
}

/// `crypto.DigestStream` as Workers have it: SHA-1, SHA-256, SHA-384,
/// SHA-512 and MD5 of bytes and text written or piped, `bytesWritten` a
/// bigint, an abort rejecting `digest`, an unknown hash refused; compared
/// with `workerd`'s answer on both engines.
#[test]
fn digest_streams_hash_what_is_written_as_on_workerd_on_both_engines() {
    crate::node_modules::renders_as_workerd(
        "digest-stream",
        r#"{"shape":["function","DigestStream",0,["bytesWritten","constructor","digest"],"WritableStream"],"\"SHA-256\"":["b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9","bigint","11",true],"\"sha-1\"":["2aae6c35c94fcfb415dbe95f408b9ce91ee846ed","bigint","11",true],"{\"name\":\"SHA-512\"}":["309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f","bigint","11",true],"\"MD5\"":["5eb63bbbe01eeed093cb22bb8f5acdc3","bigint","11",true],"\"SHA-384\"":["fdbd8e75a67f29f701a4e040385e2e23986303ea10239211af907fcbb83578b3e417cb71ce646efd0819dd8c088de1bd","bigint","11",true],"errors":[["NotSupportedError","Unrecognized or unimplemented digest algorithm requested."],["TypeError","Failed to construct 'DigestStream': constructor parameter 1 is not of type 'string or HashAlgorithm'."],["ok",null],["Error","gone"]],"piped":"015634dac726604b42d6976b65edddc933c8bbc7433bdab58be494e0012a23fe","empty":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}"#,
    );
}

/// `WebSocketPair` and its two `WebSocket` ends
/// (`tests/plugins/websocket-pair.js`): accept, messages of each kind held
/// until the other end accepts, the closing handshake and its events,
/// refused codes and reasons, the constructor's checks, as `workerd`
/// answers.
#[test]
fn a_websocket_pair_carries_messages_and_closes_as_on_workerd_on_both_engines() {
    // workerd 2026-11-17's answer to the same module.
    let workerd = [
        r#"globals: function function 0 0,1,2,3"#,
        r#"pair: 0,1 [object WebSocketPair] true 0,1"#,
        r#"state: 1 1 null   blob"#,
        r#"send before accept: TypeError: You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages."#,
        r#"accept: undefined 1"#,
        r#"send: undefined undefined undefined undefined undefined"#,
        r#"before b accept: []"#,
        r#"after b accept: ["b:string:hello:MessageEvent","b:object:[object Blob]:MessageEvent","b:object:[object Blob]:MessageEvent","b:string:1:MessageEvent","b:string:[object Blob]:MessageEvent"]"#,
        r#"close: undefined 2 1"#,
        r#"after close: ["b:string:hello:MessageEvent","b:object:[object Blob]:MessageEvent","b:object:[object Blob]:MessageEvent","b:string:1:MessageEvent","b:string:[object Blob]:MessageEvent","a:back","b close:1000:done:true:CloseEvent","a close:1000:done:true"] 3 3"#,
        r#"send after close: TypeError: Can't call WebSocket send() after close(). TypeError: Can't call WebSocket send() after close()."#,
        r#"close again: undefined undefined"#,
        r#"bad codes: InvalidAccessError: Invalid WebSocket close code: 999. InvalidAccessError: Invalid WebSocket close code: 1005. SyntaxError: WebSocket close reason must not be longer than 123 bytes when UTF-8 encoded. TypeError: You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages."#,
        r#"close no code: ["1005::true"] 3 3"#,
        r#"new WebSocket(): TypeError: Failed to construct 'WebSocket': constructor parameter 1 is not of type 'string'. | SyntaxError: WebSocket Constructor: The url scheme must be ws or wss."#,
        r#"proto: CLOSED,CLOSING,CONNECTING,OPEN,READY_STATE_CLOSED,READY_STATE_CLOSING,READY_STATE_CONNECTING,READY_STATE_OPEN,accept,binaryType,bufferedAmount,close,constructor,deserializeAttachment,extensions,protocol,readyState,send,serializeAttachment,url"#,
    ]
    .join("\n");
    crate::node_modules::renders_as_workerd("websocket-pair", &workerd);
}
