//! R2's objects on one server: their metadata in SQLite
//! (`<data-dir>/bindings/r2.sqlite3`, or memory without a data dir),
//! beside their bytes in `files.rs`. Why SQLite: see `bindings/sqlite.rs`
//! (a commit is durable when it returns; keys sort by index).
//!
//! Invariants:
//! - An object's row and the blobs it names change in one transaction
//!   with the check of a put's conditions, so two puts never both win.
//! - Keys compare as bytes (`BLOB`), R2's order.
//! - `r2_usage` is what a tenant keeps (objects and parts), kept in the
//!   same transaction as every change to them.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

use super::{Meta, Object, Part, State, Upload};
use crate::bindings::tenant_of;

pub struct Sqlite {
    conn: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS r2_objects (
    ns TEXT NOT NULL,
    key BLOB NOT NULL,
    size INTEGER NOT NULL,
    object TEXT NOT NULL,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS r2_uploads (
    ns TEXT NOT NULL,
    id TEXT NOT NULL,
    key BLOB NOT NULL,
    upload TEXT NOT NULL,
    state INTEGER NOT NULL,
    PRIMARY KEY (ns, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS r2_parts (
    ns TEXT NOT NULL,
    upload TEXT NOT NULL,
    n INTEGER NOT NULL,
    size INTEGER NOT NULL,
    part TEXT NOT NULL,
    PRIMARY KEY (ns, upload, n)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS r2_usage (
    tenant TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL
) WITHOUT ROWID;
";

fn sql(e: rusqlite::Error) -> String {
    format!("the embedded R2 store failed: {e}")
}

fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("the embedded R2 store holds a bad row: {e}"))
}

fn text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("rows serialize")
}

const STATES: [State; 3] = [State::InProgress, State::Completed, State::Aborted];

impl Sqlite {
    /// Opens (creating) the store in `dir`, or one in memory.
    pub fn open(dir: Option<&Path>) -> Result<Sqlite, String> {
        let conn = match dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                crate::bindings::sqlite::durable(&dir.join("r2.sqlite3")).map_err(sql)?
            }
            None => Connection::open_in_memory().map_err(sql)?,
        };
        conn.execute_batch(SCHEMA).map_err(sql)?;
        // Counted again at every start, as KV's usage is.
        conn.execute_batch(
            "DELETE FROM r2_usage;
             INSERT INTO r2_usage SELECT t, sum(b) FROM (
                 SELECT substr(ns, 1, instr(ns, '/') - 1) AS t, size AS b FROM r2_objects
                 UNION ALL
                 SELECT substr(ns, 1, instr(ns, '/') - 1), size FROM r2_parts
             ) GROUP BY t",
        )
        .map_err(sql)?;
        Ok(Sqlite {
            conn: Mutex::new(conn),
        })
    }

    /// Runs `f` in one transaction, committed when it answers `Ok`.
    fn atomically<T>(&self, f: impl FnOnce(&Connection) -> Result<T, String>) -> Result<T, String> {
        let conn = crate::sync::lock(&self.conn);
        let tx = conn.unchecked_transaction().map_err(sql)?;
        let out = f(&tx)?;
        tx.commit().map_err(sql)?;
        Ok(out)
    }
}

/// Adds `delta` to what `ns`'s tenant keeps.
fn count(tx: &Connection, ns: &str, delta: i64) -> Result<(), String> {
    if delta == 0 {
        return Ok(());
    }
    tx.prepare_cached(
        "INSERT INTO r2_usage (tenant, bytes) VALUES (?1, ?2)
         ON CONFLICT (tenant) DO UPDATE SET bytes = bytes + ?2",
    )
    .and_then(|mut s| s.execute(params![tenant_of(ns), delta]))
    .map(drop)
    .map_err(sql)
}

fn get(tx: &Connection, ns: &str, key: &str) -> Result<Option<Object>, String> {
    let row: Option<String> = tx
        .prepare_cached("SELECT object FROM r2_objects WHERE ns = ?1 AND key = ?2")
        .and_then(|mut s| {
            s.query_row(params![ns, key.as_bytes()], |r| r.get(0))
                .optional()
        })
        .map_err(sql)?;
    row.map(|t| parsed(&t)).transpose()
}

