//! A Durable Object's storage (`ctx.storage`): one SQLite database per
//! object, as Cloudflare's SQLite-backed objects keep it. The key-value
//! API is the table `_cf_KV` in it (each value as the prelude's
//! structured-clone JSON, `rpcEncode`); `ctx.storage.sql` runs the
//! object's own statements on the same database.
//!
//! Invariants:
//! - Each call is answered in the call itself, on the object's render's
//!   thread, as Cloudflare runs SQLite in the object's isolate; a write is
//!   committed (WAL, synced: `sqlite::durable`) before the call returns,
//!   unless the object opened a transaction (`transaction()`,
//!   `transactionSync()`), which commits as a whole or not at all.
//! - The object's SQL reaches its own tables alone: `_cf_*` tables (the
//!   key-value API's), `ATTACH`, transactions (its `transaction*` calls
//!   make them) and all but harmless `PRAGMA`s are refused by an
//!   authorizer, as Cloudflare refuses them. Extensions are never loaded.
//! - Limits: keys and values of at most [`MAX_VALUE`] bytes (SQLite's
//!   limit here; `workerd` sets none on keys), 128 keys per
//!   `get`/`put`/`delete`; the database
//!   at most its tenant's quota (`d1_mib`); a statement stops at the
//!   render's deadline.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Deserialize;

use crate::bindings::d1::{PRAGMAS, Param, Value, bind, sqlite_error};

/// The largest value, in bytes of its encoding.
pub const MAX_VALUE: usize = 2 << 20;
/// The most keys one call names.
pub const MAX_KEYS: usize = 128;

/// One call on an object's storage, as the prelude sends it.
#[derive(Deserialize, Debug)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub(crate) enum Op {
    Get {
        keys: Vec<String>,
    },
    /// Each key with its value's encoding.
    Put {
        entries: Vec<(String, String)>,
    },
    Delete {
        keys: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    List {
        #[serde(default)]
        start: Option<String>,
        #[serde(default)]
        start_after: Option<String>,
        #[serde(default)]
        end: Option<String>,
        #[serde(default)]
        prefix: Option<String>,
        #[serde(default)]
        reverse: bool,
        #[serde(default)]
        limit: Option<u64>,
    },
    DeleteAll,
    /// `sql.exec(query, ...params)`: the params bind the statement that
    /// has parameters; the rows are the last statement's.
    Sql {
        query: String,
        #[serde(default)]
        params: Vec<Param>,
    },
    /// `sql.databaseSize`.
    Size,
    /// A transaction (`transaction()`, `transactionSync()`): begun,
    /// committed, or rolled back; they nest.
    Begin,
    Commit,
    Rollback,
}

struct Inner {
    conn: Connection,
    /// Transactions open, innermost last.
    depth: u32,
    max_bytes: u64,
}

/// One object's database.
#[derive(Clone)]
pub struct Storage {
    inner: Arc<Mutex<Inner>>,
    /// The object's own SQL is running: the authorizer holds it to its
    /// own tables.
    own: Arc<AtomicBool>,
}

fn sql_error(e: &rusqlite::Error) -> String {
    sqlite_error(e)
}

