//! Durable Objects: `env.X` of each of the app's
//! `durable_objects.bindings`, a namespace of the class it names, whose
//! objects each live in an instance of the tenant's plugin of their own
//! and keep their storage in a SQLite database of their own.
//! - [`Objects`]: the server's directory of live objects, and their ids.
//! - [`Host`]: an object's side of its render (its events and storage).
//! - `storage.rs`: an object's storage, key-value and SQL.
//! - `alarms.rs`: every object's alarm, and the task that runs them.
//!
//! Lifetime: an object is live from its first event to [`Limits::object_idle`]
//! after its last: a render of method [`contract::OBJECT`] (`33_driver.js`
//! `runObject`) constructs its class once, then takes its events one at a
//! time by `calls::OBJECT` `next` and answers each (`answer`). With none
//! for the idle time, it retires from the directory and its render ends
//! (evicted); its storage stays, and the next event makes a new instance.
//!
//! Invariants:
//! - One live instance per object on this server: the directory starts a
//!   render only for an id it holds none for, and one that ended or
//!   retired is waited for before the next starts.
//! - Its events run one at a time, in arrival order (the input gate,
//!   stricter than Cloudflare's, which lets events interleave at awaits
//!   that are not storage): the next is read only once the last answered.
//! - A write is committed to its database (WAL, synced) before the call
//!   that made it returns, so any answer that follows it leaves after it
//!   is durable (the output gate).
//! - An object's storage is its tenant's and class's: its file is
//!   `<tenant>/<class>/<id>`, and an id names its namespace (a mark no
//!   other namespace's id has), so no tenant reaches another's objects.
//! - An event waits at most its caller's deadline; an event's CPU time is
//!   a render's (`--render-deadline`) and its wall-clock time the
//!   request's (`--request-timeout`). Waiting for an event costs nothing.

mod alarms;
pub mod storage;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;
use tokio::sync::{mpsc, oneshot, watch};

use crate::web::fetch::{FetchError, Fetched};
use crate::web::websocket::{Ends, Message, Out, Renewal};

/// Events that may wait for one object; past them a call is refused as
/// Cloudflare refuses an overloaded object.
pub const QUEUE: usize = 256;

/// How long past its idle time an object's render may run to end.
const GRACE: Duration = Duration::from_secs(5);

/// One object: its tenant, its class, and its id (64 hex digits).
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct Key {
    pub tenant: String,
    pub class: String,
    pub id: String,
}

/// What an object answered: a response's head and body (an RPC call's is
/// `{value}` or `{error}` as JSON).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// What the object's handler threw, if it did: its caller's `fetch`
    /// or RPC call rejects with it.
    pub error: Option<String>,
    /// It answered 101 and took the request's WebSocket.
    pub socket: bool,
}

/// One event for an object: its JSON (`{kind, ...}`) and bytes, and where
/// its answer goes.
pub struct Event {
    what: String,
    data: Vec<u8>,
    reply: oneshot::Sender<Answer>,
    /// A request's WebSocket, if it asked to upgrade: the caller's side of
    /// it, for the object to take by answering 101.
    peer: Option<Ends>,
}

/// The event an object is answering: where its answer goes, and its
/// request's WebSocket.
struct Current {
    reply: oneshot::Sender<Answer>,
    peer: Option<Ends>,
}

/// A WebSocket an object took (`ctx.acceptWebSocket`): kept here, not in
/// its instance, so that it stays open while the object is evicted; its
/// messages are the object's events.
struct Hosted {
    tags: Vec<String>,
    /// `serializeAttachment`'s value, as the prelude encoded it.
    attachment: Option<String>,
    /// Where what the object sends goes: its caller's connection.
    to_peer: mpsc::Sender<Message>,
}

/// The most bytes of a socket's attachment.
const MAX_ATTACHMENT: usize = 64 << 10;

/// A live object, as the directory holds it.
struct Entry {
    /// Where its events go; `None` once it retired (its render ends).
    tx: Option<mpsc::Sender<Event>>,
    /// Turns `true` when its render ended.
    ended: watch::Receiver<bool>,
    generation: u64,
}

/// The server's Durable Objects.
pub struct Objects {
    /// `None`: storage in memory.
    dir: Option<PathBuf>,
    /// The key ids are made and checked with.
    key: [u8; 32],
    live: Mutex<HashMap<Key, Entry>>,
    /// Each object's database while in memory (no data dir): kept for the
    /// process's life, as its storage.
    memory: Mutex<HashMap<Key, storage::Storage>>,
    generation: AtomicU64,
    /// What runs objects' renders, and the runtime their tasks run on:
    /// the server's, once it is up ([`Objects::serve`]).
    runner: std::sync::OnceLock<(Arc<dyn Run>, tokio::runtime::Handle)>,
    alarms: alarms::Alarms,
    /// Each object's WebSockets, by id.
    sockets: Mutex<HashMap<Key, std::collections::BTreeMap<u64, Hosted>>>,
    next_socket: AtomicU64,
    idle: Duration,
    event: Duration,
}

