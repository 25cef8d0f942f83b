//! Issue 20, replicas sharing tenants through Redis, over real processes on
//! loopback: the store layer (`tenant::store::redis`) against a real
//! `redis-server`, then `ssr serve --store` replicas, and the whole
//! `scripts/cluster.sh` (Redis, three replicas, nginx) under load.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ssr::engine::Engines;
use ssr::tenant::Registration;
use ssr::tenant::store::redis::{Applied, Event, RedisStore, State};

use crate::support::{Client, Remote, Server, free_port, plugin, tempdir};

/// A `redis-server` on a free loopback port, killed on drop. It keeps an
/// append-only file in `dir`, so a restart ([`Redis::restart`]) loses
/// nothing, as docs/deploying.md asks of a real one.
pub(crate) struct Redis {
    child: Child,
    pub(crate) url: String,
    port: u16,
    dir: PathBuf,
    /// With TLS: the authority its certificate chains to.
    ca: Option<PathBuf>,
}

impl Redis {
    pub(crate) fn start() -> Redis {
        Redis::on(free_port(), tempdir("redis"))
    }

    fn on(port: u16, dir: PathBuf) -> Redis {
        let mut redis = Command::new("redis-server");
        redis.args(["--port", &port.to_string()]);
        Redis::spawn(
            redis,
            format!("redis://127.0.0.1:{port}/0"),
            port,
            dir,
            None,
        )
    }

