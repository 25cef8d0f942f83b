//! `ssr dev`: a site from `ssr init` is served with its `.dev.vars`, an edit
//! shows after a rebuild, the open page is told to reload, a build error is
//! shown until it is fixed, and a render error's stack names the site's
//! file and line; on both engines. Killed, it leaves no server behind.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::support::{free_port, ssr, tempdir, text, with_esbuild};

/// `ssr dev` in `site` on `port`, stopped when dropped.
struct Dev(Child, u16);

impl Dev {
    fn start(site: &Path, port: u16, engine: &str) -> Dev {
        let child = ssr()
            .args(["dev", "--port", &port.to_string(), "--engine", engine])
            .current_dir(site)
            .env("PATH", with_esbuild())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let dev = Dev(child, port);
        let up = crate::support::within(Duration::from_secs(60), || dev.get("/").0 != 0);
        assert!(up, "ssr dev did not serve within 60 s");
        dev
    }

    fn get(&self, path: &str) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        match agent
            .get(format!("http://127.0.0.1:{}{path}", self.1))
            .call()
        {
            Ok(mut r) => (
                r.status().as_u16(),
                r.body_mut().read_to_string().unwrap_or_default(),
            ),
            Err(_) => (0, String::new()),
        }
    }

    /// The page at `/` once it satisfies `ok`, and how long that took.
    fn until(&self, ok: impl Fn(u16, &str) -> bool) -> (String, Duration) {
        let asked = Instant::now();
        loop {
            let (status, page) = self.get("/");
            if ok(status, &page) {
                return (page, asked.elapsed());
            }
            assert!(
                asked.elapsed() < Duration::from_secs(10),
                "{status}: {page}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Dev {
    /// As a terminal's Ctrl-C would: `ssr dev` stops its server too.
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-INT", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

/// A site from `ssr init` (the hello template), in a new directory.
fn new_site(tag: &str) -> std::path::PathBuf {
    let work = tempdir(tag);
    let out = ssr()
        .args(["init", "site"])
        .current_dir(&work)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    work.join("site")
}

#[test]
fn ssr_dev_serves_rebuilds_reloads_and_shows_errors_in_the_sites_files() {
    let site = new_site("dev");
    std::fs::write(
        site.join(".dev.vars"),
        "# for development\nGREETING=\"Howdy\"\n",
    )
    .unwrap();
    let port = free_port();
    let dev = Dev::start(&site, port, "wasm");
    let (page, _) = dev.until(|s, p| s == 200 && p.contains("Howdy, world!"));
    assert!(page.contains("/_ssr_dev/reload.js"), "{page}");

    // The open page hears of each rebuild.
    let mut events = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        events,
        "GET /_ssr_dev/events HTTP/1.1\r\nhost: localhost\r\n\r\n"
    )
    .unwrap();
    events
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut events = BufReader::new(events);

    let source = site.join("src/index.js");
    let original = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, original.replace("<h1>", "<h1 class=\"edited\">")).unwrap();
    let (_, took) = dev.until(|s, p| s == 200 && p.contains("edited"));
    eprintln!("an edit showed after {took:?}");
    let mut line = String::new();
    while !line.contains("event: reload") {
        line.clear();
        events.read_line(&mut line).unwrap();
    }

    // A build error is the page until it is fixed.
    std::fs::write(&source, "export default {\n  fetch( {\n};\n").unwrap();
    let (page, _) = dev.until(|s, _| s == 500);
    assert!(
        page.contains("The build failed") && page.contains("index.js"),
        "{page}"
    );
    std::fs::write(&source, &original).unwrap();
    dev.until(|s, p| s == 200 && p.contains("Howdy, world!"));

    // A render error shows its stack in the site's files.
    std::fs::write(
        site.join("src/fail.js"),
        "// fails on purpose\n\nexport function fail() {\n  throw new Error('failed on purpose');\n}\n",
    )
    .unwrap();
    std::fs::write(
        &source,
        "import { fail } from './fail.js';\nexport default { fetch() { return fail(); } };\n",
    )
    .unwrap();
    let (page, _) = dev.until(|s, p| s == 500 && p.contains("failed on purpose"));
    assert!(page.contains("src/fail.js:4:"), "{page}");

    // Its port is taken now: a second one says so.
    let out = ssr()
        .args(["dev", "--port", &port.to_string()])
        .current_dir(&site)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--port"),
        "{}",
        text(&out.stderr)
    );

    // On V8 too.
    drop(dev);
    let dev = Dev::start(&site, free_port(), "v8");
    let (page, _) = dev.until(|s, p| s == 500 && p.contains("failed on purpose"));
    assert!(page.contains("src/fail.js:4:"), "{page}");
    std::fs::write(&source, &original).unwrap();
    dev.until(|s, p| s == 200 && p.contains("Howdy, world!"));

    // Killed outright, it cannot stop its server: the server stops itself.
    let mut dev = dev;
    let pid = dev.0.id();
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap();
    let server: Vec<u32> = children
        .split_whitespace()
        .map(|c| c.parse().unwrap())
        .filter(|c| {
            std::fs::read(format!("/proc/{c}/cmdline"))
                .is_ok_and(|cmd| text(&cmd).contains("serve"))
        })
        .collect();
    assert_eq!(server.len(), 1, "ssr dev's children: {children}");
    dev.0.kill().unwrap();
    let _ = dev.0.wait();
    // Reaped by init once it ends; until then its /proc entry stays.
    let gone = crate::support::within(Duration::from_secs(10), || {
        std::fs::read_to_string(format!("/proc/{}/stat", server[0]))
            .map_or(true, |stat| stat.contains(") Z "))
    });
    assert!(gone, "the server of a killed ssr dev is still running");
}