impl Objects {
    /// The directory, its storage in `dir` (the data dir's
    /// `bindings/objects`) or memory.
    pub fn open(dir: Option<&Path>, limits: &super::Limits) -> Result<Arc<Objects>, String> {
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("Durable Objects: cannot create {}: {e}", dir.display()))?;
        }
        let key = match dir {
            Some(dir) => id_key(&dir.join("ids.key"))?,
            None => {
                let mut key = [0; 32];
                getrandom::fill(&mut key).map_err(|e| format!("Durable Objects: {e}"))?;
                key
            }
        };
        let objects = Arc::new(Objects {
            dir: dir.map(Path::to_path_buf),
            key,
            live: Mutex::default(),
            memory: Mutex::default(),
            generation: AtomicU64::new(0),
            runner: std::sync::OnceLock::new(),
            alarms: alarms::Alarms::open(dir)?,
            sockets: Mutex::default(),
            next_socket: AtomicU64::new(1),
            idle: limits.object_idle,
            event: limits.object_event,
        });
        Ok(objects)
    }

    /// Objects' renders run by `runner` from now on, their tasks on the
    /// runtime this is called in (the server's, once it is up), and alarms
    /// run as they come due.
    pub fn serve(self: &Arc<Objects>, runner: Arc<dyn Run>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.runner.set((runner, runtime)).is_ok() {
            alarms::start(Arc::downgrade(self));
        }
    }

    /// The runtime objects' tasks run on, once the server is up.
    fn runtime(&self) -> Option<tokio::runtime::Handle> {
        self.runner.get().map(|(_, r)| r.clone())
    }

    /// The id of `name` in `tenant`'s namespace of `class`: the same on
    /// every call, and no other name's.
    pub fn id_from_name(&self, tenant: &str, class: &str, name: &str) -> String {
        let body = self.mac(&[
            b"name",
            tenant.as_bytes(),
            class.as_bytes(),
            name.as_bytes(),
        ]);
        self.marked(tenant, class, &body[..24])
    }

    /// A new id of `tenant`'s namespace of `class`, never made before.
    pub fn unique_id(&self, tenant: &str, class: &str) -> Result<String, String> {
        let mut body = [0u8; 24];
        getrandom::fill(&mut body).map_err(|e| format!("newUniqueId(): {e}"))?;
        Ok(self.marked(tenant, class, &body))
    }

    /// Whether `id` is an id of `tenant`'s namespace of `class`.
    pub fn is_id(&self, tenant: &str, class: &str, id: &str) -> bool {
        let digits = |i: usize| u8::from_str_radix(id.get(i..i + 2)?, 16).ok();
        let Some(bytes) = (id.len() == 64)
            .then(|| (0..24).map(|i| digits(2 * i)).collect::<Option<Vec<u8>>>())
            .flatten()
        else {
            return false;
        };
        self.marked(tenant, class, &bytes) == id
    }

    /// `body` (24 bytes) with the namespace's mark, in hex.
    fn marked(&self, tenant: &str, class: &str, body: &[u8]) -> String {
        let mark = self.mac(&[b"mark", tenant.as_bytes(), class.as_bytes(), body]);
        let mut id = body.to_vec();
        id.extend_from_slice(&mark[..8]);
        crate::artifact::hex(&id)
    }

    fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key length");
        for p in parts {
            mac.update(&(p.len() as u64).to_le_bytes());
            mac.update(p);
        }
        mac.finalize().into_bytes().into()
    }

    /// Delivers event `what` (JSON) with `data` to object `key`, starting
    /// its instance if it has none live, and waits for its answer until
    /// `deadline`.
    pub async fn call(
        self: &Arc<Objects>,
        key: &Key,
        what: String,
        data: Vec<u8>,
        deadline: Instant,
        peer: Option<Ends>,
    ) -> Result<Answer, String> {
        let (reply, answer) = oneshot::channel();
        let mut event = Event {
            what,
            data,
            reply,
            peer,
        };
        loop {
            let mut ended = {
                let mut live = crate::sync::lock(&self.live);
                match live.get(key) {
                    None => {
                        self.start(&mut live, key)?;
                        continue;
                    }
                    Some(Entry { tx: Some(tx), .. }) if !tx.is_closed() => {
                        match tx.try_send(event) {
                            Ok(()) => break,
                            Err(mpsc::error::TrySendError::Full(_)) => {
                                return Err(format!(
                                    "Durable Object is overloaded: {QUEUE} events wait for it already"
                                ));
                            }
                            Err(mpsc::error::TrySendError::Closed(e)) => {
                                event = e;
                                live[key].ended.clone()
                            }
                        }
                    }
                    Some(entry) => entry.ended.clone(),
                }
            };
            // Its instance is ending: the next starts once it has.
            tokio::time::timeout_at(deadline.into(), ended.wait_for(|e| *e))
                .await
                .map_err(|_| late())?
                .map_err(|_| "the server is stopping".to_string())?;
        }
        match tokio::time::timeout_at(deadline.into(), answer).await {
            Err(_) => Err(late()),
            Ok(Err(_)) => Err(
                "the Durable Object's instance ended before it answered (it failed, or ran out of its time; see the tenant's log)"
                    .into(),
            ),
            Ok(Ok(answer)) => Ok(answer),
        }
    }

    /// Starts object `key`'s instance: a render of [`contract::OBJECT`]
    /// that takes its events from a new channel.
    fn start(self: &Arc<Objects>, live: &mut HashMap<Key, Entry>, key: &Key) -> Result<(), String> {
        let Some((runner, runtime)) = self.runner.get() else {
            return Err(
                "Durable Objects need a server (`ssr serve` or `ssr dev`); `ssr render` runs one render alone"
                    .into(),
            );
        };
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::channel(QUEUE);
        let (ended_tx, ended) = watch::channel(false);
        live.insert(
            key.clone(),
            Entry {
                tx: Some(tx),
                ended,
                generation,
            },
        );
        let inbox = Inbox {
            key: key.clone(),
            generation,
            objects: Arc::downgrade(self),
            rx: Arc::new(tokio::sync::Mutex::new(rx)),
        };
        let request = contract::Request {
            method: contract::OBJECT.into(),
            url: format!("/?class={}&id={}", key.class, key.id),
            href: format!("https://object.invalid/?class={}&id={}", key.class, key.id),
            base: String::new(),
            path: "/".into(),
            query: vec![
                ("class".into(), key.class.clone()),
                ("id".into(), key.id.clone()),
            ],
            headers: Vec::new(),
            tenant: key.tenant.clone(),
            body: Vec::new(),
        };
        let rendering = runner.live(request, inbox, Instant::now() + self.event);
        let (objects, key) = (Arc::downgrade(self), key.clone());
        metrics::counter!("ssr_objects_started_total").increment(1);
        runtime.spawn(async move {
            if let Err(e) = rendering.await {
                tracing::warn!(
                    tenant = key.tenant,
                    class = key.class,
                    id = key.id,
                    "Durable Object ended: {e}"
                );
            }
            if let Some(objects) = objects.upgrade() {
                let mut live = crate::sync::lock(&objects.live);
                if live.get(&key).is_some_and(|e| e.generation == generation) {
                    live.remove(&key);
                }
            }
            let _ = ended_tx.send(true);
        });
        Ok(())
    }

    /// Object `key` of `generation` had no event for its idle time: it
    /// takes no more (those already sent still reach it). Whether it was
    /// still the live one.
    fn retire(&self, key: &Key, generation: u64) -> bool {
        let mut live = crate::sync::lock(&self.live);
        match live.get_mut(key) {
            Some(e) if e.generation == generation => {
                e.tx = None;
                metrics::counter!("ssr_objects_evicted_total").increment(1);
                true
            }
            _ => false,
        }
    }

    /// Every live object of `tenant` takes no more events: its new
    /// version's code runs the next (a deploy, as Cloudflare resets its
    /// objects), or none (it was removed).
    pub fn reset(&self, tenant: &str) {
        for (key, e) in crate::sync::lock(&self.live).iter_mut() {
            if key.tenant == tenant {
                e.tx = None;
            }
        }
    }

    /// How many objects of `tenant`'s class `class` keep storage, and its
    /// bytes, all together. It may block (it reads a directory).
    pub fn usage(&self, tenant: &str, class: &str) -> (u64, u64) {
        let Some(dir) = &self.dir else {
            let memory = crate::sync::lock(&self.memory);
            let count = memory
                .keys()
                .filter(|k| k.tenant == tenant && k.class == class)
                .count();
            return (count as u64, 0);
        };
        let (mut count, mut bytes) = (0, 0);
        let entries = std::fs::read_dir(dir.join(tenant).join(class))
            .into_iter()
            .flatten();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".sqlite3") {
                count += 1;
            }
            if name.contains(".sqlite3") {
                bytes += entry.metadata().map_or(0, |m| m.len());
            }
        }
        (count, bytes)
    }

    /// Object `key` takes the WebSocket whose caller's side is `peer`,
    /// with `tags`: its id. Each message from the caller is the object's
    /// event (`{kind: "ws", socket, text}` with its bytes), and so is its
    /// close (`{kind: "ws-close", socket, code, reason, clean}`), after
    /// which the socket is gone.
    fn host_socket(
        self: &Arc<Objects>,
        key: &Key,
        peer: Ends,
        tags: Vec<String>,
    ) -> Result<u64, String> {
        let runtime = self.runtime().ok_or("the server is stopping")?;
        let id = self.next_socket.fetch_add(1, Ordering::Relaxed);
        let hosted = Hosted {
            tags,
            attachment: None,
            to_peer: peer.incoming,
        };
        crate::sync::lock(&self.sockets)
            .entry(key.clone())
            .or_default()
            .insert(id, hosted);
        let (objects, key) = (Arc::downgrade(self), key.clone());
        let mut from_peer = peer.outgoing;
        runtime.spawn(async move {
            loop {
                let out = from_peer.recv().await;
                let Some(o) = objects.upgrade() else {
                    return;
                };
                let message = |text: bool| serde_json::json!({ "kind": "ws", "socket": id, "text": text });
                let (what, data, last) = match &out {
                    Some(Out::Text(p)) => (message(true), p.bytes().to_vec(), false),
                    Some(Out::Binary(p)) => (message(false), p.bytes().to_vec(), false),
                    Some(Out::Close { code, reason }) => (
                        serde_json::json!({ "kind": "ws-close", "socket": id, "code": code, "reason": reason, "clean": true }),
                        Vec::new(),
                        true,
                    ),
                    None => (
                        serde_json::json!({ "kind": "ws-close", "socket": id, "code": 1006, "reason": "", "clean": false }),
                        Vec::new(),
                        true,
                    ),
                };
                drop(out);
                let deadline = Instant::now() + o.event;
                if let Err(e) = o.call(&key, what.to_string(), data, deadline, None).await {
                    tracing::warn!(tenant = key.tenant, class = key.class, id = key.id, "Durable Object WebSocket event failed: {e}");
                }
                if last {
                    let mut sockets = crate::sync::lock(&o.sockets);
                    if let Some(map) = sockets.get_mut(&key) {
                        map.remove(&id);
                        if map.is_empty() {
                            sockets.remove(&key);
                        }
                    }
                    return;
                }
            }
        });
        Ok(id)
    }

    /// Sends `message` on object `key`'s WebSocket `socket`.
    fn to_socket(&self, key: &Key, socket: u64, message: Message) -> Result<(), String> {
        let sockets = crate::sync::lock(&self.sockets);
        let hosted = sockets
            .get(key)
            .and_then(|m| m.get(&socket))
            .ok_or("WebSocket send(): the connection is closed")?;
        hosted.to_peer.try_send(message).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => {
                "WebSocket send(): its peer has not taken the last messages sent; wait for it"
                    .to_string()
            }
            mpsc::error::TrySendError::Closed(_) => {
                "WebSocket send(): the connection is closed".into()
            }
        })
    }

    /// Object `key`'s WebSockets, with `tag` if given.
    fn socket_list(&self, key: &Key, tag: Option<&str>) -> serde_json::Value {
        let sockets = crate::sync::lock(&self.sockets);
        let list: Vec<_> = sockets
            .get(key)
            .into_iter()
            .flatten()
            .filter(|(_, h)| tag.is_none_or(|t| h.tags.iter().any(|x| x == t)))
            .map(|(id, h)| serde_json::json!({ "socket": id, "tags": h.tags, "attachment": h.attachment }))
            .collect();
        serde_json::Value::from(list)
    }

    /// How many objects are live now.
    pub fn live(&self) -> usize {
        crate::sync::lock(&self.live).len()
    }

    /// Object `key`'s database: its file, or (in memory) the one kept for
    /// it.
    fn database(&self, key: &Key, max_bytes: u64) -> Result<storage::Storage, String> {
        match &self.dir {
            Some(dir) => {
                let dir = dir.join(&key.tenant).join(&key.class);
                std::fs::create_dir_all(&dir).map_err(|e| {
                    format!(
                        "Durable Object storage: cannot create {}: {e}",
                        dir.display()
                    )
                })?;
                storage::Storage::open(Some(&dir.join(format!("{}.sqlite3", key.id))), max_bytes)
            }
            None => {
                let mut memory = crate::sync::lock(&self.memory);
                if let Some(store) = memory.get(key) {
                    store.limit(max_bytes)?;
                    return Ok(store.clone());
                }
                let store = storage::Storage::open(None, max_bytes)?;
                memory.insert(key.clone(), store.clone());
                Ok(store)
            }
        }
    }
}

