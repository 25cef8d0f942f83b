//! R2's objects across replicas: what objects there are, in the Redis the
//! replicas share (`--store redis://...`), beside their bytes in the
//! object store (`s3.rs`).
//!
//! Keys (`<ns>` written with its length first, as KV's are):
//! ```text
//! ssr:r2:<len>:<ns>:o:<key>   the object (JSON: its metadata and blobs)
//! ssr:r2:<len>:<ns>:keys      sorted set, every score 0: the keys, for
//!                             `list` in byte order (ZRANGEBYLEX)
//! ssr:r2:<len>:<ns>:u:<id>    a multipart upload (JSON) and its state
//! ssr:r2:<len>:<ns>:p:<id>    hash: its parts, by number (JSON)
//! ssr:r2:usage                hash: the bytes each tenant keeps
//! ssr:r2:uploads              sorted set: uploads in progress ("<ns>\n<id>")
//!                             by when they started, for the sweep
//! ```
//!
//! Invariants:
//! - Every change is one optimistic transaction (`WATCH`, read, check,
//!   `MULTI` ... `EXEC`, again if a key changed meanwhile), so a put's
//!   conditions are checked against what it replaces, and two puts never
//!   both win; the index and the usage change with the object.
//! - Durability is Redis's, as KV's (docs/deploying.md).

use std::collections::HashSet;

use redis::{Commands, Connection, RedisResult};

use super::{Meta, Object, Part, State, Upload};
use crate::bindings::redis::Pool;
use crate::bindings::tenant_of;

pub struct Redis {
    pool: Pool,
}

impl Redis {
    pub fn new(client: redis::Client) -> Redis {
        Redis {
            pool: Pool::new(client, "R2"),
        }
    }
}

fn base(ns: &str) -> String {
    format!("ssr:r2:{}:{ns}", ns.len())
}

fn object_key(ns: &str, key: &str) -> Vec<u8> {
    let mut k = format!("{}:o:", base(ns)).into_bytes();
    k.extend_from_slice(key.as_bytes());
    k
}

fn index_key(ns: &str) -> String {
    format!("{}:keys", base(ns))
}

fn upload_key(ns: &str, id: &str) -> String {
    format!("{}:u:{id}", base(ns))
}

fn parts_key(ns: &str, id: &str) -> String {
    format!("{}:p:{id}", base(ns))
}

const USAGE: &str = "ssr:r2:usage";
const UPLOADS: &str = "ssr:r2:uploads";

fn upload_member(ns: &str, id: &str) -> String {
    format!("{ns}\n{id}")
}

/// A row as Redis keeps it, or an error Redis's client can carry.
fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> RedisResult<T> {
    serde_json::from_str(text).map_err(|e| {
        redis::RedisError::from((
            redis::ErrorKind::Parse,
            "the R2 store holds a bad entry",
            e.to_string(),
        ))
    })
}

fn text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("entries serialize")
}

/// An upload as Redis keeps it: what it is and where it stands.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    upload: Upload,
    state: State,
}

fn get_object(con: &mut Connection, ns: &str, key: &str) -> RedisResult<Option<Object>> {
    let row: Option<String> = con.get(object_key(ns, key))?;
    row.map(|t| parsed(&t)).transpose()
}

fn get_upload(con: &mut Connection, ns: &str, id: &str) -> RedisResult<Option<Kept>> {
    let row: Option<String> = con.get(upload_key(ns, id))?;
    row.map(|t| parsed(&t)).transpose()
}

fn get_parts(con: &mut Connection, ns: &str, id: &str) -> RedisResult<Vec<(u32, Part)>> {
    let rows: Vec<(u32, String)> = con.hgetall(parts_key(ns, id))?;
    let mut parts = rows
        .into_iter()
        .map(|(n, p)| Ok((n, parsed(&p)?)))
        .collect::<RedisResult<Vec<_>>>()?;
    parts.sort_by_key(|(n, _)| *n);
    Ok(parts)
}

/// Adds to `pipe` what stores `object` in place of `old`.
fn replace(pipe: &mut redis::Pipeline, ns: &str, object: &Object, old: Option<&Object>) {
    pipe.set(object_key(ns, &object.key), text(object))
        .ignore()
        .zadd(index_key(ns), object.key.as_bytes(), 0)
        .ignore()
        .hincr(
            USAGE,
            tenant_of(ns),
            object.size as i64 - old.map_or(0, |o| o.size as i64),
        )
        .ignore();
}

impl Meta for Redis {
    fn get(&self, ns: &str, key: &str) -> Result<Option<Object>, String> {
        self.pool.with(|con| get_object(con, ns, key))
    }

