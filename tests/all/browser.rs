//! Hydration end to end, in a real browser: the `hydrate` example (a React
//! app rendered by `ssr serve`, its client bundle built by the same
//! `ssr build --client` with hashed names and packed as assets) loaded in
//! Debian's headless Chromium, driven by `tests/browser/hydrate.mjs`.
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

fn browse(url: &str) -> Seen {
    let out = std::process::Command::new("node")
        .arg(root().join("tests/browser/hydrate.mjs"))
        .arg(url)
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
        assert!(
            seen.page_errors.is_empty(),
            "{engine}: {:?}",
            seen.page_errors
        );
        let complaints: Vec<&Message> = seen
            .console
            .iter()
            .filter(|m| {
                m.r#type == "error"
                    || m.r#type == "warning"
                    || m.text.to_ascii_lowercase().contains("hydrat")
            })
            .collect();
        assert!(complaints.is_empty(), "{engine}: {complaints:#?}");
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