/// Whether `class` may name a class: 1-128 ASCII letters, digits, `_` or
/// `$` (an identifier, and a plain file name).
pub fn check_class(class: &str) -> Result<(), String> {
    let plain = !class.is_empty()
        && class.len() <= 128
        && class
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
    match plain {
        true => Ok(()),
        false => Err(format!(
            "{class:?} is not a class name (letters, digits, `_` and `$`)"
        )),
    }
}

fn late() -> String {
    "the Durable Object did not answer within the caller's time".into()
}

/// The key ids are made with, in `path`: made once, read ever after.
fn id_key(path: &Path) -> Result<[u8; 32], String> {
    let read = |path: &Path| -> Result<[u8; 32], String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("Durable Objects: cannot read {}: {e}", path.display()))?;
        bytes.try_into().map_err(|_| {
            format!(
                "Durable Objects: {} is not a key of 32 bytes; it was damaged (the objects' ids depend on it: restore it)",
                path.display()
            )
        })
    };
    if path.exists() {
        return read(path);
    }
    let mut key = [0u8; 32];
    getrandom::fill(&mut key).map_err(|e| format!("Durable Objects: {e}"))?;
    // Written whole and synced, readable by the server alone.
    crate::fs::write_private(path, &key)
        .map_err(|e| format!("Durable Objects: cannot write {}: {e}", path.display()))?;
    Ok(key)
}

