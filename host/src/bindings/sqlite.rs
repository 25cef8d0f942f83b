//! The embedded store of bindings: SQLite, one file in the data dir
//! (`<data-dir>/bindings/kv.sqlite3`), or in memory when the server keeps
//! no data dir (`ssr render`, a server without `--data-dir`).
//!
//! Why SQLite (docs/bindings.md): a put is durable when it returns (the
//! write-ahead log, synced at every commit), a `kill -9` at any moment
//! loses no acknowledged write and leaves no torn one, reads never wait
//! for writes, and keys sort and page by index. KV's values are kept in
//! the table (at most 25 MiB each).
//!
//! Invariants:
//! - `synchronous = FULL` in WAL mode: a commit is on disk before `put`
//!   returns, so an acknowledged write survives a crash of the process or
//!   the machine.
//! - Writes go through one connection, reads through another: SQLite
//!   serializes writers anyway, and WAL lets readers go on meanwhile.
//! - Keys compare as bytes (`BLOB` order), which is KV's order: UTF-8's
//!   byte order.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

use super::kv::{Entry, Listed, Page, Store};
use super::tenant_of;

/// KV namespaces in SQLite.
pub struct Kv {
    write: Mutex<Connection>,
    read: Mutex<Connection>,
    /// Puts since the store opened: every [`SWEEP_EVERY`]th sweeps.
    puts: std::sync::atomic::AtomicU64,
}

/// How many puts go between two sweeps of expired keys, so that the file
/// follows what is live, not everything ever put with an expiration.
const SWEEP_EVERY: u64 = 1000;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS kv (
    ns TEXT NOT NULL,
    key BLOB NOT NULL,
    value BLOB NOT NULL,
    metadata TEXT,
    expiration INTEGER,
    PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kv_expiration ON kv (expiration) WHERE expiration IS NOT NULL;
CREATE TABLE IF NOT EXISTS kv_usage (
    tenant TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL
) WITHOUT ROWID;
";

/// A row's tenant (its namespace's name is `<tenant>/<id>`), and the bytes
/// it counts against the tenant's quota, in SQL.
const TENANT: &str = "substr(ns, 1, instr(ns, '/') - 1)";
const SIZE: &str = "length(key) + length(value) + ifnull(length(metadata), 0)";

fn sql(e: rusqlite::Error) -> String {
    format!("the embedded KV store failed: {e}")
}

impl Kv {
    /// Opens (creating) the store in `dir`, or one in memory; it counts
    /// the bytes of keys, values and metadata each tenant keeps, over all
    /// its namespaces, against the quota a put is given.
    pub fn open(dir: Option<&Path>) -> Result<Kv, String> {
        let (write, read) = match dir {
            Some(dir) => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                let path = dir.join("kv.sqlite3");
                let write = durable(&path).map_err(sql)?;
                write.execute_batch(SCHEMA).map_err(sql)?;
                let read = Connection::open(&path).map_err(sql)?;
                (write, read)
            }
            None => {
                // One shared in-memory database, private to this store.
                let name = format!(
                    "file:ssr-kv-{}?mode=memory&cache=shared",
                    crate::artifact::random_hex(8)
                );
                let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_URI;
                let write = Connection::open_with_flags(&name, flags).map_err(sql)?;
                write.execute_batch(SCHEMA).map_err(sql)?;
                let read = Connection::open_with_flags(&name, flags).map_err(sql)?;
                (write, read)
            }
        };
        for c in [&write, &read] {
            c.busy_timeout(std::time::Duration::from_secs(5))
                .map_err(sql)?;
        }
        // What each tenant keeps, counted again at every start: a file of
        // an older ssr, or one restored from a backup, is counted right.
        write
            .execute_batch(&format!(
                "DELETE FROM kv_usage; INSERT INTO kv_usage SELECT {TENANT}, sum({SIZE}) FROM kv GROUP BY 1"
            ))
            .map_err(sql)?;
        Ok(Kv {
            write: Mutex::new(write),
            read: Mutex::new(read),
            puts: Default::default(),
        })
    }
}

/// The bytes `tenant` keeps by the count of `table` (`kv_usage`,
/// `r2_usage`: a row per tenant), none when it has no row.
pub(crate) fn tenant_bytes(conn: &Connection, table: &str, tenant: &str) -> rusqlite::Result<u64> {
    conn.prepare_cached(&format!("SELECT bytes FROM {table} WHERE tenant = ?1"))?
        .query_row([tenant], |r| r.get::<_, i64>(0))
        .optional()
        .map(|n| n.unwrap_or(0).max(0) as u64)
}

/// Opens (creating) the SQLite file at `path` for writes that survive a
/// crash once they are answered: WAL mode, synced at every commit. KV's
/// store and every D1 database are opened so.
pub(super) fn durable(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    Ok(conn)
}