/// What the open page did in Chromium (`tests/browser/reload.mjs`).
#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Reloaded {
    before: Option<String>,
    after: Option<String>,
    loads: u32,
    failure: Option<String>,
    page_errors: Vec<String>,
}

#[test]
fn a_page_open_in_chromium_reloads_itself_with_the_edit_on_both_engines() {
    let site = new_site("dev-browser");
    let source = site.join("src/index.js");
    for (engine, edit) in [("wasm", "Edited on Wasm"), ("v8", "Edited on V8")] {
        let port = free_port();
        let dev = Dev::start(&site, port, engine);
        dev.until(|s, p| s == 200 && p.contains("<h1>"));
        let seen: Reloaded = crate::browser::run(
            "reload.mjs",
            &[
                &format!("http://127.0.0.1:{port}/?name=Ada"),
                source.to_str().unwrap(),
                "${escape(env.GREETING)}",
                edit,
            ],
        );
        assert_eq!(seen.failure, None, "{engine}: {seen:#?}");
        assert!(
            seen.before.as_deref().is_some_and(|h| h.contains("Ada")),
            "{engine}: {seen:#?}"
        );
        assert_eq!(
            seen.after.as_deref(),
            Some(format!("{edit}, Ada!").as_str()),
            "{engine}: {seen:#?}"
        );
        // The first load, then the one the page's script asked for.
        assert!(seen.loads >= 2, "{engine}: {seen:#?}");
        assert!(seen.page_errors.is_empty(), "{engine}: {seen:#?}");
        let original = std::fs::read_to_string(&source)
            .unwrap()
            .replace(edit, "${escape(env.GREETING)}");
        std::fs::write(&source, original).unwrap();
    }
}

#[test]
fn ssr_dev_in_a_directory_with_no_site_says_what_to_add() {
    let empty = tempdir("dev-empty");
    // `ssr dev` there fails; what it says.
    let refused = || {
        let out = ssr()
            .args(["dev", "--port", &free_port().to_string()])
            .current_dir(&empty)
            .output()
            .unwrap();
        assert!(!out.status.success());
        text(&out.stderr)
    };
    let said = refused();
    assert!(
        said.contains("no ssr.toml naming `main`") && said.contains("main = \"src/index.js\""),
        "{said}"
    );
    // An entry named but not there is named too.
    std::fs::write(empty.join("ssr.toml"), "main = \"src/app.js\"\n").unwrap();
    let said = refused();
    assert!(
        said.contains("ssr.toml") && said.contains("src/app.js"),
        "{said}"
    );
}

/// Issue 54, item 12: `ssr dev` answers loopback hosts only (a page that
/// rebinds its name to 127.0.0.1 gets nothing), passes its server's admin
/// token where other users cannot read it, and registers `.dev.vars` as
/// secrets, whose values its server's admin API never shows.
#[test]
fn issue_54_ssr_dev_answers_loopback_hosts_only_and_keeps_its_secrets_out_of_sight() {
    let site = new_site("dev-hosts");
    std::fs::write(site.join(".dev.vars"), "GREETING=\"Howdy\"\n").unwrap();
    let port = free_port();
    let dev = Dev::start(&site, port, "wasm");
    dev.until(|s, p| s == 200 && p.contains("Howdy, world!"));
    let ask = |host: &str| {
        let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            conn,
            "GET / HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut all = String::new();
        let _ = std::io::Read::read_to_string(&mut conn, &mut all);
        all
    };
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        assert!(ask(&host).starts_with("HTTP/1.1 200"), "{host}");
    }
    for host in [
        "evil.example",
        "attacker.example:8787",
        "localhost.evil.example",
    ] {
        let said = ask(host);
        assert!(said.starts_with("HTTP/1.1 403"), "{host}: {said}");
        assert!(!said.contains("Howdy"), "{host}: {said}");
    }

    // Its server: the token is not among its arguments.
    let pid = dev.0.id();
    let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap();
    let server = children
        .split_whitespace()
        .find(|c| {
            std::fs::read(format!("/proc/{c}/cmdline"))
                .is_ok_and(|cmd| text(&cmd).contains("serve"))
        })
        .expect("ssr dev's server");
    let args = text(&std::fs::read(format!("/proc/{server}/cmdline")).unwrap()).replace('\0', " ");
    assert!(!args.contains("token"), "{args}");
    let environ = std::fs::read(format!("/proc/{server}/environ")).unwrap();
    let token = text(&environ)
        .split('\0')
        .find_map(|v| v.strip_prefix("SSR_ADMIN_TOKEN=").map(str::to_string))
        .expect("the token in the server's environment");
    let listen = args
        .split_whitespace()
        .skip_while(|a| *a != "--listen")
        .nth(1)
        .unwrap();
    // Its admin API names the secret and never shows its value.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut r = agent
        .get(format!("http://{listen}/_ssr/admin/tenants/site"))
        .header("authorization", &format!("Bearer {token}"))
        .call()
        .unwrap();
    let shown = r.body_mut().read_to_string().unwrap();
    assert!(
        shown.contains("GREETING") && !shown.contains("Howdy"),
        "{shown}"
    );
}