/// What runs objects' renders: the server.
pub trait Run: Send + Sync {
    /// Runs `request` (a Durable Object's, [`contract::OBJECT`]) as tenant
    /// `request.tenant`'s render that lives as long as the object does,
    /// taking its events from `inbox`; its first by `deadline`. Ends when
    /// the render does.
    fn live(
        &self,
        request: contract::Request,
        inbox: Inbox,
        deadline: Instant,
    ) -> super::service::Rendering;
}

/// The events of one live object, for its render.
pub struct Inbox {
    key: Key,
    generation: u64,
    objects: Weak<Objects>,
    rx: Arc<tokio::sync::Mutex<mpsc::Receiver<Event>>>,
}

impl std::fmt::Debug for Inbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbox").field("key", &self.key).finish()
    }
}

/// A live object's render, as its `Imports` keeps it.
pub struct Host {
    inbox: Inbox,
    /// Where the event in progress is answered.
    current: Arc<Mutex<Option<Current>>>,
    /// An event reached the render since the last renewal.
    arrived: Arc<AtomicBool>,
    /// Its storage, opened at its first use.
    storage: Option<storage::Storage>,
}

impl From<Inbox> for Host {
    fn from(inbox: Inbox) -> Host {
        Host {
            inbox,
            current: Arc::default(),
            arrived: Arc::default(),
            storage: None,
        }
    }
}

