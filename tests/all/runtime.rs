//! Runtime behaviour of a plugin: render errors, async driving, randomness
//! (`Math.random`, and `crypto` through the host), console routing and
//! bounded memory on a reused instance.

use std::time::Duration;

use ssr::engine::wasm::{WasmEngine, WasmOptions};
use ssr::engine::{EngineError, EngineKind, Instance, InstanceCaps};

use crate::support::{plugin, render, render_on, text};

fn render_error(url: &str) -> String {
    let p = plugin("tests/plugins/errors.js");
    let out = render(&p.plugin, url, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{url}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("wasm trap"),
        "{err}"
    );
    err
}

#[test]
fn exception_reports_message_and_js_stack() {
    let err = render_error("/throw");
    assert!(
        err.contains("render error (exception): TypeError: bad thing"),
        "{err}"
    );
    assert!(err.contains("at render (tests/plugins/errors.js:"), "{err}");
    assert!(
        !err.contains("ssr:prelude"),
        "the driver's frames must not show: {err}"
    );
}

#[test]
fn rejected_promise_is_an_exception() {
    let err = render_error("/reject");
    assert!(
        err.contains("(exception): Error: rejected on purpose"),
        "{err}"
    );
}

#[test]
fn thrown_non_error_is_described() {
    let err = render_error("/throw-string");
    assert!(err.contains("Uncaught \"a plain string\""), "{err}");
}

#[test]
fn bad_results_are_named() {
    assert!(render_error("/number").contains("(bad result): render() returned a number"));
    assert!(render_error("/no-body").contains("body is undefined"));
    assert!(render_error("/bad-status").contains("status 1000"));
}

#[test]
fn never_settling_promise_is_reported() {
    assert!(render_error("/never").contains("(promise never settled)"));
}