/// Removes `key`'s object: the blobs it named.
fn remove(tx: &Connection, ns: &str, key: &str) -> Result<Vec<String>, String> {
    let Some(old) = get(tx, ns, key)? else {
        return Ok(Vec::new());
    };
    tx.prepare_cached("DELETE FROM r2_objects WHERE ns = ?1 AND key = ?2")
        .and_then(|mut s| s.execute(params![ns, key.as_bytes()]))
        .map_err(sql)?;
    count(tx, ns, -(old.size as i64))?;
    Ok(old.blobs().map(String::from).collect())
}

fn insert(tx: &Connection, ns: &str, object: &Object) -> Result<(), String> {
    tx.prepare_cached("INSERT INTO r2_objects (ns, key, size, object) VALUES (?1, ?2, ?3, ?4)")
        .and_then(|mut s| {
            s.execute(params![
                ns,
                object.key.as_bytes(),
                object.size as i64,
                text(object)
            ])
        })
        .map_err(sql)?;
    count(tx, ns, object.size as i64)
}

impl Meta for Sqlite {
    fn get(&self, ns: &str, key: &str) -> Result<Option<Object>, String> {
        get(&crate::sync::lock(&self.conn), ns, key)
    }

    fn put(
        &self,
        ns: &str,
        object: &Object,
        holds: &dyn Fn(Option<&Object>) -> bool,
    ) -> Result<Option<Vec<String>>, String> {
        self.atomically(|tx| {
            if !holds(get(tx, ns, &object.key)?.as_ref()) {
                return Ok(None);
            }
            let freed = remove(tx, ns, &object.key)?;
            insert(tx, ns, object)?;
            Ok(Some(freed))
        })
    }

    fn delete(&self, ns: &str, keys: &[String]) -> Result<Vec<String>, String> {
        self.atomically(|tx| {
            let mut freed = Vec::new();
            for key in keys {
                freed.extend(remove(tx, ns, key)?);
            }
            Ok(freed)
        })
    }

