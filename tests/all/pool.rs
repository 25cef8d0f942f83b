//! The worker pool through a real server: backpressure (503), deadlines
//! (504, with the render actually stopped), isolation modes, metrics.

use std::time::{Duration, Instant};

use crate::support::{Client, Server, within};

const SLOW: &str = "tests/plugins/slow.js";

#[test]
fn full_queue_answers_503_with_retry_after() {
    let s = Server::start(&[
        "--demo=false",
        "--workers",
        "1",
        "--queue-capacity",
        "1",
        "--renders-per-worker",
        "1",
        "--request-timeout",
        "5000",
    ]);
    // No concurrency cap: this test is about the shared queue.
    assert_eq!(s.add("q", SLOW, "max_concurrency=6").0, 201);
    let replies: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..6)
            .map(|i| {
                let s = &s;
                scope.spawn(move || s.get(&format!("/t/q/?ms=400&i={i}"), &[]))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let busy: Vec<_> = replies.iter().filter(|r| r.status == 503).collect();
    assert!(
        !busy.is_empty(),
        "statuses: {:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(busy.iter().all(|r| r.header("retry-after") == Some("1")));
    assert!(replies.iter().any(|r| r.status == 200));
    let metrics = s.metrics_text();
    assert!(
        metrics.contains("ssr_rejections_total{tenant=\"q\",reason=\"saturated\"}"),
        "{metrics}"
    );
}

#[test]
fn timeout_answers_504_and_stops_the_render() {
    let s = Server::start(&["--demo=false", "--workers", "1", "--request-timeout", "300"]);
    assert_eq!(s.add("t", SLOW, "").0, 201);
    let start = Instant::now();
    let r = s.get("/t/t/?ms=5000", &[]);
    assert_eq!(r.status, 504);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        !r.text().contains("slow.js"),
        "no internal detail: {}",
        r.text()
    );
    // The single worker is free again at once: the render was stopped, not
    // left spinning for 5 s.
    let start = Instant::now();
    let r = s.get("/t/t/?ms=0", &[]);
    assert_eq!(r.status, 200);
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn render_errors_answer_a_generic_500() {
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("e", "tests/plugins/errors.js", "").0, 201);
    let r = s.get("/t/e/throw", &[]);
    assert_eq!(r.status, 500);
    assert!(
        !r.text().contains("bad thing"),
        "the JS message stays in the logs: {}",
        r.text()
    );
    assert!(s.log_contains("bad thing"));
    assert_eq!(s.get("/t/e/created", &[]).status, 201);
}

#[test]
fn a_tenant_in_debug_mode_sees_its_own_failures() {
    let s = Server::start(&["--demo=false", "--render-deadline", "300"]);
    assert_eq!(s.add("d", "tests/plugins/errors.js", "debug=true").0, 201);
    let r = s.get("/t/d/throw", &[]);
    assert_eq!(r.status, 500);
    let body = r.text();
    assert!(body.contains("TypeError: bad thing"), "{body}");
    assert!(body.contains("errors.js"), "the stack: {body}");
    let r = s.get("/t/d/never", &[]);
    assert!(r.text().contains("never settle"), "{}", r.text());
    let (status, body) = s.add("d2", "tests/plugins/errors.js", "debug=maybe");
    assert_eq!(status, 400);
    assert!(body.contains("`debug` is `true` or `false`"), "{body}");
}

#[test]
fn reuse_keeps_state_within_a_tenant_and_fresh_does_not() {
    let s = Server::start(&["--demo=false", "--workers", "1"]);
    assert_eq!(s.add("r", "tests/plugins/counter.js", "mode=reuse").0, 201);
    assert_eq!(s.add("f", "tests/plugins/counter.js", "mode=fresh").0, 201);
    let counts = |t: &str| -> Vec<String> {
        (0..3)
            .map(|i| s.get(&format!("/t/{t}/?i={i}"), &[]).text())
            .collect()
    };
    assert_eq!(counts("r"), ["1", "2", "3"]);
    assert_eq!(counts("f"), ["1", "1", "1"]);
}

#[test]
fn metrics_report_requests_cache_and_queue() {
    let s = Server::start(&["--demo=false"]);
    assert_eq!(s.add("m", SLOW, "").0, 201);
    s.get("/t/m/", &[]);
    s.get("/t/m/", &[]);
    let m = s.metrics_text();
    for needle in [
        "ssr_requests_total{tenant=\"m\"} 2",
        "ssr_render_seconds_bucket{tenant=\"m\"",
        "ssr_queue_wait_seconds_count{tenant=\"m\"} 1",
        "ssr_cache_misses_total 1",
        "ssr_cache_insertions_total 1",
        "ssr_cache_hit_ratio",
        "ssr_queue_depth",
    ] {
        assert!(m.contains(needle), "missing {needle} in:\n{m}");
    }
    assert_eq!(s.get("/_ssr/healthz", &[]).status, 200);
    s.wait_ready();
}

#[test]
fn sigterm_drains_in_flight_requests_then_exits_0() {
    let s = Server::start(&["--demo=false", "--workers", "1"]);
    assert_eq!(s.add("d", SLOW, "").0, 201);
    let reply = std::thread::scope(|scope| {
        let pending = scope.spawn(|| s.get("/t/d/?ms=900", &[]));
        std::thread::sleep(Duration::from_millis(400));
        let _ = std::process::Command::new("kill")
            .arg("-TERM")
            .arg(s.child.id().to_string())
            .status();
        pending.join().unwrap()
    });
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(reply.text().contains("slept 900 ms"));
    let status = s.stop("TERM");
    assert!(status.success(), "{status:?}");
}

/// Context switches so far of every thread of process `pid` (Linux).
fn wake_ups(pid: u32) -> u64 {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).unwrap();
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("status")).ok())
        .flat_map(|status| {
            status
                .lines()
                .filter(|l| l.contains("ctxt_switches:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .collect::<Vec<_>>()
        })
        .sum()
}

#[test]
fn an_idle_server_sleeps_and_deadlines_hold_after() {
    let s = Server::start(&["--demo=false", "--workers", "2"]);
    for (id, query) in [
        ("w", "render_deadline_ms=300"),
        ("v", "render_deadline_ms=300&engine=v8"),
    ] {
        let (status, body) = s.add(id, "tests/plugins/hostile.js", query);
        assert_eq!(status, 201, "{body}");
        assert_eq!(s.get(&format!("/t/{id}/ok"), &[]).status, 200);
    }
    // Idle: the epoch ticker and the blocking threads' watch sleep (they
    // woke about 1,300 times a second before).
    std::thread::sleep(Duration::from_millis(500));
    let before = wake_ups(s.child.id());
    std::thread::sleep(Duration::from_secs(2));
    let woke = wake_ups(s.child.id()) - before;
    assert!(woke < 100, "{woke} wake-ups in 2 s of idle");
    // The first render after the idle spell wakes them: a spinning render
    // still ends at its deadline on both engines.
    for id in ["w", "v"] {
        let started = Instant::now();
        assert_eq!(s.get(&format!("/t/{id}/loop"), &[]).status, 504);
        assert!(started.elapsed() < Duration::from_secs(5), "{id}");
    }
}

#[test]
fn issue_15_a_removed_or_replaced_tenants_instances_and_memory_go_at_once() {
    const MIB: usize = 1 << 20;
    let hostile = "tests/plugins/hostile.js";
    let s = Server::patient();
    let warm = |s: &Server| s.metric("ssr_warm_instances");
    // Hoards in a warm instance; returns how much RSS grew (the server's
    // and its V8 worker processes': a V8 isolate lives in one).
    let hoard = |s: &Server| {
        let before = s.rss_with_workers();
        let r = s.get("/t/fat/hoard?mib=128", &[]);
        assert!(r.text().starts_with("hoarding"), "{}", r.text());
        let grown = s.rss_with_workers().saturating_sub(before);
        assert!(grown > 80 * MIB, "grew {grown}");
        assert!(warm(s) >= 1.0);
        grown
    };
    // What is given back must be at least half of what the instance took (a
    // replace also compiles the new plugin).
    // (A V8 worker process whose last isolate went ends: it may take a
    // moment.)
    let gave_back = |s: &Server, full: usize, grown: usize, what: &str| {
        assert_eq!(warm(s), 0.0, "{what}");
        let given = within(Duration::from_secs(2), || {
            s.rss_with_workers() + grown / 2 < full
        });
        let now = s.rss_with_workers();
        assert!(given, "{what}: {full} -> {now} (grew {grown})");
    };
    for engine in ["wasm", "v8"] {
        assert_eq!(s.add("fat", hostile, &format!("engine={engine}")).0, 201);
        let grown = hoard(&s);
        let full = s.rss_with_workers();
        // Replaced: the old version's instances go; the new one starts empty.
        assert_eq!(s.add("fat", hostile, &format!("engine={engine}")).0, 200);
        gave_back(&s, full, grown, &format!("{engine}, replaced"));
        assert_eq!(s.get("/t/fat/hoard?mib=1", &[]).text(), "hoarding 1 MiB");
        let grown = hoard(&s);
        let full = s.rss_with_workers();
        // Removed: likewise.
        assert_eq!(s.admin("DELETE", "/_ssr/admin/tenants/fat").0, 204);
        gave_back(&s, full, grown, &format!("{engine}, removed"));
    }
}

/// Issue 35: a short Wasm render of a tenant with a warm instance ends on
/// the HTTP thread that read its request, with no hand-off; one that
/// outlasts its slice goes on to a worker and answers all the same; a
/// tenant whose renders keep outlasting their slice starts them on the
/// pool for a while (`pool::INLINE_BAR`), then inline again.
#[test]
fn a_short_render_ends_on_the_http_thread_and_a_long_one_goes_on_to_a_worker() {
    let s = Server::start(&["--demo=false", "--workers", "2"]);
    assert_eq!(s.add("s", SLOW, "").0, 201);
    let inline = || s.metric(r#"ssr_inline_renders_total{ended="inline"}"#);
    let moved = || s.metric(r#"ssr_inline_renders_total{ended="on a worker"}"#);
    let short = |i: &str| {
        let r = s.get(&format!("/t/s/?i={i}"), &[]);
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.text().contains("slept 0 ms"), "{}", r.text());
    };
    // The first render makes the tenant's instance, on a worker; the next
    // ones take it on the HTTP thread. On a busy machine a short render
    // may still be descheduled past its slice and move (CI's two cores
    // beside other tests did, 1 run in about 10): then its tenant is
    // given a second to be allowed again, and a round counts only when
    // none of its renders moved. A round is more than
    // INLINE_BETWEEN_SPILLS, so that what follows starts clean.
    let mut clean = false;
    for round in 0..5 {
        let before = moved();
        if before > 0.0 {
            std::thread::sleep(ssr::pool::INLINE_BAR + Duration::from_millis(100));
        }
        for i in 0..ssr::pool::INLINE_BETWEEN_SPILLS + 8 {
            short(&format!("{round}-{i}"));
        }
        if moved() == before {
            clean = true;
            break;
        }
    }
    assert!(clean, "short renders kept moving: {}", s.metrics_text());
    assert!(inline() >= 10.0, "{}", s.metrics_text());
    let m0 = moved();

    let long = |tag: &str| {
        let r = s.get(&format!("/t/s/?ms=30&{tag}"), &[]);
        assert_eq!(r.status, 200, "{}", r.text());
        assert!(r.text().contains("slept 30 ms"), "{}", r.text());
    };
    long("a");
    assert_eq!(moved(), m0 + 1.0);
    // A second with fewer than 32 ended inline since the first: the
    // tenant's renders start on the pool, and none begins inline.
    long("b");
    assert_eq!(moved(), m0 + 2.0);
    let before = inline();
    for i in 0..5 {
        short(&format!("barred-{i}"));
    }
    assert_eq!(inline(), before);
    assert_eq!(moved(), m0 + 2.0);
    // A second later they begin inline again.
    let tries = std::cell::Cell::new(0);
    let again = within(Duration::from_secs(5), || {
        tries.set(tries.get() + 1);
        short(&format!("again-{}", tries.get()));
        inline() > before
    });
    assert!(again, "{}", s.metrics_text());
}

/// Issue 35: a V8 render in a worker process, on an isolate already made,
/// is awaited by a task of the server's runtime through a lane it drives,
/// with no V8 thread in between; what it answers is the same.
#[cfg(feature = "v8")]
#[test]
fn a_v8_render_in_a_worker_process_is_awaited_without_a_v8_thread() {
    let s = Server::start(&["--demo=false", "--workers", "2"]);
    assert_eq!(s.add("v", SLOW, "engine=v8").0, 201);
    for i in 0..10 {
        let r = s.get(&format!("/t/v/?i={i}"), &[]);
        assert_eq!(r.status, 200, "{}", r.text());
        let text = r.text();
        assert!(
            text.contains("slept 0 ms") && text.contains(&format!("i={i};")),
            "{text}"
        );
    }
    // The first makes the isolate on a V8 thread; the rest are awaited.
    assert!(
        s.metric("ssr_v8_awaited_renders_total") >= 5.0,
        "{}",
        s.metrics_text()
    );
    assert_eq!(s.metric("ssr_v8_worker_crashes_total"), 0.0);
}

/// A worker that ends a Wasm render while its tenant's next request waits
/// in line for a permit renders that request at once, with the permit it
/// holds (`pool/line.rs`): every request is served, and the cap still
/// holds.
#[test]
fn a_worker_hands_its_permit_to_the_tenants_next_request_in_line() {
    let s = Server::start(&["--demo=false", "--workers", "1", "--render-on", "pool"]);
    assert_eq!(s.add("s", SLOW, "max_concurrency=1").0, 201);
    assert_eq!(s.get("/t/s/?first", &[]).status, 200);
    let handed = s.metric("ssr_line_handoffs_total");
    let started = Instant::now();
    std::thread::scope(|scope| {
        let clients: Vec<_> = (0..6)
            .map(|i| {
                let s = &s;
                scope.spawn(move || s.get(&format!("/t/s/?ms=30&i={i}"), &[]))
            })
            .collect();
        for c in clients {
            let r = c.join().unwrap();
            assert_eq!(r.status, 200, "{}", r.text());
            assert!(r.text().contains("slept 30 ms"), "{}", r.text());
        }
    });
    // One render at a time: six of 30 ms each take about 180 ms (150 at
    // least: a timer counts from the render's frozen clock, which may
    // stand a few ms before the call, as on workerd), where six at once
    // would take about 30.
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert!(
        s.metric("ssr_line_handoffs_total") > handed,
        "{}",
        s.metrics_text()
    );
}

/// A render that has yielded (it outlasted its slice) is not passed over by
/// the renders its worker hands on from the line: a worker hands on only
/// when it has nothing else ready. Before that rule, with clients keeping
/// the tenant's line full, a worker handed each render's permit to the next
/// request and polled that one first, so a render of a few slices waited
/// until the line emptied: five such renders took 0.40-1.63 s in all on 2
/// cores (six runs), against 0.16 s with the rule. Eight here, held to 75
/// ms each on average.
#[test]
fn a_render_that_yields_is_not_passed_over_by_renders_handed_on_from_the_line() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let s = Server::start(&["--demo=false", "--workers", "1", "--render-on", "pool"]);
    assert_eq!(s.add("s", SLOW, "max_concurrency=2").0, 201);
    assert_eq!(s.get("/t/s/?first", &[]).status, 200);
    let stop = AtomicBool::new(false);
    let long = std::thread::scope(|scope| {
        // Renders of one slice each, enough of them to keep the line full.
        for i in 0..16 {
            let (s, stop) = (&s, &stop);
            scope.spawn(move || {
                let mut k = 0;
                while !stop.load(Ordering::Relaxed) {
                    k += 1;
                    let r = s.get(&format!("/t/s/?ms=1&i={i}&k={k}"), &[]);
                    assert_eq!(r.status, 200, "{}", r.text());
                }
            });
        }
        std::thread::sleep(Duration::from_millis(300));
        // Each of many slices (a slice is 1-2 ms), and shorter than
        // `--demote-after`, so it stays on the worker.
        let started = Instant::now();
        for k in 0..8 {
            let r = s.get(&format!("/t/s/?ms=16&long={k}"), &[]);
            assert_eq!(r.status, 200, "{}", r.text());
        }
        let took = started.elapsed();
        stop.store(true, Ordering::Relaxed);
        took
    });
    assert!(
        long < Duration::from_millis(600),
        "eight renders of 16 ms took {long:?} while the line stayed full"
    );
    assert!(
        s.metric("ssr_line_handoffs_total") > 0.0,
        "{}",
        s.metrics_text()
    );
}