impl Drop for Host {
    /// A transaction its render left open is rolled back.
    fn drop(&mut self) {
        if let Some(storage) = &self.storage {
            storage.abandon();
        }
    }
}

impl Host {
    /// The directory it is in, while the server is up.
    fn directory(&self) -> Result<Arc<Objects>, String> {
        self.inbox
            .objects
            .upgrade()
            .ok_or_else(|| "the server is stopping".to_string())
    }

    /// The object it runs.
    pub fn key(&self) -> &Key {
        &self.inbox.key
    }

    /// What an event that reached the render since the last call renews:
    /// a request's wall-clock time, and its CPU time whole again.
    pub fn arrived(&self) -> Option<Renewal> {
        let event = self.inbox.objects.upgrade()?.event;
        self.arrived
            .swap(false, Ordering::Relaxed)
            .then(|| Renewal {
                deadline: Instant::now() + event,
                cpu: true,
            })
    }

    /// The next event, as a waited call's answer: `{kind, ...}` with its
    /// bytes, or `{kind: "evict"}` once the object retired.
    fn next(&self) -> impl Future<Output = Result<(String, Vec<u8>), String>> + Send + 'static {
        let (rx, objects) = (self.inbox.rx.clone(), self.inbox.objects.clone());
        let (key, generation) = (self.inbox.key.clone(), self.inbox.generation);
        let (current, arrived) = (self.current.clone(), self.arrived.clone());
        async move {
            let evict = || Ok(("{\"kind\":\"evict\"}".to_string(), Vec::new()));
            let mut rx = rx.lock().await;
            loop {
                let Some(idle) = objects.upgrade().map(|o| o.idle) else {
                    return evict();
                };
                let event = match tokio::time::timeout(idle, rx.recv()).await {
                    Ok(Some(event)) => event,
                    Ok(None) => return evict(),
                    Err(_) => {
                        // Retired: what was sent meanwhile still comes,
                        // then the end.
                        if let Some(objects) = objects.upgrade() {
                            objects.retire(&key, generation);
                        }
                        match rx.try_recv() {
                            Ok(event) => event,
                            Err(_) => continue,
                        }
                    }
                };
                *crate::sync::lock(&current) = Some(Current {
                    reply: event.reply,
                    peer: event.peer,
                });
                arrived.store(true, Ordering::Relaxed);
                return Ok((event.what, event.data));
            }
        }
    }

    /// Its storage, opened now if it was not, at most `max_bytes`.
    fn storage(&mut self, max_bytes: u64) -> Result<&storage::Storage, String> {
        if self.storage.is_none() {
            let objects = self.directory()?;
            self.storage = Some(objects.database(&self.inbox.key, max_bytes)?);
        }
        let storage = self.storage.as_ref().expect("opened above");
        storage.limit(max_bytes)?;
        Ok(storage)
    }

    /// Renewal for the time after an answer: the idle time, and the grace.
    fn after_answer(&self) -> Option<Renewal> {
        let idle = self.inbox.objects.upgrade()?.idle;
        Some(Renewal {
            deadline: Instant::now() + idle + GRACE,
            cpu: false,
        })
    }
}

