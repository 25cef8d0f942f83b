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
    // Evicted: one object per engine.
    let evicted = within(patience(30), || {
        metric(&s, "ssr_objects_evicted_total") >= 2.0
    });
    assert!(evicted, "no eviction after --object-idle");
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

/// `kill -9` of the server while 8 clients increment objects (one each,
/// both engines) loses no acknowledged write: after a restart, each
/// object's next increment is one past the last it acknowledged.
#[test]
fn a_kill_during_object_writes_loses_no_acknowledged_one() {
    use std::sync::{Arc, Mutex};
    let data = tempdir("objects-kill");
    let s = Server::stored(data.to_str().unwrap());
    let ids = register(&s, "kill");
    let acked = Arc::new(Mutex::new(std::collections::BTreeMap::new()));
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let url = s.url(&format!("/t/{}/increment?name=w{w}", ids[w % ids.len()]));
            let acked = acked.clone();
            std::thread::spawn(move || {
                let agent = Server::agent();
                loop {
                    match agent
                        .get(&url)
                        .call()
                        .map(|mut r| r.body_mut().read_to_string())
                    {
                        Ok(Ok(body)) => {
                            let n: u64 = body.trim().parse().unwrap();
                            acked.lock().unwrap().insert(w, n);
                        }
                        _ => return,
                    }
                }
            })
        })
        .collect();
    // Kill once every writer has been acknowledged a few times.
    assert!(within(patience(30), || {
        let acked = acked.lock().unwrap();
        acked.len() == 8 && acked.values().all(|n| *n >= 5)
    }));
    s.stop("KILL");
    for w in writers {
        w.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    let s = Server::stored(data.to_str().unwrap());
    for (w, n) in acked {
        let next = s.get(
            &format!("/t/{}/increment?name=w{w}", ids[w % ids.len()]),
            &[],
        );
        let next: u64 = next.text().trim().parse().unwrap();
        // One in flight at the kill may have been written and not
        // acknowledged, as on Cloudflare.
        assert!(
            next == n + 1 || next == n + 2,
            "w{w}: {n} acknowledged, then {next}"
        );
    }
}

/// The chat room's wrangler config: a class of hibernating WebSockets.
const ROOMS: &str = r#""durable_objects": { "bindings": [{ "name": "ROOMS", "class_name": "Room" }] },
    "migrations": [{ "tag": "v1", "new_sqlite_classes": ["Room"] }]"#;

/// A conversation in the chat room of `tests/plugins/chat-room.js` at
/// `base` (`addr` and the path before `/chat`): two members, text and
/// binary messages to all, tags and attachments, a `pause` (on ssr: until
/// the object is evicted, its sockets staying open), and a close the other
/// member is told of.
fn chat_in_a_room(client: &impl Client, base: &str, pause: &dyn Fn()) -> Vec<String> {
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    let open = |name: &str| {
        let path = format!("{base}/chat?room=r1&name={name}");
        let (socket, headers) = crate::websockets::open(client.addr(), &path).unwrap();
        assert!(
            headers.iter().any(|(k, v)| k == "x-room" && v == "r1"),
            "{headers:?}"
        );
        socket
    };
    let text = |socket: &mut tokio_tungstenite::tungstenite::WebSocket<std::net::TcpStream>| loop {
        match socket.read() {
            Err(e) => return format!("error {e}"),
            Ok(Message::Text(t)) => return t.to_string(),
            Ok(Message::Close(f)) => {
                return format!(
                    "close {:?}",
                    f.map(|f| (u16::from(f.code), f.reason.to_string()))
                );
            }
            Ok(_) => continue,
        }
    };
    let mut said = Vec::new();
    let mut ann = open("ann");
    said.push(text(&mut ann));
    let mut bob = open("bob");
    said.push(text(&mut bob));
    ann.send(Message::text("hi")).unwrap();
    said.extend([text(&mut ann), text(&mut bob)]);
    bob.send(Message::binary(vec![1u8, 2, 3])).unwrap();
    said.extend([text(&mut ann), text(&mut bob)]);
    bob.send(Message::text("who")).unwrap();
    said.push(text(&mut bob));
    said.push(client.get(&format!("{base}/chat?room=r1"), &[]).text());
    pause();
    bob.send(Message::text("who")).unwrap();
    said.push(text(&mut bob));
    ann.send(Message::text("after a pause")).unwrap();
    said.extend([text(&mut ann), text(&mut bob)]);
    ann.close(Some(CloseFrame {
        code: 4001.into(),
        reason: "bye".into(),
    }))
    .unwrap();
    said.push(text(&mut bob));
    said.push(text(&mut ann));
    said
}

/// The chat room (a Durable Object per room, hibernating WebSockets) holds
/// the same conversation on both engines as on workerd, in the same run;
/// on ssr its object is evicted in the middle and its sockets, tags and
/// attachments stay.
#[test]
fn a_chat_room_of_hibernating_websockets_converses_as_on_workerd_on_both_engines() {
    let mut app = App::module("chat-room", root().join("tests/plugins/chat-room.js"));
    app.objects = vec![("ROOMS", "Room")];
    let workerd = Workerd::start(&app);
    let reference = Remote {
        addr: workerd.addr.clone(),
    };
    let expected = chat_in_a_room(&reference, "", &|| ());
    assert_eq!(expected[0], "welcome ann, 1 here", "{expected:?}");
    assert!(
        expected.last().unwrap().starts_with("error"),
        "{expected:?}"
    );
    let s = Server::start(&["--demo=false", "--path-routing", "--object-idle", "1"]);
    let plugin = std::fs::read(crate::bindings::bound_app("chat-room", ROOMS)).unwrap();
    for engine in Engines::KINDS {
        let id = format!("chat-{engine}");
        let (status, body) = s.put_bytes(&id, &plugin, &format!("engine={engine}"));
        assert_eq!(status, 201, "{body}");
        // Until the room's object of this engine is evicted too: the one
        // eviction there is, once the last engine's room has gone.
        let gone = || metric(&s, "ssr_objects_live") == 0.0;
        assert!(within(patience(30), gone), "a room is still live");
        let evictions = metric(&s, "ssr_objects_evicted_total");
        let evicted = || {
            let more = || metric(&s, "ssr_objects_evicted_total") > evictions;
            assert!(within(patience(30), more), "{id}: the room was not evicted");
        };
        let mut said = chat_in_a_room(&s, &format!("/t/{id}"), &evicted);
        // The closing member's last word: workerd resets its connection
        // (its close unanswered, as the object did not close it), ssr
        // answers the close as RFC 6455 says (docs/durable-objects.md).
        let last = said.pop().unwrap();
        assert_eq!(last, r#"close Some((4001, "bye"))"#, "{id}");
        assert_eq!(said, expected[..expected.len() - 1], "{id}");
    }
}
