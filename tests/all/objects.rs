//! Durable Objects on both engines (`tests/plugins/objects.js`): a
//! namespace's ids, a stub's `fetch` and RPC, an object's storage
//! (key-value, SQL, transactions), compared with workerd in the same run;
//! one instance per object whose memory lives between events, its events
//! one at a time, its storage across eviction and restarts, its alarm,
//! and one tenant's objects out of another's reach.

use std::path::PathBuf;
use std::time::Duration;

use ssr::engine::Engines;

use crate::apps::{App, Workerd};
use crate::support::*;

/// The plugin's wrangler config: its two classes, SQLite-backed.
const BINDINGS: &str = r#""durable_objects": { "bindings": [{ "name": "COUNTER", "class_name": "Counter" }, { "name": "STORE", "class_name": "Store" }] },
    "migrations": [{ "tag": "v1", "new_sqlite_classes": ["Counter", "Store"] }]"#;

fn objects_app() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| crate::bindings::bound_app("objects", BINDINGS))
        .clone()
}

/// Registers the plugin as `PREFIX-ENGINE` on each engine.
fn register(s: &impl Client, prefix: &str) -> Vec<String> {
    let plugin = std::fs::read(objects_app()).unwrap();
    Engines::KINDS
        .iter()
        .map(|engine| {
            let id = format!("{prefix}-{engine}");
            let (status, body) = s.put_bytes(&id, &plugin, &format!("engine={engine}"));
            assert_eq!(status, 201, "{body}");
            id
        })
        .collect()
}

/// Every call of `/suite` (ids, a stub's fetch and RPC with their errors,
/// the key-value and SQL storage, transactions, `deleteAll`) answers on
/// both engines what workerd answers, in the same run.
#[test]
fn durable_objects_answer_as_on_workerd_on_both_engines() {
    let mut app = App::module("objects", root().join("tests/plugins/objects.js"));
    app.objects = vec![("COUNTER", "Counter"), ("STORE", "Store")];
    let workerd = Workerd::start(&app);
    let reference = Remote {
        addr: workerd.addr.clone(),
    };
    let expected = reference.get("/suite", &[]);
    assert_eq!(expected.status, 200, "workerd: {}", expected.text());
    let s = Server::start(&["--demo=false", "--path-routing"]);
    for id in register(&s, "objects") {
        let got = s.get(&format!("/t/{id}/suite"), &[]);
        assert_eq!(got.text(), expected.text(), "{id}");
    }
}

/// An object is one instance while it gets events: its memory counts
/// them; with none for `--object-idle` it is evicted, and the next event
/// makes a new instance, whose constructor's `blockConcurrencyWhile`
/// reads what the storage kept. Its storage is there after a restart.
#[test]
fn an_object_keeps_its_memory_while_live_and_its_storage_across_eviction_and_restarts() {
    let data = tempdir("objects-data");
    let args = |d: &str| {
        vec![
            "--demo=false".to_string(),
            "--path-routing".into(),
            "--data-dir".into(),
            d.to_string(),
            "--object-idle".into(),
            "1".into(),
        ]
    };
    let data_arg = data.to_str().unwrap().to_string();
    let start = || {
        let a = args(&data_arg);
        Server::start(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let s = start();
    let ids = register(&s, "live");
    for id in &ids {
        assert_eq!(s.get(&format!("/t/{id}/increment"), &[]).text(), "1\n");
        assert_eq!(s.get(&format!("/t/{id}/increment"), &[]).text(), "2\n");
        assert_eq!(
            s.get(&format!("/t/{id}/hit"), &[]).text(),
            r#"{"hits":1,"loaded":0}"#,
            "{id}: the instance that counted from 0"
        );
        assert_eq!(
            s.get(&format!("/t/{id}/hit"), &[]).text(),
            r#"{"hits":2,"loaded":0}"#,
            "{id}: the same instance"
        );
    }
    std::thread::sleep(Duration::from_millis(2500));
    for id in &ids {
        assert_eq!(
            s.get(&format!("/t/{id}/hit"), &[]).text(),
            r#"{"hits":1,"loaded":2}"#,
            "{id}: a new instance, which loaded the count"
        );
    }
    drop(s);
    let s = start();
    for id in &ids {
        assert_eq!(
            s.get(&format!("/t/{id}/increment"), &[]).text(),
            "3\n",
            "{id}"
        );
    }
}

/// Events run one at a time: concurrent read-modify-writes of one object
/// (an `increment()` that awaits its `get` before its `put`) each see the
/// last one's write, so 48 of them from 8 clients count to 48, each value
/// once.
#[test]
fn concurrent_calls_to_one_object_run_one_at_a_time_on_both_engines() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    for id in register(&s, "serial") {
        let path = format!("/t/{id}/increment?name=busy");
        let mut seen: Vec<u32> = std::thread::scope(|scope| {
            let clients: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        (0..6)
                            .map(|_| {
                                let r = s.get(&path, &[]);
                                assert_eq!(r.status, 200, "{}", r.text());
                                r.text().trim().parse::<u32>().unwrap()
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            clients
                .into_iter()
                .flat_map(|c| c.join().unwrap())
                .collect()
        });
        seen.sort_unstable();
        assert_eq!(seen, (1..=48).collect::<Vec<_>>(), "{id}");
    }
}

/// An alarm runs its object's `alarm()` when due; one whose handler
/// throws runs again (`isRetry`), and is then done.
#[test]
fn an_alarm_runs_when_due_and_again_after_its_handler_failed_on_both_engines() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    for id in register(&s, "alarms") {
        assert_eq!(s.get(&format!("/t/{id}/alarm?in=100"), &[]).text(), "true");
        let fired = |want: &str| {
            within(Duration::from_secs(20), || {
                s.get(&format!("/t/{id}/fired"), &[]).text() == want
            })
        };
        assert!(
            fired(r#"{"fired":[false],"alarm":null}"#),
            "{id}: {}",
            s.get(&format!("/t/{id}/fired"), &[]).text()
        );
        assert_eq!(
            s.get(&format!("/t/{id}/alarm?in=100&fail=1"), &[]).text(),
            "true"
        );
        assert!(
            fired(r#"{"fired":[false,false,true],"alarm":null}"#),
            "{id}: {}",
            s.get(&format!("/t/{id}/fired"), &[]).text()
        );
    }
}

/// Two tenants with the same app and the same names have objects of their
/// own, and one tenant's id is refused by the other's namespace.
#[test]
fn one_tenants_objects_never_reach_anothers() {
    let s = Server::start(&["--demo=false", "--path-routing"]);
    let mine = register(&s, "mine");
    let theirs = register(&s, "theirs");
    for (a, b) in mine.iter().zip(&theirs) {
        assert_eq!(s.get(&format!("/t/{a}/increment"), &[]).text(), "1\n");
        assert_eq!(s.get(&format!("/t/{a}/increment"), &[]).text(), "2\n");
        assert_eq!(s.get(&format!("/t/{b}/increment"), &[]).text(), "1\n");
        let id = s.get(&format!("/t/{a}/id"), &[]).text();
        assert_eq!(id.len(), 64, "{id}");
        assert_ne!(s.get(&format!("/t/{b}/id"), &[]).text(), id);
        assert_eq!(s.get(&format!("/t/{a}/by-id?id={id}"), &[]).text(), "3\n");
        let refused = s.get(&format!("/t/{b}/by-id?id={id}"), &[]);
        assert_eq!(refused.status, 500, "{b}: {}", refused.text());
        assert_eq!(s.get(&format!("/t/{b}/increment"), &[]).text(), "2\n");
    }
}