/// One call of `calls::OBJECT`.
#[derive(Deserialize, Debug)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
enum Call {
    /// A namespace's id: of `name`, checked from `string`, or new.
    Id {
        binding: String,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        string: Option<String>,
    },
    /// A stub's request, its body the call's bytes.
    Fetch {
        binding: String,
        id: String,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        #[serde(default)]
        name: Option<String>,
        /// The request asks to upgrade to a WebSocket.
        #[serde(default)]
        upgrade: bool,
    },
    /// A stub's RPC call, `{method, args}` the call's bytes.
    Rpc {
        binding: String,
        id: String,
        #[serde(default)]
        name: Option<String>,
    },
    /// The object's next event.
    Next,
    /// The object's answer to the event in progress, its body the bytes.
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        #[serde(default)]
        error: Option<String>,
        /// With status 101: the object takes the request's WebSocket, with
        /// these tags (`ctx.acceptWebSocket`).
        #[serde(default)]
        socket: Option<Vec<String>>,
    },
    /// One of its WebSockets sends a message (the bytes; `text`: UTF-8).
    WsSend {
        socket: u64,
        text: bool,
    },
    /// One of its WebSockets closes.
    WsClose {
        socket: u64,
        code: u16,
        reason: String,
    },
    /// Its WebSockets (with the tag, if given): `[{socket, tags,
    /// attachment}]`.
    WsList {
        #[serde(default)]
        tag: Option<String>,
    },
    /// A WebSocket's attachment (`serializeAttachment`).
    WsAttach {
        socket: u64,
        #[serde(default)]
        attachment: Option<String>,
    },
    /// Its alarm: when it runs (ms since the epoch), if set.
    GetAlarm,
    SetAlarm {
        at: f64,
    },
    DeleteAlarm,
    /// A call on its storage.
    Storage {
        call: storage::Op,
    },
}

/// What `calls::OBJECT` reaches: the tenant's bindings, the render's
/// object if it is one, its subrequests.
pub struct Reach<'a> {
    pub bindings: &'a super::Bindings,
    pub object: Option<&'a mut Host>,
    pub subrequests: &'a mut crate::web::fetch::Subrequests,
    pub grant: &'a crate::web::fetch::FetchGrant,
    /// The render's WebSocket connections: an upgrade to an object's
    /// socket is one.
    pub clients: &'a mut crate::web::websocket_client::Clients,
}

