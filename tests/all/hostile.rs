//! Hostile plugins against a real server, on every engine: each attack is
//! answered with a generic 500 or 504, the details go to the log, the
//! attacking instance (store or isolate) is replaced, and another tenant
//! keeps serving throughout. Time slices, concurrency caps and per-tenant
//! limits are in `fairness.rs`; each limit obeyed and violated, in `limits.rs`.

use ssr::engine::Engines;

use crate::support::{Client, Server};

/// A server with the hostile plugin as `evil-<engine>` on every engine, and
/// a well-behaved tenant.
fn server() -> Server {
    // A 64 MiB memory cap: the memory bomb reaches it well within the 1 s
    // deadline even on a loaded machine.
    let s = Server::start(&[
        "--demo=false",
        "--workers",
        "2",
        "--max-response-kib",
        "4096",
        "--memory-limit-mib",
        "64",
    ]);
    for engine in Engines::KINDS {
        let (status, body) = s.add(
            &format!("evil-{engine}"),
            "tests/plugins/hostile.js",
            &format!("engine={engine}"),
        );
        assert_eq!(status, 201, "{body}");
    }
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    s
}

/// Runs one attack on every engine, then checks the victim tenant, the other
/// tenant and the attacker's benign path.
fn contained(s: &Server, path: &str, status: u16, log: &str) {
    for engine in Engines::KINDS {
        contained_on(s, &format!("evil-{engine}"), path, status, log);
    }
}

fn contained_on(s: &Server, evil: &str, path: &str, status: u16, log: &str) {
    let r = s.get(&format!("/t/{evil}{path}"), &[]);
    assert_eq!(r.status, status, "{evil}{path}: {}", r.text());
    assert!(
        r.text().len() < 200 && !r.text().contains("hostile.js"),
        "{path}: no detail to the client: {}",
        r.text()
    );
    assert!(
        s.log_contains(log),
        "{path}: the log should say `{log}`:\n{}",
        s.log.lock().unwrap()
    );
    assert_eq!(
        s.get("/t/good/?after=1", &[]).status,
        200,
        "{path}: the other tenant must keep serving"
    );
    let ok = s.get(
        &format!("/t/{evil}/ok?after={}", path.trim_start_matches('/')),
        &[],
    );
    assert_eq!(
        (ok.status, ok.text().as_str()),
        (200, "ok"),
        "{evil}{path}: the attacker's tenant recovers"
    );
}

#[test]
fn infinite_loops_are_stopped_at_the_deadline() {
    let s = server();
    contained(&s, "/loop", 504, "used up its CPU time");
    contained(&s, "/async-loop", 504, "used up its CPU time");
    contained(&s, "/timer-loop", 504, "used up its CPU time");
}

#[test]
fn timers_that_never_end_meet_the_wall_clock_limit_and_too_many_are_refused() {
    // Waiting costs no CPU time: an interval of 0 ms forever and a timer
    // of 2^31 ms end at the request's wall-clock limit, not its CPU time.
    let s = Server::start(&["--demo=false", "--request-timeout", "1500"]);
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    for engine in Engines::KINDS {
        let evil = format!("evil-{engine}");
        let (status, body) = s.add(
            &evil,
            "tests/plugins/hostile.js",
            &format!("engine={engine}"),
        );
        assert_eq!(status, 201, "{body}");
        contained_on(&s, &evil, "/interval-forever", 504, "deadline");
        contained_on(&s, &evil, "/timer-2-31", 504, "deadline");
        contained_on(
            &s,
            &evil,
            "/timers-100k",
            500,
            "10000 timers are already set",
        );
    }
}

#[test]
fn never_settling_promise_is_an_error() {
    let s = server();
    contained(&s, "/never", 500, "never settle");
}

#[test]
fn memory_bomb_and_deep_recursion_are_contained() {
    let s = server();
    contained(&s, "/memory-bomb", 500, "memory limit");
    // Counted as memory, not as some other trap.
    for engine in Engines::KINDS {
        let series = format!("ssr_render_errors_total{{tenant=\"evil-{engine}\",kind=\"memory\"}}");
        assert_eq!(s.metric(&series), 1.0, "{engine}");
    }
    contained(&s, "/recursion", 500, "render failed");
}

#[test]
fn oversized_output_is_refused() {
    let s = server();
    contained(&s, "/big-output", 500, "over the limit of 4194304 bytes");
}

