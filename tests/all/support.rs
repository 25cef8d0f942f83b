//! Shared helpers: paths, building plugins once per run, running `ssr` and
//! Node.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

use ssr::engine::{EngineKind, Engines};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// `ssr`, sharing the run's compiled-code cache ([`code_cache`]): what one
/// command compiled (the guest runtime for a build's snapshot, a plugin for
/// a render or a server) the next finds.
pub fn ssr() -> Command {
    let mut ssr = Command::new(env!("CARGO_BIN_EXE_ssr"));
    ssr.env("SSR_CODE_CACHE", code_cache());
    ssr
}

fn out_dir() -> PathBuf {
    let dir = root().join("target/test-plugins");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The compiled-code cache every `ssr` command of the tests shares
/// (`--code-cache`): a test plugin is compiled once per run, not once per
/// server or render.
pub fn code_cache() -> PathBuf {
    root().join("target/test-code-cache")
}

/// A plugin built by `ssr build`, and the bundle it was built from.
#[derive(Clone, Debug)]
pub struct Built {
    pub plugin: PathBuf,
    pub bundle: PathBuf,
}

/// Builds `entry` (relative to the repository root) once per test run.
pub fn plugin(entry: &str) -> Built {
    plugin_with(entry, &[])
}

/// Builds `entry` with more `ssr build` flags (paths in them relative to the
/// repository root) once per test run.
pub fn plugin_with(entry: &str, flags: &[&str]) -> Built {
    static BUILT: OnceLock<Mutex<HashMap<String, Arc<OnceLock<Built>>>>> = OnceLock::new();
    let slot = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(format!("{entry} {}", flags.join(" ")))
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let stem = format!("{entry}{}", flags.join("")).replace(['/', '.', '-', ' '], "_");
        let plugin = out_dir().join(format!("{stem}.wasm"));
        let bundle = out_dir().join(format!("{stem}.mjs"));
        let out = ssr()
            .arg("build")
            .arg(root().join(entry))
            .arg("-o")
            .arg(&plugin)
            .arg("--emit-bundle")
            .arg(&bundle)
            .args(flags)
            .current_dir(root())
            // The examples' esbuild bundles a test plugin that imports.
            .env("PATH", with_esbuild())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ssr build {entry} {flags:?} failed:\n{}",
            text(&out.stderr)
        );
        Built { plugin, bundle }
    })
    .clone()
}