impl Storage {
    /// The database at `path` (made if new), or a new one in memory.
    pub fn open(path: Option<&Path>, max_bytes: u64) -> Result<Storage, String> {
        let conn = match path {
            Some(path) => super::super::sqlite::durable(path),
            None => Connection::open_in_memory(),
        }
        .map_err(|e| format!("Durable Object storage: {}", sql_error(&e)))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS _cf_KV (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID",
        )
        .map_err(|e| sql_error(&e))?;
        conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)
            .and_then(|_| conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, 100_000))
            .and_then(|_| conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE as i32))
            .map_err(|e| sql_error(&e))?;
        let own = Arc::new(AtomicBool::new(false));
        let flag = own.clone();
        conn.authorizer(Some(move |ctx: AuthContext<'_>| {
            if flag.load(Ordering::Relaxed) {
                authorize(ctx)
            } else {
                Authorization::Allow
            }
        }));
        let storage = Storage {
            inner: Arc::new(Mutex::new(Inner {
                conn,
                depth: 0,
                max_bytes: 0,
            })),
            own,
        };
        storage.limit(max_bytes)?;
        Ok(storage)
    }

    /// Holds the database to `max_bytes`, if it is not already.
    pub fn limit(&self, max_bytes: u64) -> Result<(), String> {
        let mut inner = crate::sync::lock(&self.inner);
        if inner.max_bytes != max_bytes {
            let page: u64 = inner
                .conn
                .query_row("PRAGMA page_size", [], |r| r.get(0))
                .map_err(|e| sql_error(&e))?;
            inner
                .conn
                .pragma_update(None, "max_page_count", (max_bytes / page.max(512)).max(1))
                .map_err(|e| sql_error(&e))?;
            inner.max_bytes = max_bytes;
        }
        Ok(())
    }

    /// Rolls back what a render that ended left open.
    pub fn abandon(&self) {
        let mut inner = crate::sync::lock(&self.inner);
        if inner.depth > 0 {
            let _ = inner.conn.execute_batch("ROLLBACK");
            inner.depth = 0;
        }
    }

    /// Answers `op` (`data`: nothing any op takes), stopping a statement
    /// at `deadline`: its answer's JSON, or why not.
    pub(crate) fn call(
        &self,
        op: Op,
        _data: &[u8],
        deadline: Instant,
    ) -> Result<(String, Vec<u8>), String> {
        let mut inner = crate::sync::lock(&self.inner);
        let inner = &mut *inner;
        inner
            .conn
            .progress_handler(1_000, Some(move || Instant::now() >= deadline));
        let out = answer(inner, &self.own, op);
        inner.conn.progress_handler(0, None::<fn() -> bool>);
        out.map(|json| (json, Vec::new()))
    }
}

fn check_keys<'a>(
    what: &str,
    keys: impl ExactSizeIterator<Item = &'a String>,
) -> Result<(), String> {
    if keys.len() > MAX_KEYS {
        return Err(format!("{what}: at most {MAX_KEYS} keys at a time"));
    }
    Ok(())
}

