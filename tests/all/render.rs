//! `ssr render` of every example plugin and of more real libraries, on every
//! engine (Wasm and V8), is byte-identical to Node rendering the same bundle
//! with the same request.

use ssr::engine::EngineKind;

use crate::support::{assert_same_as_node, plugin, render_on, text};

#[test]
fn hello_matches_node() {
    assert_same_as_node("plugins/hello/render.js", "/", &[]);
    assert_same_as_node(
        "plugins/hello/render.js",
        "/greet?name=%3Cscript%3E&name=second",
        &[],
    );
}

#[test]
fn react_matches_node() {
    assert_same_as_node("plugins/react/app.jsx", "/", &[]);
    assert_same_as_node("plugins/react/app.jsx", "/?name=Z%C3%BC+rich&count=17", &[]);
}

#[test]
fn preact_matches_node() {
    assert_same_as_node("plugins/preact/app.jsx", "/", &[]);
    assert_same_as_node(
        "plugins/preact/app.jsx",
        "/todo?filter=done&theme=dark",
        &[],
    );
}

#[test]
fn vue_matches_node() {
    assert_same_as_node("plugins/vue/app.js", "/products", &[]);
    assert_same_as_node("plugins/vue/app.js", "/products?page=7", &[]);
}

#[test]
fn handlebars_matches_node() {
    assert_same_as_node(
        "plugins/handlebars/render.js",
        "/?user=ada%20%26%20bob",
        &[],
    );
}

#[test]
fn liquid_matches_node() {
    assert_same_as_node(
        "plugins/liquid/render.js",
        "/shop/items?title=summer+sale",
        &[],
    );
}

#[test]
fn request_mapping_and_web_apis_match_node() {
    assert_same_as_node(
        "tests/plugins/echo.js",
        "/a/b%20c?x=1&x=2&y=%E2%82%AC&z",
        &[
            ("Accept-Language", "fr"),
            ("X-Custom", "one"),
            ("cookie", "a=1"),
        ],
    );
}

#[test]
fn every_shape_of_body_string_reaches_the_host_as_the_same_utf8() {
    for path in [
        "/ascii",
        "/ascii-two-byte",
        "/latin1",
        "/low-bytes-ascii",
        "/beyond-latin1",
    ] {
        assert_same_as_node("tests/plugins/text.js", path, &[]);
    }
}

/// The frames of `tests/plugins/mapped`'s error, in its own files: the
/// `throw` in lib.js (line 6), called from index.js (line 8), whatever the
/// column each engine counts from.
fn assert_mapped(said: &str, engine: &str) {
    for frame in [
        "tests/plugins/mapped/lib.js:6:",
        "tests/plugins/mapped/index.js:8:",
    ] {
        assert!(said.contains(frame), "{engine}: no {frame} in:\n{said}");
    }
    assert!(
        !said.contains("bundle.js") && !said.contains("index.js:1"),
        "{engine}: {said}"
    );
}

#[test]
fn a_render_errors_stack_names_the_sites_files_and_lines_on_both_engines() {
    use crate::support::{Client, Server, TOKEN};
    let built = plugin("tests/plugins/mapped/index.js");
    // `ssr render`.
    for engine in [EngineKind::Wasm, EngineKind::V8] {
        let out = render_on(engine, &built.plugin, "/?x=boom", &[]);
        assert!(!out.status.success());
        assert_mapped(&text(&out.stderr), engine.as_str());
    }
    // A server with a data dir (the map is a file beside the plugin) and
    // one without (kept in memory): the log, a debug page, a follower.
    let data = crate::support::tempdir("mapped");
    for s in [
        Server::stored(data.to_str().unwrap()),
        Server::start(&["--demo=false", "--path-routing"]),
    ] {
        for engine in ["wasm", "v8"] {
            let id = format!("mapped-{engine}");
            let query = format!("engine={engine}&debug=true");
            assert_eq!(s.add(&id, "tests/plugins/mapped/index.js", &query).0, 201);
            let follow = crate::tokens::Follow::start(&s, TOKEN, &id);
            let page = s.get(&format!("/t/{id}/?x=boom"), &[]);
            assert_eq!(page.status, 500);
            assert_mapped(&page.text(), engine);
            let lines = follow.until("tests/plugins/mapped/index.js").join("\n");
            assert_mapped(&lines, engine);
            assert!(
                crate::support::within(std::time::Duration::from_secs(2), || {
                    s.log_contains("tests/plugins/mapped/lib.js:6:")
                }),
                "{engine}: the log has no mapped frame"
            );
        }
    }
    assert!(std::fs::read_dir(data.join("plugins")).unwrap().any(|f| {
        f.unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".wasm.map")
    }));
}

/// A plain entry (no imports: built without esbuild) names its own file in
/// its stacks on both engines, at build time and at render time.
#[test]
fn a_plain_entrys_errors_name_its_path_on_both_engines() {
    let dir = crate::support::tempdir("plain-stack");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/index.js"),
        "export default {\n  fetch() {\n    throw new Error('plain boom');\n  },\n};\n",
    )
    .unwrap();
    let build = || {
        crate::support::ssr()
            .args(["build", "src/index.js", "-o", "site.wasm"])
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let built = build();
    assert!(built.status.success(), "{}", text(&built.stderr));
    for engine in [EngineKind::Wasm, EngineKind::V8] {
        let out = render_on(engine, &dir.join("site.wasm"), "/", &[]);
        let said = text(&out.stderr);
        assert!(said.contains("plain boom"), "{engine}: {said}");
        assert!(said.contains("(src/index.js:3:"), "{engine}: {said}");
        assert!(!said.contains("bundle.js"), "{engine}: {said}");
    }
    // At build time, the top level's error too.
    std::fs::write(
        dir.join("src/index.js"),
        "export default {\n  fetch( {\n};\n",
    )
    .unwrap();
    let built = build();
    let said = text(&built.stderr);
    assert!(!built.status.success());
    assert!(said.contains("at src/index.js:3:"), "{said}");
}
