//! Static assets (`ssr build --assets`): packed by the build, checked at
//! registration, served by the host from memory before any render, on both
//! engines, over real HTTP.

use std::io::Read;
use std::path::PathBuf;

use ssr::engine::Engines;

use crate::support::{Client, Server, plugin_with, root, ssr, tempdir, text};

/// The renderer of the asset tests: echoes the request (`x-echo` says it
/// rendered).
const ECHO: &str = "tests/plugins/echo.js";
const HASHED: &str = "app-5XCJQ3ZN.js";

/// A directory of assets: a hashed script, a text file in a subdirectory, a
/// name with a space, and 200 KiB of binary data.
fn site() -> PathBuf {
    let dir = tempdir("assets-site");
    std::fs::write(dir.join(HASHED), script()).unwrap();
    std::fs::create_dir(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/readme.txt"), "read me\n".repeat(64)).unwrap();
    std::fs::write(dir.join("a b.txt"), "spaced").unwrap();
    std::fs::write(dir.join("blob.bin"), blob()).unwrap();
    dir
}

fn script() -> String {
    "export const greet = (name) => `hello, ${name}`;\n".repeat(200)
}

fn blob() -> Vec<u8> {
    (0..200 * 1024u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect()
}

/// The echo renderer with [`site`] packed, built once per run.
fn built() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(site);
    plugin_with(ECHO, &["--assets", dir.to_str().unwrap()]).plugin
}

fn decode(encoding: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    match encoding {
        "br" => brotli::Decompressor::new(body, 4096)
            .read_to_end(&mut out)
            .unwrap(),
        "gzip" => flate2::read::GzDecoder::new(body)
            .read_to_end(&mut out)
            .unwrap(),
        other => panic!("unexpected encoding {other}"),
    };
    out
}

#[test]
fn assets_are_served_before_the_renderer_on_both_engines() {
    let server = Server::start(&["--demo=false", "--path-routing"]);
    let plugin = std::fs::read(built()).unwrap();
    for engine in Engines::KINDS {
        let id = format!("site-{engine}");
        let (status, body) = server.put_bytes(&id, &plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        assert!(body.contains("\"assets\":4"), "{body}");
        let at = |p: &str| format!("/t/{id}{p}");

        let js = server.get(&at(&format!("/{HASHED}")), &[]);
        assert_eq!(js.status, 200, "{engine}");
        assert_eq!(js.body, script().as_bytes());
        assert_eq!(js.header("x-echo"), None, "a renderer answered an asset");
        assert_eq!(
            js.header("content-type"),
            Some("text/javascript; charset=utf-8")
        );
        assert_eq!(
            js.header("cache-control"),
            Some("public, max-age=31536000, immutable")
        );
        assert_eq!(js.header("accept-ranges"), Some("bytes"));
        assert_eq!(js.header("x-content-type-options"), Some("nosniff"));
        let etag = js.header("etag").unwrap().to_string();
        assert!(
            etag.starts_with('"') && etag.len() == 34,
            "a strong ETag: {etag}"
        );

        for coding in ["br", "gzip"] {
            let r = server.get(&at(&format!("/{HASHED}")), &[("accept-encoding", coding)]);
            assert_eq!(r.header("content-encoding"), Some(coding));
            assert_eq!(r.header("vary"), Some("accept-encoding"));
            assert!(
                r.body.len() < script().len() / 4,
                "{coding}: {}",
                r.body.len()
            );
            assert_eq!(decode(coding, &r.body), script().as_bytes());
            assert_ne!(r.header("etag"), Some(etag.as_str()), "one ETag per coding");
        }

        // A name without a hash is cached briefly; names are percent-decoded.
        let readme = server.get(&at("/docs/readme.txt"), &[]);
        assert_eq!(readme.status, 200);
        assert_eq!(readme.header("cache-control"), Some("public, max-age=60"));
        assert_eq!(
            readme.header("content-type"),
            Some("text/plain; charset=utf-8")
        );
        assert_eq!(server.get(&at("/a%20b.txt"), &[]).text(), "spaced");

        // Revalidation: 304 without a body, for any coding's tag.
        let r = server.get(&at(&format!("/{HASHED}")), &[("if-none-match", &etag)]);
        assert_eq!(r.status, 304);
        assert!(r.body.is_empty());
        assert_eq!(r.header("etag"), Some(etag.as_str()));
        let other = server.get(
            &at(&format!("/{HASHED}")),
            &[("if-none-match", "\"nope\", W/\"also-not\"")],
        );
        assert_eq!(other.status, 200);

        // HEAD: the GET's head, no body.
        let head = server.send("HEAD", &at("/blob.bin"), &[], b"");
        assert_eq!(head.status, 200);
        assert_eq!(head.header("content-length"), Some("204800"));
        assert_eq!(
            head.header("content-type"),
            Some("application/octet-stream")
        );
        assert!(head.body.is_empty());

        // Everything else is the renderer's: other paths, other methods.
        let page = server.get(&at("/not-an-asset"), &[]);
        assert_eq!(page.header("x-echo"), Some("GET"), "{}", page.text());
        let post = server.send("POST", &at(&format!("/{HASHED}")), &[], b"x=1");
        assert_eq!(post.header("x-echo"), Some("POST"));
    }
    // Not one of those asset requests entered the pool.
    let (_, metrics) = server.admin("GET", "/_ssr/metrics");
    for engine in Engines::KINDS {
        let id = format!("site-{engine}");
        let served = metric(
            &metrics,
            &format!("ssr_asset_responses_total{{tenant=\"{id}\"}}"),
        );
        assert_eq!(served, Some(8.0), "{metrics}");
        // Two renders: the page and the POST.
        let renders = metric(
            &metrics,
            &format!("ssr_render_seconds_count{{tenant=\"{id}\"}}"),
        );
        assert_eq!(renders, Some(2.0), "{engine}");
    }
}

fn metric(all: &str, name: &str) -> Option<f64> {
    all.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
}

#[test]
fn ranges_of_an_asset_obeyed_and_violated() {
    let server = Server::start(&["--demo=false", "--path-routing"]);
    let (status, body) = server.put_bytes("ranges", &std::fs::read(built()).unwrap(), "");
    assert_eq!(status, 201, "{body}");
    let blob = blob();
    let get = |headers: &[(&str, &str)]| server.get("/t/ranges/blob.bin", headers);

    let r = get(&[("range", "bytes=100-199")]);
    assert_eq!(r.status, 206);
    assert_eq!(r.header("content-range"), Some("bytes 100-199/204800"));
    assert_eq!(r.body, &blob[100..200]);
    let r = get(&[("range", "bytes=-10")]);
    assert_eq!(r.status, 206);
    assert_eq!(r.body, &blob[blob.len() - 10..]);
    let r = get(&[("range", "bytes=204000-")]);
    assert_eq!(r.body, &blob[204000..]);

    // Past the end: 416, saying the length.
    let r = get(&[("range", "bytes=204800-")]);
    assert_eq!(r.status, 416);
    assert_eq!(r.header("content-range"), Some("bytes */204800"));
    // Several ranges, or one that does not parse: the whole file.
    for range in ["bytes=0-1, 5-6", "bytes=x-y", "pages=1-2"] {
        let r = get(&[("range", range)]);
        assert_eq!((r.status, r.body.len()), (200, blob.len()), "{range}");
    }
    // If-Range: the range only while the validator still matches.
    let etag = get(&[]).header("etag").unwrap().to_string();
    let r = get(&[("range", "bytes=0-9"), ("if-range", &etag)]);
    assert_eq!(r.status, 206);
    let r = get(&[("range", "bytes=0-9"), ("if-range", "\"stale\"")]);
    assert_eq!((r.status, r.body.len()), (200, blob.len()));
}

#[test]
fn issue_32_partial_answers_carry_the_whole_ones_headers_and_invalid_ranges_are_ignored() {
    let server = Server::start(&["--demo=false", "--path-routing"]);
    let (status, body) = server.put_bytes("ranges", &std::fs::read(built()).unwrap(), "");
    assert_eq!(status, 201, "{body}");
    let get = |range: &str| {
        let headers: Vec<(&str, &str)> = Some(("range", range))
            .filter(|_| !range.is_empty())
            .into_iter()
            .collect();
        server.get("/t/ranges/docs/readme.txt", &headers)
    };
    let whole = get("");
    let len = "read me\n".len() * 64;
    assert_eq!((whole.status, whole.body.len()), (200, len));
    assert_eq!(whole.header("vary"), Some("accept-encoding"));
    for (range, status) in [("bytes=0-9", 206), ("bytes=9999-", 416), ("bytes=-0", 416)] {
        let r = get(range);
        assert_eq!(r.status, status, "{range}");
        for name in [
            "vary",
            "x-content-type-options",
            "cache-control",
            "content-type",
        ] {
            assert_eq!(r.header(name), whole.header(name), "{range}: {name}");
        }
    }
    // Invalid (last before first) or overlapping: ignored, the whole file.
    for range in ["bytes=5-2", "bytes=0-5,3-8", "bytes=0-5, 2-3"] {
        let r = get(range);
        assert_eq!((r.status, r.body.len()), (200, len), "{range}");
    }
}

#[test]
fn issue_32_asset_copies_that_share_bytes_are_refused_before_any_is_hashed() {
    let server = Server::start(&["--demo=false"]);
    // 2,000 entries naming the same MiB: 2 GiB to hash if each were.
    let data = vec![7u8; 1 << 20];
    let sha = ssr::artifact::digest(&data);
    let entries: Vec<String> = (0..2000)
        .map(|i| {
            format!(
                r#"{{"path":"/f{i}","sha256":"{sha}","identity":[0,{}]}}"#,
                data.len()
            )
        })
        .collect();
    let index = format!(r#"{{"files":[{}]}}"#, entries.join(","));
    let mut section = b"ssra\x01".to_vec();
    section.extend_from_slice(&(index.len() as u32).to_le_bytes());
    section.extend_from_slice(index.as_bytes());
    section.extend_from_slice(&data);
    let (status, body) = server.put_bytes("amplified", &with_assets_section(&section), "");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.contains("copies of /f0 and /f1 share bytes at 0; each copy must have its own"),
        "{body}"
    );
}

#[test]
fn request_paths_never_escape_the_asset_table() {
    let server = Server::start(&["--demo=false"]);
    let (status, body) = server.put_bytes(
        "escape",
        &std::fs::read(built()).unwrap(),
        "host=escape.test",
    );
    assert_eq!(status, 201, "{body}");
    let get = |path: &str| server.raw(&format!("GET {path} HTTP/1.1\nhost: escape.test"));
    assert_eq!(get("/docs/readme.txt").status, 200);
    assert_eq!(get("/docs/readme.txt").header("x-echo"), None);
    for path in [
        "/docs%2Freadme.txt",
        "/docs%2freadme.txt",
        "/docs/../docs/readme.txt",
        "/docs/%2e%2e/docs/readme.txt",
        "/./docs/readme.txt",
        "//docs/readme.txt",
        "/docs/readme.txt%00",
        "/docs%5Creadme.txt",
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/hostname",
    ] {
        let r = get(path);
        assert_eq!(
            r.header("x-echo"),
            Some("GET"),
            "{path} was not left to the renderer: {} {}",
            r.status,
            r.text()
        );
        assert!(!r.text().contains("read me"), "{path}");
    }
}

#[test]
fn assets_survive_a_restart() {
    let data = tempdir("assets-restart");
    let data = data.to_str().unwrap();
    let plugin = std::fs::read(built()).unwrap();
    {
        let server = Server::stored(data);
        for engine in Engines::KINDS {
            let (status, body) = server.put_bytes(
                &format!("kept-{engine}"),
                &plugin,
                &format!("engine={engine}"),
            );
            assert_eq!(status, 201, "{body}");
        }
        server.stop("KILL");
    }
    let server = Server::stored(data);
    for engine in Engines::KINDS {
        let r = server.get(&format!("/t/kept-{engine}/{HASHED}"), &[]);
        assert_eq!((r.status, r.body.len()), (200, script().len()), "{engine}");
    }
}

/// A plugin with `section` as its assets section: the echo plugin built
/// without assets, plus the section.
fn with_assets_section(section: &[u8]) -> Vec<u8> {
    let bare = std::fs::read(crate::support::plugin(ECHO).plugin).unwrap();
    ssr::artifact::with_section(bare, ssr::artifact::ASSETS_SECTION, section)
}

#[test]
fn a_truncated_or_inconsistent_asset_table_is_refused_at_registration() {
    let server = Server::start(&["--demo=false"]);
    let good = std::fs::read(built()).unwrap();
    let section = ssr::artifact::custom_section(&good, ssr::artifact::ASSETS_SECTION)
        .unwrap()
        .unwrap()
        .to_vec();
    // The section as built registers.
    let (status, body) = server.put_bytes("whole", &with_assets_section(&section), "");
    assert_eq!(status, 201, "{body}");

    let mut flipped = section.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x5a;
    let cases: [(&str, Vec<u8>); 4] = [
        ("truncated", section[..section.len() / 2].to_vec()),
        ("the index only", section[..40].to_vec()),
        ("a byte changed", flipped),
        ("not a table", b"hello".to_vec()),
    ];
    for (what, bad) in cases {
        let (status, body) = server.put_bytes("broken", &with_assets_section(&bad), "");
        assert_eq!(status, 400, "{what}: {body}");
        assert!(body.contains("asset table is corrupt"), "{what}: {body}");
        assert!(body.contains("ssr build"), "{what}: {body}");
    }
    let (status, _) = server.admin("GET", "/_ssr/admin/tenants/broken");
    assert_eq!(status, 404, "nothing was registered");
}

fn build(args: &[&str]) -> std::process::Output {
    let out = tempdir("assets-build").join("site.wasm");
    ssr()
        .arg("build")
        .arg(crate::support::root().join(ECHO))
        .arg("-o")
        .arg(&out)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn build_limits_obeyed_and_violated() {
    let dir = tempdir("assets-limits");
    std::fs::write(dir.join("big.bin"), vec![7u8; 1 << 20]).unwrap();
    let d = dir.to_str().unwrap();
    // Exactly 1 MiB fits a 1 MiB limit; the progress names the step.
    let ok = build(&["--assets", d, "--max-asset-mib", "1"]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stderr).contains("packing the static assets"));
    std::fs::write(dir.join("big.bin"), vec![7u8; (1 << 20) + 1]).unwrap();
    let err = build(&["--assets", d, "--max-asset-mib", "1"]);
    let said = text(&err.stderr);
    assert!(!err.status.success());
    assert!(
        said.contains("big.bin") && said.contains("--max-asset-mib"),
        "{said}"
    );

    // The total: two files of 0.6 MiB under a 1 MiB total.
    std::fs::write(dir.join("big.bin"), vec![7u8; 600 << 10]).unwrap();
    std::fs::write(dir.join("more.bin"), vec![8u8; 600 << 10]).unwrap();
    let err = build(&["--assets", d, "--max-assets-mib", "1"]);
    let said = text(&err.stderr);
    assert!(!err.status.success());
    assert!(
        said.contains("more.bin") && said.contains("--max-assets-mib"),
        "{said}"
    );
}

#[test]
fn symlinks_inside_the_directory_obeyed_and_leaving_it_violated() {
    let dir = tempdir("assets-links");
    std::fs::write(dir.join("real.txt"), "inside").unwrap();
    std::os::unix::fs::symlink("real.txt", dir.join("alias.txt")).unwrap();
    let d = dir.to_str().unwrap();
    let ok = build(&["--assets", d]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(
        text(&ok.stderr).contains("2 assets"),
        "{}",
        text(&ok.stderr)
    );

    let outside = tempdir("assets-outside");
    std::fs::write(outside.join("secret.txt"), "outside").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), dir.join("leak.txt")).unwrap();
    let err = build(&["--assets", d]);
    let said = text(&err.stderr);
    assert!(!err.status.success());
    assert!(
        said.contains("leak.txt") && said.contains("outside"),
        "{said}"
    );
    std::fs::remove_file(dir.join("leak.txt")).unwrap();
    // A linked directory that leaves it, too.
    std::os::unix::fs::symlink(&outside, dir.join("more")).unwrap();
    let err = build(&["--assets", d]);
    assert!(!err.status.success());
    assert!(
        text(&err.stderr).contains("secret.txt"),
        "{}",
        text(&err.stderr)
    );
}

#[test]
fn only_text_gets_compressed_copies_and_only_when_smaller() {
    let dir = tempdir("assets-compress");
    std::fs::write(dir.join("page.html"), "<p>again</p>".repeat(100)).unwrap();
    std::fs::write(dir.join("tiny.css"), "a{}").unwrap();
    std::fs::write(dir.join("photo.jpg"), "jpeg? ".repeat(200)).unwrap();
    let server = Server::start(&["--demo=false", "--path-routing"]);
    let out = dir.join("site.wasm");
    let built = ssr()
        .args(["build", "-q", "--assets"])
        .arg(&dir)
        .arg(crate::support::root().join(ECHO))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(built.status.success(), "{}", text(&built.stderr));
    let (status, body) = server.put_bytes("compress", &std::fs::read(&out).unwrap(), "");
    assert_eq!(status, 201, "{body}");
    let br = |p: &str| {
        server
            .get(
                &format!("/t/compress{p}"),
                &[("accept-encoding", "br, gzip")],
            )
            .header("content-encoding")
            .map(str::to_string)
    };
    // `/page` is `page.html` (Workers' rules for HTML files).
    assert_eq!(br("/page").as_deref(), Some("br"));
    assert_eq!(br("/tiny.css"), None, "too small to gain");
    assert_eq!(br("/photo.jpg"), None, "not a text type");
}

/// Issue 33, item 7: the Workers rules for HTML files, on the host before
/// the renderer and through `env.ASSETS.fetch(request)` alike: `/about` is
/// `about.html`, `/blog/` is `blog/index.html`, and the other forms
/// redirect to those.
#[test]
fn html_files_are_served_by_the_workers_rules_on_both_engines() {
    let dir = tempdir("assets-html");
    std::fs::write(dir.join("about.html"), "<p>about</p>").unwrap();
    std::fs::create_dir(dir.join("blog")).unwrap();
    std::fs::write(dir.join("blog/index.html"), "<p>blog</p>").unwrap();
    std::fs::write(dir.join("index.html"), "<p>home</p>").unwrap();
    let with = plugin_with(
        "tests/plugins/assets-binding.js",
        &["--assets", dir.to_str().unwrap()],
    );
    let without = crate::support::plugin("tests/plugins/assets-binding.js");
    let server = Server::start(&["--demo=false", "--path-routing"]);
    for engine in Engines::KINDS {
        let id = format!("h-{engine}");
        let bytes = std::fs::read(&with.plugin).unwrap();
        let (status, body) = server.put_bytes(&id, &bytes, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        let via = |path: &str| server.get(&format!("/t/{id}/via{path}"), &[]).text();
        assert_eq!(
            server.get(&format!("/t/{id}/has"), &[]).text(),
            r#"[true,"function"]"#
        );
        let html = "text/html; charset=utf-8";
        for (path, said) in [
            ("/about", format!("200 {html} <p>about</p>")),
            ("/blog/", format!("200 {html} <p>blog</p>")),
            ("/", format!("200 {html} <p>home</p>")),
            ("/blog", "307 /blog/".to_string()),
            ("/about/", "307 /about".to_string()),
            ("/about.html", "307 /about".to_string()),
            ("/blog/index.html", "307 /blog/".to_string()),
            ("/nothing", "404".to_string()),
        ] {
            assert_eq!(via(path), said, "{engine} {path}");
        }
        // The host answers the same before the renderer, under the base.
        let direct = |path: &str| {
            let r = server.get(&format!("/t/{id}{path}"), &[]);
            format!(
                "{} {}{}",
                r.status,
                r.header("location").unwrap_or(""),
                r.text()
            )
        };
        assert_eq!(direct("/about"), "200 <p>about</p>", "{engine}");
        assert_eq!(direct("/blog/"), "200 <p>blog</p>", "{engine}");
        assert_eq!(
            direct("/about.html?x=1"),
            format!("307 /t/{id}/about?x=1"),
            "{engine}"
        );
        assert_eq!(direct("/blog"), format!("307 /t/{id}/blog/"), "{engine}");
        // A path that names no file is the renderer's.
        assert_eq!(direct("/via/nothing"), "200 404", "{engine}");
        // A tenant without assets has no binding.
        let bare = format!("bare-{engine}");
        let bytes = std::fs::read(&without.plugin).unwrap();
        assert_eq!(
            server
                .put_bytes(&bare, &bytes, &format!("engine={engine}"))
                .0,
            201
        );
        let has = server.get(&format!("/t/{bare}/has"), &[]).text();
        assert_eq!(has, r#"[false,"undefined"]"#, "{engine}");
    }
}

/// Issue 33, items 7 and 8: an app built from its `wrangler.jsonc` (no
/// entry given): its vars are the defaults of `env` (a registered var
/// wins), its assets binding has the config's name and not-found handling,
/// `_headers` and `_redirects` apply, `.assetsignore` and the config files
/// are not served, and a binding ssr does not provide is named by the build
/// and throws, naming itself, when touched.
#[test]
fn an_app_built_from_its_wrangler_config_on_both_engines() {
    let dir = tempdir("wrangler-app");
    let public = dir.join("public");
    std::fs::create_dir_all(public.join("docs")).unwrap();
    std::fs::write(public.join("404.html"), "<p>lost</p>").unwrap();
    std::fs::write(public.join("docs/404.html"), "<p>no such doc</p>").unwrap();
    std::fs::write(public.join("docs/intro.html"), "<p>intro</p>").unwrap();
    std::fs::write(public.join("app.js"), "console.log(1)").unwrap();
    std::fs::write(public.join("secret.txt"), "not for anyone").unwrap();
    std::fs::write(public.join(".assetsignore"), "secret.txt\n").unwrap();
    std::fs::write(
        public.join("_headers"),
        "/docs/*\n  X-Rule: docs\n  Cache-Control: no-cache\n/app.js\n  ! Cache-Control\n",
    )
    .unwrap();
    std::fs::write(
        public.join("_redirects"),
        "/old/:page /docs/:page 301\n/gone https://example.com/ 302\n",
    )
    .unwrap();
    let entry = root().join("tests/plugins/assets-binding.js");
    std::fs::write(
        dir.join("wrangler.jsonc"),
        format!(
            r#"// an app's config, as its users have it
            {{
              "name": "docs",
              "main": {entry:?},
              "assets": {{ "directory": "public", "binding": "FILES", "not_found_handling": "404-page" }},
              "vars": {{ "GREETING": "from the config", "API": "https://api.test" }},
              "queues": {{ "producers": [{{ "binding": "BUCKET", "queue": "docs" }}] }},
            }}"#,
        ),
    )
    .unwrap();
    let plugin = dir.join("app.wasm");
    let out = crate::support::ssr()
        .args(["build", "-o", plugin.to_str().unwrap()])
        .current_dir(&dir)
        .output()
        .unwrap();
    let said = text(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("warning: queues: env.BUCKET (Queue) is not provided by ssr"),
        "{said}"
    );
    // Pages' server code beside the assets is refused while no
    // `.assetsignore` says what to do with it, as `wrangler deploy` does.
    let bare = tempdir("wrangler-app-server-code");
    std::fs::create_dir_all(bare.join("public")).unwrap();
    std::fs::write(bare.join("public/_worker.js"), "export default {}").unwrap();
    let config = std::fs::read_to_string(dir.join("wrangler.jsonc")).unwrap();
    std::fs::write(bare.join("wrangler.jsonc"), config).unwrap();
    let refused = crate::support::ssr()
        .args(["build", "-o", bare.join("app.wasm").to_str().unwrap()])
        .current_dir(&bare)
        .output()
        .unwrap();
    let said = text(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("is a Pages `_worker.js` in the assets directory"),
        "{said}"
    );
    assert!(
        said.contains("add an `.assetsignore` containing `_worker.js`"),
        "{said}"
    );
    let server = Server::start(&["--demo=false", "--path-routing"]);
    let bytes = std::fs::read(&plugin).unwrap();
    for engine in Engines::KINDS {
        let id = format!("w-{engine}");
        let (status, body) = server.put_bytes(
            &id,
            &bytes,
            &format!("engine={engine}&var=API=https://mine.test"),
        );
        assert_eq!(status, 201, "{body}");
        let get = |path: &str| server.get(&format!("/t/{id}{path}"), &[]);
        // Vars: the config's, under the registration's.
        assert_eq!(get("/env/GREETING").text(), "from the config", "{engine}");
        assert_eq!(get("/env/API").text(), "https://mine.test", "{engine}");
        let r2 = get("/env/BUCKET").text();
        assert!(r2.starts_with("threw: env.BUCKET (Queue, declared in the app's wrangler config) is not provided by ssr"), "{engine}: {r2}");
        // The binding has the config's name; ASSETS is not there.
        assert_eq!(get("/env/ASSETS").text(), "undefined", "{engine}");
        // _headers, on the host's answer.
        let intro = get("/docs/intro");
        assert_eq!(intro.text(), "<p>intro</p>", "{engine}");
        assert_eq!(intro.header("x-rule"), Some("docs"));
        assert_eq!(intro.header("cache-control"), Some("no-cache"));
        assert_eq!(get("/app.js").header("cache-control"), None);
        // _redirects, before the assets and the renderer.
        let old = get("/old/intro?q=1");
        assert_eq!(
            (old.status, old.header("location")),
            (301, Some(&*format!("/t/{id}/docs/intro?q=1")))
        );
        assert_eq!(
            get("/gone").header("location"),
            Some("https://example.com/")
        );
        // Ignored and config files are not served: the renderer gets them.
        for hidden in ["/secret.txt", "/_headers", "/_redirects", "/.assetsignore"] {
            assert_ne!(get(hidden).text(), "not for anyone", "{engine} {hidden}");
            assert!(!get(hidden).text().contains("X-Rule"), "{engine} {hidden}");
        }
        // not_found_handling "404-page", through the binding (FILES).
        let binding = |path: &str| get(&format!("/via{path}")).text();
        assert_eq!(
            binding("/docs/missing"),
            "404 text/html; charset=utf-8 docs <p>no such doc</p>",
            "{engine}"
        );
        assert_eq!(
            binding("/missing"),
            "404 text/html; charset=utf-8 <p>lost</p>",
            "{engine}"
        );
        assert_eq!(
            binding("/docs/intro"),
            "200 text/html; charset=utf-8 docs <p>intro</p>",
            "{engine}"
        );
    }
}