    fn list(
        &self,
        ns: &str,
        prefix: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Object>, String> {
        let conn = crate::sync::lock(&self.conn);
        let end = crate::bindings::sqlite::prefix_end(prefix.as_bytes());
        let mut s = conn
            .prepare_cached(
                "SELECT object FROM r2_objects WHERE ns = ?1 AND key >= ?2
                 AND (?3 IS NULL OR key < ?3) AND (?4 IS NULL OR key > ?4)
                 ORDER BY key LIMIT ?5",
            )
            .map_err(sql)?;
        let rows = s
            .query_map(
                params![
                    ns,
                    prefix.as_bytes(),
                    end,
                    after.map(str::as_bytes),
                    limit as i64
                ],
                |r| r.get::<_, String>(0),
            )
            .map_err(sql)?;
        rows.map(|r| parsed(&r.map_err(sql)?)).collect()
    }

    fn create_upload(&self, ns: &str, upload: &Upload) -> Result<String, String> {
        let id = crate::artifact::random_hex(32);
        self.atomically(|tx| {
            tx.execute(
                "INSERT INTO r2_uploads (ns, id, key, upload, state) VALUES (?1, ?2, ?3, ?4, 0)",
                params![ns, id, upload.key.as_bytes(), text(upload)],
            )
            .map_err(sql)
        })?;
        Ok(id)
    }

    fn upload(
        &self,
        ns: &str,
        id: &str,
        key: &str,
    ) -> Result<Option<(Upload, State, Vec<(u32, Part)>)>, String> {
        let conn = crate::sync::lock(&self.conn);
        let row: Option<(String, i64)> = conn
            .query_row(
                "SELECT upload, state FROM r2_uploads WHERE ns = ?1 AND id = ?2 AND key = ?3",
                params![ns, id, key.as_bytes()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(sql)?;
        let Some((upload, state)) = row else {
            return Ok(None);
        };
        let mut s = conn
            .prepare_cached("SELECT n, part FROM r2_parts WHERE ns = ?1 AND upload = ?2 ORDER BY n")
            .map_err(sql)?;
        let parts = s
            .query_map(params![ns, id], |r| {
                Ok((r.get::<_, u32>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(sql)?
            .map(|r| {
                let (n, part) = r.map_err(sql)?;
                Ok((n, parsed(&part)?))
            })
            .collect::<Result<_, String>>()?;
        let state = STATES
            .get(state as usize)
            .copied()
            .unwrap_or(State::Aborted);
        Ok(Some((parsed(&upload)?, state, parts)))
    }

    fn put_part(
        &self,
        ns: &str,
        id: &str,
        key: &str,
        n: u32,
        part: &Part,
    ) -> Result<Option<Vec<String>>, String> {
        self.atomically(|tx| {
            let state: Option<i64> = tx
                .query_row(
                    "SELECT state FROM r2_uploads WHERE ns = ?1 AND id = ?2 AND key = ?3",
                    params![ns, id, key.as_bytes()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(sql)?;
            if state != Some(0) {
                return Ok(None);
            }
            let old: Option<(i64, String)> = tx
                .query_row(
                    "SELECT size, part FROM r2_parts WHERE ns = ?1 AND upload = ?2 AND n = ?3",
                    params![ns, id, n],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .map_err(sql)?;
            let mut freed = Vec::new();
            if let Some((size, old)) = old {
                let old: Part = parsed(&old)?;
                freed.extend(old.segments.into_iter().map(|s| s.id));
                count(tx, ns, -size)?;
            }
            tx.execute(
                "INSERT OR REPLACE INTO r2_parts (ns, upload, n, size, part) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![ns, id, n, part.size as i64, text(part)],
            )
            .map_err(sql)?;
            count(tx, ns, part.size as i64)?;
            Ok(Some(freed))
        })
    }

    fn end_upload(
        &self,
        ns: &str,
        id: &str,
        key: &str,
        object: Option<&Object>,
    ) -> Result<Option<Vec<String>>, String> {
        self.atomically(|tx| {
            let state = if object.is_some() { 1 } else { 2 };
            let ended = tx
                .execute(
                    "UPDATE r2_uploads SET state = ?4 WHERE ns = ?1 AND id = ?2 AND key = ?3 AND state = 0",
                    params![ns, id, key.as_bytes(), state],
                )
                .map_err(sql)?;
            if ended == 0 {
                return Ok(None);
            }
            // The parts leave the upload: the object names those it uses.
            let mut freed = Vec::new();
            let mut s = tx
                .prepare_cached("SELECT size, part FROM r2_parts WHERE ns = ?1 AND upload = ?2")
                .map_err(sql)?;
            let parts = s
                .query_map(params![ns, id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                .map_err(sql)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(sql)?;
            let used: std::collections::HashSet<&str> =
                object.iter().flat_map(|o| o.blobs()).collect();
            for (size, part) in parts {
                let part: Part = parsed(&part)?;
                count(tx, ns, -size)?;
                freed.extend(
                    part.segments
                        .into_iter()
                        .map(|s| s.id)
                        .filter(|id| !used.contains(id.as_str())),
                );
            }
            tx.execute(
                "DELETE FROM r2_parts WHERE ns = ?1 AND upload = ?2",
                params![ns, id],
            )
            .map_err(sql)?;
            if let Some(object) = object {
                freed.extend(remove(tx, ns, key)?);
                insert(tx, ns, object)?;
            }
            Ok(Some(freed))
        })
    }

    fn abandoned(&self, before: u64) -> Result<Vec<(String, String, String)>, String> {
        let conn = crate::sync::lock(&self.conn);
        let mut s = conn
            .prepare(
                "SELECT ns, id, key FROM r2_uploads
                 WHERE state = 0 AND ifnull(json_extract(upload, '$.started'), 0) < ?1",
            )
            .map_err(sql)?;
        let rows = s
            .query_map([before as i64], |r| {
                let key: Vec<u8> = r.get(2)?;
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    String::from_utf8_lossy(&key).into_owned(),
                ))
            })
            .map_err(sql)?;
        rows.collect::<Result<_, _>>().map_err(sql)
    }

    fn usage(&self, tenant: &str) -> Result<u64, String> {
        let conn = crate::sync::lock(&self.conn);
        crate::bindings::sqlite::tenant_bytes(&conn, "r2_usage", tenant).map_err(sql)
    }

    fn named_blobs(&self) -> Result<std::collections::HashSet<String>, String> {
        let conn = crate::sync::lock(&self.conn);
        let mut named = std::collections::HashSet::new();
        for (table, column) in [("r2_objects", "object"), ("r2_parts", "part")] {
            let mut s = conn
                .prepare(&format!("SELECT {column} FROM {table}"))
                .map_err(sql)?;
            let rows = s.query_map([], |r| r.get::<_, String>(0)).map_err(sql)?;
            for row in rows {
                let v: serde_json::Value = parsed(&row.map_err(sql)?)?;
                super::note_blobs(&v, &mut named);
            }
        }
        Ok(named)
    }
}
