//! Workers KV: what a `KVNamespace` call may ask (`calls::KV`), checked
//! against Cloudflare's limits and refused in Cloudflare's words (as
//! `wrangler dev` words them), and the interface its stores implement
//! ([`Store`]: `sqlite.rs` embedded, `redis.rs` across replicas).
//!
//! Invariants:
//! - Every limit is checked here, in the host, whatever the prelude
//!   checked first: a key of at most [`MAX_KEY`] bytes, a value of at most
//!   [`MAX_VALUE`], metadata of at most [`MAX_METADATA`] bytes of JSON, an
//!   expiration at least [`MIN_TTL`] seconds ahead.
//! - An expired key is never returned, by `get` or `list`, whether or not
//!   its store has removed it yet: every read takes the time it is made.
//! - A call names a binding of the tenant version's own; the namespace it
//!   reaches is the one that binding names (`Bindings`), never one the
//!   call names.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// The longest key, in UTF-8 bytes.
pub const MAX_KEY: usize = 512;
/// The largest value.
pub const MAX_VALUE: usize = 25 << 20;
/// The largest metadata, as JSON.
pub const MAX_METADATA: usize = 1024;
/// The shortest time to live, and how far ahead an expiration must be.
pub const MIN_TTL: f64 = 60.0;
/// The most keys one bulk `get` reads.
pub const MAX_BULK: usize = 100;
/// The most keys one `list` returns (and what it returns unasked).
pub const MAX_LIST: usize = 1000;
/// The shortest `cacheTtl`.
pub const MIN_CACHE_TTL: f64 = 30.0;

/// A stored value, with its metadata (JSON text) and when it expires
/// (seconds since the epoch).
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub value: Vec<u8>,
    pub metadata: Option<String>,
    pub expiration: Option<u64>,
}

impl Entry {
    /// What it counts against its tenant's quota under `key`: the key,
    /// the value and the metadata.
    pub fn size(&self, key: &str) -> u64 {
        (key.len() + self.value.len() + self.metadata.as_ref().map_or(0, String::len)) as u64
    }
}

/// A put refused: its tenant's namespaces hold `used` bytes, and `new`
/// more would pass `quota`.
pub fn over_quota(used: u64, new: u64, quota: u64) -> String {
    format!(
        "KV PUT failed: 413 This tenant's KV namespaces hold {used} bytes; {new} more would pass its quota of {quota} bytes (the operator's kv_mib for it, else --kv-tenant-mib). Delete keys, or ask for a larger quota."
    )
}

/// A key as `list` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub name: String,
    pub metadata: Option<String>,
    pub expiration: Option<u64>,
}

/// Where namespaces keep their keys. `ns` is the namespace's full name
/// (its tenant's id, `/`, its id), `now` the time of the call in seconds
/// since the epoch. A call may block (a disk, a network): it runs on a
/// thread that may.
pub trait Store: Send + Sync {
    /// The live entry under `key`.
    fn get(&self, ns: &str, key: &str, now: u64) -> Result<Option<Entry>, String>;
    /// Stores `entry` under `key`, durably before it returns, unless the
    /// tenant's namespaces would then hold more than `quota` bytes.
    fn put(&self, ns: &str, key: &str, entry: &Entry, quota: u64) -> Result<(), String>;
    /// Removes `key`; a key not there is no error.
    fn delete(&self, ns: &str, key: &str) -> Result<(), String>;
    /// A page of live keys ([`Page`]), in the byte order of their UTF-8,
    /// and whether more follow.
    fn list(&self, ns: &str, page: &Page<'_>) -> Result<(Vec<Listed>, bool), String>;
    /// The bytes one tenant's namespaces hold: its quota's count.
    fn usage(&self, tenant: &str) -> Result<u64, String>;
    /// Whether a read (`get`, `list`) answers in microseconds, never
    /// waiting on a network or a writer: it is then answered in the call
    /// itself, not through the engine's wait.
    fn reads_at_once(&self) -> bool {
        false
    }
    /// `get`, made in the call itself where the store can answer within
    /// [`super::AT_ONCE`] though its reads may wait on a network (Redis,
    /// on a connection kept for it): `None` where it could not, and then
    /// the call waits for [`Store::get`] on a thread that may block.
    fn get_at_once(
        &self,
        _ns: &str,
        _key: &str,
        _now: u64,
    ) -> Option<Result<Option<Entry>, String>> {
        None
    }
}

/// What `list` asks of a store: up to `limit` keys that start with
/// `prefix` and sort after `after`, live at `now`.
#[derive(Clone, Copy)]
pub struct Page<'a> {
    pub prefix: &'a str,
    pub after: Option<&'a str>,
    pub limit: usize,
    pub now: u64,
}

