//! `ssr build` failures: a clear message on stderr and a non-zero exit,
//! never a panic.

use crate::support::{root, ssr, tempdir, text};

fn build_fails(source: Option<&str>, file: &str) -> String {
    let dir = tempdir("build");
    let entry = dir.join(file);
    if let Some(src) = source {
        std::fs::write(&entry, src).unwrap();
    }
    let out = ssr()
        .arg("build")
        .arg(&entry)
        .arg("-o")
        .arg(dir.join("out.wasm"))
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected exit 1, stderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !dir.join("out.wasm").exists(),
        "a failed build must not write a plugin"
    );
    stderr
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let err = build_fails(
        Some("export function render(req) {\n  return '<p>' + ;\n}\n"),
        "page.js",
    );
    assert!(err.contains("SyntaxError"), "{err}");
    assert!(err.contains("page.js:2:"), "{err}");
}

#[test]
fn missing_render_export_lists_the_exports() {
    let err = build_fails(
        Some("export function hello() {}\nexport const x = 1;\n"),
        "page.js",
    );
    assert!(err.contains("does not export a render function"), "{err}");
    assert!(err.contains("hello, x"), "{err}");
}

#[test]
fn top_level_throw_reports_message_and_stack() {
    let err = build_fails(
        Some(
            "function boot() { throw new Error('config missing'); }\nboot();\nexport function render() { return 'x'; }\n",
        ),
        "page.js",
    );
    assert!(err.contains("Error: config missing"), "{err}");
    assert!(err.contains("at boot (page.js:1:"), "{err}");
}

#[test]
fn top_level_rejection_is_reported() {
    let err = build_fails(
        Some(
            "await Promise.reject(new RangeError('no config'));\nexport function render() { return 'x'; }\n",
        ),
        "page.js",
    );
    assert!(err.contains("RangeError: no config"), "{err}");
}

#[test]
fn unreadable_entry_is_named() {
    let err = build_fails(None, "does-not-exist.js");
    assert!(err.contains("cannot read the entry module"), "{err}");
    assert!(err.contains("does-not-exist.js"), "{err}");
}

#[test]
fn import_without_bundler_says_how_to_bundle() {
    let dir = tempdir("build");
    let entry = dir.join("app.js");
    std::fs::copy(root().join("tests/plugins/bare-import.js"), &entry).unwrap();
    let out = ssr()
        .args(["build"])
        .arg(&entry)
        .arg("-o")
        .arg(dir.join("out.wasm"))
        .current_dir(&dir)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("npm install --save-dev esbuild"), "{err}");
    assert!(err.contains("npx esbuild"), "{err}");
}

#[test]
fn bundler_error_is_reported_with_location() {
    // JSX next to the example plugins' esbuild: esbuild reports the error.
    let dir = root().join("target/test-plugins/broken-jsx");
    std::fs::create_dir_all(&dir).unwrap();
    let entry = dir.join("app.jsx");
    std::fs::write(
        &entry,
        "/** @jsxImportSource preact */\nexport function render() {\n  return <div>;\n}\n",
    )
    .unwrap();
    let out = ssr()
        .arg("build")
        .arg(&entry)
        .arg("-o")
        .arg(dir.join("out.wasm"))
        .current_dir(root().join("plugins"))
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("esbuild failed"), "{err}");
    assert!(
        err.contains("app.jsx:3:") || err.contains("app.jsx:4:"),
        "{err}"
    );
}

#[test]
fn jsx_that_says_not_its_runtime_is_refused_with_what_to_add() {
    // A Preact page as a new user writes it: no pragma, no config.
    let dir = tempdir("jsx-runtime");
    std::os::unix::fs::symlink(
        root().join("plugins/node_modules"),
        dir.join("node_modules"),
    )
    .unwrap();
    let entry = dir.join("app.jsx");
    std::fs::write(
        &entry,
        "import { renderToString } from 'preact-render-to-string';\n\
         export function render() { return renderToString(<h1>hi</h1>); }\n",
    )
    .unwrap();
    let build = |extra: &[&str]| {
        ssr()
            .arg("build")
            .arg(&entry)
            .arg("-o")
            .arg(dir.join("out.wasm"))
            .args(extra)
            .output()
            .unwrap()
    };
    let out = build(&[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("React is not defined"), "{err}");
    assert!(err.contains("/** @jsxImportSource preact */"), "{err}");
    assert!(err.contains("--jsx-import-source preact"), "{err}");
    assert!(!dir.join("out.wasm").exists());
    let renders = |out: std::process::Output| {
        assert!(out.status.success(), "{}", text(&out.stderr));
        let page = crate::support::render(&dir.join("out.wasm"), "/", &[]);
        assert_eq!(text(&page.stdout), "<h1>hi</h1>", "{}", text(&page.stderr));
    };
    // Any of the three ways it names works.
    renders(build(&["--jsx-import-source", "preact"]));
    std::fs::write(
        dir.join("jsconfig.json"),
        r#"{ "compilerOptions": { "jsx": "react-jsx", "jsxImportSource": "preact" } }"#,
    )
    .unwrap();
    renders(build(&[]));
}

#[test]
fn a_top_level_await_that_never_settles_is_refused_naming_the_top_level() {
    let err = build_fails(
        Some("await new Promise(() => {});\nexport default { fetch: () => new Response('x') };\n"),
        "waits.js",
    );
    assert!(
        err.contains("waits.js: the module's top level awaits a promise that can never settle"),
        "{err}"
    );
}
