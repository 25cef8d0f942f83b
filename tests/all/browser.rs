//! In a real browser, Debian's headless Chromium: hydration end to end (the
//! `hydrate` example, a React app rendered by `ssr serve`, its client bundle
//! built by the same `ssr build --client` with hashed names and packed as
//! assets; `tests/browser/hydrate.mjs`), and a streamed page whose Suspense
//! fallback shows until its data arrive (`plugins/stream`;
//! `tests/browser/suspense.mjs`). `dev.rs` drives it too: a page open
//! under `ssr dev` reloads itself after an edit (`tests/browser/reload.mjs`).
//!
//! Needs `chromium` and the npm packages of `tests/browser` (scripts/setup.sh
//! installs both); nothing downloads a browser.

use crate::support::{Client, Server, plugin_with, root, text};

const SERVER: &str = "plugins/hydrate/server.jsx";
const CLIENT_FLAGS: &[&str] = &[
    "--client",
    "plugins/hydrate/client.jsx",
    "--assets",
    "plugins/hydrate/public",
];

/// What the page did in the browser (the script's JSON).
#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Seen {
    before: Option<String>,
    after: Option<String>,
    failure: Option<String>,
    console: Vec<Message>,
    page_errors: Vec<String>,
    requests: Vec<Request>,
}

#[derive(serde::Deserialize, Debug)]
struct Message {
    r#type: String,
    text: String,
}

#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Request {
    url: String,
    status: u16,
    cache_control: Option<String>,
}

/// No uncaught error, and no console error, warning or word of hydration.
fn assert_quiet(engine: &ssr::engine::EngineKind, page_errors: &[String], console: &[Message]) {
    assert!(page_errors.is_empty(), "{engine}: {page_errors:?}");
    let complaints: Vec<&Message> = console
        .iter()
        .filter(|m| {
            m.r#type == "error"
                || m.r#type == "warning"
                || m.text.to_ascii_lowercase().contains("hydrat")
        })
        .collect();
    assert!(complaints.is_empty(), "{engine}: {complaints:#?}");
}

fn browse(url: &str) -> Seen {
    run("hydrate.mjs", &[url])
}

/// `tests/browser/<script> <args>`, its JSON report.
pub fn run<T: serde::de::DeserializeOwned>(script: &str, args: &[&str]) -> T {
    let out = std::process::Command::new("node")
        .arg(root().join("tests/browser").join(script))
        .args(args)
        .output()
        .expect("running node");
    assert!(
        out.status.success(),
        "the browser script failed (is chromium installed? scripts/setup.sh installs it):\n{}",
        text(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
fn the_hydration_example_hydrates_and_counts_in_chromium_on_both_engines() {
    let plugin = std::fs::read(plugin_with(SERVER, CLIENT_FLAGS).plugin).unwrap();
    let server = Server::start(&["--demo=false", "--path-routing"]);
    for engine in ssr::engine::Engines::KINDS {
        let id = format!("hydrate-{engine}");
        let (status, body) = server.put_bytes(&id, &plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        let seen = browse(&server.url(&format!("/t/{id}/?start=3&name=Ada")));
        assert_eq!(seen.failure, None, "{engine}: {seen:#?}");
        assert_eq!(
            seen.before.as_deref(),
            Some("3"),
            "{engine}: the server's count"
        );
        assert_eq!(
            seen.after.as_deref(),
            Some("4"),
            "{engine}: a click after hydration"
        );
        assert_quiet(engine, &seen.page_errors, &seen.console);
        // The client came from the plugin's assets, hashed and immutable;
        // the stylesheet and icon from its public/ directory.
        let script = seen
            .requests
            .iter()
            .find(|r| r.url.contains("/assets/client-") && r.url.ends_with(".js"))
            .unwrap_or_else(|| panic!("{engine}: no client script loaded: {seen:#?}"));
        assert_eq!(script.status, 200);
        assert_eq!(
            script.cache_control.as_deref(),
            Some("public, max-age=31536000, immutable")
        );
        let css = seen.requests.iter().find(|r| r.url.ends_with("/style.css"));
        assert_eq!(css.map(|r| r.status), Some(200), "{engine}: {seen:#?}");
    }
}

/// What the streamed page did in the browser.
#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Streamed {
    fallback_first: Option<bool>,
    items_after: Option<Vec<String>>,
    fallback_gone: Option<bool>,
    failure: Option<String>,
    console: Vec<Message>,
    page_errors: Vec<String>,
}

/// An API for the streamed page: `[1,2,3]`, once `GET /release` came after
/// the request (the browser script asks for it when it has seen the
/// fallback), so that the content comes after the fallback however slow
/// the machine is; at most 20 s later all the same.
fn held_api() -> String {
    use std::io::{Read, Write};
    use std::sync::{Arc, Condvar, Mutex};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let releases = Arc::new((Mutex::new(0u64), Condvar::new()));
    std::thread::spawn(move || {
        for mut conn in listener.incoming().map_while(Result::ok) {
            let releases = releases.clone();
            std::thread::spawn(move || {
                let mut buf = [0; 4096];
                let n = conn.read(&mut buf).unwrap_or(0);
                let (count, released) = &*releases;
                if buf[..n].starts_with(b"GET /release ") {
                    *count.lock().unwrap() += 1;
                    released.notify_all();
                    let _ = conn.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
                    return;
                }
                let seen = *count.lock().unwrap();
                let _ = released.wait_timeout_while(
                    count.lock().unwrap(),
                    std::time::Duration::from_secs(20),
                    |now| *now == seen,
                );
                let _ = conn.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 7\r\nconnection: close\r\n\r\n[1,2,3]",
                );
            });
        }
    });
    origin
}

#[test]
fn a_streamed_suspense_page_shows_its_fallback_then_its_content_in_chromium() {
    let api = held_api();
    let plugin = std::fs::read(crate::support::plugin("plugins/stream/app.jsx").plugin).unwrap();
    // The request's wall-clock limit is the default 30 s: the render waits
    // on the held API until the browser has seen the fallback, which a
    // loaded machine can take more than 10 s to show (a full run beside
    // other work once cut the stream there).
    let server = Server::start(&["--demo=false", "--path-routing"]);
    for engine in ssr::engine::Engines::KINDS {
        let id = format!("stream-{engine}");
        let query =
            format!("engine={engine}&var=API={api}&allow_fetch={api}&render_deadline_ms=8000");
        let (status, body) = server.put_bytes(&id, &plugin, &query);
        assert_eq!(status, 201, "{body}");
        let release = format!("{api}/release");
        let seen: Streamed = run(
            "suspense.mjs",
            &[&server.url(&format!("/t/{id}/")), &release],
        );
        assert_eq!(seen.failure, None, "{engine}: {seen:#?}");
        assert_eq!(seen.fallback_first, Some(true), "{engine}: {seen:#?}");
        assert_eq!(
            seen.items_after.as_deref(),
            Some(&["item 1".to_string(), "item 2".into(), "item 3".into()][..]),
            "{engine}"
        );
        assert_eq!(seen.fallback_gone, Some(true), "{engine}");
        assert_quiet(engine, &seen.page_errors, &seen.console);
    }
}