/// `PATH` with the examples' `node_modules/.bin` first.
pub fn with_esbuild() -> std::ffi::OsString {
    let bin = root().join("plugins/node_modules/.bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path))).unwrap()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `ssr render <plugin> <url> [-H ..]` on the Wasm engine.
pub fn render(plugin: &Path, url: &str, headers: &[(&str, &str)]) -> Output {
    render_on(EngineKind::Wasm, plugin, url, headers)
}

/// `ssr render --engine <engine> <plugin> <url> [-H ..]`.
pub fn render_on(engine: EngineKind, plugin: &Path, url: &str, headers: &[(&str, &str)]) -> Output {
    render_command(engine, plugin, url, headers)
        .output()
        .unwrap()
}

/// The `ssr render` command [`render_on`] runs, for more flags.
pub fn render_command(
    engine: EngineKind,
    plugin: &Path,
    url: &str,
    headers: &[(&str, &str)],
) -> std::process::Command {
    let mut cmd = ssr();
    cmd.arg("render")
        .arg(plugin)
        .arg(url)
        .arg("--engine")
        .arg(engine.as_str())
        .arg("--tenant")
        .arg("acme");
    for (k, v) in headers {
        cmd.arg("-H").arg(format!("{k}: {v}"));
    }
    cmd
}

/// The request object `ssr render` hands to a renderer, as JSON, for Node.
pub fn request_json(url: &str, headers: &[(&str, &str)]) -> String {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs: Vec<(String, String)> = contract::query_pairs(query);
    let mut q = Vec::new();
    for (k, v) in &pairs {
        if !q.iter().any(|(n, _): &(String, String)| n == k) {
            q.push((k.clone(), v.clone()));
        }
    }
    let obj = |pairs: &[(String, String)]| {
        let fields: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}:{}", json(k), json(v)))
            .collect();
        format!("{{{}}}", fields.join(","))
    };
    let h: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    let host = h
        .iter()
        .find(|(k, _)| k == "host")
        .map_or("localhost", |(_, v)| v);
    format!(
        "{{\"method\":\"GET\",\"url\":{},\"href\":{},\"base\":\"\",\"path\":{},\"query\":{},\"headers\":{},\"tenant\":\"acme\"}}",
        json(url),
        json(&format!("http://{host}{url}")),
        json(path),
        obj(&q),
        obj(&h)
    )
}

fn json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Node rendering `bundle` for the same request: the expected bytes.
pub fn node_render(bundle: &Path, url: &str, headers: &[(&str, &str)]) -> Vec<u8> {
    let out = Command::new("node")
        .arg(root().join("tests/node/render.mjs"))
        .arg(bundle)
        .arg(request_json(url, headers))
        .output()
        .expect("running node (the tests need Node.js 18 or newer on PATH)");
    assert!(out.status.success(), "node failed:\n{}", text(&out.stderr));
    out.stdout
}

/// Asserts that `ssr render` on every engine and Node produce the same bytes.
pub fn assert_same_as_node(entry: &str, url: &str, headers: &[(&str, &str)]) {
    let built = plugin(entry);
    let theirs = node_render(&built.bundle, url, headers);
    assert!(
        !theirs.is_empty(),
        "node rendered nothing for {entry} {url}"
    );
    for &engine in Engines::KINDS {
        let ours = render_on(engine, &built.plugin, url, headers);
        assert!(
            ours.status.success(),
            "ssr render --engine {engine} {entry} {url} failed:\n{}",
            text(&ours.stderr)
        );
        if ours.stdout != theirs {
            let at = ours
                .stdout
                .iter()
                .zip(&theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{entry} {url}: ssr ({engine}) and node differ at byte {at} (lengths {} and {})\nssr:  {}\nnode: {}",
                ours.stdout.len(),
                theirs.len(),
                text(&ours.stdout[at.saturating_sub(40)..(at + 80).min(ours.stdout.len())]),
                text(&theirs[at.saturating_sub(40)..(at + 80).min(theirs.len())]),
            );
        }
    }
}

/// A running `ssr serve`, killed on drop.
pub struct Server {
    pub child: std::process::Child,
    pub addr: String,
    pub token: String,
    pub log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `ssr serve` on a free loopback port with `args`, and waits
    /// until it listens (and, with the demo, until it is ready).
    pub fn start(args: &[&str]) -> Server {
        Server::start_env(args, &[])
    }

    /// [`Server::start`] with more environment variables.
    pub fn start_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut all = vec!["--admin-token", TOKEN];
        all.extend_from_slice(args);
        let mut s = Server::launch_env(&all, env);
        s.token = TOKEN.to_string();
        s
    }

    /// A server that keeps its tenants in `data`, routing `/t/<id>/` too
    /// (the tests reach tenants by path).
    pub fn stored(data: &str) -> Server {
        Server::start(&["--demo=false", "--path-routing", "--data-dir", data])
    }

    /// A server whose renders may run 10 s: for renders that do heavy work on
    /// purpose, which a loaded machine slows down past the default deadline.
    pub fn patient() -> Server {
        Server::start(&[
            "--demo=false",
            "--render-deadline",
            "10000",
            "--request-timeout",
            "15000",
        ])
    }

    /// A server with a 64 MiB memory cap, `entry` as `<prefix>-<engine>` on
    /// every engine, and `plugins/hello` as `good`: for bad input that must
    /// fail its own render alone.
    pub fn per_engine(prefix: &str, entry: &str) -> Server {
        let s = Server::start(&["--demo=false", "--memory-limit-mib", "64"]);
        for engine in Engines::KINDS {
            let (status, body) = s.add(
                &format!("{prefix}-{engine}"),
                entry,
                &format!("engine={engine}"),
            );
            assert_eq!(status, 201, "{body}");
        }
        assert_eq!(s.add("good", "plugins/hello/render.js", "").0, 201);
        s
    }

    /// [`Server::start`] without an admin token of the test's own (`token`
    /// is empty): the server makes or finds one.
    pub fn launch(args: &[&str]) -> Server {
        Server::launch_env(args, &[])
    }

    /// [`Server::launch`] with more environment variables.
    pub fn launch_env(args: &[&str], env: &[(&str, &str)]) -> Server {
        use std::io::BufRead;
        let mut child = ssr()
            .arg("serve")
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env_remove("SSR_ADMIN_TOKEN")
            // Defaults for tests that do not set them (flags override).
            .env("SSR_WORKERS", "2")
            .env("SSR_WARM_INSTANCES", "4")
            .env("RUST_LOG", "warn,ssr=info,ssr::console=info")
            .envs(env.iter().copied())
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if let Some(rest) = line.strip_prefix("ssr listening on http://") {
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
                let mut l = sink.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        let addr = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("ssr serve did not start:\n{}", log.lock().unwrap()));
        Server {
            child,
            addr,
            token: String::new(),
            log,
        }
    }

    /// Waits (up to 60 s) until `/_ssr/readyz` says 200: start-up work,
    /// the demo's registrations and the shared code's compilation, done.
    pub fn wait_ready(&self) {
        let ready = within(std::time::Duration::from_secs(60), || {
            self.get("/_ssr/readyz", &[]).status == 200
        });
        assert!(ready, "never ready:\n{}", self.log.lock().unwrap());
    }

    /// Waits (up to 5 s) until the server's log contains `needle`.
    pub fn log_contains(&self, needle: &str) -> bool {
        within(std::time::Duration::from_secs(5), || {
            self.log.lock().unwrap().contains(needle)
        })
    }

    pub fn agent() -> ureq::Agent {
        ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(patience(30)))
            .build()
            .into()
    }

    /// Sends `signal` and waits for the exit status.
    pub fn stop(mut self, signal: &str) -> std::process::ExitStatus {
        let _ = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status();
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A server the tests talk to over loopback HTTP, in its own process
/// ([`Server`]) or in this one ([`InProcess`]).
pub trait Client {
    /// `host:port`.
    fn addr(&self) -> &str;
    /// The admin token.
    fn token(&self) -> &str;

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr())
    }

    /// `PUT /_ssr/admin/tenants/{id}` with a plugin built from `entry`.
    fn add(&self, id: &str, entry: &str, query: &str) -> (u16, String) {
        let bytes = std::fs::read(plugin(entry).plugin).unwrap();
        self.put_bytes(id, &bytes, query)
    }

    /// [`Client::add`] on each engine, as `{prefix}-{engine}` with
    /// `engine={engine}&{query}`, each refused registration a failure: the
    /// ids.
    fn add_on_each_engine(&self, prefix: &str, entry: &str, query: &str) -> Vec<String> {
        ssr::engine::Engines::KINDS
            .iter()
            .map(|e| {
                let id = format!("{prefix}-{e}");
                let (status, body) = self.add(&id, entry, &format!("engine={e}&{query}"));
                assert_eq!(status, 201, "{id}: {body}");
                id
            })
            .collect()
    }

    fn put_bytes(&self, id: &str, bytes: &[u8], query: &str) -> (u16, String) {
        let mut r = Server::agent()
            .put(self.url(&format!("/_ssr/admin/tenants/{id}?{query}")))
            .header("Authorization", &format!("Bearer {}", self.token()))
            .send(bytes)
            .unwrap();
        (
            r.status().as_u16(),
            r.body_mut().read_to_string().unwrap_or_default(),
        )
    }

    fn admin(&self, method: &str, path: &str) -> (u16, String) {
        self.admin_with(method, path, b"")
    }

    /// An admin API request with a body.
    fn admin_with(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        let auth = format!("Bearer {}", self.token());
        let r = self.send(method, path, &[("authorization", &auth)], body);
        (r.status, r.text())
    }

    /// A GET with headers; returns status, headers and body bytes.
    fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.send("GET", path, headers, b"")
    }

    /// A request of any method, with headers and a body (none for GET and
    /// HEAD); redirects are not followed.
    fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut req = ureq::http::Request::builder()
            .method(method)
            .uri(self.url(path));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .allow_non_standard_methods(true)
            .timeout_global(Some(patience(30)))
            .build()
            .into();
        let r = if method == "GET" || method == "HEAD" {
            agent.run(req.body(()).unwrap())
        } else {
            agent.run(req.body(body.to_vec()).unwrap())
        };
        let mut r = r.unwrap();
        let headers = r
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let body = r
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_vec()
            .unwrap_or_default();
        Reply {
            status: r.status().as_u16(),
            headers,
            body,
        }
    }

    /// Sends `head` (request line and headers, without the blank line) as
    /// it is, over a new connection, for requests an HTTP client would
    /// refuse to make (a repeated `Host`, say); the server closes after.
    fn raw(&self, head: &str) -> Reply {
        use std::io::{Read, Write};
        let mut conn = std::net::TcpStream::connect(self.addr()).unwrap();
        let request = format!(
            "{}\r\nconnection: close\r\n\r\n",
            head.replace('\n', "\r\n")
        );
        conn.write_all(request.as_bytes()).unwrap();
        let mut all = Vec::new();
        conn.read_to_end(&mut all).unwrap();
        let split = all
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a response head");
        let head = String::from_utf8_lossy(&all[..split]).into_owned();
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: all[split + 4..].to_vec(),
        }
    }
}