/// One call, as the prelude sends it (`calls::KV`): the binding it is made
/// on, and what it asks.
#[derive(Deserialize, Debug)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Call {
    /// `get` and `getWithMetadata`, of one key or (`bulk`) of several;
    /// `type` is checked for bulk calls only, whose results the host reads.
    #[serde(rename_all = "camelCase")]
    Get {
        binding: String,
        keys: Vec<String>,
        #[serde(default)]
        bulk: bool,
        #[serde(rename = "type", default)]
        kind: Option<String>,
        #[serde(default)]
        cache_ttl: Option<f64>,
    },
    /// `put`: the value is the call's bytes.
    #[serde(rename_all = "camelCase")]
    Put {
        binding: String,
        key: String,
        #[serde(default)]
        expiration: Option<f64>,
        #[serde(default)]
        expiration_ttl: Option<f64>,
        /// `JSON.stringify` of the metadata.
        #[serde(default)]
        metadata: Option<String>,
    },
    Delete {
        binding: String,
        key: String,
    },
    List {
        binding: String,
        #[serde(default)]
        prefix: Option<String>,
        #[serde(default)]
        limit: Option<f64>,
        #[serde(default)]
        cursor: Option<String>,
    },
}

impl Call {
    /// Whether the call only reads.
    pub fn reads(&self) -> bool {
        matches!(self, Call::Get { .. } | Call::List { .. })
    }

