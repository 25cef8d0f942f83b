//! `ssr init`: each template writes a site that, once its packages are
//! there, `ssr deploy` builds and registers, and that serves its page on
//! both engines.

use std::path::Path;

use crate::support::{Client, Server, TOKEN, root, ssr, tempdir, text};

/// `ssr` in `dir` with `args`: success, stdout, stderr.
fn run(dir: &Path, args: &[&str], server: &Server) -> (bool, String, String) {
    let out = ssr()
        .args(args)
        .current_dir(dir)
        .env("SSR_SERVER", format!("http://{}", server.addr))
        .env("SSR_TOKEN", TOKEN)
        .env("PATH", crate::support::with_esbuild())
        .output()
        .unwrap();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// The version the example plugins install of `package` (they stand for
/// the reader's `npm install` here, so the templates ask for the same).
fn installed(package: &str) -> String {
    let manifest = root().join(format!("plugins/node_modules/{package}/package.json"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
    json["version"].as_str().unwrap().to_string()
}

#[test]
fn each_template_is_a_site_that_deploys_and_serves_on_both_engines() {
    let s = Server::start(&["--demo=false"]);
    let work = tempdir("init");
    for template in ["hello", "react", "hono"] {
        for engine in ["wasm", "v8"] {
            let name = format!("{template}-{engine}");
            let (ok, out, err) = run(&work, &["init", &name, "--template", template], &s);
            assert!(ok && out.contains("ssr deploy"), "{out}{err}");
            let site = work.join(&name);
            let manifest: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(site.join("package.json")).unwrap())
                    .unwrap();
            assert_eq!(manifest["name"], name.as_str());
            for deps in ["dependencies", "devDependencies"] {
                for (package, version) in manifest[deps].as_object().into_iter().flatten() {
                    assert_eq!(
                        version.as_str().unwrap(),
                        installed(package),
                        "{template}: {package}"
                    );
                }
            }
            assert!(site.join("README.md").is_file() && site.join("ssr.toml").is_file());
            std::os::unix::fs::symlink(
                root().join("plugins/node_modules"),
                site.join("node_modules"),
            )
            .unwrap();
            // The engine and a hostname, as a site's owner would add them.
            let config = std::fs::read_to_string(site.join("ssr.toml")).unwrap();
            let host = format!("{name}.localhost");
            std::fs::write(
                site.join("ssr.toml"),
                format!("engine = \"{engine}\"\nhosts = [\"{host}\"]\n{config}"),
            )
            .unwrap();
            let (ok, out, err) = run(&site, &["deploy", "--quiet"], &s);
            assert!(
                ok && out.contains("deployed"),
                "{template} on {engine}: {out}{err}"
            );
            let page = s.get("/?name=Ada", &[("host", &host)]);
            let html = page.text();
            assert_eq!(page.status, 200, "{template} on {engine}: {html}");
            match template {
                "hello" => assert!(html.contains("<h1>Hello, Ada!</h1>"), "{html}"),
                "hono" => assert!(html.contains("<h1>Hello from Hono, Ada!</h1>"), "{html}"),
                _ => {
                    // Streamed: the shell, then the boundary's data; and the
                    // browser's half, served from the plugin's assets.
                    assert!(
                        html.contains("Ada") && html.contains("Streamed for Ada."),
                        "{html}"
                    );
                    let script = html
                        .split("src=\"")
                        .skip(1)
                        .map(|s| s.split('"').next().unwrap())
                        .find(|src| src.starts_with("/assets/") && src.ends_with(".js"))
                        .unwrap_or_else(|| panic!("no client script in {html}"));
                    let client = s.get(script, &[("host", &host)]);
                    assert_eq!(client.status, 200, "{script}");
                    assert!(client.text().contains("hydrateRoot"), "{script}");
                }
            }
        }
    }
    // A directory with something in it is left alone; a bad name is named.
    let (ok, _, err) = run(&work, &["init", "hello-wasm"], &s);
    assert!(!ok && err.contains("not empty"), "{err}");
    let (ok, _, err) = run(&work, &["init", "fresh", "--name", "Not An Id"], &s);
    assert!(!ok && err.contains("--name"), "{err}");
    assert!(!work.join("fresh/ssr.toml").exists());
}
