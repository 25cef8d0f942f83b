//! `Intl` on both engines (issue 34, part 2). The Wasm engine has none of
//! its own and asks the host, which answers with the server's V8
//! (`host/src/web/intl.rs`): every line must be the V8 engine's.

use ssr::engine::{EngineKind, Engines};

use crate::support::{Client, Server, plugin, ssr, text};

const ENTRY: &str = "tests/plugins/intl.js";

/// The test page's render: some hundreds of `Intl` calls, each a host call
/// on Wasm (300-500 ms alone on 2 cores), so it gets 10 s rather than
/// `ssr render`'s 1 s, which a full parallel test run went past once.
fn rendered(engine: EngineKind, url: &str) -> String {
    let out = ssr()
        .arg("render")
        .arg(plugin(ENTRY).plugin)
        .arg(url)
        .args(["--engine", engine.as_str(), "--timeout-ms", "10000"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{engine}: {}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn intl_on_wasm_formats_byte_for_byte_as_v8_does_in_nine_locales() {
    let v8 = rendered(EngineKind::V8, "/");
    let wasm = rendered(EngineKind::Wasm, "/");
    for (line, (a, b)) in wasm.lines().zip(v8.lines()).enumerate() {
        assert_eq!(a, b, "line {}", line + 1);
    }
    assert_eq!(wasm.lines().count(), v8.lines().count());
    // What V8 says, spot-checked: a formatter made at build time, currency,
    // a time zone, collation, plural rules, segments.
    for expected in [
        "5 March 2024 |",
        "de: 5.3.2024 | Dienstag, 5. März 2024 um 09:07:09 GMT-5",
        "1.234.567,89\u{a0}€",
        "ja: 2024/3/5",
        "zero,one,two,few,few,many,many,other",
        "10 9 Äpfel apple Eagle éclair zebra Zoo",
        "Hello@0 wide@7 world@12",
    ] {
        assert!(wasm.contains(expected), "{expected} in:\n{wasm}");
    }
}

#[test]
fn a_bad_locale_time_zone_or_option_is_the_standards_error_on_both_engines() {
    for &engine in Engines::KINDS {
        assert_eq!(
            rendered(engine, "/?only=bad"),
            "locale: RangeError\ntimeZone: RangeError\noption: RangeError\ncurrency: TypeError\ndate: RangeError\nlist: TypeError\nnoNew: TypeError",
            "{engine}"
        );
    }
}

#[test]
fn formatters_made_in_a_loop_stay_bounded_and_a_loop_of_100000_meets_the_cpu_limit() {
    let s = Server::per_engine("intl", ENTRY);
    for engine in Engines::KINDS {
        let get = |q: &str| s.get(&format!("/t/intl-{engine}/?only=loop&{q}"), &[]);
        // More kinds than the engine's (64) and the host's (512) caches
        // keep, well within the CPU limit on a loaded machine.
        let r = get("n=700&distinct=600");
        assert_eq!(r.status, 200, "{engine}: {}", r.text());
        let said = r.text();
        assert!(
            said.starts_with("700 made, 600 kinds, last ") && said.ends_with('M'),
            "{engine}: {said}"
        );
        let r = get("n=100000&distinct=7");
        assert_eq!(r.status, 504, "{engine}: {}", r.text());
        let again = get("n=10&distinct=7&after=1");
        assert_eq!(again.status, 200, "{engine}: {}", again.text());
    }
}