/// `calls::OBJECT`: a namespace's call, or an object's own; the renewal
/// an answer gives.
pub fn call(
    reach: Reach<'_>,
    args: &str,
    data: &[u8],
) -> Result<(contract::Reply, Option<Renewal>), String> {
    let name = contract::calls::OBJECT;
    let call: Call =
        serde_json::from_str(args).map_err(|e| format!("{name}: bad arguments: {e}"))?;
    let Reach {
        bindings,
        object,
        subrequests,
        grant,
        clients,
    } = reach;
    let reply = |value: serde_json::Value| contract::Reply {
        value: value.to_string(),
        data: Vec::new(),
    };
    let reach_stub = (bindings, object.as_deref(), &mut *subrequests, grant);
    match call {
        Call::Id {
            binding,
            name,
            string,
        } => {
            let (objects, ns) = bindings.objects(&binding)?;
            let id = match (name, string) {
                (Some(name), _) => objects.id_from_name(&ns.tenant, &ns.class, &name),
                (None, Some(s)) => {
                    if !objects.is_id(&ns.tenant, &ns.class, &s) {
                        return Ok((
                            reply(
                                serde_json::json!({ "error": "Invalid Durable Object ID: must be 64 hex digits of an id of this namespace" }),
                            ),
                            None,
                        ));
                    }
                    s
                }
                (None, None) => objects.unique_id(&ns.tenant, &ns.class)?,
            };
            Ok((reply(serde_json::json!({ "id": id })), None))
        }
        Call::Fetch {
            binding,
            id,
            method,
            url,
            headers,
            name,
            upgrade,
        } => {
            let what = serde_json::json!({ "kind": "fetch", "method": method, "url": url, "headers": headers, "name": name });
            let label = format!("env.{binding}.get(...).fetch()");
            let answer = match upgrade {
                true => upgrade_to(reach_stub, clients, &binding, id, what, data)?,
                false => send(reach_stub, &binding, id, (what, url, label), data)?,
            };
            Ok((answer, None))
        }
        Call::Rpc { binding, id, name } => {
            let what = serde_json::json!({ "kind": "rpc", "name": name });
            let (url, label) = (
                "https://rpc.invalid/".into(),
                format!("env.{binding}.get(...) RPC call"),
            );
            let answer = send(reach_stub, &binding, id, (what, url, label), data)?;
            Ok((answer, None))
        }
        own => {
            let object = object.ok_or_else(|| {
                format!("{name}: only a Durable Object's own code reaches its storage and events")
            })?;
            match own {
                Call::Next => Ok((subrequests.answer(object.next())?, None)),
                Call::Answer {
                    status,
                    headers,
                    error,
                    socket,
                } => {
                    let to = crate::sync::lock(&object.current)
                        .take()
                        .ok_or_else(|| format!("{name}: no event is waiting for an answer"))?;
                    let mut hosted = None;
                    if let (101, Some(tags)) = (status, socket) {
                        let Some(peer) = to.peer else {
                            return Err(crate::web::websocket::not_asked(name));
                        };
                        let directory = object.directory()?;
                        hosted = Some(directory.host_socket(object.key(), peer, tags)?);
                    }
                    let _ = to.reply.send(Answer {
                        status,
                        headers,
                        body: data.to_vec(),
                        error,
                        socket: hosted.is_some(),
                    });
                    let value = serde_json::json!({ "socket": hosted });
                    Ok((reply(value), object.after_answer()))
                }
                Call::WsSend { socket, text } => {
                    let message = match text {
                        true => Message::Text(
                            String::from_utf8(data.to_vec())
                                .map_err(|_| format!("{name}: a text message that is not UTF-8"))?,
                        ),
                        false => Message::Binary(bytes::Bytes::copy_from_slice(data)),
                    };
                    if data.len() > crate::web::websocket_client::CLIENT_MAX_MESSAGE {
                        return Err(format!(
                            "WebSocket send(): the message is {} bytes, over the limit of 1 MiB",
                            data.len()
                        ));
                    }
                    object
                        .directory()?
                        .to_socket(object.key(), socket, message)?;
                    Ok((contract::Reply::default(), None))
                }
                Call::WsClose {
                    socket,
                    code,
                    reason,
                } => {
                    let close = Message::Close {
                        code,
                        reason,
                        clean: true,
                    };
                    // One its peer closed already takes no more.
                    let _ = object.directory()?.to_socket(object.key(), socket, close);
                    Ok((contract::Reply::default(), None))
                }
                Call::WsList { tag } => {
                    let list = object
                        .directory()?
                        .socket_list(object.key(), tag.as_deref());
                    Ok((reply(list), None))
                }
                Call::WsAttach { socket, attachment } => {
                    if attachment
                        .as_ref()
                        .is_some_and(|a| a.len() > MAX_ATTACHMENT)
                    {
                        return Err(format!(
                            "serializeAttachment(): at most {} KiB",
                            MAX_ATTACHMENT >> 10
                        ));
                    }
                    let directory = object.directory()?;
                    let mut sockets = crate::sync::lock(&directory.sockets);
                    let hosted = sockets
                        .get_mut(object.key())
                        .and_then(|m| m.get_mut(&socket))
                        .ok_or_else(|| format!("{name}: no WebSocket {socket} is the object's"))?;
                    hosted.attachment = attachment;
                    Ok((contract::Reply::default(), None))
                }
                Call::GetAlarm => {
                    let at = object.directory()?.alarms.get(object.key())?;
                    Ok((reply(serde_json::json!({ "answer": at })), None))
                }
                Call::SetAlarm { at } => {
                    if !at.is_finite() || at < 0.0 {
                        return Err("setAlarm(): the time is not a date".into());
                    }
                    object.directory()?.alarms.set(object.key(), at as i64)?;
                    Ok((reply(serde_json::json!({ "answer": null })), None))
                }
                Call::DeleteAlarm => {
                    object.directory()?.alarms.delete(object.key())?;
                    Ok((reply(serde_json::json!({ "answer": null })), None))
                }
                Call::Storage { call: op } => {
                    let max_bytes = bindings.quotas().d1_bytes;
                    let deadline = subrequests.deadline();
                    let clears = matches!(op, storage::Op::DeleteAll);
                    let out = object.storage(max_bytes)?.call(op, data, deadline);
                    if clears && out.is_ok() {
                        object.directory()?.alarms.delete(object.key())?;
                    }
                    Ok((super::at_once(out), None))
                }
                Call::Id { .. } | Call::Fetch { .. } | Call::Rpc { .. } => {
                    unreachable!("answered above")
                }
            }
        }
    }
}