/// Deletes every key expired at `now`, in every namespace, and what it
/// counted against its tenant: how many. (Reads never return them either
/// way.)
fn sweep(write: &Connection, now: u64) -> Result<usize, String> {
    let tx = write.unchecked_transaction().map_err(sql)?;
    tx.execute(
        &format!(
            "UPDATE kv_usage SET bytes = bytes - (SELECT ifnull(sum({SIZE}), 0) FROM kv
             WHERE {TENANT} = kv_usage.tenant AND expiration IS NOT NULL AND expiration <= ?1)"
        ),
        params![now as i64],
    )
    .map_err(sql)?;
    let swept = tx
        .execute(
            "DELETE FROM kv WHERE expiration IS NOT NULL AND expiration <= ?1",
            params![now as i64],
        )
        .map_err(sql)?;
    tx.commit().map_err(sql)?;
    Ok(swept)
}

/// The bytes `key` of `ns` counts now (0: none), in `tx`.
fn size_of(tx: &Connection, ns: &str, key: &str) -> Result<u64, String> {
    tx.prepare_cached(&format!("SELECT {SIZE} FROM kv WHERE ns = ?1 AND key = ?2"))
        .and_then(|mut s| {
            s.query_row(params![ns, key.as_bytes()], |r| r.get::<_, i64>(0))
                .optional()
        })
        .map(|n| n.unwrap_or(0) as u64)
        .map_err(sql)
}

/// Adds `delta` to what `tenant` keeps, in `tx`.
fn count(tx: &Connection, tenant: &str, delta: i64) -> Result<(), String> {
    tx.prepare_cached(
        "INSERT INTO kv_usage (tenant, bytes) VALUES (?1, ?2)
         ON CONFLICT (tenant) DO UPDATE SET bytes = bytes + ?2",
    )
    .and_then(|mut s| s.execute(params![tenant, delta]))
    .map(drop)
    .map_err(sql)
}