#[test]
fn timers_messages_and_microtasks_run_in_order() {
    let p = plugin("tests/plugins/errors.js");
    let out = render(&p.plugin, "/timers", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Due-time order on the virtual clock: the message (0 ms), the interval
    // at 7, 14 and 21 ms, the timeouts at 10 and 18 ms, the microtask right
    // after the task that queued it. (Node gives this order too when its
    // timers are not late; under load its intervals drift, so it is not
    // compared here.)
    assert_eq!(text(&out.stdout), "msg:1,iv,t10,micro,iv,t18,iv");
}

#[test]
fn object_result_sets_status_and_lowercases_headers() {
    let p = plugin("tests/plugins/errors.js");
    let out = crate::support::ssr()
        .args(["render", "-i"])
        .arg(&p.plugin)
        .arg("/created")
        .output()
        .unwrap();
    let s = text(&out.stdout);
    assert!(s.starts_with("HTTP/1.1 201\n"), "{s}");
    assert!(s.contains("x-mixed-case: v\n"), "{s}");
    assert!(
        s.contains("content-type: text/html; charset=utf-8\n"),
        "{s}"
    );
    assert!(s.ends_with("\n\ncreated"), "{s}");
}

#[test]
fn console_reaches_host_log_tagged_with_tenant() {
    let err = render_error("/throw");
    let line = err
        .lines()
        .find(|l| l.contains("rendering /throw"))
        .expect(&err);
    assert!(
        line.contains("INFO") && line.contains("tenant=\"acme\""),
        "{line}"
    );
    assert!(line.contains("{ n: 1 }"), "{line}");
    assert!(
        err.lines()
            .any(|l| l.contains("ERROR") && l.contains("something to stderr")),
        "{err}"
    );
}

#[test]
fn math_random_is_not_replayed_from_the_snapshot() {
    let p = plugin("tests/plugins/echo.js");
    let a = text(&render(&p.plugin, "/random", &[]).stdout);
    let b = text(&render(&p.plugin, "/random", &[]).stdout);
    let field = |s: &str, k: &str| {
        s.split(&format!("\"{k}\":"))
            .nth(1)
            .unwrap()
            .split([',', '}'])
            .next()
            .unwrap()
            .to_string()
    };
    // The value drawn at build time is part of the snapshot, by design...
    assert_eq!(field(&a, "seedAtBuild"), field(&b, "seedAtBuild"));
    // ...but each instance draws its own sequence at run time.
    assert_ne!(field(&a, "now"), field(&b, "now"), "{a} vs {b}");
}

/// Runs `f` on one Wasm instance of the plugin built from `entry`.
fn with_instance(entry: &str, f: impl FnOnce(&mut dyn Instance)) {
    let p = plugin(entry);
    let engine = WasmEngine::new(WasmOptions::default()).unwrap();
    let loaded = engine
        .load(&std::fs::read(&p.plugin).unwrap(), InstanceCaps::default())
        .unwrap();
    f(&mut loaded.instance(&ssr::engine::Grants::new("acme")).unwrap());
}

/// The instance's memory after `warm` renders of `url`, then after `more`.
fn memory_over(entry: &str, url: &str, warm: usize, more: usize) -> (usize, usize) {
    let mut sizes = (0, 0);
    with_instance(entry, |inst| {
        let req = contract::Request::get("acme", url);
        for _ in 0..warm {
            inst.render_now(&req, Duration::from_secs(5)).unwrap();
        }
        sizes.0 = inst.memory_bytes();
        for _ in 0..more {
            inst.render_now(&req, Duration::from_secs(5)).unwrap();
        }
        sizes.1 = inst.memory_bytes();
    });
    sizes
}

#[test]
fn reused_instance_keeps_bounded_memory() {
    let (warm, after) = memory_over("plugins/react/app.jsx", "/?count=200", 20, 300);
    assert!(
        after <= warm + (1 << 20),
        "memory grew from {warm} to {after} bytes over 300 renders"
    );
}

#[test]
fn render_errors_leave_the_instance_usable() {
    with_instance("tests/plugins/errors.js", |inst| {
        let deadline = Duration::from_secs(5);
        match inst.render_now(&contract::Request::get("acme", "/throw"), deadline) {
            Err(EngineError::Js(contract::RenderError {
                kind: contract::ErrorKind::Exception,
                ..
            })) => {}
            other => panic!("expected an exception, got {other:?}"),
        }
        match inst.render_now(&contract::Request::get("acme", "/never"), deadline) {
            Err(EngineError::Js(contract::RenderError {
                kind: contract::ErrorKind::NeverSettled,
                ..
            })) => {}
            other => panic!("expected never-settled, got {other:?}"),
        }
        let ok = inst
            .render_now(&contract::Request::get("acme", "/created"), deadline)
            .unwrap();
        assert_eq!((ok.status, ok.body.as_slice()), (201, &b"created"[..]));
    });
}

#[test]
fn renders_that_leave_cycles_do_not_grow_a_reused_instance() {
    // Cycles are collected every few renders while they fit in the memory
    // the first render left, and after every render once they did not: the
    // instance grows by one render's garbage at most (collecting by count
    // alone let five renders' worth pile up: 47 MiB).
    let (first, after) = memory_over("tests/plugins/cycles.js", "/?mib=8", 1, 12);
    assert!(
        after <= first + (16 << 20),
        "memory grew from {first} to {after} bytes over 12 renders of 8 MiB of cycles each"
    );
}

#[test]
fn crypto_draws_from_the_host_on_both_engines() {
    let p = plugin("tests/plugins/crypto.js");
    for engine in EngineKind::ALL {
        let draw = |url: &str| -> serde_json::Value {
            let out = render_on(engine, &p.plugin, url, &[]);
            assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let (a, b) = (draw("/draw"), draw("/draw"));
        for d in [&a, &b] {
            let uuid = d["uuid"].as_str().unwrap();
            let groups: Vec<usize> = uuid.split('-').map(str::len).collect();
            assert_eq!(groups, [8, 4, 4, 4, 12], "{engine}: {uuid}");
            assert!(uuid.as_bytes()[14] == b'4', "{engine}: version 4: {uuid}");
            assert!(b"89ab".contains(&uuid.as_bytes()[19]), "{engine}: {uuid}");
            assert_eq!(d["same"], true, "{engine}: returns its argument");
            assert_eq!(d["full"], true, "{engine}: 64 KiB drawn at once");
        }
        assert_ne!(a["uuid"], b["uuid"], "{engine}");
        assert_ne!(a["words"], b["words"], "{engine}");
        assert_ne!(a["big"], b["big"], "{engine}");

        // Web Crypto's errors, by name (Node's).
        assert_eq!(
            draw("/errors"),
            serde_json::json!({
                "float": "TypeMismatchError",
                "view": "TypeMismatchError",
                "plain": "TypeMismatchError",
                "quota": "QuotaExceededError",
            }),
            "{engine}"
        );

        // The top level runs at build time (Wasm) or load (V8): whatever it
        // drew would repeat in every instance, so the host refuses.
        let out = render_on(engine, &p.plugin, "/top-level", &[]);
        let said = text(&out.stdout);
        assert!(
            said.starts_with("TypeError: random: the host's capabilities are not available while the bundle's top level runs"),
            "{engine}: {said}"
        );
    }
}