    fn put(
        &self,
        ns: &str,
        object: &Object,
        holds: &dyn Fn(Option<&Object>) -> bool,
    ) -> Result<Option<Vec<String>>, String> {
        self.pool.with(|con| {
            redis::transaction(con, &[object_key(ns, &object.key)], |con, pipe| {
                let old = get_object(con, ns, &object.key)?;
                if !holds(old.as_ref()) {
                    return Ok(Some(None));
                }
                replace(pipe, ns, object, old.as_ref());
                let done: Option<()> = pipe.query(con)?;
                Ok(done.map(|()| {
                    Some(
                        old.iter()
                            .flat_map(|o| o.blobs())
                            .map(String::from)
                            .collect(),
                    )
                }))
            })
        })
    }

    fn delete(&self, ns: &str, keys: &[String]) -> Result<Vec<String>, String> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let watched: Vec<Vec<u8>> = keys.iter().map(|k| object_key(ns, k)).collect();
        self.pool.with(|con| {
            redis::transaction(con, &watched, |con, pipe| {
                let mut freed = Vec::new();
                let mut size = 0i64;
                for key in keys {
                    if let Some(o) = get_object(con, ns, key)? {
                        size += o.size as i64;
                        freed.extend(o.blobs().map(String::from));
                        pipe.del(object_key(ns, key))
                            .ignore()
                            .zrem(index_key(ns), key.as_bytes())
                            .ignore();
                    }
                }
                pipe.hincr(USAGE, tenant_of(ns), -size).ignore();
                let done: Option<()> = pipe.query(con)?;
                Ok(done.map(|()| freed.clone()))
            })
        })
    }

    fn list(
        &self,
        ns: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Object>, String> {
        let start = match after {
            Some(a) if a >= prefix => {
                let mut s = b"(".to_vec();
                s.extend_from_slice(a.as_bytes());
                s
            }
            _ => {
                let mut s = b"[".to_vec();
                s.extend_from_slice(prefix.as_bytes());
                s
            }
        };
        let end = match crate::bindings::sqlite::prefix_end(prefix.as_bytes()) {
            Some(end) => {
                let mut s = b"(".to_vec();
                s.extend(end);
                s
            }
            None => b"+".to_vec(),
        };
        self.pool.with(|con| {
            let keys: Vec<Vec<u8>> =
                con.zrangebylex_limit(index_key(ns), start, end, 0, limit as isize)?;
            if keys.is_empty() {
                return Ok(Vec::new());
            }
            let rows: Vec<Option<String>> = redis::cmd("MGET")
                .arg(
                    keys.iter()
                        .map(|k| object_key(ns, &String::from_utf8_lossy(k)))
                        .collect::<Vec<_>>(),
                )
                .query(con)?;
            rows.into_iter().flatten().map(|t| parsed(&t)).collect()
        })
    }

    fn create_upload(&self, ns: &str, upload: &Upload) -> Result<String, String> {
        let id = crate::artifact::random_hex(32);
        let kept = Kept {
            upload: upload.clone(),
            state: State::InProgress,
        };
        self.pool.with(|con| {
            redis::pipe()
                .atomic()
                .set(upload_key(ns, &id), text(&kept))
                .ignore()
                .zadd(UPLOADS, upload_member(ns, &id), upload.started)
                .ignore()
                .query::<()>(con)
        })?;
        Ok(id)
    }

    fn upload(
        &self,
        ns: &str,
        id: &str,
        key: &str,
    ) -> Result<Option<(Upload, State, Vec<(u32, Part)>)>, String> {
        self.pool.with(|con| {
            let Some(kept) = get_upload(con, ns, id)?.filter(|k| k.upload.key == key) else {
                return Ok(None);
            };
            Ok(Some((kept.upload, kept.state, get_parts(con, ns, id)?)))
        })
    }

    fn put_part(
        &self,
        ns: &str,
        id: &str,
        key: &str,
        n: u32,
        part: &Part,
    ) -> Result<Option<Vec<String>>, String> {
        let watched = [upload_key(ns, id), parts_key(ns, id)];
        self.pool.with(|con| {
            redis::transaction(con, &watched, |con, pipe| {
                match get_upload(con, ns, id)? {
                    Some(k) if k.upload.key == key && k.state == State::InProgress => {}
                    _ => return Ok(Some(None)),
                }
                let old: Option<String> = con.hget(parts_key(ns, id), n)?;
                let old: Option<Part> = old.map(|t| parsed(&t)).transpose()?;
                pipe.hset(parts_key(ns, id), n, text(part))
                    .ignore()
                    .hincr(
                        USAGE,
                        tenant_of(ns),
                        part.size as i64 - old.as_ref().map_or(0, |p| p.size as i64),
                    )
                    .ignore();
                let done: Option<()> = pipe.query(con)?;
                Ok(done.map(|()| {
                    Some(
                        old.iter()
                            .flat_map(|p| p.segments.iter().map(|s| s.id.clone()))
                            .collect(),
                    )
                }))
            })
        })
    }

    fn end_upload(
        &self,
        ns: &str,
        id: &str,
        key: &str,
        object: Option<&Object>,
    ) -> Result<Option<Vec<String>>, String> {
        let watched = [
            upload_key(ns, id).into_bytes(),
            parts_key(ns, id).into_bytes(),
            object_key(ns, key),
        ];
        self.pool.with(|con| {
            redis::transaction(con, &watched, |con, pipe| {
                let Some(mut kept) = get_upload(con, ns, id)?
                    .filter(|k| k.upload.key == key && k.state == State::InProgress)
                else {
                    return Ok(Some(None));
                };
                let parts = get_parts(con, ns, id)?;
                let used: std::collections::HashSet<&str> =
                    object.iter().flat_map(|o| o.blobs()).collect();
                let mut freed: Vec<String> = parts
                    .iter()
                    .flat_map(|(_, p)| p.segments.iter().map(|s| s.id.clone()))
                    .filter(|id| !used.contains(id.as_str()))
                    .collect();
                let parts_size: i64 = parts.iter().map(|(_, p)| p.size as i64).sum();
                kept.state = if object.is_some() {
                    State::Completed
                } else {
                    State::Aborted
                };
                pipe.set(upload_key(ns, id), text(&kept))
                    .ignore()
                    .zrem(UPLOADS, upload_member(ns, id))
                    .ignore()
                    .del(parts_key(ns, id))
                    .ignore()
                    .hincr(USAGE, tenant_of(ns), -parts_size)
                    .ignore();
                if let Some(object) = object {
                    let old = get_object(con, ns, key)?;
                    freed.extend(old.iter().flat_map(|o| o.blobs()).map(String::from));
                    replace(pipe, ns, object, old.as_ref());
                }
                let done: Option<()> = pipe.query(con)?;
                Ok(done.map(|()| Some(freed.clone())))
            })
        })
    }

    fn abandoned(&self, before: u64) -> Result<Vec<(String, String, String)>, String> {
        self.pool.with(|con| {
            let members: Vec<String> = con.zrangebyscore(UPLOADS, 0, before.saturating_sub(1))?;
            let mut out = Vec::new();
            for m in members {
                let Some((ns, id)) = m.split_once('\n') else {
                    continue;
                };
                match get_upload(con, ns, id)? {
                    Some(k) if k.state == State::InProgress => {
                        out.push((ns.to_string(), id.to_string(), k.upload.key));
                    }
                    _ => con.zrem::<_, _, ()>(UPLOADS, &m)?,
                }
            }
            Ok(out)
        })
    }

    fn usage(&self, tenant: &str) -> Result<u64, String> {
        self.pool.with(|con| {
            let n: Option<i64> = con.hget(USAGE, tenant)?;
            Ok(n.unwrap_or(0).max(0) as u64)
        })
    }

    /// Objects and uploads are strings, parts hashes of JSON: every one
    /// under `ssr:r2:` is read (SCAN, a page at a time, each page's values
    /// in one pipelined round trip) for the blobs its JSON names.
    fn named_blobs(&self) -> Result<HashSet<String>, String> {
        self.pool.with(|con| {
            let mut named = HashSet::new();
            for kind in ["string", "hash"] {
                let mut cursor = 0u64;
                loop {
                    let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg("ssr:r2:*")
                        .arg("COUNT")
                        .arg(1000)
                        .arg("TYPE")
                        .arg(kind)
                        .query(con)?;
                    let mut pipe = redis::pipe();
                    for key in &keys {
                        match kind {
                            "string" => pipe.get(key),
                            _ => pipe.hvals(key),
                        };
                    }
                    // A string gone since the scan is nil: no value.
                    let values: Vec<String> = match kind {
                        "string" => pipe
                            .query::<Vec<Option<String>>>(con)?
                            .into_iter()
                            .flatten()
                            .collect(),
                        _ => pipe
                            .query::<Vec<Vec<String>>>(con)?
                            .into_iter()
                            .flatten()
                            .collect(),
                    };
                    for json in values {
                        let v = serde_json::from_str(&json).unwrap_or_default();
                        super::note_blobs(&v, &mut named);
                    }
                    if next == 0 {
                        break;
                    }
                    cursor = next;
                }
            }
            Ok(named)
        })
    }
}
