//! Fair sharing and per-tenant limits, on a real server: a spinning Wasm
//! render yields its worker every time slice, a V8 tenant is held to its
//! concurrency cap, and limits set at registration apply, show in the admin
//! API and persist.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::support::{Client, Server, failure, tempdir};

/// GETs `path` on another thread; the handle yields the status.
fn spin(s: &Server, path: &str) -> JoinHandle<u16> {
    let url = s.url(path);
    std::thread::spawn(move || Server::agent().get(&url).call().unwrap().status().as_u16())
}

/// A server where a spinning render lasts 3 s, with `args` added.
fn server(args: &[&str]) -> Server {
    let base = [
        "--demo=false",
        "--render-deadline",
        "3000",
        "--request-timeout",
        "5000",
    ];
    Server::start(&[&base[..], args].concat())
}

/// Lets the spinning requests reach their workers.
fn settle() {
    std::thread::sleep(Duration::from_millis(500));
}

#[test]
fn a_spinning_wasm_render_does_not_hold_its_worker() {
    // One worker: without time slices the good tenant would wait for the
    // spinner's 3 s deadline. No background lane: slices alone.
    let s = server(&["--workers", "1", "--demote-after", "0"]);
    assert_eq!(s.add("evil", "tests/plugins/hostile.js", "").0, 201);
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    let spinner = spin(&s, "/t/evil/loop");
    settle();
    let good = s.get("/t/good/?during=spin", &[]);
    assert_eq!(good.status, 200);
    assert!(
        !spinner.is_finished(),
        "the good tenant was served only after the spinner ended"
    );
    assert_eq!(spinner.join().unwrap(), 504);
}

#[cfg(feature = "v8")]
#[test]
fn a_v8_tenant_is_held_to_its_concurrency_cap() {
    // Two threads for V8 renders, which cannot yield: without the cap two
    // spinning renders would hold both until their 3 s deadline.
    let s = server(&["--workers", "2", "--v8-threads", "2"]);
    let (status, body) = s.add(
        "evil",
        "tests/plugins/hostile.js",
        "engine=v8&max_concurrency=1",
    );
    assert_eq!(status, 201, "{body}");
    assert!(body.contains("\"max_concurrency\":1"), "{body}");
    assert_eq!(s.add("good", "plugins/hello/render.js", "engine=v8").0, 201);
    let spinners = [spin(&s, "/t/evil/loop"), spin(&s, "/t/evil/loop?again")];
    settle();
    let good = s.get("/t/good/?during=spin", &[]);
    assert_eq!(good.status, 200);
    assert!(
        spinners.iter().all(|t| !t.is_finished()),
        "the good tenant was served only after a spinner ended"
    );
    // The spinner that ran is stopped at its deadline (504). The other waited
    // in line for the one permit until its own deadline, which falls as the
    // first lets go of the permit: it is 504 if it got it, or 503 (refused in
    // line) if the first spinner's stop came back a moment later.
    let mut statuses: Vec<u16> = spinners.map(|t| t.join().unwrap()).to_vec();
    statuses.sort();
    assert!(
        statuses == [504, 504] || statuses == [503, 504],
        "{statuses:?}"
    );
    if statuses[0] == 503 {
        let metrics = s.metrics_text();
        assert!(
            metrics.contains(r#"ssr_rejections_total{tenant="evil",reason="tenant-busy"} 1"#),
            "{metrics}"
        );
    }
}

#[test]
fn a_tenant_at_its_cap_waits_in_a_bounded_line() {
    // `evil` renders one at a time and may have two requests waiting
    // (`--queue-capacity 2`): a fourth request is refused at once, and
    // another tenant is served meanwhile.
    let s = server(&["--workers", "1", "--queue-capacity", "2"]);
    let (status, body) = s.add("evil", "tests/plugins/hostile.js", "max_concurrency=1");
    assert_eq!(status, 201, "{body}");
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    let spinners = [
        spin(&s, "/t/evil/loop"),
        spin(&s, "/t/evil/loop?waits=1"),
        spin(&s, "/t/evil/loop?waits=2"),
    ];
    settle();
    let asked = Instant::now();
    let refused = s.get("/t/evil/loop?waits=3", &[]);
    assert_eq!(refused.status, 503, "{}", refused.text());
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "the refusal waited {:?}",
        asked.elapsed()
    );
    assert!(refused.header("retry-after").is_some());
    assert_eq!(s.get("/t/good/?during=line", &[]).status, 200);
    let metrics = s.metrics_text();
    assert!(
        metrics.contains(r#"ssr_rejections_total{tenant="evil",reason="tenant-busy"} 1"#),
        "{metrics}"
    );
    // The first spinner ends at its render deadline; those in line get the
    // permit in turn and end at their request deadline.
    assert!(spinners.iter().all(|t| !t.is_finished()));
    for t in spinners {
        assert!([503, 504].contains(&t.join().unwrap()));
    }
}

#[cfg(feature = "v8")]
#[test]
fn a_spinning_v8_render_does_not_stall_wasm_renders() {
    // One worker: V8 renders run on their own threads, not on it.
    let s = server(&["--workers", "1"]);
    assert_eq!(
        s.add("evil", "tests/plugins/hostile.js", "engine=v8").0,
        201
    );
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    let spinner = spin(&s, "/t/evil/loop");
    settle();
    assert_eq!(s.get("/t/good/?during=spin", &[]).status, 200);
    assert!(
        !spinner.is_finished(),
        "the Wasm tenant was served only after the V8 spinner ended"
    );
    assert_eq!(spinner.join().unwrap(), 504);
}

/// A thread of process `pid`: its id and nice value, from `/proc`.
#[derive(Debug)]
struct Thread {
    // Shown in a failure's message.
    #[allow(dead_code)]
    tid: u32,
    nice: i32,
}

/// The threads of `pid` named `name`.
fn threads(pid: u32, name: &str) -> Vec<Thread> {
    let mut found = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let dir = task.unwrap().path();
        let (Ok(comm), Ok(stat)) = (
            std::fs::read_to_string(dir.join("comm")),
            std::fs::read_to_string(dir.join("stat")),
        ) else {
            continue; // It ended meanwhile.
        };
        if comm.trim() != name {
            continue;
        }
        // Fields after the name, which ends at the last ')', from field 3;
        // the nice value is field 19.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        found.push(Thread {
            tid: dir.file_name().unwrap().to_str().unwrap().parse().unwrap(),
            nice: fields[19 - 3].parse().unwrap(),
        });
    }
    found
}