    /// One that speaks TLS only, with a certificate for 127.0.0.1 from an
    /// authority made for it (`openssl`).
    fn tls() -> Redis {
        let (port, dir) = (free_port(), tempdir("redis-tls"));
        // Each a command line of words without spaces.
        let openssl = |line: &str| {
            let out = Command::new("openssl")
                .args(line.split_whitespace())
                .current_dir(&dir)
                .output()
                .expect("openssl (scripts/setup.sh installs it)");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let new_key = "-newkey rsa:2048 -nodes";
        openssl(&format!(
            "req -x509 -days 1 -subj /CN=ssr-test-CA {new_key} -keyout ca.key -out ca.pem"
        ));
        openssl(&format!(
            "req -subj /CN=127.0.0.1 {new_key} -keyout srv.key -out srv.csr"
        ));
        std::fs::write(dir.join("ext"), "subjectAltName=IP:127.0.0.1").unwrap();
        openssl(
            "x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile ext -out srv.pem",
        );
        let mut redis = Command::new("redis-server");
        redis
            .args(["--port", "0", "--tls-port", &port.to_string()])
            .args(["--tls-auth-clients", "no", "--tls-cert-file"])
            .arg(dir.join("srv.pem"))
            .arg("--tls-key-file")
            .arg(dir.join("srv.key"));
        let url = format!("rediss://127.0.0.1:{port}/0");
        let ca = dir.join("ca.pem");
        Redis::spawn(redis, url, port, dir, Some(ca))
    }

    fn spawn(
        mut redis: Command,
        url: String,
        port: u16,
        dir: PathBuf,
        ca: Option<PathBuf>,
    ) -> Redis {
        let child = redis
            .args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "yes", "--dir"])
            .arg(&dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (scripts/setup.sh installs it)");
        // Dropped (killed and waited for) if it never answers.
        let redis = Redis {
            child,
            url,
            port,
            dir,
            ca,
        };
        for _ in 0..100 {
            if RedisStore::open(&redis.url, redis.ca.as_deref()).is_ok() {
                return redis;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not start on port {port}");
    }

    /// Stops it the way an operator would (SIGTERM: it writes its file).
    fn stop(mut self) -> (u16, PathBuf) {
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
        (self.port, std::mem::take(&mut self.dir))
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn record(id: &str, version: u64, digest: &str) -> Registration {
    serde_json::from_value(serde_json::json!({
        "id": id, "version": version, "hosts": [], "mode": "reuse",
        "digest": digest, "plugin_bytes": 3, "updated_unix": 0,
    }))
    .unwrap()
}

#[test]
fn the_redis_store_keeps_the_newest_write_of_each_tenant() {
    let redis = Redis::start();
    let store = RedisStore::open(&redis.url, None).unwrap();
    let secrets = [("TOKEN".to_string(), "s3cret".to_string())].into();

    // Plugins are content-addressed and written once.
    store.save_plugin("d1", b"one").unwrap();
    store.save_plugin("d1", b"other").unwrap();
    assert_eq!(store.plugin("d1").unwrap().as_deref(), Some(&b"one"[..]));
    assert_eq!(store.plugin("nope").unwrap(), None);
    store.save_plugin("d2", b"two").unwrap();

    // Two writers of one id: each takes a version; whichever lands last,
    // the newer one stays.
    let (older, newer) = (store.next_version().unwrap(), store.next_version().unwrap());
    assert!(newer > older);
    assert_eq!(
        store.put(&record("a", newer, "d2"), &secrets, 0).unwrap(),
        Applied::Yes
    );
    // The other writer also started from "no tenant": it is refused, and
    // so is an older write on the current base.
    assert_eq!(
        store
            .put(&record("a", older, "d1"), &Default::default(), 0)
            .unwrap(),
        Applied::Stale
    );
    assert_eq!(
        store
            .put(&record("a", older, "d1"), &Default::default(), newer)
            .unwrap(),
        Applied::Stale
    );
    let State::Present(got) = store.state("a").unwrap() else {
        panic!("a is stored")
    };
    assert_eq!(
        (got.record.version, got.record.digest.as_str()),
        (newer, "d2")
    );
    assert_eq!(got.secrets, secrets);
    assert_eq!(store.versions().unwrap().current.get("a"), Some(&newer));

    // A removal is a tombstone: a late write older than it does not bring
    // the tenant back; a newer one does.
    let gone = store.next_version().unwrap();
    assert_eq!(store.remove("a", gone, older).unwrap(), Applied::Stale);
    assert_eq!(store.remove("a", gone, newer).unwrap(), Applied::Yes);
    assert!(matches!(store.state("a").unwrap(), State::Removed(v) if v == gone));
    let versions = store.versions().unwrap();
    assert!(versions.current.is_empty());
    assert_eq!(versions.removed.get("a"), Some(&gone));
    assert_eq!(versions.clock, gone);
    assert_eq!(
        store.put(&record("a", newer, "d2"), &secrets, 0).unwrap(),
        Applied::Stale
    );
    let back = store.next_version().unwrap();
    assert_eq!(
        store.put(&record("a", back, "d1"), &secrets, 0).unwrap(),
        Applied::Yes
    );
    assert_eq!(store.versions().unwrap().current.get("a"), Some(&back));
    assert!(matches!(store.state("never").unwrap(), State::Absent));
}

#[test]
fn a_host_serves_one_tenant_whichever_replica_writes() {
    let redis = Redis::start();
    let store = RedisStore::open(&redis.url, None).unwrap();
    let hosted = |id: &str, version: u64, hosts: &[&str]| {
        let mut r = record(id, version, "d1");
        r.hosts = hosts.iter().map(|h| h.to_string()).collect();
        r
    };
    let none = Default::default();
    store.save_plugin("d1", b"one").unwrap();
    let a1 = store.next_version().unwrap();
    let put = store.put(&hosted("a", a1, &["shop.test", "a.test"]), &none, 0);
    assert_eq!(put.unwrap(), Applied::Yes);
    // Another id asking for one of a's hosts is refused, naming both.
    let b1 = store.next_version().unwrap();
    let taken = Applied::HostTaken {
        host: "shop.test".into(),
        owner: "a".into(),
    };
    let put = store.put(&hosted("b", b1, &["b.test", "shop.test"]), &none, 0);
    assert_eq!(put.unwrap(), taken);
    assert!(matches!(store.state("b").unwrap(), State::Absent));
    // a keeping its hosts through a change is no conflict; a giving one
    // up frees it.
    let a2 = store.next_version().unwrap();
    let put = store.put(&hosted("a", a2, &["a.test"]), &none, a1);
    assert_eq!(put.unwrap(), Applied::Yes);
    let b2 = store.next_version().unwrap();
    let put = store.put(&hosted("b", b2, &["b.test", "shop.test"]), &none, 0);
    assert_eq!(put.unwrap(), Applied::Yes);
    // A removal frees its hosts too.
    let a3 = store.next_version().unwrap();
    let put = store.put(&hosted("c", a3, &["a.test"]), &none, 0);
    assert!(matches!(put.unwrap(), Applied::HostTaken { owner, .. } if owner == "a"));
    let gone = store.next_version().unwrap();
    assert_eq!(store.remove("a", gone, a2).unwrap(), Applied::Yes);
    let c = store.next_version().unwrap();
    let put = store.put(&hosted("c", c, &["a.test"]), &none, 0);
    assert_eq!(put.unwrap(), Applied::Yes);
}

#[test]
fn a_plugin_stays_in_redis_while_a_record_names_it() {
    let redis = Redis::start();
    let store = RedisStore::open(&redis.url, None).unwrap();
    let mut conn = redis::Client::open(redis.url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let mut ttl = |digest: &str| -> i64 {
        redis::cmd("TTL")
            .arg(format!("ssr:plugin:{digest}"))
            .query(&mut conn)
            .unwrap()
    };
    let none = Default::default();
    // A record naming a plugin that is not stored is refused.
    let v = store.next_version().unwrap();
    let put = store.put(&record("a", v, "d1"), &none, 0);
    assert_eq!(put.unwrap(), Applied::NoPlugin);
    assert!(matches!(store.state("a").unwrap(), State::Absent));
    // Saved, a plugin expires unless a record names it; named, it stays.
    store.save_plugin("d1", b"one").unwrap();
    store.save_plugin("d2", b"two").unwrap();
    assert!(ttl("d1") > 0 && ttl("d2") > 0);
    let (a1, b1) = (store.next_version().unwrap(), store.next_version().unwrap());
    assert_eq!(
        store.put(&record("a", a1, "d1"), &none, 0).unwrap(),
        Applied::Yes
    );
    assert_eq!(
        store.put(&record("b", b1, "d1"), &none, 0).unwrap(),
        Applied::Yes
    );
    assert_eq!(ttl("d1"), -1, "named: kept");
    // a moves to another plugin; b still names the first.
    let a2 = store.next_version().unwrap();
    assert_eq!(
        store.put(&record("a", a2, "d2"), &none, a1).unwrap(),
        Applied::Yes
    );
    assert!(store.plugin("d1").unwrap().is_some() && ttl("d2") == -1);
    // The last record naming a plugin goes: so does the plugin.
    let gone = store.next_version().unwrap();
    assert_eq!(store.remove("b", gone, b1).unwrap(), Applied::Yes);
    assert_eq!(store.plugin("d1").unwrap(), None);
    let gone = store.next_version().unwrap();
    assert_eq!(store.remove("a", gone, a2).unwrap(), Applied::Yes);
    assert_eq!(store.plugin("d2").unwrap(), None);
}

#[test]
fn every_write_is_announced_without_its_secrets() {
    let redis = Redis::start();
    let store = RedisStore::open(&redis.url, None).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let listener = {
        let url = redis.url.clone();
        std::thread::spawn(move || {
            let store = RedisStore::open(&url, None).unwrap();
            let mut seen = Vec::new();
            store
                .listen(Duration::from_millis(50), |event| {
                    match event {
                        Event::Subscribed => tx.send(()).unwrap(),
                        Event::Changed(id, version) => seen.push((id.to_string(), version)),
                        _ => {}
                    }
                    match seen.len() {
                        2 => ControlFlow::Break(()),
                        _ => ControlFlow::Continue(()),
                    }
                })
                .unwrap();
            seen
        })
    };
    rx.recv_timeout(Duration::from_secs(5)).unwrap();
    let secrets = [("TOKEN".to_string(), "s3cret".to_string())].into();
    store.save_plugin("d1", b"one").unwrap();
    let v1 = store.next_version().unwrap();
    store.put(&record("b", v1, "d1"), &secrets, 0).unwrap();
    let v2 = store.next_version().unwrap();
    store.remove("b", v2, v1).unwrap();
    let seen = listener.join().unwrap();
    assert_eq!(seen, vec![("b".to_string(), v1), ("b".to_string(), v2)]);
}

#[test]
fn replicas_share_tenants_through_a_redis_that_speaks_only_tls() {
    let redis = Redis::tls();
    // Its certificate chains to an authority the system does not know:
    // refused without --store-ca, and so is plain Redis on its port.
    let err = RedisStore::open(&redis.url, None)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("cannot be reached") && err.contains("UnknownIssuer"),
        "{err}"
    );
    let plain = redis.url.replace("rediss://", "redis://");
    assert!(RedisStore::open(&plain, None).is_err());
    // With it, replicas share tenants: records, plugins and changes all
    // travel over TLS.
    let rs = [replica(&redis), replica(&redis)];
    let (status, body) = rs[0].add("secure", "plugins/hello/render.js", "");
    assert_eq!(status, 201, "{body}");
    let page = rs[0].get("/t/secure/", &[]).body;
    let served = within(Duration::from_secs(60), || {
        rs[1].get("/t/secure/", &[]).body == page
    });
    assert!(served.is_some(), "the second replica never served it");
}

#[test]
fn an_unreachable_redis_is_named_in_the_error() {
    let port = free_port();
    let url = format!("redis://127.0.0.1:{port}/0");
    let err = RedisStore::open(&url, None).err().unwrap().to_string();
    assert!(
        err.contains(&url) && err.contains("cannot be reached"),
        "{err}"
    );
    // A password in the URL never reaches the message.
    let url = format!("redis://:hunter2-pass@127.0.0.1:{port}/0");
    let err = RedisStore::open(&url, None).err().unwrap().to_string();
    assert!(!err.contains("hunter2-pass"), "{err}");
    assert!(
        err.contains(&format!("redis://:***@127.0.0.1:{port}/0")),
        "{err}"
    );
}

/// An `ssr serve` replica of the store `redis`, with a data dir of its own.
fn replica(redis: &Redis) -> Server {
    let dir = tempdir("replica");
    let mut args = vec!["--store", &redis.url, "--data-dir", dir.to_str().unwrap()];
    args.push("--path-routing");
    if let Some(ca) = &redis.ca {
        args.extend(["--store-ca", ca.to_str().unwrap()]);
    }
    Server::start(&args)
}

/// A replica as on a fresh machine: its data dir and its compiled-code
/// cache empty (the other replicas share the tests' cache).
fn fresh_replica(redis: &Redis) -> Server {
    let dir = tempdir("replica");
    let cache = dir.join("code-cache");
    let mut args = vec!["--path-routing"];
    args.extend(["--store", &redis.url, "--data-dir", dir.to_str().unwrap()]);
    Server::start_env(&args, &[("SSR_CODE_CACHE", cache.to_str().unwrap())])
}

/// How long `ok` took to hold, polling, if it held within `limit`.
fn within(limit: Duration, mut ok: impl FnMut() -> bool) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if ok() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

/// Three replicas of `redis`, once they say they are ready: each has
/// compiled the code Wasm plugins share (the QuickJS runtime) by then.
fn replicas(redis: &Redis) -> Vec<Server> {
    ready((0..3).map(|_| replica(redis)).collect())
}

fn ready(all: Vec<Server>) -> Vec<Server> {
    all.iter().for_each(Server::wait_ready);
    all
}

/// Asserts that every replica in `others` serves `path` as `want` (a
/// status and, for a 200, body) within a second of now.
fn all_serve_within_a_second(others: &[Server], path: &str, want: (u16, &[u8])) {
    for (i, r) in others.iter().enumerate() {
        let took = within(Duration::from_secs(1), || {
            let page = r.get(path, &[]);
            page.status == want.0 && (want.0 != 200 || page.body == want.1)
        });
        assert!(
            took.is_some(),
            "replica {} did not serve {path} as {} within 1 s: {} {}",
            i + 2,
            want.0,
            r.get(path, &[]).status,
            r.get(path, &[]).text()
        );
    }
}

#[test]
fn a_change_on_one_replica_serves_from_every_replica_within_a_second() {
    let redis = Redis::start();
    // Fresh machines: their first tenant too is served within the second.
    let rs = ready((0..3).map(|_| fresh_replica(&redis)).collect());

    let (status, body) = rs[0].add("site", "plugins/hello/render.js", "");
    assert_eq!(status, 201, "{body}");
    let page = rs[0].get("/t/site/", &[]);
    assert!(page.text().contains("Hello, world!"));
    all_serve_within_a_second(&rs[1..], "/t/site/", (200, &page.body));
    let (status, body) = rs[0].add("keep", "tests/plugins/text.js", "");
    assert_eq!(status, 201, "{body}");

    // Replaced by another plugin, then removed.
    let (status, body) = rs[0].add("site", "tests/plugins/text.js", "");
    assert_eq!(status, 200, "{body}");
    let page = rs[0].get("/t/site/", &[]);
    assert!(page.text().contains("<ul>"));
    all_serve_within_a_second(&rs[1..], "/t/site/", (200, &page.body));

    assert_eq!(rs[0].admin("DELETE", "/_ssr/admin/tenants/site").0, 204);
    all_serve_within_a_second(&rs[1..], "/t/site/", (404, b""));
    // Redis keeps the plugins records name, and no other: `keep`'s (the
    // same bytes as the second), not the first.
    let store = RedisStore::open(&redis.url, None).unwrap();
    let digest = |js| ssr::artifact::digest(&std::fs::read(plugin(js).plugin).unwrap());
    let first = store.plugin(&digest("plugins/hello/render.js")).unwrap();
    assert!(first.is_none(), "no record names it");
    let second = store.plugin(&digest("tests/plugins/text.js")).unwrap();
    assert!(second.is_some(), "`keep` names it");

    // A secret set on one replica reaches the others' renderers, and no
    // admin API shows its value.
    let (status, body) = rs[1].add("env", "tests/plugins/handler.js", "var=API=v1");
    assert_eq!(status, 201, "{body}");
    let env = rs[1].get("/t/env/env", &[]).body;
    all_serve_within_a_second(&rs[2..], "/t/env/env", (200, &env));
    let secret = b"0123456789abcdef-secret";
    let (status, body) = rs[2].admin_with("PUT", "/_ssr/admin/tenants/env/secrets/TOKEN", secret);
    assert_eq!(status, 204, "{body}");
    let want = format!("length {}", secret.len());
    all_serve_within_a_second(&rs[..2], "/t/env/secret", (200, want.as_bytes()));
    for r in &rs {
        let shown = r.admin("GET", "/_ssr/admin/tenants/env").1;
        assert!(
            shown.contains("TOKEN") && !shown.contains("-secret"),
            "{shown}"
        );
    }
}

/// What a plugin carries serves the same from every replica: the vars of
/// its wrangler config (a plugin with no assets, whose file a replica
/// need not read for them), on both engines; and so after a restart
/// (`tests/all/tenants.rs`).
#[test]
fn a_plugins_own_vars_serve_from_every_replica_on_both_engines() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let plugin = std::fs::read(crate::node_modules::greeting_app()).unwrap();
    for engine in Engines::KINDS {
        let id = format!("vars-{engine}");
        let (status, body) = rs[0].put_bytes(&id, &plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        let path = format!("/t/{id}/");
        assert_eq!(rs[0].get(&path, &[]).text(), "Howdy", "{engine}");
        all_serve_within_a_second(&rs[1..], &path, (200, b"Howdy"));
    }
}

/// KV through three replicas on a real Redis, on both engines: every
/// method as `wrangler dev` answers it, with the namespace in Redis; a put
/// through one replica is read through every other at once.
#[test]
fn kv_put_through_one_replica_is_read_through_every_other_on_both_engines() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let plugin = std::fs::read(crate::bindings::kv_app()).unwrap();
    for engine in Engines::KINDS {
        let id = format!("kv-{engine}");
        // The suite's 26 MiB value crosses V8's channel: 5 s of CPU, not
        // the default 1, so that a machine busy with other tests does not
        // end it (once, 504 on V8 in a full run).
        let query = format!("engine={engine}&render_deadline_ms=5000");
        let (status, body) = rs[0].put_bytes(&id, &plugin, &query);
        assert_eq!(status, 201, "{body}");
        all_serve_within_a_second(&rs[1..], &format!("/t/{id}/get?key=none"), (200, b"null\n"));
        let suite = rs[1].get(&format!("/t/{id}/suite"), &[]);
        assert_eq!(suite.text(), crate::bindings::WRANGLER_DEV_KV, "{engine}");
        let put = rs[0].get(&format!("/t/{id}/put?key=k&value={engine}"), &[]);
        assert_eq!(put.text(), "stored\n");
        for r in &rs {
            assert_eq!(
                r.get(&format!("/t/{id}/get?key=k"), &[]).text(),
                format!("{engine}\n")
            );
            assert_eq!(
                r.get(&format!("/t/{id}/get?key=text"), &[]).text(),
                "replaced\n"
            );
        }
    }
}

/// Redis gone: a KV call throws an error that says so, which the Worker
/// may catch, and the replicas keep serving; when Redis is back, what was
/// put before is read through every replica.
#[test]
fn kv_says_so_while_redis_is_down_and_reads_what_was_put_when_it_is_back() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let plugin = std::fs::read(crate::bindings::kv_app()).unwrap();
    assert_eq!(rs[0].put_bytes("kvo", &plugin, "").0, 201);
    all_serve_within_a_second(&rs[1..], "/t/kvo/get?key=k", (200, b"null\n"));
    assert_eq!(
        rs[0].get("/t/kvo/put?key=k&value=kept", &[]).text(),
        "stored\n"
    );
    let (port, dir) = redis.stop();
    for r in &rs {
        let said = r.get("/t/kvo/try-get?key=k", &[]).text();
        assert!(
            said.starts_with("Error: KV is unavailable: its Redis store did not answer"),
            "{said}"
        );
    }
    let redis = Redis::on(port, dir);
    for r in &rs {
        let back = within(Duration::from_secs(15), || {
            r.get("/t/kvo/try-get?key=k", &[]).text() == "kept\n"
        });
        assert!(
            back.is_some(),
            "{}",
            r.get("/t/kvo/try-get?key=k", &[]).text()
        );
    }
    drop(redis);
}

#[test]
fn a_purge_on_one_replica_purges_every_replica() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    assert_eq!(rs[0].add("p", "plugins/hello/render.js", "").0, 201);
    for r in &rs {
        assert!(within(Duration::from_secs(1), || r.get("/t/p/", &[]).status == 200).is_some());
        assert_eq!(r.get("/t/p/", &[]).header("x-cache"), Some("hit"));
    }
    let (status, body) = rs[1].admin("POST", "/_ssr/admin/tenants/p/purge");
    assert_eq!(status, 200, "{body}");
    assert_eq!(rs[1].get("/t/p/", &[]).header("x-cache"), Some("miss"));
    for r in [&rs[0], &rs[2]] {
        // A hit means the purge has not arrived yet; it leaves the cache
        // as it was.
        let purged = within(Duration::from_secs(1), || {
            r.get("/t/p/", &[]).header("x-cache") == Some("miss")
        });
        assert!(purged.is_some(), "the purge did not reach a replica");
    }
}

#[test]
fn replicas_serve_through_a_redis_outage_and_follow_the_store_when_it_returns() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let (status, body) = rs[0].add("warm", "tests/plugins/text.js", "");
    assert_eq!(status, 201, "{body}");
    for r in &rs {
        let served = within(Duration::from_secs(5), || {
            r.get("/t/warm/", &[]).status == 200
        });
        assert!(served.is_some(), "a replica never served `warm`");
    }
    let (port, dir) = redis.stop();