/// A server the test did not start itself (one behind nginx, say), with
/// the tests' admin token.
pub struct Remote {
    pub addr: String,
}

impl Client for Remote {
    fn addr(&self) -> &str {
        &self.addr
    }

    fn token(&self) -> &str {
        TOKEN
    }
}

impl Client for Server {
    fn addr(&self) -> &str {
        &self.addr
    }

    fn token(&self) -> &str {
        &self.token
    }
}

/// `ssr serve` inside the test process: the library's `AppState::open` and
/// `http::serve_until` on a free loopback port, stopped on drop. For tests
/// that need no process of their own: no log, signal, crash, RSS or
/// metrics (the metrics recorder is process-wide, so servers here share
/// it).
pub struct InProcess {
    addr: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl InProcess {
    /// A server with `args` (the flags of `ssr serve`), on 2 workers with 4
    /// warm instances each and the shared code cache unless `args` say
    /// otherwise, as [`Server`].
    pub fn start(args: &[&str]) -> InProcess {
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            given: ssr::config::Given,
        }
        let flags = <Flags as clap::Parser>::try_parse_from(
            ["serve", "--listen", "127.0.0.1:0"].iter().chain(args),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut config = ssr::config::Config {
            workers: 2,
            warm_instances: 4,
            code_cache: Some(code_cache()),
            // This process is the test binary: the compile guard runs the
            // `ssr` binary.
            helper_exe: Some(env!("CARGO_BIN_EXE_ssr").into()),
            ..Default::default()
        };
        flags.given.apply(&mut config);
        config.validate().unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let addr = runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(config.listen).await.unwrap();
            let addr = listener.local_addr().unwrap();
            let state = ssr::http::AppState::open(config, TOKEN.into()).unwrap();
            state
                .ready
                .store(true, std::sync::atomic::Ordering::Release);
            tokio::spawn(ssr::http::serve_until(listener, None, state, async {
                let _ = stopped.await;
            }));
            addr
        });
        InProcess {
            addr: addr.to_string(),
            stop: Some(stop),
            runtime: Some(runtime),
        }
    }
}