/// The first key after every key that starts with `prefix`, in byte
/// order; none when no key is (a prefix of bytes 0xFF only).
pub(super) fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xFF {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

impl Store for Kv {
    /// A read is an index look-up in a local file (WAL: never behind a
    /// writer).
    fn reads_at_once(&self) -> bool {
        true
    }

    fn get(&self, ns: &str, key: &str, now: u64) -> Result<Option<Entry>, String> {
        let read = crate::sync::lock(&self.read);
        read.prepare_cached(
            "SELECT value, metadata, expiration FROM kv
             WHERE ns = ?1 AND key = ?2 AND (expiration IS NULL OR expiration > ?3)",
        )
        .and_then(|mut s| {
            s.query_row(params![ns, key.as_bytes(), now as i64], |r| {
                Ok(Entry {
                    value: r.get(0)?,
                    metadata: r.get(1)?,
                    expiration: r.get::<_, Option<i64>>(2)?.map(|e| e as u64),
                })
            })
            .optional()
        })
        .map_err(sql)
    }

    fn usage(&self, tenant: &str) -> Result<u64, String> {
        let read = crate::sync::lock(&self.read);
        tenant_bytes(&read, "kv_usage", tenant).map_err(sql)
    }

    fn put(&self, ns: &str, key: &str, entry: &Entry, quota: u64) -> Result<(), String> {
        let write = crate::sync::lock(&self.write);
        let tx = write.unchecked_transaction().map_err(sql)?;
        let tenant = tenant_of(ns);
        let old = size_of(&tx, ns, key)?;
        let new = entry.size(key);
        if new > old {
            let used = tenant_bytes(&tx, "kv_usage", tenant).map_err(sql)?;
            if used - old.min(used) + new > quota {
                return Err(super::kv::over_quota(used, new, quota));
            }
        }
        tx.prepare_cached(
            "INSERT OR REPLACE INTO kv (ns, key, value, metadata, expiration)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .and_then(|mut s| {
            s.execute(params![
                ns,
                key.as_bytes(),
                entry.value,
                entry.metadata,
                entry.expiration.map(|e| e as i64)
            ])
        })
        .map_err(sql)?;
        count(&tx, tenant, new as i64 - old as i64)?;
        tx.commit().map_err(sql)?;
        let puts = self.puts.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if puts % SWEEP_EVERY == SWEEP_EVERY - 1
            && let Err(e) = sweep(&write, super::kv::now())
        {
            tracing::warn!("sweeping expired KV keys failed: {e}");
        }
        Ok(())
    }

    fn delete(&self, ns: &str, key: &str) -> Result<(), String> {
        let write = crate::sync::lock(&self.write);
        let tx = write.unchecked_transaction().map_err(sql)?;
        let old = size_of(&tx, ns, key)?;
        tx.prepare_cached("DELETE FROM kv WHERE ns = ?1 AND key = ?2")
            .and_then(|mut s| s.execute(params![ns, key.as_bytes()]))
            .map_err(sql)?;
        count(&tx, tenant_of(ns), -(old as i64))?;
        tx.commit().map_err(sql)
    }

    fn list(&self, ns: &str, page: &Page<'_>) -> Result<(Vec<Listed>, bool), String> {
        let (prefix, after, limit, now) = (page.prefix, page.after, page.limit, page.now);
        let start = match after {
            Some(a) if a.as_bytes() >= prefix.as_bytes() => a.as_bytes().to_vec(),
            _ => Vec::new(),
        };
        let end = prefix_end(prefix.as_bytes());
        let read = crate::sync::lock(&self.read);
        let mut s = read
            .prepare_cached(
                "SELECT key, metadata, expiration FROM kv
                 WHERE ns = ?1 AND key >= ?2 AND key > ?3 AND (?4 IS NULL OR key < ?4)
                   AND (expiration IS NULL OR expiration > ?5)
                 ORDER BY key LIMIT ?6",
            )
            .map_err(sql)?;
        let rows = s
            .query_map(
                params![
                    ns,
                    prefix.as_bytes(),
                    start,
                    end,
                    now as i64,
                    (limit + 1) as i64
                ],
                |r| {
                    Ok(Listed {
                        name: String::from_utf8_lossy(&r.get::<_, Vec<u8>>(0)?).into_owned(),
                        metadata: r.get(1)?,
                        expiration: r.get::<_, Option<i64>>(2)?.map(|e| e as u64),
                    })
                },
            )
            .map_err(sql)?;
        let mut keys = rows.collect::<Result<Vec<_>, _>>().map_err(sql)?;
        let more = keys.len() > limit;
        keys.truncate(limit);
        Ok((keys, more))
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    /// Every live key at the epoch, up to `limit`.
    fn page_of(limit: usize) -> Page<'static> {
        Page {
            prefix: "",
            after: None,
            limit,
            now: 0,
        }
    }

    fn sqlite_keeps_kv_semantics_in_memory_and_on_disk() {
        crate::bindings::kv::tests::a_store_keeps_kv_semantics(&Kv::open(None).unwrap());
        let dir = tempfile::tempdir().unwrap();
        crate::bindings::kv::tests::a_store_keeps_kv_semantics(
            &Kv::open(Some(dir.path())).unwrap(),
        );
        // What was put is there when the store opens again.
        let again = Kv::open(Some(dir.path())).unwrap();
        assert!(again.get("t/ns", "a/2", 0).unwrap().is_some());
        // A sweep deletes what has expired, and nothing live.
        let (before, _) = again.list("t/ns", &page_of(100)).unwrap();
        again
            .put(
                "t/ns",
                "old",
                &Entry {
                    value: b"x".to_vec(),
                    metadata: None,
                    expiration: Some(10),
                },
                1 << 20,
            )
            .unwrap();
        assert_eq!(sweep(&crate::sync::lock(&again.write), 10).unwrap(), 1);
        assert_eq!(sweep(&crate::sync::lock(&again.write), 10).unwrap(), 0);
        assert_eq!(again.list("t/ns", &page_of(100)).unwrap().0, before);
        assert_eq!(prefix_end(b"a\xff"), Some(b"b".to_vec()));
        assert_eq!(prefix_end(b"\xff"), None);
    }

    /// A tenant past its quota is refused a put that adds bytes; one
    /// that replaces a value with a smaller one, a delete, and another
    /// tenant's put go on; the count survives a restart.
    fn a_tenant_past_its_quota_is_refused_and_no_one_else() {
        let dir = tempfile::tempdir().unwrap();
        let kv = Kv::open(Some(dir.path())).unwrap();
        let entry = |n: usize| Entry {
            value: vec![b'x'; n],
            metadata: None,
            expiration: None,
        };
        kv.put("a/ns", "k1", &entry(60), 100).unwrap();
        let e = kv.put("a/other", "k2", &entry(60), 100).unwrap_err();
        assert!(
            e.starts_with("KV PUT failed: 413") && e.contains("quota of 100 bytes"),
            "{e}"
        );
        kv.put("b/ns", "k2", &entry(60), 100).unwrap();
        kv.put("a/ns", "k1", &entry(90), 100).unwrap();
        assert!(kv.put("a/ns", "k1", &entry(99), 100).is_err());
        kv.put("a/ns", "k1", &entry(10), 100).unwrap();
        kv.put("a/ns", "k3", &entry(80), 100).unwrap();
        drop(kv);
        let kv = Kv::open(Some(dir.path())).unwrap();
        assert!(
            kv.put("a/ns", "k4", &entry(10), 100).is_err(),
            "counted again at the start"
        );
        kv.delete("a/ns", "k3").unwrap();
        kv.put("a/ns", "k4", &entry(10), 100).unwrap();
    }

    crate::unit_tests!(
        sqlite_keeps_kv_semantics_in_memory_and_on_disk,
        a_tenant_past_its_quota_is_refused_and_no_one_else
    );
}