    // Every replica keeps serving what it knows; writes get a clear 503;
    // `/readyz` says what is wrong and stays 200.
    for r in &rs {
        for _ in 0..5 {
            assert_eq!(r.get("/t/warm/", &[]).status, 200);
        }
        let (status, body) = r.add("later", "plugins/hello/render.js", "");
        assert_eq!(status, 503, "{body}");
        assert!(body.contains("shared store"), "{body}");
        let ready = within(Duration::from_secs(5), || {
            let reply = r.get("/_ssr/readyz", &[]);
            reply.status == 200 && reply.text().contains("unreachable")
        });
        assert!(ready.is_some(), "{}", r.get("/_ssr/readyz", &[]).text());
    }
    let redis = Redis::on(port, dir);
    let (mut status, mut body) = (0, String::new());
    let back = within(Duration::from_secs(15), || {
        (status, body) = rs[0].add("later", "plugins/hello/render.js", "");
        status == 201
    });
    assert!(back.is_some(), "writes did not come back: {status} {body}");
    for r in &rs {
        let served = within(Duration::from_secs(5), || {
            r.get("/t/later/", &[]).status == 200
        });
        assert!(served.is_some());
        assert_eq!(r.get("/t/warm/", &[]).status, 200);
        assert!(r.get("/_ssr/readyz", &[]).text().contains("connected"));
        // Each transition is logged once, however many requests failed.
        let log = r.log.lock().unwrap().clone();
        assert_eq!(log.matches("lost the shared store").count(), 1, "{log}");
        assert_eq!(log.matches("the shared store is back").count(), 1, "{log}");
    }
    drop(redis);
}

