//! Issue 20, replicas sharing tenants through Redis: the store layer
//! (`tenant::redis`) against a real `redis-server`.

use std::ops::ControlFlow;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use ssr::tenant::Registration;
use ssr::tenant::redis::{Applied, RedisStore};

/// A `redis-server` on a free loopback port, nothing persisted; killed on
/// drop.
struct Redis {
    child: Child,
    url: String,
}

impl Redis {
    fn start() -> Redis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (scripts/setup.sh installs it)");
        // Dropped (killed and waited for) if it never answers.
        let redis = Redis {
            child,
            url: format!("redis://127.0.0.1:{port}/0"),
        };
        for _ in 0..100 {
            if RedisStore::open(&redis.url).is_ok() {
                return redis;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("redis-server did not start on port {port}");
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
    let store = RedisStore::open(&redis.url).unwrap();
    let secrets = [("TOKEN".to_string(), "s3cret".to_string())].into();

    // Plugins are content-addressed and written once.
    store.save_plugin("d1", b"one").unwrap();
    store.save_plugin("d1", b"other").unwrap();
    assert_eq!(store.plugin("d1").unwrap().as_deref(), Some(&b"one"[..]));
    assert_eq!(store.plugin("nope").unwrap(), None);

    // Two writers of one id: each takes a version; whichever lands last,
    // the newer one stays.
    let (older, newer) = (store.next_version().unwrap(), store.next_version().unwrap());
    assert!(newer > older);
    assert_eq!(
        store.put(&record("a", newer, "d2"), &secrets).unwrap(),
        Applied::Yes
    );
    assert_eq!(
        store
            .put(&record("a", older, "d1"), &Default::default())
            .unwrap(),
        Applied::Stale
    );
    let got = store.get("a").unwrap().unwrap();
    assert_eq!(
        (got.record.version, got.record.digest.as_str()),
        (newer, "d2")
    );
    assert_eq!(got.secrets, secrets);
    assert_eq!(store.versions().unwrap().get("a"), Some(&newer));

    // A removal is a tombstone: a late write older than it does not bring
    // the tenant back; a newer one does.
    let gone = store.next_version().unwrap();
    assert_eq!(store.remove("a", older).unwrap(), Applied::Stale);
    assert_eq!(store.remove("a", gone).unwrap(), Applied::Yes);
    assert!(store.get("a").unwrap().is_none());
    assert!(store.versions().unwrap().is_empty());
    assert_eq!(
        store.put(&record("a", newer, "d2"), &secrets).unwrap(),
        Applied::Stale
    );
    let back = store.next_version().unwrap();
    assert_eq!(
        store.put(&record("a", back, "d1"), &secrets).unwrap(),
        Applied::Yes
    );
    assert_eq!(store.versions().unwrap().get("a"), Some(&back));
}

#[test]
fn every_write_is_announced_without_its_secrets() {
    let redis = Redis::start();
    let store = RedisStore::open(&redis.url).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let listener = {
        let url = redis.url.clone();
        std::thread::spawn(move || {
            let store = RedisStore::open(&url).unwrap();
            let mut seen = Vec::new();
            store
                .listen(Duration::from_millis(50), |change| {
                    if let Some((id, version)) = change {
                        seen.push((id.to_string(), version));
                    } else if seen.is_empty() {
                        let _ = tx.send(());
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
    // Subscribed once it has ticked.
    rx.recv_timeout(Duration::from_secs(5)).unwrap();
    let secrets = [("TOKEN".to_string(), "s3cret".to_string())].into();
    let v1 = store.next_version().unwrap();
    store.put(&record("b", v1, "d1"), &secrets).unwrap();
    let v2 = store.next_version().unwrap();
    store.remove("b", v2).unwrap();
    let seen = listener.join().unwrap();
    assert_eq!(seen, vec![("b".to_string(), v1), ("b".to_string(), v2)]);
}

#[test]
fn an_unreachable_redis_is_named_in_the_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{port}/0");
    let err = RedisStore::open(&url).err().unwrap().to_string();
    assert!(
        err.contains(&url) && err.contains("cannot be reached"),
        "{err}"
    );
    // A password in the URL never reaches the message.
    let url = format!("redis://:hunter2-pass@127.0.0.1:{port}/0");
    let err = RedisStore::open(&url).err().unwrap().to_string();
    assert!(!err.contains("hunter2-pass"), "{err}");
    assert!(
        err.contains(&format!("redis://:***@127.0.0.1:{port}/0")),
        "{err}"
    );
}