    /// The binding the call is made on.
    pub fn binding(&self) -> &str {
        match self {
            Call::Get { binding, .. }
            | Call::Put { binding, .. }
            | Call::Delete { binding, .. }
            | Call::List { binding, .. } => binding,
        }
    }
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Cloudflare's words for a refused call: `KV GET failed: 414 ...`.
fn failed(op: &str, status: u16, message: impl std::fmt::Display) -> String {
    format!("KV {op} failed: {status} {message}")
}

fn check_key(op: &str, key: &str) -> Result<(), String> {
    if key.len() > MAX_KEY {
        return Err(failed(
            op,
            414,
            format_args!(
                "UTF-8 encoded length of {} exceeds key length limit of {MAX_KEY}.",
                key.len()
            ),
        ));
    }
    if key.is_empty() || key == "." || key == ".." {
        return Err(format!(
            "KV {op} failed: the key {key:?} is not allowed; use 1-{MAX_KEY} bytes, not \".\" or \"..\""
        ));
    }
    Ok(())
}

/// When a `put` expires, from its `expiration` or `expirationTtl`, checked
/// as Cloudflare checks them.
fn expiration(at: Option<f64>, ttl: Option<f64>, now: u64) -> Result<Option<u64>, String> {
    let now = now as f64;
    if let Some(at) = at {
        let at = if at.is_finite() { at.trunc() } else { 0.0 };
        if at <= now {
            return Err(failed(
                "PUT",
                400,
                format_args!(
                    "Invalid expiration of {at}. Please specify integer greater than the current number of seconds since the UNIX epoch."
                ),
            ));
        }
        if at < now + MIN_TTL {
            return Err(failed(
                "PUT",
                400,
                format_args!(
                    "Invalid expiration of {at}. Expiration times must be at least {MIN_TTL} seconds in the future."
                ),
            ));
        }
        return Ok(Some(at as u64));
    }
    if let Some(ttl) = ttl {
        let ttl = if ttl.is_finite() { ttl.trunc() } else { 0.0 };
        if ttl <= 0.0 {
            return Err(failed(
                "PUT",
                400,
                format_args!(
                    "Invalid expiration_ttl of {ttl}. Please specify integer greater than 0."
                ),
            ));
        }
        if ttl < MIN_TTL {
            return Err(failed(
                "PUT",
                400,
                format_args!(
                    "Invalid expiration_ttl of {ttl}. Expiration TTL must be at least {MIN_TTL}."
                ),
            ));
        }
        return Ok(Some((now + ttl).min(u64::MAX as f64) as u64));
    }
    Ok(None)
}

/// Stored metadata as it was put: JSON text, kept as written (its keys in
/// the app's order).
fn raw(text: &Option<String>) -> Option<Box<RawValue>> {
    text.clone().and_then(|t| RawValue::from_string(t).ok())
}

/// One key of a `list` answer.
#[derive(Serialize)]
struct KeyOut {
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    expiration: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<Box<RawValue>>,
}

/// A `list` answer.
#[derive(Serialize)]
struct ListOut {
    keys: Vec<KeyOut>,
    list_complete: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    cursor: Option<String>,
}

pub(super) fn text_of(v: &impl Serialize) -> String {
    serde_json::to_string(v).expect("answers serialize")
}

/// A `list` cursor: where the page ended, opaque to the app.
pub(super) fn cursor_of(last: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(last)
}

pub(super) fn after_cursor(cursor: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// Answers `call` on namespace `ns` of `store` with `data` (a `put`'s
/// value) at `now`: its JSON and bytes, or Cloudflare's words for why not.
/// - `get`: `[null | [length, metadata]]` per key, the values one after
///   another as the bytes;
/// - `put`, `delete`: `null`;
/// - `list`: `{keys: [{name, expiration?, metadata?}], list_complete,
///   cursor?}`.
pub fn answer(
    store: &dyn Store,
    ns: &str,
    call: Call,
    data: Vec<u8>,
    now: u64,
    quota: u64,
) -> Result<(String, Vec<u8>), String> {
    match call {
        Call::Get {
            keys,
            bulk,
            kind,
            cache_ttl,
            ..
        } => got(&keys, bulk, kind.as_deref(), cache_ttl, |key| {
            store.get(ns, key, now)
        }),
        Call::Put {
            key,
            expiration: at,
            expiration_ttl,
            metadata,
            ..
        } => {
            check_key("PUT", &key)?;
            if data.len() > MAX_VALUE {
                return Err(failed(
                    "PUT",
                    413,
                    format_args!(
                        "Value length of {} exceeds limit of {MAX_VALUE}.",
                        data.len()
                    ),
                ));
            }
            if let Some(m) = &metadata {
                if m.len() > MAX_METADATA {
                    return Err(failed(
                        "PUT",
                        413,
                        format_args!(
                            "Metadata length of {} exceeds limit of {MAX_METADATA}.",
                            m.len()
                        ),
                    ));
                }
                if serde_json::from_str::<Value>(m).is_err() {
                    return Err(failed("PUT", 400, "Metadata is not JSON."));
                }
            }
            let entry = Entry {
                value: data,
                metadata,
                expiration: expiration(at, expiration_ttl, now)?,
            };
            store.put(ns, &key, &entry, quota)?;
            Ok(("null".into(), Vec::new()))
        }
        Call::Delete { key, .. } => {
            check_key("DELETE", &key)?;
            store.delete(ns, &key)?;
            Ok(("null".into(), Vec::new()))
        }
        Call::List {
            prefix,
            limit,
            cursor,
            ..
        } => {
            let limit = match limit {
                None => MAX_LIST,
                Some(n) if n.is_nan() || n < 1.0 => MAX_LIST,
                Some(n) if n > MAX_LIST as f64 => {
                    return Err(failed(
                        "GET",
                        400,
                        format_args!(
                            "Invalid key_count_limit of {n}. Please specify an integer less than {MAX_LIST}."
                        ),
                    ));
                }
                Some(n) => n as usize,
            };
            let prefix = prefix.unwrap_or_default();
            let after = match cursor.as_deref().filter(|c| !c.is_empty()) {
                None => None,
                Some(c) => match after_cursor(c) {
                    Some(after) => Some(after),
                    // Not a cursor this host gave: nothing follows it.
                    None => {
                        let none = ListOut {
                            keys: Vec::new(),
                            list_complete: true,
                            cursor: None,
                        };
                        return Ok((text_of(&none), Vec::new()));
                    }
                },
            };
            let page = Page {
                prefix: &prefix,
                after: after.as_deref(),
                limit,
                now,
            };
            let (keys, more) = store.list(ns, &page)?;
            let cursor = keys
                .last()
                .filter(|_| more)
                .map(|last| cursor_of(&last.name));
            let out = ListOut {
                keys: keys
                    .into_iter()
                    .map(|k| KeyOut {
                        metadata: raw(&k.metadata),
                        name: k.name,
                        expiration: k.expiration,
                    })
                    .collect(),
                list_complete: !more,
                cursor,
            };
            Ok((text_of(&out), Vec::new()))
        }
    }
}

/// Answers a `get` of one key in the call itself where `store` can
/// ([`Store::get_at_once`]), as [`answer`] would; `None`: it waits.
pub fn answer_at_once(
    store: &dyn Store,
    ns: &str,
    call: &Call,
    now: u64,
) -> Option<Result<(String, Vec<u8>), String>> {
    let Call::Get {
        keys,
        bulk,
        kind,
        cache_ttl,
        ..
    } = call
    else {
        return None;
    };
    let [key] = keys.as_slice() else {
        return None;
    };
    let mut read = Some(store.get_at_once(ns, key, now)?);
    Some(got(keys, *bulk, kind.as_deref(), *cache_ttl, |_| {
        read.take().expect("one key, read once")
    }))
}

/// A `get`'s answer ([`answer`]): `keys` checked, then each `read`.
fn got(
    keys: &[String],
    bulk: bool,
    kind: Option<&str>,
    cache_ttl: Option<f64>,
    mut read: impl FnMut(&str) -> Result<Option<Entry>, String>,
) -> Result<(String, Vec<u8>), String> {
    let op = if bulk { "GET_BULK" } else { "GET" };
    if bulk && keys.len() > MAX_BULK {
        return Err(failed(
            op,
            400,
            format_args!("You can request a maximum of {MAX_BULK} keys"),
        ));
    }
    if let Some(kind) = kind.filter(|k| bulk && *k != "json" && *k != "text") {
        return Err(failed(
            op,
            400,
            format_args!("\"{kind}\" is not a valid type. Use \"json\" or \"text\""),
        ));
    }
    if let Some(ttl) = cache_ttl.filter(|t| t.is_nan() || *t < MIN_CACHE_TTL) {
        return Err(failed(
            op,
            400,
            format_args!("Invalid cache_ttl of {ttl}. Cache TTL must be at least {MIN_CACHE_TTL}."),
        ));
    }
    for key in keys {
        check_key(op, key)?;
    }
    let mut found = Vec::with_capacity(keys.len());
    let mut bytes = Vec::new();
    for key in keys {
        let entry = read(key)?;
        // A bulk answer is bounded as one value is.
        let more = entry.as_ref().map_or(0, |e| e.value.len());
        if bytes.len() + more > MAX_VALUE {
            return Err(failed(
                op,
                413,
                format_args!(
                    "The values of the requested keys exceed the limit of {MAX_VALUE} bytes in one call."
                ),
            ));
        }
        found.push(entry.map(|e| {
            bytes.extend_from_slice(&e.value);
            (e.value.len(), raw(&e.metadata))
        }));
    }
    Ok((text_of(&found), bytes))
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    /// Every store keeps the same semantics: values and metadata round
    /// trip, expired keys are gone for `get` and `list`, `list` pages in
    /// byte order by prefix and cursor.
    fn asked<'a>(prefix: &'a str, after: Option<&'a str>, limit: usize, now: u64) -> Page<'a> {
        Page {
            prefix,
            after,
            limit,
            now,
        }
    }

    pub(crate) fn a_store_keeps_kv_semantics(store: &dyn Store) {
        let ns = "t/ns";
        let put = |key: &str, value: &str, expiration| {
            store
                .put(
                    ns,
                    key,
                    &Entry {
                        value: value.as_bytes().to_vec(),
                        metadata: (key == "a/2").then(|| r#"{"m":1}"#.to_string()),
                        expiration,
                    },
                    u64::MAX,
                )
                .unwrap()
        };
        for k in ["a/1", "a/2", "a/3", "b", "é", "Z", "~"] {
            put(k, k, None);
        }
        put("gone", "soon", Some(1_000));
        assert_eq!(store.get(ns, "a/1", 999).unwrap().unwrap().value, b"a/1");
        assert_eq!(
            store
                .get(ns, "a/2", 999)
                .unwrap()
                .unwrap()
                .metadata
                .as_deref(),
            Some(r#"{"m":1}"#)
        );
        assert!(store.get(ns, "gone", 999).unwrap().is_some());
        assert!(
            store.get(ns, "gone", 1_000).unwrap().is_none(),
            "expired at its second"
        );
        assert!(
            store.get("t/other", "a/1", 0).unwrap().is_none(),
            "namespaces are apart"
        );
        let names = |v: Vec<Listed>| v.into_iter().map(|l| l.name).collect::<Vec<_>>();
        let (all, more) = store.list(ns, &asked("", None, 100, 1_000)).unwrap();
        assert_eq!(names(all), ["Z", "a/1", "a/2", "a/3", "b", "~", "é"]);
        assert!(!more);
        let (page, more) = store.list(ns, &asked("a/", None, 2, 0)).unwrap();
        assert_eq!(names(page), ["a/1", "a/2"]);
        assert!(more);
        let (page, more) = store.list(ns, &asked("a/", Some("a/2"), 2, 0)).unwrap();
        assert_eq!(names(page), ["a/3"]);
        assert!(!more);
        // A prefix of characters LIKE and GLOB would read as patterns.
        put("%_*?[", "x", None);
        let (page, _) = store.list(ns, &asked("%_*", None, 10, 0)).unwrap();
        assert_eq!(names(page), ["%_*?["]);
        store.delete(ns, "a/1").unwrap();
        store.delete(ns, "never").unwrap();
        assert!(store.get(ns, "a/1", 0).unwrap().is_none());
        put("b", "again", Some(5_000));
        let b = store.get(ns, "b", 0).unwrap().unwrap();
        assert_eq!(
            (b.value.as_slice(), b.expiration),
            (&b"again"[..], Some(5_000))
        );
    }

    fn calls_are_checked_with_cloudflares_limits() {
        let store = crate::bindings::sqlite::Kv::open(None).unwrap();
        let call = |json: &str, data: &[u8]| {
            let call: Call = serde_json::from_str(json).unwrap();
            answer(&store, "t/ns", call, data.to_vec(), 1_000, 1 << 20)
        };
        let long = "k".repeat(MAX_KEY + 1);
        let e = call(
            &format!(r#"{{"op":"put","binding":"KV","key":"{long}"}}"#),
            b"v",
        )
        .unwrap_err();
        assert_eq!(
            e,
            "KV PUT failed: 414 UTF-8 encoded length of 513 exceeds key length limit of 512."
        );
        let e = call(
            r#"{"op":"put","binding":"KV","key":"k","expirationTtl":59}"#,
            b"v",
        )
        .unwrap_err();
        assert!(e.contains("Expiration TTL must be at least 60"), "{e}");
        let e = call(
            r#"{"op":"put","binding":"KV","key":"k","expiration":1030}"#,
            b"v",
        )
        .unwrap_err();
        assert!(e.contains("at least 60 seconds in the future"), "{e}");
        let e = call(
            r#"{"op":"put","binding":"KV","key":"k","metadata":"{"}"#,
            b"v",
        )
        .unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        let e = call(r#"{"op":"put","binding":"KV","key":".."}"#, b"v").unwrap_err();
        assert!(e.contains("not allowed"), "{e}");
        call(
            r#"{"op":"put","binding":"KV","key":"k","expirationTtl":60,"metadata":"[1]"}"#,
            b"v",
        )
        .unwrap();
        let (found, bytes) = call(r#"{"op":"get","binding":"KV","keys":["k","x"]}"#, b"").unwrap();
        assert_eq!(
            (found.as_str(), bytes.as_slice()),
            ("[[1,[1]],null]", &b"v"[..])
        );
        let (listed, _) = call(r#"{"op":"list","binding":"KV","limit":1}"#, b"").unwrap();
        assert_eq!(
            listed,
            r#"{"keys":[{"name":"k","expiration":1060,"metadata":[1]}],"list_complete":true}"#
        );
        let (listed, _) = call(r#"{"op":"list","binding":"KV","cursor":"*"}"#, b"").unwrap();
        assert_eq!(listed, r#"{"keys":[],"list_complete":true}"#);
    }

    crate::unit_tests!(calls_are_checked_with_cloudflares_limits);
}