#[test]
fn two_replicas_registering_one_id_at_once_converge_on_one_plugin() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let a = std::fs::read(plugin("plugins/hello/render.js").plugin).unwrap();
    let b = std::fs::read(plugin("tests/plugins/text.js").plugin).unwrap();
    let digests = [ssr::artifact::digest(&a), ssr::artifact::digest(&b)];
    for round in 0..3 {
        let id = format!("same-{round}");
        let gate = std::sync::Barrier::new(2);
        let statuses: Vec<(u16, String)> = std::thread::scope(|s| {
            let writers: Vec<_> = [(&rs[0], &a), (&rs[1], &b)]
                .into_iter()
                .map(|(r, bytes)| {
                    let (gate, id) = (&gate, &id);
                    s.spawn(move || {
                        gate.wait();
                        r.put_bytes(id, bytes, "")
                    })
                })
                .collect();
            writers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        // One lands; the other lands after it or is told it lost.
        for (status, body) in &statuses {
            assert!([200, 201, 409].contains(status), "{status} {body}");
        }
        assert!(statuses.iter().any(|(s, _)| *s == 201), "{statuses:?}");
        let store = RedisStore::open(&redis.url, None).unwrap();
        let State::Present(stored) = store.state(&id).unwrap() else {
            panic!("{id} is not stored")
        };
        assert!(digests.contains(&stored.record.digest));
        let want = format!("\"digest\":\"{}\"", stored.record.digest);
        for r in &rs {
            let converged = within(Duration::from_secs(2), || {
                r.admin("GET", &format!("/_ssr/admin/tenants/{id}"))
                    .1
                    .contains(&want)
            });
            assert!(converged.is_some(), "a replica kept the other plugin");
        }
    }
}

#[test]
fn two_replicas_giving_one_host_to_two_tenants_at_once_give_it_to_one() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let plugins = ["plugins/hello/render.js", "tests/plugins/text.js"];
    for round in 0..3 {
        let host = format!("shop-{round}.test");
        let ids = [format!("one-{round}"), format!("two-{round}")];
        let gate = std::sync::Barrier::new(2);
        let statuses: Vec<(u16, String)> = std::thread::scope(|s| {
            let writers: Vec<_> = (0..2)
                .map(|i| {
                    let (gate, r, id, host) = (&gate, &rs[i], &ids[i], &host);
                    s.spawn(move || {
                        gate.wait();
                        r.add(id, plugins[i], &format!("host={host}"))
                    })
                })
                .collect();
            writers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        // One gets the host; the other is told who has it.
        let won = statuses.iter().position(|(s, _)| *s == 201);
        let won = won.unwrap_or_else(|| panic!("{statuses:?}"));
        let (status, body) = &statuses[1 - won];
        assert_eq!(*status, 409, "{statuses:?}");
        assert!(body.contains(&host) && body.contains(&ids[won]), "{body}");
        // Every replica routes the host to the winner's plugin, and none
        // has the loser.
        let want = rs[won].get(&format!("/t/{}/", ids[won]), &[]).body;
        for r in &rs {
            let routed = within(Duration::from_secs(2), || {
                r.get("/", &[("host", &host)]).body == want
            });
            assert!(routed.is_some(), "{host} routes elsewhere");
            let loser = r.admin("GET", &format!("/_ssr/admin/tenants/{}", ids[1 - won]));
            assert_eq!(loser.0, 404, "{}", loser.1);
        }
    }
}

/// `scripts/cluster.sh` on loopback ports from `port`, with its files in a
/// directory of its own; stopped (SIGTERM, which it handles as Ctrl-C)
/// and waited for on drop.
pub(crate) struct Cluster {
    script: Child,
    port: u16,
    dir: PathBuf,
}

impl Cluster {
    fn start(replicas: usize) -> Cluster {
        Cluster::start_env(replicas, &[])
    }

    /// [`Cluster::start`] with more environment variables for the replicas
    /// (`SSR_OBJECTS`, say).
    pub(crate) fn start_env(replicas: usize, env: &[(&str, &str)]) -> Cluster {
        use std::io::BufRead;
        // nginx on `port`, replica n on `port + n`, Redis on `port + 10`.
        let (port, dir) = (crate::support::free_block(11), tempdir("cluster"));
        let mut script = Command::new(crate::support::root().join("scripts/cluster.sh"))
            .env("PORT", port.to_string())
            .env("REPLICAS", replicas.to_string())
            .env("CLUSTER_DIR", &dir)
            .env("SSR", env!("CARGO_BIN_EXE_ssr"))
            .env("SSR_ADMIN_TOKEN", crate::support::TOKEN)
            .env("SSR_WORKERS", "1")
            .env("SSR_CODE_CACHE", crate::support::code_cache())
            // On a cold code cache each replica compiles the code plugins
            // share, all at once and beside the other tests (CI, 2 cores).
            .env("READY_WAIT", "120")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(dir.join("cluster.err")).unwrap())
            .spawn()
            .unwrap();
        let stdout = std::io::BufReader::new(script.stdout.take().unwrap());
        let mut said = String::new();
        for line in stdout.lines().map_while(Result::ok) {
            said.push_str(&line);
            said.push('\n');
            if line.starts_with("Ctrl-C stops everything") {
                break;
            }
        }
        let cluster = Cluster { script, port, dir };
        assert!(
            said.contains("cluster up"),
            "cluster.sh did not start:\n{said}\n{}",
            std::fs::read_to_string(cluster.dir.join("cluster.err")).unwrap_or_default()
        );
        assert!(
            said.contains(&format!("http://127.0.0.1:{port}/")),
            "{said}"
        );
        cluster
    }

    /// nginx (0) or replica `n`.
    pub(crate) fn at(&self, n: u16) -> Remote {
        Remote {
            addr: format!("127.0.0.1:{}", self.port + n),
        }
    }

    fn pid(&self, replica: u16) -> String {
        std::fs::read_to_string(self.dir.join(format!("replica-{replica}.pid")))
            .unwrap()
            .trim()
            .to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.script.id().to_string()])
            .status();
        let _ = self.script.wait();
    }
}