/// The one thread of `pid` named `name`.
fn thread(pid: u32, name: &str) -> Thread {
    let mut found = threads(pid, name);
    assert_eq!(found.len(), 1, "threads named {name}: {found:?}");
    found.pop().unwrap()
}

/// The server's `/metrics` line for `name`, or `"<name> (none)"`.
fn metric(s: &Server, name: &str) -> String {
    let metrics = s.metrics_text();
    metrics
        .lines()
        .find(|l| l.starts_with(name))
        .map_or_else(|| format!("{name} (none)"), str::to_string)
}

fn demoted(s: &Server) -> String {
    metric(s, "ssr_demoted_renders_total")
}

#[test]
fn a_long_wasm_render_finishes_in_the_background_lane() {
    // One worker: alone, the spinner keeps it; once another render arrives,
    // the spinner moves to the worker's lane (low priority) and spins there.
    let s = server(&["--workers", "1", "--demote-after", "20"]);
    assert_eq!(s.add("evil", "tests/plugins/hostile.js", "").0, 201);
    assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
    let spinner = spin(&s, "/t/evil/loop");
    settle();
    let pid = s.child.id();
    assert_eq!(thread(pid, "ssr-lane-0").nice, 10);
    assert_eq!(thread(pid, "ssr-worker-0").nice, 0);
    assert!(demoted(&s).ends_with("(none)"), "{}", demoted(&s));
    assert_eq!(s.get("/t/good/?during=spin", &[]).status, 200);
    assert!(!spinner.is_finished());
    assert_eq!(demoted(&s), "ssr_demoted_renders_total 1");
    assert_eq!(spinner.join().unwrap(), 504);
    // A short render is never moved.
    assert_eq!(s.get("/t/good/?after=spin", &[]).status, 200);
    assert_eq!(demoted(&s), "ssr_demoted_renders_total 1");
}