impl Client for InProcess {
    fn addr(&self) -> &str {
        &self.addr
    }

    fn token(&self) -> &str {
        TOKEN
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(std::time::Duration::from_secs(5));
        }
    }
}

/// The admin token of the tests' servers.
pub const TOKEN: &str = "test-token-0123456789";

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        text(&self.body)
    }
}

/// Field `n` of `/proc/PID/stat` after the command's name (0: the state,
/// 1: the parent's pid, 11: user CPU ticks); empty once the process is gone.
pub fn stat_field(pid: u32, n: usize) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // `pid (comm) state ppid ...`; comm may hold spaces.
    let after = stat
        .rfind(')')
        .map_or("", |i| stat.get(i + 2..).unwrap_or(""));
    after.split_whitespace().nth(n).unwrap_or("").to_string()
}

/// A `/proc/PID/status` field of process `pid` in KiB; 0 once it is gone.
pub fn proc_status_kib(pid: u32, field: &str) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// How a request that did not get a 200 ended (its status and body, or the
/// error); `None` for a 200.
pub fn failure(reply: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Option<String> {
    match reply {
        Ok(r) if r.status() == 200 => None,
        Ok(mut r) => Some(format!(
            "{}: {}",
            r.status(),
            r.body_mut().read_to_string().unwrap_or_default()
        )),
        Err(e) => Some(e.to_string()),
    }
}

/// Whether `done` comes true within `limit`, asked every 20 ms: for what a
/// server does a moment after a response (a store, a close, an abort).
/// `secs` seconds, times how loaded the machine is now (its load average
/// over its cores, at least 1): a safety net against a hang that a busy
/// machine's slow registration (a compile, on a share of a core) does not
/// trip.
/// The value of metric `name` (one without labels) on `s`'s `/_ssr/metrics`;
/// 0 while it is not there.
pub fn metric(s: &Server, name: &str) -> f64 {
    let auth = format!("Bearer {}", s.token);
    let text = Server::agent()
        .get(s.url("/_ssr/metrics"))
        .header("authorization", &auth)
        .call()
        .ok()
        .and_then(|mut r| r.body_mut().read_to_string().ok())
        .unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .map_or(0.0, |v| v.trim().parse().unwrap_or(-1.0))
}

pub fn patience(secs: u64) -> std::time::Duration {
    let load: f64 = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    std::time::Duration::from_secs_f64(secs as f64 * (load / cores).max(1.0))
}

pub fn within(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if std::time::Instant::now() >= until {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A loopback port free a moment ago.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The first of `len` consecutive loopback ports that are free now, for a
/// program that takes a base port and counts up from it. They lie below
/// Linux's ephemeral range (32768 and up), where the kernel never gives a
/// port to another test's client connection or `127.0.0.1:0` listener
/// while the program starts (CI: cluster.sh once found a replica's port
/// taken that way).
pub fn free_block(len: u16) -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    const LOW: u16 = 20_000;
    const SPAN: u16 = 12_000;
    let seed = (std::process::id() % u32::from(SPAN)) as u16;
    for _ in 0..200 {
        let step = NEXT.fetch_add(len + 1, Ordering::Relaxed);
        let base = LOW + (seed.wrapping_add(step) % (SPAN - len));
        let free =
            (base..base + len).all(|p| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok());
        if free {
            return base;
        }
    }
    panic!(
        "no {len} consecutive free ports between {LOW} and {}",
        LOW + SPAN
    )
}

/// A fresh, empty directory under the system's temp dir.
pub fn tempdir(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "ssr-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Server {
    /// The server's resident memory, bytes.
    pub fn rss(&self) -> usize {
        self.status_kib("VmRSS:") << 10
    }

    /// The resident memory of the server and of its V8 worker processes
    /// together, bytes.
    pub fn rss_with_workers(&self) -> usize {
        self.rss()
            + self
                .v8_workers()
                .iter()
                .map(|pid| proc_status_kib(*pid, "VmRSS:") << 10)
                .sum::<usize>()
    }

    /// The server's V8 worker processes (`node` loading `libssr_v8.so`),
    /// by pid.
    pub fn v8_workers(&self) -> Vec<u32> {
        let server = self.child.id().to_string();
        let mut pids = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let ppid = stat_field(pid, 1);
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if ppid == server && cmdline.windows(12).any(|w| w == b"libssr_v8.so") {
                pids.push(pid);
            }
        }
        pids.sort();
        pids
    }

    /// The most resident memory the server has had, bytes.
    pub fn peak_rss(&self) -> usize {
        self.status_kib("VmHWM:") << 10
    }

    /// A `/proc/PID/status` field in KiB.
    fn status_kib(&self, field: &str) -> usize {
        proc_status_kib(self.child.id(), field)
    }

    /// The Prometheus text of `/_ssr/metrics` (with the admin token).
    pub fn metrics_text(&self) -> String {
        let auth = format!("Bearer {}", self.token);
        self.get("/_ssr/metrics", &[("authorization", &auth)])
            .text()
    }

    /// The value of one `/_ssr/metrics` line, by its name and labels as printed
    /// (`ssr_cache_bytes`, `ssr_x{tenant="a"}`); 0 when absent.
    pub fn metric(&self, series: &str) -> f64 {
        let text = self.metrics_text();
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
            .map_or(0.0, |v| v.trim().parse().unwrap())
    }
}

/// `text` as one query value.
pub fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// What `make` makes, made once per test run for each `key` and type:
/// tests that need the same thing (a built app, a reference's answers)
/// share it, and one that asks while it is being made waits for it.
pub fn once_per_run<T: Send + Sync + 'static>(key: &str, make: impl FnOnce() -> T) -> Arc<T> {
    type Made = Arc<dyn std::any::Any + Send + Sync>;
    type Slots = Mutex<HashMap<(std::any::TypeId, String), Arc<OnceLock<Made>>>>;
    static SLOTS: OnceLock<Slots> = OnceLock::new();
    let slot = SLOTS
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry((std::any::TypeId::of::<T>(), key.to_string()))
        .or_default()
        .clone();
    let made = slot.get_or_init(|| Arc::new(make()) as Made).clone();
    made.downcast::<T>().expect("one type per key")
}