#[test]
fn no_ambient_authority() {
    let s = server();
    for engine in Engines::KINDS {
        no_ambient_authority_on(&s, &format!("evil-{engine}"));
    }
}

fn no_ambient_authority_on(s: &Server, evil: &str) {
    let r = s.get(&format!("/t/{evil}/ambient"), &[]);
    assert_eq!(r.status, 200);
    let body = r.text();
    for name in ["process", "require", "XMLHttpRequest", "Deno", "std", "os"] {
        assert!(
            body.contains(&format!("\"{name}\":\"undefined\"")),
            "{evil}: {name} exists: {body}"
        );
    }
    assert!(body.contains("\"imported\":\"refused\""), "{body}");
    assert!(body.contains("\"fetched\":\"refused\""), "{body}");
    assert!(body.contains("\"socket\":\"refused\""), "{body}");
}

#[test]
fn issue_15_console_output_is_bounded_and_cannot_forge_a_log_line() {
    use ssr::web::console::{RENDER_BYTES, RENDER_LINES};
    // Writing 100 MiB takes a while, wherever it goes.
    let s = Server::patient();
    let logged = |s: &Server| {
        // What the server wrote so far (its log is read on another thread).
        std::thread::sleep(std::time::Duration::from_millis(300));
        s.log.lock().unwrap().clone()
    };
    for engine in Engines::KINDS {
        let id = format!("chatty-{engine}");
        let (status, body) = s.add(&id, "tests/plugins/chatty.js", &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        let get = |path: &str| s.get(&format!("/t/{id}{path}"), &[]);

        // Control characters are escaped: the forged lines stay inside the
        // tenant's own.
        assert_eq!(get("/forge").text(), "forged");
        assert!(s.log_contains(r"innocent\n2026-01-01T00:00:00.000000Z ERROR ssr: FORGED by a tenant\r\u{1b}[31m\u{2028}"));
        assert_eq!(get("/throw").status, 500);
        assert!(s.log_contains(r"boom\n2026-01-01T00:00:00.000000Z  INFO ssr: FORGED"));
        let log = logged(&s);
        assert!(
            !log.lines().any(|l| l.starts_with("2026-01-01")),
            "{engine}: a forged line:\n{log}"
        );

        // One render writing 1 MiB 100 times logs its budget, and no more.
        let before = logged(&s).len();
        assert_eq!(get("/flood?kib=1024&times=100").text(), "flooded");
        assert!(s.log_contains("console output over its budget"));
        let grew = logged(&s).len() - before;
        assert!(
            grew < RENDER_BYTES + (16 << 10),
            "{engine}: {grew} bytes of log"
        );
        let dropped = format!("ssr_console_dropped_bytes_total{{tenant=\"{id}\"}}");
        assert!(s.metric(&dropped) > (99 << 20) as f64, "{engine}");

        // Lines are bounded too.
        let before = logged(&s).len();
        assert_eq!(get("/many").text(), "many");
        let lines = logged(&s)[before..]
            .lines()
            .filter(|l| l.contains("line "))
            .count();
        assert!(lines <= RENDER_LINES, "{engine}: {lines} lines");
        let dropped = format!("ssr_console_dropped_lines_total{{tenant=\"{id}\"}}");
        assert!(
            s.metric(&dropped) >= (10_000 - RENDER_LINES) as f64,
            "{engine}"
        );

        // And a tenant over many renders: 40 renders of 64 KiB each.
        let before = logged(&s).len();
        for _ in 0..40 {
            assert_eq!(get("/flood?kib=16&times=4").text(), "flooded");
        }
        let grew = logged(&s).len() - before;
        assert!(
            grew < 1 << 20,
            "{engine}: {grew} bytes of log from 2.5 MiB written"
        );
    }
}

#[test]
fn issue_15_memory_outside_the_js_heap_is_capped_webassembly_memory_included() {
    const MIB: usize = 1 << 20;
    let s = Server::patient();
    for engine in Engines::KINDS {
        let id = format!("buffers-{engine}");
        let query = format!("engine={engine}&memory_limit_mib=64");
        let (status, body) = s.add(&id, "tests/plugins/hostile.js", &query);
        assert_eq!(status, 201, "{body}");
        let get = |path: &str| s.get(&format!("/t/{id}{path}"), &[]);
        assert_eq!(get("/buffers?mib=16").text(), "buffers 16 MiB");
        // Five renders each keeping 512 MiB of ArrayBuffers (outside V8's
        // heap), and five asking a WebAssembly memory of 512 MiB (a buffer
        // too: there is no WebAssembly code): each fails at the tenant's
        // 64 MiB, and the process does not grow by what they asked for.
        let before = s.rss();
        for _ in 0..5 {
            assert_eq!(get("/buffers?mib=512").status, 500, "{engine}");
            let wasm = get("/wasm-memory");
            assert_eq!(wasm.status, 500, "{engine}: {}", wasm.text());
        }
        let grew = s.rss().saturating_sub(before);
        assert!(grew < 256 * MIB, "{engine}: grew {grew}");
        assert_eq!(get("/ok").text(), "ok");
    }
}

/// V8 tenants run in worker processes the server supervises (issue 36): a
/// renderer that aborts V8 ends its own process, never the server nor
/// another tenant.
#[cfg(feature = "v8")]
mod v8_processes {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use crate::support::{Client, Server, failure, stat_field, within};

    /// Clients asking `paths`, one request at a time each, until
    /// [`Load::stop`]; they count the 200s, and keep how the rest ended.
    struct Load {
        stop: Arc<AtomicBool>,
        ok: Arc<AtomicUsize>,
        failed: Arc<Mutex<Vec<String>>>,
        threads: Vec<std::thread::JoinHandle<()>>,
    }

    impl Load {
        fn start(s: &Server, paths: &[impl AsRef<str>]) -> Load {
            let stop = Arc::new(AtomicBool::new(false));
            let (ok, failed): (_, Arc<Mutex<Vec<String>>>) =
                (Arc::new(AtomicUsize::new(0)), Arc::default());
            let threads = paths
                .iter()
                .map(|path| {
                    let (stop, ok, failed) = (stop.clone(), ok.clone(), failed.clone());
                    let url = format!("http://{}{}", s.addr, path.as_ref());
                    std::thread::spawn(move || {
                        let agent = Server::agent();
                        while !stop.load(Ordering::Relaxed) {
                            match failure(agent.get(&url).call()) {
                                None => {
                                    ok.fetch_add(1, Ordering::Relaxed);
                                }
                                Some(how) => failed.lock().unwrap().push(how),
                            }
                        }
                    })
                })
                .collect();
            Load {
                stop,
                ok,
                failed,
                threads,
            }
        }

        /// Stops the clients: how many requests were served, and how the
        /// others ended.
        fn stop(self) -> (usize, Vec<String>) {
            self.stop.store(true, Ordering::Relaxed);
            for t in self.threads {
                t.join().unwrap();
            }
            let failed = std::mem::take(&mut *self.failed.lock().unwrap());
            (self.ok.load(Ordering::Relaxed), failed)
        }
    }

    /// A server with `crash` (tests/plugins/crash.js) on V8, and `counter`
    /// on V8 and on Wasm, whose pages count the renders of their instance.
    fn server() -> Server {
        let s = Server::start(&["--demo=false"]);
        for (id, entry, engine) in [
            ("crash", "tests/plugins/crash.js", "v8"),
            ("counter-v8", "tests/plugins/counter.js", "v8"),
            ("counter-wasm", "tests/plugins/counter.js", "wasm"),
            ("cached-v8", "plugins/hello/render.js", "v8"),
        ] {
            let (status, body) = s.add(id, entry, &format!("engine={engine}"));
            assert_eq!(status, 201, "{id}: {body}");
        }
        s
    }

    /// The count a counter tenant's page gives.
    fn count(s: &Server, id: &str) -> u64 {
        let r = s.get(&format!("/t/{id}/"), &[]);
        assert_eq!(r.status, 200, "{id}: {}", r.text());
        r.text().trim().parse().unwrap()
    }

    #[test]
    fn a_tenant_that_aborts_v8_costs_no_other_tenant_a_request_and_is_quarantined_after_five_crashes()
     {
        let s = server();
        let crash = |how: &str| s.get(&format!("/t/crash/?how={how}"), &[]);
        // Warm: each tenant's instance, and the cached page.
        assert_eq!(crash("").status, 200);
        let (v8, wasm) = (count(&s, "counter-v8"), count(&s, "counter-wasm"));
        assert_eq!(s.get("/t/cached-v8/", &[]).status, 200);
        assert_eq!(s.get("/t/cached-v8/", &[]).header("x-cache"), Some("hit"));
        let before = s.v8_workers();
        assert!(before.len() >= 2, "a process per V8 tenant: {before:?}");

        // The others are asked throughout, one request at a time each.
        let load = Load::start(&s, &["/t/counter-v8/", "/t/counter-wasm/", "/t/cached-v8/"]);

        // Five crashes, two ways: each a 502 with the tenant named in the
        // log; after the first, the tenant's next render is served within
        // 1 s, in a process started again (or the spare).
        for (i, how) in ["fill", "concat", "fill", "concat", "fill"]
            .iter()
            .enumerate()
        {
            let r = crash(how);
            assert_eq!(r.status, 502, "crash {i} ({how}): {}", r.text());
            if i == 0 {
                let crashed = Instant::now();
                let r = crash("");
                assert_eq!(r.status, 200, "after the crash: {}", r.text());
                assert!(
                    crashed.elapsed() < Duration::from_secs(1),
                    "served {:?} after the crash:\n{}",
                    crashed.elapsed(),
                    s.log.lock().unwrap()
                );
                assert!(s.log_contains("tenant=crash"), "{}", s.log.lock().unwrap());
            }
        }
        let crashes = s.metric("ssr_v8_worker_crashes_total{tenant=\"crash\"}");
        assert_eq!(crashes, 5.0);
        // Quarantined: refused at once, with when to come back.
        let r = crash("");
        assert_eq!(r.status, 503, "{}", r.text());
        let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
        assert!(s.log_contains("its requests get 503"));

        let (ok, failed) = load.stop();
        assert!(
            failed.is_empty(),
            "of {} asked: {failed:?}",
            ok + failed.len()
        );
        assert!(ok > 30);
        // Their instances stayed warm: the counts went on, never from 1.
        assert!(count(&s, "counter-v8") > v8 + 1);
        assert!(count(&s, "counter-wasm") > wasm + 1);
        assert_eq!(s.get("/t/cached-v8/", &[]).header("x-cache"), Some("hit"));
        // The server itself never went down.
        assert!(s.log.lock().unwrap().contains("ssr listening"));
        assert_eq!(s.get("/_ssr/healthz", &[]).status, 200);
    }

    /// Issue 54, item 11: past `--v8-processes`, tenants share a process,
    /// and a crash with a neighbour's renders in flight is no strike of the
    /// neighbour's; the tenant that crashes the process alone is struck.
    #[test]
    fn issue_54_a_shared_process_crash_never_quarantines_the_neighbour() {
        // Time enough for the crash whatever the machine's load: filling
        // the heap until V8 gives up took past 500 ms of CPU, then past
        // 5 s, beside two busy loops and the rest of the suite (a 504,
        // not the crash this test is about).
        let s = Server::start(&[
            "--demo=false",
            "--path-routing",
            "--v8-processes",
            "1",
            "--request-timeout",
            "120000",
        ]);
        for id in ["crash", "near"] {
            let (status, body) = s.add(
                id,
                "tests/plugins/crash.js",
                "engine=v8&render_deadline_ms=60000",
            );
            assert_eq!(status, 201, "{id}: {body}");
        }
        let crash = |how: &str| s.get(&format!("/t/crash/?how={how}"), &[]);
        assert_eq!(crash("").status, 200);
        // The neighbour has a render in flight at every moment.
        let load = Load::start(&s, &["/t/near/?how=spin&ms=100", "/t/near/?how=spin&ms=70"]);
        std::thread::sleep(Duration::from_millis(150));
        for i in 0..5 {
            assert_eq!(crash("fill").status, 502, "crash {i}");
        }
        let (ok, failed) = load.stop();
        // What it had in flight failed with each crash; nothing else did,
        // and it was never refused.
        assert!(ok > 5, "{ok} served");
        assert!(
            failed.iter().all(|how| how.starts_with("502")),
            "{failed:?}"
        );
        assert!(failed.len() <= 10, "{failed:?}");
        assert_eq!(s.get("/t/near/", &[]).status, 200);
        assert!(s.metric("ssr_v8_worker_unattributed_crashes_total") >= 1.0);
        // Alone, the crashing tenant is struck and put in quarantine.
        let refused = (0..10).any(|_| crash("fill").status == 503);
        assert!(
            refused,
            "the tenant that crashes alone is never quarantined"
        );
        assert_eq!(s.get("/t/near/", &[]).status, 200);
    }

    #[test]
    fn a_kill_of_a_worker_under_load_loses_only_its_renders_in_flight() {
        let s = server();
        const CLIENTS: usize = 4;
        const CAP: usize = 2;
        // Four clients, at most two of their renders in flight at once.
        // Each asks its own URL: concurrent misses of one URL share one
        // render (`cache/flight.rs`), and its failure is every waiter's.
        let (status, body) = s.add(
            "crash",
            "tests/plugins/crash.js",
            &format!("engine=v8&max_concurrency={CAP}"),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(s.get("/t/crash/?how=spin&ms=30", &[]).status, 200);
        let pids = s.v8_workers();
        let paths: Vec<String> = (0..CLIENTS)
            .map(|c| format!("/t/crash/?how=spin&ms=30&client={c}"))
            .collect();
        let load = Load::start(&s, &paths);
        std::thread::sleep(Duration::from_millis(500));
        // The process serving `crash` is the one its renders keep busy.
        let busy = pids
            .iter()
            .copied()
            .max_by_key(|pid| stat_field(*pid, 11).parse::<u64>().unwrap_or(0))
            .unwrap();
        let before = load.ok.load(Ordering::Relaxed);
        std::process::Command::new("kill")
            .args(["-9", &busy.to_string()])
            .status()
            .unwrap();
        // Served on after the kill, however slow the machine: renders
        // counted, not a time waited.
        let served_on = within(Duration::from_secs(30), || {
            let ok = load.ok.load(Ordering::Relaxed);
            ok > 20 && ok >= before + 10
        });
        let (ok, failed) = load.stop();
        assert!(served_on, "{ok} served, {before} of them before the kill");
        // Only the renders in flight at the kill: a render waiting for one
        // of the cap's places gets it after the failure that freed it had
        // marked the process dead, and makes its isolate in a live one.
        assert!(
            failed.len() <= CAP,
            "{} failed ({ok} served): only those in flight at the kill may: {failed:?}\n{}",
            failed.len(),
            s.log.lock().unwrap()
        );
        assert!(ok > 20, "{ok}");
        assert!(!s.v8_workers().contains(&busy));
        assert_eq!(s.get("/t/crash/", &[]).status, 200);
    }

    /// What the system-call filter and the channel's checks contain, through
    /// hooks only a build with the feature `test-hooks` has.
    #[cfg(feature = "test-hooks")]
    #[test]
    fn a_worker_that_breaks_its_channel_or_reaches_for_the_system_is_killed_and_replaced() {
        let s = server();
        let rss = s.rss();
        for (hook, log) in [
            ("garbage", "a frame that is not a message"),
            ("huge", "a frame of 4294967295 bytes, over the limit"),
            ("execve", "SIGSYS"),
            ("socket", "SIGSYS"),
        ] {
            let before = s.v8_workers();
            let r = s.get(&format!("/t/crash/?how=hook-{hook}"), &[]);
            assert_eq!(r.status, 502, "{hook}: {}", r.text());
            assert!(
                s.log_contains(log),
                "{hook}: the log should say {log}:\n{}",
                s.log.lock().unwrap()
            );
            assert!(
                within(Duration::from_secs(2), || s.v8_workers() != before),
                "{hook}: not replaced"
            );
            count(&s, "counter-v8");
        }
        // No 4 GiB was allocated for the huge frame.
        assert!(s.rss() < rss + (256 << 20), "{} -> {}", rss, s.rss());
        // A file open fails, and the render goes on.
        assert_eq!(s.get("/t/crash/?how=hook-open", &[]).status, 200);
        assert!(s.log_contains("open: Err(Os { code: 1, kind: PermissionDenied"));
        // A worker may lower its own thread to one value (`sched`), never
        // the server's threads: as root, the call would succeed unfiltered.
        let server = s.child.id();
        let r = s.get(&format!("/t/crash/?how=hook-renice-{server}"), &[]);
        assert_eq!(r.status, 200);
        assert!(
            s.log_contains("renice: another process's refused: true, another value refused: true"),
            "{}",
            s.log.lock().unwrap()
        );
        assert_eq!(stat_field(server, 16), "0", "the server's nice value");
    }
}