fn answer(inner: &mut Inner, own: &AtomicBool, op: Op) -> Result<String, String> {
    let conn = &inner.conn;
    let json = |v: serde_json::Value| Ok(v.to_string());
    match op {
        Op::Get { keys } => {
            check_keys("get()", keys.iter())?;
            let mut stmt = conn
                .prepare_cached("SELECT value FROM _cf_KV WHERE key = ?1")
                .map_err(|e| sql_error(&e))?;
            let values = keys
                .iter()
                .map(|k| {
                    stmt.query_row([k], |r| r.get::<_, String>(0))
                        .optional()
                        .map_err(|e| sql_error(&e))
                })
                .collect::<Result<Vec<_>, _>>()?;
            json(serde_json::json!(values))
        }
        Op::Put { entries } => {
            check_keys("put()", entries.iter().map(|(k, _)| k))?;
            if let Some((_, v)) = entries.iter().find(|(_, v)| v.len() > MAX_VALUE) {
                return Err(format!(
                    "Values cannot be larger than {MAX_VALUE} bytes. A value of size {} was given.",
                    v.len()
                ));
            }
            atomically(conn, || {
                let mut stmt = conn
                    .prepare_cached("INSERT OR REPLACE INTO _cf_KV (key, value) VALUES (?1, ?2)")
                    .map_err(|e| sql_error(&e))?;
                for (k, v) in &entries {
                    stmt.execute(params![k, v]).map_err(|e| full(&e))?;
                }
                Ok(())
            })?;
            json(serde_json::Value::Null)
        }
        Op::Delete { keys } => {
            check_keys("delete()", keys.iter())?;
            let deleted = atomically(conn, || {
                let mut stmt = conn
                    .prepare_cached("DELETE FROM _cf_KV WHERE key = ?1")
                    .map_err(|e| sql_error(&e))?;
                let mut n = 0;
                for k in &keys {
                    n += stmt.execute([k]).map_err(|e| sql_error(&e))?;
                }
                Ok(n)
            })?;
            json(serde_json::json!(deleted))
        }
        Op::List {
            start,
            start_after,
            end,
            prefix,
            reverse,
            limit,
        } => {
            let mut clauses = Vec::new();
            let mut args: Vec<String> = Vec::new();
            let mut arg = |clause: &str, v: String| {
                args.push(v);
                clauses.push(clause.replace('?', &format!("?{}", args.len())));
            };
            if let Some(s) = start {
                arg("key >= ?", s);
            }
            if let Some(s) = start_after {
                arg("key > ?", s);
            }
            if let Some(e) = end {
                arg("key < ?", e);
            }
            if let Some(p) = prefix.filter(|p| !p.is_empty()) {
                // Keys from the prefix up to, not including, the first key
                // past every key that starts with it.
                arg("key >= ?", p.clone());
                if let Some(past) = past_prefix(&p) {
                    arg("key < ?", past);
                }
            }
            let filter = if clauses.is_empty() {
                String::new()
            } else {
                format!("WHERE {}", clauses.join(" AND "))
            };
            let order = if reverse { "DESC" } else { "ASC" };
            let limit = limit.map_or(-1, |l| l.min(i64::MAX as u64) as i64);
            let sql = format!(
                "SELECT key, value FROM _cf_KV {filter} ORDER BY key {order} LIMIT {limit}"
            );
            let mut stmt = conn.prepare(&sql).map_err(|e| sql_error(&e))?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                })
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(|e| sql_error(&e))?;
            json(serde_json::json!(rows))
        }
        Op::DeleteAll => {
            atomically(conn, || {
                let objects: Vec<(String, String)> = conn
                    .prepare(
                        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'",
                    )
                    .and_then(|mut s| {
                        s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                            .collect::<Result<Vec<_>, _>>()
                    })
                    .map_err(|e| sql_error(&e))?;
                for (kind, name) in objects {
                    let kind = if kind == "view" { "VIEW" } else { "TABLE" };
                    conn.execute_batch(&format!(
                        "DROP {kind} IF EXISTS \"{}\"",
                        name.replace('"', "\"\"")
                    ))
                    .map_err(|e| sql_error(&e))?;
                }
                conn.execute_batch("DELETE FROM _cf_KV")
                    .map_err(|e| sql_error(&e))
            })?;
            json(serde_json::Value::Null)
        }
        Op::Sql { query, params } => {
            own.store(true, Ordering::Relaxed);
            let out = exec(conn, &query, &params);
            own.store(false, Ordering::Relaxed);
            out
        }
        Op::Size => {
            let size: u64 = conn
                .query_row(
                    "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                    [],
                    |r| r.get(0),
                )
                .map_err(|e| sql_error(&e))?;
            json(serde_json::json!(size))
        }
        Op::Begin => {
            conn.execute_batch(&format!("SAVEPOINT tx{}", inner.depth))
                .map_err(|e| sql_error(&e))?;
            inner.depth += 1;
            json(serde_json::Value::Null)
        }
        Op::Commit | Op::Rollback => {
            let Some(depth) = inner.depth.checked_sub(1) else {
                return Err("no transaction is open".into());
            };
            let sql = match op {
                Op::Commit => format!("RELEASE tx{depth}"),
                _ => format!("ROLLBACK TO tx{depth}; RELEASE tx{depth}"),
            };
            inner.depth = depth;
            conn.execute_batch(&sql).map_err(|e| sql_error(&e))?;
            json(serde_json::Value::Null)
        }
    }
}

