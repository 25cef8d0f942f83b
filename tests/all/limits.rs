//! Each limit obeyed and violated, on every engine: the same request with a
//! parameter just inside the limit succeeds, and just past it fails the way
//! the limit says. The attacks themselves (an endless loop, a memory bomb)
//! and their containment are in `hostile.rs`.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ssr::engine::Engines;

use crate::support::{Client, Server};

/// A server with small limits, and `hostile.js` and `slow.js` on every
/// engine as `evil-<engine>` and `slow-<engine>`.
fn server(args: &[&str], tenant: &str) -> Server {
    let s = Server::start(&[&["--demo=false", "--workers", "2"], args].concat());
    for engine in Engines::KINDS {
        for (id, entry) in [("evil", "hostile.js"), ("slow", "slow.js")] {
            let (status, body) = s.add(
                &format!("{id}-{engine}"),
                &format!("tests/plugins/{entry}"),
                &format!("engine={engine}{tenant}"),
            );
            assert_eq!(status, 201, "{body}");
        }
    }
    s
}

#[test]
fn the_render_deadline_obeyed_and_violated() {
    let s = server(
        &["--render-deadline", "1000", "--request-timeout", "5000"],
        "",
    );
    for engine in Engines::KINDS {
        let within = s.get(&format!("/t/slow-{engine}/?ms=200"), &[]);
        assert_eq!(within.status, 200, "{engine}: {}", within.text());
        assert!(within.text().contains("slept 200 ms"), "{}", within.text());
        // Past the deadline by CPU time however slow the machine: a spin of
        // 3 s by the clock used less than 1 s of CPU on 2 loaded cores.
        let past = s.get(&format!("/t/slow-{engine}/?forever=1"), &[]);
        assert_eq!(past.status, 504, "{engine}: {}", past.text());
    }
    assert!(s.log_contains("used up its CPU time of 1s"));
}

#[test]
fn the_memory_limit_obeyed_and_violated() {
    // 4 MiB of doubles is 4 MiB on V8 and 8 MiB on QuickJS (a value is 16
    // bytes there), well inside 64 MiB; 128 MiB is past it on both.
    let s = server(
        &["--memory-limit-mib", "64", "--render-deadline", "5000"],
        "",
    );
    for engine in Engines::KINDS {
        let within = s.get(&format!("/t/evil-{engine}/allocate?mib=4"), &[]);
        assert_eq!(
            (within.status, within.text().as_str()),
            (200, "allocated"),
            "{engine}"
        );
        let past = s.get(&format!("/t/evil-{engine}/allocate?mib=128"), &[]);
        assert_eq!(past.status, 500, "{engine}: {}", past.text());
        let series = format!("ssr_render_errors_total{{tenant=\"evil-{engine}\",kind=\"memory\"}}");
        assert_eq!(s.metric(&series), 1.0, "{engine}");
        // Out of memory is what the engine saw, not what a message says.
        let lookalike = s.get(&format!("/t/evil-{engine}/says-out-of-memory"), &[]);
        assert_eq!(lookalike.status, 500, "{engine}");
        assert_eq!(
            s.metric(&series),
            1.0,
            "{engine}: a thrown message is not the cap"
        );
        let script = format!("ssr_render_errors_total{{tenant=\"evil-{engine}\",kind=\"script\"}}");
        assert_eq!(s.metric(&script), 1.0, "{engine}");
    }
}

#[test]
fn the_response_size_limit_obeyed_and_violated() {
    // Exactly the limit is allowed; one byte more is not.
    let s = server(&["--max-response-kib", "64"], "");
    for engine in Engines::KINDS {
        let within = s.get(&format!("/t/evil-{engine}/output?bytes=65536"), &[]);
        assert_eq!(within.status, 200, "{engine}: {}", within.text());
        assert_eq!(within.body.len(), 65536, "{engine}");
        let past = s.get(&format!("/t/evil-{engine}/output?bytes=65537"), &[]);
        assert_eq!(past.status, 500, "{engine}: {}", past.text());
        let series =
            format!("ssr_render_errors_total{{tenant=\"evil-{engine}\",kind=\"too-large\"}}");
        assert_eq!(s.metric(&series), 1.0, "{engine}");
    }
    assert!(s.log_contains("65537 bytes, over the limit of 65536 bytes"));
}

#[test]
fn the_concurrency_cap_obeyed_and_violated() {
    // `max_concurrency=2` and `--queue-capacity 2`: two renders at once and
    // two waiting in the tenant's line are within the limit, and all four
    // are served. Once they are in (the tenant's request count says so), one
    // more request is refused at once.
    let s = server(
        &[
            "--queue-capacity",
            "2",
            "--v8-threads",
            "4",
            "--render-deadline",
            "10000",
            "--request-timeout",
            "15000",
        ],
        "&max_concurrency=2",
    );
    for engine in Engines::KINDS {
        let spin = |n: usize| -> JoinHandle<u16> {
            let url = s.url(&format!("/t/slow-{engine}/?ms=2000&n={n}"));
            std::thread::spawn(move || Server::agent().get(&url).call().unwrap().status().as_u16())
        };
        let within: Vec<_> = (0..4).map(spin).collect();
        let requests = format!("ssr_requests_total{{tenant=\"slow-{engine}\"}}");
        let asked = Instant::now();
        while s.metric(&requests) < 4.0 {
            assert!(
                asked.elapsed() < Duration::from_secs(10),
                "{engine}: the spinners never arrived"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let past = s.get(&format!("/t/slow-{engine}/?n=past"), &[]);
        assert_eq!(past.status, 503, "{engine}: {}", past.text());
        let within: Vec<u16> = within.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(within, [200; 4], "{engine}");
        let series =
            format!("ssr_rejections_total{{tenant=\"slow-{engine}\",reason=\"tenant-busy\"}}");
        assert_eq!(s.metric(&series), 1.0, "{engine}");
    }
}