#[test]
fn the_cluster_loses_no_request_when_a_replica_is_killed_under_load() {
    let cluster = Cluster::start(3);
    let nginx = cluster.at(0);
    let ids: Vec<String> = (0..4).map(|i| format!("site-{i}")).collect();
    for id in &ids {
        let (status, body) = nginx.add(id, "plugins/hello/render.js", "");
        assert_eq!(status, 201, "{body}");
    }
    for n in 1..=3 {
        let r = cluster.at(n);
        for id in &ids {
            let path = format!("/t/{id}/");
            let served = within(Duration::from_secs(60), || r.get(&path, &[]).status == 200);
            assert!(served.is_some(), "replica {n} never served {id}");
        }
    }

    // A WebSocket through nginx to a replica, on each engine: the same
    // conversation as with one server (`websockets.rs`).
    for engine in ssr::engine::Engines::KINDS {
        let id = format!("ws-{engine}");
        let query = format!("engine={engine}");
        let (status, body) = nginx.add(&id, crate::websockets::SERVER, &query);
        assert_eq!(status, 201, "{body}");
        let opened = within(Duration::from_secs(60), || {
            (1..=3).all(|n| cluster.at(n).get(&format!("/t/{id}/"), &[]).status == 426)
        });
        assert!(opened.is_some(), "{id} never served by every replica");
        let (mut socket, _) =
            crate::websockets::open(nginx.addr(), &format!("/t/{id}/?room=a")).unwrap();
        let said = crate::websockets::converse(&mut socket);
        assert_eq!(
            said.first().map(String::as_str),
            Some("hello a"),
            "{id}: {said:?}"
        );
        assert_eq!(
            said.last().map(String::as_str),
            Some("closed"),
            "{id}: {said:?}"
        );
        assert_eq!(said.len(), 9, "{id}: {said:?}");
    }

    let compiled_before = compiled(&cluster.dir.join("replica-2"));
    assert!(compiled_before.len() >= 2, "{compiled_before:?}");

    // A load generator of 4 clients on kept-alive connections through
    // nginx, while replica 2 is killed.
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (sent, failed) = std::thread::scope(|s| {
        let clients: Vec<_> = (0..4)
            .map(|c| {
                let (stop, ids, url) = (&stop, &ids, nginx.url(""));
                s.spawn(move || {
                    let agent = Server::agent();
                    let (mut sent, mut failed) = (0u64, Vec::new());
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        let id = &ids[(sent as usize + c) % ids.len()];
                        let status = agent
                            .get(format!("{url}/t/{id}/"))
                            .call()
                            .map(|r| r.status().as_u16())
                            .unwrap_or(0);
                        sent += 1;
                        if status != 200 {
                            failed.push(status);
                        }
                    }
                    (sent, failed)
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs(2));
        let killed = cluster.pid(2);
        assert!(
            Command::new("kill")
                .args(["-9", &killed])
                .status()
                .unwrap()
                .success()
        );
        std::thread::sleep(Duration::from_secs(4));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        clients.into_iter().fold((0, Vec::new()), |(n, mut f), c| {
            let (sent, failed) = c.join().unwrap();
            f.extend(failed);
            (n + sent, f)
        })
    });
    let share = failed.len() as f64 / sent as f64;
    eprintln!(
        "kill test: {} of {sent} requests failed ({:.4}%)",
        failed.len(),
        share * 100.0
    );
    assert!(sent > 1000, "only {sent} requests were sent");
    assert!(
        share < 0.001,
        "{} of {sent} failed: {failed:?}",
        failed.len()
    );

    // The script started replica 2 again; it serves every tenant from the
    // store without anyone registering them again.
    let r2 = cluster.at(2);
    for id in &ids {
        let path = format!("/t/{id}/");
        let served = within(Duration::from_secs(60), || r2.get(&path, &[]).status == 200);
        assert!(served.is_some(), "the restarted replica did not serve {id}");
    }
    let log = std::fs::read_to_string(cluster.dir.join("replica-2.log")).unwrap();
    assert_eq!(log.matches("ssr listening on").count(), 2, "{log}");
    // ...and compiled nothing again: every compiled file is the one it
    // wrote before it was killed.
    assert_eq!(compiled(&cluster.dir.join("replica-2")), compiled_before);
}

/// The compiled files in a replica's data dir, with their inodes (a file
/// written again is a new inode: `fs::write_cold` renames a new file in).
fn compiled(dir: &std::path::Path) -> Vec<(String, u64)> {
    use std::os::unix::fs::MetadataExt;
    let mut files: Vec<(String, u64)> = ["plugins", "code"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(dir.join(sub)).unwrap().flatten())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().ino(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_tenant_token_and_its_log_reach_across_replicas() {
    use crate::tokens::{Follow, make_token, with_token};
    let redis = Redis::start();
    let rs = replicas(&redis);
    assert_eq!(rs[0].add("chatty", "tests/plugins/chatty.js", "").0, 201);
    all_serve_within_a_second(&rs[1..], "/t/chatty/x", (200, b"ok"));
    let (token, id) = make_token(&rs[0], "tenant=chatty");
    let own = "/_ssr/admin/tenants/chatty";
    assert_eq!(with_token(&rs[1], &token, "GET", own, b"").0, 200);
    assert_eq!(
        with_token(&rs[2], &token, "GET", "/_ssr/admin/tenants", b"").0,
        403
    );

    // Followed on one replica, rendered on another.
    let follow = Follow::start(&rs[1], &token, "chatty");
    let ends = Instant::now() + Duration::from_secs(5);
    let mut n = 0;
    let line = loop {
        assert!(Instant::now() < ends, "no line from replica 1 within 5 s");
        n += 1;
        assert_eq!(rs[0].get(&format!("/t/chatty/?n={n}"), &[]).status, 200);
        if let Ok(line) = follow.lines.recv_timeout(Duration::from_millis(200)) {
            break line;
        }
    };
    assert!(
        line.contains("one line") && line.contains("GET /t/chatty/?n="),
        "{line}"
    );

    // Revoked on one replica: refused on every one at once.
    assert_eq!(
        rs[2].admin("DELETE", &format!("/_ssr/admin/tokens/{id}")).0,
        204
    );
    for r in &rs {
        assert_eq!(with_token(r, &token, "GET", own, b"").0, 401);
    }
}

/// SeaweedFS's S3 server (`weed server -s3`, which scripts/setup.sh puts
/// in `target/seaweedfs/`) on free loopback ports, with one identity whose
/// keys sign every request; killed on drop.
pub(crate) struct ObjectStore {
    child: Child,
    dir: PathBuf,
    base: u16,
    port: u16,
}

impl ObjectStore {
    const KEY: &str = "ssr-test-key";
    const SECRET: &str = "ssr-test-secret";

    pub(crate) fn start() -> ObjectStore {
        let dir = tempdir("seaweedfs");
        let config = dir.join("s3.json");
        std::fs::write(
            &config,
            format!(
                r#"{{"identities":[{{"name":"ssr","credentials":[{{"accessKey":"{}","secretKey":"{}"}}],"actions":["Admin","Read","Write","List","Tagging"]}}]}}"#,
                Self::KEY,
                Self::SECRET
            ),
        )
        .unwrap();
        let base = crate::support::free_block(8);
        let child = Self::spawn(&dir, base);
        let store = ObjectStore {
            child,
            dir,
            base,
            port: base + 6,
        };
        store.wait_up();
        store
    }

    /// `weed server` on ports `base..base + 8`, keeping its files in `dir`.
    fn spawn(dir: &Path, base: u16) -> Child {
        let port = |i: u16| (base + i).to_string();
        let weed = crate::support::root().join("target/seaweedfs/weed");
        Command::new(&weed)
            .arg("server")
            .arg(format!("-dir={}", dir.display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3", "-iam=false"])
            .args(["-master.telemetry=false", "-master.volumeSizeLimitMB=64"])
            // Its Iceberg and Lance listeners take fixed ports: none.
            .args(["-s3.port.iceberg=0", "-s3.port.lance=0"])
            .arg(format!("-s3.config={}", dir.join("s3.json").display()))
            .arg(format!("-master.port={}", port(0)))
            .arg(format!("-master.port.grpc={}", port(1)))
            .arg(format!("-volume.port={}", port(2)))
            .arg(format!("-volume.port.grpc={}", port(3)))
            .arg(format!("-filer.port={}", port(4)))
            .arg(format!("-filer.port.grpc={}", port(5)))
            .arg(format!("-s3.port={}", port(6)))
            .arg(format!("-s3.port.grpc={}", port(7)))
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} (scripts/setup.sh installs it): {e}", weed.display()))
    }

    /// Up when its S3 port answers (403 unsigned: it checks signatures).
    fn wait_up(&self) {
        let up = crate::support::within(crate::support::patience(60), || {
            Server::agent()
                .get(&format!("http://127.0.0.1:{}/", self.port))
                .call()
                .is_ok()
        });
        assert!(
            up,
            "SeaweedFS's S3 server did not start on port {}",
            self.port
        );
    }

    /// The blobs in `bucket` now, as its filer lists them (JSON, one
    /// `FullPath` each).
    fn blobs(&self, bucket: &str) -> usize {
        let url = format!(
            "http://127.0.0.1:{}/buckets/{bucket}/blobs/?limit=10000",
            self.base + 4
        );
        Server::agent()
            .get(&url)
            .header("accept", "application/json")
            .call()
            .ok()
            .and_then(|mut r| r.body_mut().read_to_string().ok())
            .map_or(0, |listed| listed.matches("\"FullPath\"").count())
    }

    /// Kills it, as an outage would.
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on its ports and files, after [`ObjectStore::stop`].
    fn resume(&mut self) {
        self.child = Self::spawn(&self.dir, self.base);
        self.wait_up();
    }

    /// `--objects` for a bucket of it.
    pub(crate) fn url(&self, bucket: &str) -> String {
        format!(
            "s3://{}:{}@127.0.0.1:{}/{bucket}",
            Self::KEY,
            Self::SECRET,
            self.port
        )
    }
}

impl Drop for ObjectStore {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ssr serve`'s arguments for a replica of `redis` with R2's bytes in
/// `objects` (an `--objects` URL) and its files in a new data dir, and
/// `more`.
fn r2_replica_args(redis: &Redis, objects: &str, more: &[&str]) -> Vec<String> {
    let dir = tempdir("replica");
    let mut args: Vec<String> = ["--path-routing", "--store", &redis.url, "--data-dir"]
        .map(String::from)
        .to_vec();
    args.extend([
        dir.to_str().unwrap().to_string(),
        "--objects".into(),
        objects.into(),
    ]);
    args.extend(more.iter().map(|s| s.to_string()));
    args
}

/// Starts `ssr serve` with `args`.
fn serve(args: &[String]) -> Server {
    Server::start(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// R2 across replicas (`--store redis://... --objects s3://...`, a real
/// Redis and SeaweedFS): every method as `wrangler dev` answers it; an
/// object put through one replica is got through every other, byte for
/// byte, a large one streamed in segments both ways.
#[test]
fn r2_put_through_one_replica_is_got_through_every_other_on_both_engines() {
    let redis = Redis::start();
    let objects = ObjectStore::start();
    let url = objects.url("ssr-r2");
    let rs = ready(
        (0..3)
            .map(|_| serve(&r2_replica_args(&redis, &url, &[])))
            .collect(),
    );
    let plugin = std::fs::read(crate::bindings::r2_app()).unwrap();
    let x20 = {
        use sha2::Digest as _;
        ssr::artifact::hex(&sha2::Sha256::digest(vec![b'x'; 20 << 20]))
    };
    for engine in Engines::KINDS {
        let id = format!("r2-{engine}");
        let (status, body) = rs[0].put_bytes(&id, &plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        for r in &rs[1..] {
            let absent = || r.get(&format!("/t/{id}/get?key=none"), &[]).text() == "absent\n";
            assert!(within(Duration::from_secs(1), absent).is_some(), "{engine}");
        }
        let suite = rs[1].get(&format!("/t/{id}/suite"), &[]);
        assert_eq!(suite.text(), crate::bindings::WRANGLER_DEV_R2, "{engine}");
        let put = rs[0].send(
            "POST",
            &format!("/t/{id}/put?key=up"),
            &[],
            engine.as_str().as_bytes(),
        );
        assert_eq!(put.status, 200, "{}", put.text());
        for r in &rs {
            assert_eq!(
                r.get(&format!("/t/{id}/get?key=up"), &[]).text(),
                engine.as_str()
            );
            let ranged = r.get(&format!("/t/{id}/get?key=a/2"), &[("range", "bytes=-2")]);
            assert_eq!(ranged.text(), "/2", "{engine}");
        }
        let big = rs[2].get(&format!("/t/{id}/big?key=big&mib=20"), &[]);
        assert_eq!(big.text(), format!("20971520 {x20}\n"), "{engine}");
        let tail = rs[0].get(
            &format!("/t/{id}/get?key=big"),
            &[("range", "bytes=8388606-8388609")],
        );
        assert_eq!(tail.text(), "xxxx", "a range across two segments");
    }
}

/// R2 while its object store is down: a get or a put throws an error that
/// names the store, the server and its cached pages keep serving, and
/// what was put before is there when the store is back (its metadata in
/// Redis names bytes the store kept).
#[test]
fn r2_says_so_while_the_object_store_is_down_and_keeps_what_was_put() {
    let redis = Redis::start();
    let mut objects = ObjectStore::start();
    let url = objects.url("ssr-r2-outage");
    let s = serve(&r2_replica_args(&redis, &url, &[]));
    let plugin = std::fs::read(crate::bindings::r2_app()).unwrap();
    assert_eq!(s.put_bytes("r2o", &plugin, "").0, 201);
    assert_eq!(s.add("page", "plugins/hello/render.js", "").0, 201);
    assert_eq!(
        s.get("/t/r2o/try-put?key=k&value=before", &[]).text(),
        "6\n"
    );
    assert_eq!(s.get("/t/page/", &[]).status, 200);
    objects.stop();
    let shown = format!(
        "the object store at http://127.0.0.1:{}/ssr-r2-outage did not answer",
        objects.port
    );
    for op in ["try-get?key=k", "try-put?key=k&value=during"] {
        let said = s.get(&format!("/t/r2o/{op}"), &[]).text();
        assert!(
            said.starts_with("Error: ") && said.contains(&shown) && said.contains("try again"),
            "{op}: {said}"
        );
    }
    let page = s.get("/t/page/", &[]);
    assert_eq!((page.status, page.header("x-cache")), (200, Some("hit")));
    objects.resume();
    let back = within(Duration::from_secs(30), || {
        s.get("/t/r2o/try-get?key=k", &[]).text() == "before\n"
    });
    assert!(
        back.is_some(),
        "{}",
        s.get("/t/r2o/try-get?key=k", &[]).text()
    );
    assert_eq!(s.get("/t/r2o/try-put?key=k&value=after", &[]).text(), "5\n");
    assert_eq!(s.get("/t/r2o/try-get?key=k", &[]).text(), "after\n");
}

/// A put cut off by `kill -9` leaves the blobs it wrote in the object
/// store, named by no object: once they are older than
/// `--r2-upload-expiry`, the sweep deletes them, and nothing an object
/// names (a small one, and a large one of several blobs).
#[test]
fn blobs_a_killed_put_left_in_the_object_store_are_swept_and_named_ones_kept() {
    let redis = Redis::start();
    let objects = ObjectStore::start();
    let url = objects.url("ssr-r2-sweep");
    // Room for a slow first render on a busy machine; the sweep comes 10 s
    // after the cut.
    let more = ["--r2-upload-expiry", "10000", "--request-timeout", "10000"];
    let args = r2_replica_args(&redis, &url, &more);
    let mut s = serve(&args);
    let plugin = std::fs::read(crate::bindings::r2_app()).unwrap();
    assert_eq!(s.put_bytes("r2s", &plugin, "").0, 201);
    assert_eq!(
        s.get("/t/r2s/try-put?key=small&value=kept", &[]).text(),
        "4\n"
    );
    let big = s.get("/t/r2s/big?key=big&mib=20", &[]);
    assert_eq!(big.status, 200, "{}", big.text());
    // A put of 2 GiB, cut off once it has written two segments (as the
    // store lists them), before its render's deadline would end it (and
    // delete them).
    let named = objects.blobs("ssr-r2-sweep");
    assert!(
        named >= 4,
        "the small object's blob and the large one's 3: {named}"
    );
    let addr = s.addr.clone();
    std::thread::spawn(move || {
        let remote = Remote { addr };
        let _ = remote.get("/t/r2s/big?key=cut&mib=2048", &[]);
    });
    let written = within(Duration::from_secs(20), || {
        objects.blobs("ssr-r2-sweep") >= named + 2
    });
    assert!(written.is_some(), "the cut put wrote no two segments");
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    let s = serve(&args);
    let swept = within(Duration::from_secs(60), || s.log_contains("R2: deleted"));
    assert!(swept.is_some(), "no sweep of the cut put's blobs");
    assert_eq!(s.get("/t/r2s/try-get?key=small", &[]).text(), "kept\n");
    assert_eq!(s.get("/t/r2s/try-get?key=cut", &[]).text(), "absent\n");
    let tail = s.get("/t/r2s/get?key=big", &[("range", "bytes=-4")]);
    assert_eq!(
        tail.text(),
        "xxxx",
        "the earlier large object, after the sweep"
    );
}

/// A cron trigger fires on its own at the start of each minute, once across
/// three replicas: the minute's run is recorded once (the replica that
/// claimed it in Redis ran it), with the minute as its `scheduledTime`.
#[test]
fn a_cron_trigger_fires_once_a_minute_across_replicas() {
    let redis = Redis::start();
    let rs = replicas(&redis);
    let plugin = std::fs::read(crate::bindings::scheduled_app()).unwrap();
    assert_eq!(rs[0].put_bytes("cron", &plugin, "").0, 201);
    all_serve_within_a_second(&rs[1..], "/t/cron/", (200, b"a Worker of cron triggers\n"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let minute = (now / 60_000 + 1) * 60_000;
    let path = format!("/t/cron/runs?minute={minute}");
    // Every replica has dealt with a tick of the tenant's trigger: ran it,
    // or left it to the replica that claimed it (each replica deals with a
    // minute before the next).
    let dealt = |r: &Server| {
        ["ok", "error", "elsewhere"]
            .iter()
            .map(|o| {
                r.metric(&format!(
                    "ssr_scheduled_total{{tenant=\"cron\",outcome=\"{o}\"}}"
                ))
            })
            .sum::<f64>()
    };
    for (i, r) in rs.iter().enumerate() {
        let ticked = within(Duration::from_secs(140), || dealt(r) >= 1.0);
        assert!(
            ticked.is_some(),
            "replica {} never dealt with the trigger",
            i + 1
        );
    }
    let runs = rs[2].get(&path, &[]).text();
    assert_eq!(runs.matches("\"scheduledTime\"").count(), 1, "{runs}");
    assert!(
        runs.contains(&format!("\"scheduledTime\":{minute}")),
        "{runs}"
    );
    assert!(runs.contains("\"cron\":\"* * * * *\""), "{runs}");
}