/// The least key past every key that starts with `prefix`: none when
/// every key at or after it does (its characters all the largest).
fn past_prefix(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = (last as u32 + 1..=0x10FFFF).find_map(char::from_u32) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Runs `f` in a savepoint of its own: as a whole or not at all, inside
/// the object's transaction if one is open.
fn atomically<T>(conn: &Connection, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    conn.execute_batch("SAVEPOINT op")
        .map_err(|e| sql_error(&e))?;
    match f() {
        Ok(v) => {
            conn.execute_batch("RELEASE op")
                .map_err(|e| sql_error(&e))?;
            Ok(v)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK TO op; RELEASE op");
            Err(e)
        }
    }
}

/// A write's error, said as Cloudflare says a full database.
fn full(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull) => format!(
            "Durable Object storage is full (its tenant's quota, d1_mib): {}",
            sql_error(e)
        ),
        _ => sql_error(e),
    }
}

/// `sql.exec`: each statement of `sql` in turn, `params` bound to the one
/// that has parameters; `{columns, rows, rowsRead, rowsWritten}` of the
/// last (the counts of all).
fn exec(conn: &Connection, sql: &str, params: &[Param]) -> Result<String, String> {
    let mut batch = rusqlite::Batch::new(conn, sql);
    let (mut columns, mut rows) = (Vec::new(), Vec::new());
    let (mut read, mut written, mut bound) = (0u64, 0u64, false);
    while let Some(mut stmt) = batch.next().map_err(|e| full(&e))? {
        if stmt.parameter_count() > 0 {
            if stmt.parameter_count() != params.len() || bound {
                return Err(format!(
                    "Error: Wrong number of parameter bindings for SQL query: {} given, {} expected",
                    params.len(),
                    stmt.parameter_count()
                ));
            }
            bind(&mut stmt, params)?;
            bound = true;
        }
        stmt.reset_status(rusqlite::StatementStatus::FullscanStep);
        columns = stmt.column_names().into_iter().map(String::from).collect();
        rows = Vec::new();
        {
            let mut cursor = stmt.raw_query();
            while let Some(row) = cursor.next().map_err(|e| full(&e))? {
                rows.push(
                    (0..columns.len())
                        .map(|i| row.get_ref(i).map(Value::from))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| sql_error(&e))?,
                );
            }
        }
        let scanned = stmt.get_status(rusqlite::StatementStatus::FullscanStep) as u64;
        read += scanned.max(rows.len() as u64);
        if !stmt.readonly() {
            written += conn.changes();
        }
    }
    if !params.is_empty() && !bound {
        return Err(format!(
            "Error: Wrong number of parameter bindings for SQL query: {} given, 0 expected",
            params.len()
        ));
    }
    Ok(serde_json::json!({
        "columns": columns,
        "rows": rows,
        "rowsRead": read,
        "rowsWritten": written,
    })
    .to_string())
}

/// What the object's own SQL may do.
fn authorize(ctx: AuthContext<'_>) -> Authorization {
    let reserved = |t: &str| t.len() >= 4 && t[..4].eq_ignore_ascii_case("_cf_");
    match ctx.action {
        AuthAction::Attach { .. }
        | AuthAction::Detach { .. }
        | AuthAction::Transaction { .. }
        | AuthAction::Savepoint { .. } => Authorization::Deny,
        AuthAction::Pragma { pragma_name, .. } => {
            // D1's: those that read the schema or change only how the
            // connection checks what it writes.
            if PRAGMAS.contains(&pragma_name.to_ascii_lowercase().as_str()) {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        AuthAction::Read { table_name, .. }
        | AuthAction::Insert { table_name }
        | AuthAction::Update { table_name, .. }
        | AuthAction::Delete { table_name }
        | AuthAction::CreateTable { table_name }
        | AuthAction::DropTable { table_name }
        | AuthAction::CreateIndex { table_name, .. }
        | AuthAction::DropIndex { table_name, .. }
        | AuthAction::CreateTrigger { table_name, .. }
        | AuthAction::DropTrigger { table_name, .. }
        | AuthAction::AlterTable { table_name, .. }
            if reserved(table_name) =>
        {
            Authorization::Deny
        }
        _ => Authorization::Allow,
    }
}