/// A stub's request that asks to upgrade to a WebSocket: the caller's
/// side of the socket is one of its connections (`Clients::attach`), the
/// other the object's if it answers 101. Its answer, by `fetch-wait`:
/// `{id}` of the connection, or the object's other response (`{status,
/// headers}` with its body), as a client connection's (`25_websocket.js`
/// `connectRemote`).
fn upgrade_to(
    (bindings, object, subrequests, grant): StubReach<'_>,
    clients: &mut crate::web::websocket_client::Clients,
    binding: &str,
    id: String,
    what: serde_json::Value,
    data: &[u8],
) -> Result<contract::Reply, String> {
    let (objects, key) = reached(bindings, object, binding, id)?;
    subrequests.admit(
        grant,
        &format!("env.{binding}.get(...).fetch() of a WebSocket"),
    )?;
    subrequests.binding_called();
    let (connection, peer) = clients.attach();
    let body = data.to_vec();
    let deadline = subrequests.deadline();
    subrequests.answer(async move {
        let answer = objects
            .call(&key, what.to_string(), body, deadline, Some(peer))
            .await?;
        if let Some(error) = answer.error {
            return Err(error);
        }
        Ok(match answer.socket {
            true => (
                serde_json::json!({ "id": connection, "protocol": "", "headers": answer.headers })
                    .to_string(),
                Vec::new(),
            ),
            false => (
                serde_json::json!({ "status": answer.status, "headers": answer.headers })
                    .to_string(),
                answer.body,
            ),
        })
    })
}

/// A stub's call: `what` (the event's JSON, the URL its answer is a
/// response to, the call as the caller's limits name it) and its bytes,
/// to object `id` of `binding`, as one of the caller's subrequests.
type StubReach<'a> = (
    &'a super::Bindings,
    Option<&'a Host>,
    &'a mut crate::web::fetch::Subrequests,
    &'a crate::web::fetch::FetchGrant,
);

fn send(
    (bindings, object, subrequests, grant): StubReach<'_>,
    binding: &str,
    id: String,
    (what, url, label): (serde_json::Value, String, String),
    data: &[u8],
) -> Result<contract::Reply, String> {
    let (objects, key) = reached(bindings, object, binding, id)?;
    subrequests.admit(grant, &label)?;
    subrequests.binding_called();
    let body = data.to_vec();
    let deadline = subrequests.deadline();
    subrequests.dispatch(async move {
        let out = objects
            .call(&key, what.to_string(), body, deadline, None)
            .await;
        fetched(out, url)
    })
}

/// The object a stub's call reaches, refused if it is the calling object
/// itself (its events run one at a time: it would wait for itself).
fn reached(
    bindings: &super::Bindings,
    object: Option<&Host>,
    binding: &str,
    id: String,
) -> Result<(Arc<Objects>, Key), String> {
    let (objects, ns) = bindings.objects(binding)?;
    if !objects.is_id(&ns.tenant, &ns.class, &id) {
        return Err(format!(
            "env.{binding}: the id is not one of this namespace's"
        ));
    }
    let key = Key {
        tenant: ns.tenant,
        class: ns.class,
        id,
    };
    if object.is_some_and(|o| *o.key() == key) {
        return Err(format!(
            "env.{binding}: a Durable Object called itself; its events run one at a time, so it would wait for itself forever: call the method directly"
        ));
    }
    Ok((objects.clone(), key))
}

/// An object's answer as a fetch's response.
fn fetched(out: Result<Answer, String>, url: String) -> Result<Fetched, FetchError> {
    let answer = out.map_err(FetchError::Failed)?;
    if let Some(error) = answer.error {
        return Err(FetchError::Failed(error));
    }
    Ok(Fetched::answered(
        answer.status,
        answer.headers,
        answer.body,
        url,
    ))
}

/// A namespace, as a binding names it: its tenant and class.
#[derive(Clone, Debug)]
pub struct Namespace {
    pub tenant: String,
    pub class: String,
}