#[test]
fn a_starved_long_render_does_not_hold_its_tenant() {
    // Of two spinners on one worker, one moves to its lane (low priority),
    // then this process keeps every core busy at normal priority, so the
    // lane gets little time. Both tenants are served again soon after the
    // deadline: nice 10 leaves the lane a floor of CPU to notice the
    // deadline in, and the request takes its permit back at its deadline
    // whatever the lane does (with `SCHED_IDLE` and without the latter, a
    // starved lane kept the permit and the next request got 503).
    let s = Server::start(&[
        "--demo=false",
        "--workers",
        "1",
        "--render-deadline",
        "300",
        "--request-timeout",
        "300",
    ]);
    for id in ["evil", "evil2"] {
        let (status, body) = s.add(id, "tests/plugins/hostile.js", "max_concurrency=1");
        assert_eq!(status, 201, "{body}");
    }
    let spinners = [spin(&s, "/t/evil/loop"), spin(&s, "/t/evil2/loop")];
    std::thread::sleep(Duration::from_millis(100));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cores = std::thread::available_parallelism().unwrap().get();
    let busy: Vec<_> = (0..2 * cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    for spinner in spinners {
        assert_eq!(spinner.join().unwrap(), 504);
    }
    // One of them moved (then the other was alone on the worker); both
    // tenants are served. Asked once the busy threads have stopped: a
    // render's 300 ms of wall clock is not what this test checks, and
    // beside twice as many busy threads as cores it may not be enough.
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    busy.into_iter().for_each(|t| t.join().unwrap());
    let next = ["evil", "evil2"].map(|id| s.get(&format!("/t/{id}/ok?after=starved"), &[]));
    for r in next {
        assert_eq!((r.status, r.text().as_str()), (200, "ok"));
    }
    assert_eq!(demoted(&s), "ssr_demoted_renders_total 1");
}

/// The lane threads of every V8 worker process of `s`.
#[cfg(feature = "v8")]
fn lanes(s: &Server) -> Vec<Thread> {
    let workers = s.v8_workers();
    workers
        .iter()
        .flat_map(|pid| threads(*pid, "ssr-v8-lane"))
        .collect()
}

#[cfg(feature = "v8")]
#[test]
fn a_long_v8_render_in_a_worker_process_lowers_its_lane_and_a_new_thread_takes_the_lane() {
    // In a worker process, no watch of the server's sees the render: the
    // render itself, begun while another V8 render was in flight, past
    // `--demote-after` while it gets less than 3/4 of a core (this test's
    // busy threads want the cores), lowers its lane thread; after the render
    // a new thread at normal priority serves the lane, so the worker has as
    // many lanes, all at normal priority. The first render, begun alone,
    // keeps its priority, as `a_v8_render_offers_its_core_from_demote_after_on`'s
    // does beside busy threads.
    // Two processes, one per tenant, and no spare started behind them
    // while the lanes are counted.
    let s = server(&["--demote-after", "20", "--v8-processes", "2"]);
    assert_eq!(s.add("slow", "tests/plugins/slow.js", "engine=v8").0, 201);
    assert_eq!(s.add("other", "tests/plugins/slow.js", "engine=v8").0, 201);
    assert_eq!(s.get("/t/slow/", &[]).status, 200);
    assert_eq!(s.get("/t/other/", &[]).status, 200);
    let before = lanes(&s);
    assert!(
        !before.is_empty() && before.iter().all(|t| t.nice == 0),
        "{before:?}"
    );
    let busy = Arc::new(AtomicBool::new(true));
    let cores = std::thread::available_parallelism().unwrap().get();
    let hogs: Vec<_> = (0..2 * cores)
        .map(|_| {
            let busy = busy.clone();
            std::thread::spawn(move || while busy.load(Ordering::Relaxed) {})
        })
        .collect();
    let first = spin(&s, "/t/other/?ms=1000");
    std::thread::sleep(Duration::from_millis(200));
    let long = spin(&s, "/t/slow/?ms=1500");
    let lowered = crate::support::within(Duration::from_secs(1), || {
        lanes(&s).iter().filter(|t| t.nice == 19).count() == 1
    });
    // Uncontended again, the lowered render gets the core it needs.
    busy.store(false, Ordering::Relaxed);
    hogs.into_iter().for_each(|t| t.join().unwrap());
    assert!(lowered, "not one lane thread was lowered: {:?}", lanes(&s));
    assert_eq!(first.join().unwrap(), 200);
    assert_eq!(long.join().unwrap(), 200);
    assert_eq!(demoted(&s), "ssr_demoted_renders_total 1");
    // The lowered thread left; the lane it served has a new one. Leaving
    // takes the lowered thread a moment of CPU, at nice 19: while a test
    // beside this one keeps the cores busy, that moment can take seconds.
    let replaced = crate::support::within(Duration::from_secs(15), || {
        let after = lanes(&s);
        after.len() == before.len() && after.iter().all(|t| t.nice == 0)
    });
    assert!(replaced, "before: {before:?}, after: {:?}", lanes(&s));
    assert_eq!(s.get("/t/slow/?after=lowered", &[]).status, 200);
}

/// A new V8 tenant's burst of long renders: the watch lowers the blocking
/// threads that render them and starts others in their places, and every
/// one of those threads may be in an exchange with the tenant's worker
/// process at once. Each finds a lane: every request is served. With a lane
/// per V8 thread (and two), renders were refused with "every lane of the
/// tenant's V8 worker process is busy".
#[cfg(feature = "v8")]
#[test]
fn a_burst_of_long_v8_renders_on_lowered_threads_finds_a_lane_for_each() {
    let s = server(&["--demote-after", "20"]);
    let (status, body) = s.add(
        "slow",
        "tests/plugins/slow.js",
        "engine=v8&max_concurrency=16",
    );
    assert_eq!(status, 201, "{body}");
    let clients: Vec<_> = (0..16)
        .map(|c| {
            let url = s.url("/t/slow/");
            std::thread::spawn(move || {
                let agent = Server::agent();
                (0..4)
                    .filter_map(|n| failure(agent.get(&format!("{url}?ms=60&c={c}-{n}")).call()))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let failed: Vec<String> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    assert!(failed.is_empty(), "{failed:?}\n{}", s.log.lock().unwrap());
    let lowered = s.metric("ssr_demoted_renders_total");
    assert!(lowered > 0.0, "no render was lowered");
}

#[test]
fn a_v8_render_offers_its_core_from_demote_after_on() {
    // A V8 render still running after `--demote-after` offers its core every
    // millisecond, never before: the 200 ms of a 300 ms render left after
    // 100 ms hold at most 201 offers (from 20 ms on, there would be up to
    // 281). With `--demote-after 0`, none. Busy threads want the cores
    // meanwhile, so the yields take time: the render must still end, not
    // yield until its 3 s deadline.
    for (after, most) in [("100", 201), ("0", 0)] {
        let s = server(&["--demote-after", after]);
        assert_eq!(s.add("slow", "tests/plugins/slow.js", "engine=v8").0, 201);
        let busy = Arc::new(AtomicBool::new(true));
        let spinners: Vec<_> = (0..4)
            .map(|_| {
                let busy = busy.clone();
                std::thread::spawn(move || while busy.load(Ordering::Relaxed) {})
            })
            .collect();
        let status = s.get("/t/slow/?ms=300", &[]).status;
        busy.store(false, Ordering::Relaxed);
        spinners.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(status, 200, "--demote-after {after}");
        let line = metric(&s, "ssr_v8_core_offers_total");
        let offers: u64 = line
            .strip_prefix("ssr_v8_core_offers_total ")
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no offer count: {line}"));
        assert!(offers <= most, "--demote-after {after}: {offers} offers");
        if most > 0 {
            assert!(offers > 0, "--demote-after {after}: no offers");
        }
    }
}

#[test]
fn default_concurrency_is_one_render_per_worker_and_half_the_v8_threads() {
    let s = Server::start(&["--demo=false", "--workers", "4", "--v8-threads", "6"]);
    let (_, body) = s.add("w", "plugins/hello/render.js", "");
    assert!(body.contains("\"max_concurrency\":4"), "{body}");
    #[cfg(feature = "v8")]
    {
        let (_, body) = s.add("v", "plugins/hello/render.js", "engine=v8");
        assert!(body.contains("\"max_concurrency\":3"), "{body}");
    }
}

#[test]
fn limits_set_at_registration_apply_and_persist() {
    let dir = tempdir("limits");
    let args = [
        "--demo=false",
        "--path-routing",
        "--data-dir",
        dir.to_str().unwrap(),
        "--render-deadline",
        "5000",
        "--request-timeout",
        "8000",
    ];
    let s = Server::start(&args);
    // The deadline on a tenant of its own: under a busy machine's load a
    // memory test on a 200 ms tenant could end at the deadline first.
    let (status, body) = s.add(
        "hasty",
        "tests/plugins/hostile.js",
        "render_deadline_ms=200",
    );
    assert_eq!(status, 201, "{body}");
    let (status, body) = s.add(
        "evil",
        "tests/plugins/hostile.js",
        "max_response_kib=1024&memory_limit_mib=32",
    );
    assert_eq!(status, 201, "{body}");
    assert_eq!(s.add("roomy", "tests/plugins/hostile.js", "").0, 201);

    assert_eq!(s.get("/t/hasty/loop", &[]).status, 504);
    assert!(
        s.log_contains("CPU time of 200ms"),
        "{}",
        s.log.lock().unwrap()
    );
    assert_eq!(s.get("/t/evil/big-output?mib=2", &[]).status, 500);
    assert!(s.log_contains("over the limit of 1048576 bytes"));
    // 64 MiB: over this tenant's 32 MiB cap, under the server's 256 MiB.
    assert_eq!(s.get("/t/evil/allocate?mib=64", &[]).status, 500);
    let roomy = s.get("/t/roomy/allocate?mib=64", &[]);
    assert_eq!((roomy.status, roomy.text().as_str()), (200, "allocated"));
    assert_eq!(s.get("/t/evil/ok", &[]).status, 200);
    drop(s);

    // After a restart the stored registrations carry the same limits.
    let s = Server::start(&args);
    let (_, view) = s.admin("GET", "/_ssr/admin/tenants/hasty");
    assert!(view.contains("\"render_deadline_ms\":200"), "{view}");
    let (_, view) = s.admin("GET", "/_ssr/admin/tenants/evil");
    for field in ["\"max_response_kib\":1024", "\"memory_limit_mib\":32"] {
        assert!(view.contains(field), "{field} in {view}");
    }
    assert_eq!(s.get("/t/hasty/loop?restarted", &[]).status, 504);
    assert_eq!(s.get("/t/evil/allocate?mib=64", &[]).status, 500);
}

#[test]
fn bad_limits_are_refused_with_their_name() {
    let s = Server::start(&["--demo=false", "--memory-limit-mib", "64"]);
    for (query, says) in [
        (
            "max_concurrency=0",
            "`max_concurrency` must be a whole number above 0",
        ),
        (
            "render_deadline_ms=soon",
            "`render_deadline_ms` must be a whole number",
        ),
        (
            "memory_limit_mib=128",
            "over the server's --memory-limit-mib 64",
        ),
        ("colour=red", "the limits `render_deadline_ms`"),
        // Issue 15: values that once panicked, wrapped or were accepted.
        (
            "max_concurrency=2305843009213693952",
            "`max_concurrency` 2305843009213693952 is out of range; use 1 to 4096",
        ),
        (
            "memory_limit_mib=17592186044416",
            "`memory_limit_mib` 17592186044416 is out of range",
        ),
        (
            "max_response_kib=100000000",
            "`max_response_kib` 100000000 is out of range",
        ),
        (
            "max_response_kib=100000",
            "over the server's --max-response-kib 8192",
        ),
    ] {
        let (status, body) = s.add("t", "plugins/hello/render.js", query);
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(says), "{query}: {body}");
    }
}
