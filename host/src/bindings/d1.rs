//! D1: a tenant's SQL databases (`env.X` of the app's `d1_databases`), each
//! a SQLite file in the data dir (`<data-dir>/bindings/d1/<tenant>/`), or a
//! database in memory without one. What a call may ask (`calls::D1`), run
//! as D1 runs it, with D1's limits and its words for errors.
//!
//! Invariants:
//! - A statement reaches its own database alone: `ATTACH` is refused by
//!   the limit of attached databases (0, which also stops `VACUUM INTO`),
//!   and an authorizer refuses every `PRAGMA` but D1's harmless ones.
//!   Extensions are never loaded.
//! - Limits as D1's: 100 KB of SQL per statement, 100 bound parameters,
//!   2 MB per value; a database at most its `max_bytes`; a statement past
//!   its deadline (the render's, at most [`MAX_QUERY`]) is interrupted by
//!   SQLite's progress handler, never left running.
//! - One call at a time per database (its connection's lock), on a thread
//!   that may block, never an engine's, but for a read that takes at most
//!   [`AT_ONCE`] and finds the lock free; a `batch` is one transaction,
//!   rolled back whole when a statement fails.
//! - Writes are durable when the call answers (WAL, `synchronous = FULL`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, StatementStatus};
use serde::{Deserialize, Serialize};

use super::AT_ONCE;

/// The longest statement, in bytes.
pub const MAX_SQL: i32 = 100_000;
/// The most parameters one statement binds.
pub const MAX_PARAMS: i32 = 100;
/// The largest string or blob in a row.
pub const MAX_VALUE: i32 = 2_000_000;
/// The longest one call runs, whatever the render's deadline.
pub const MAX_QUERY: Duration = Duration::from_secs(30);

/// The pragmas a statement may run: D1's, which read the schema or change
/// only how this connection checks what it writes.
pub(crate) const PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "table_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "foreign_keys",
    "defer_foreign_keys",
    "quick_check",
    "integrity_check",
    "optimize",
    "case_sensitive_like",
    "ignore_check_constraints",
    "legacy_alter_table",
    "recursive_triggers",
    "reverse_unordered_selects",
    "page_count",
    "page_size",
    "data_version",
];

/// One call, as the prelude sends it.
#[derive(Deserialize, Debug)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Call {
    /// Statements run one after another; with `batch`, in one transaction.
    Query {
        binding: String,
        statements: Vec<Statement>,
        #[serde(default)]
        batch: bool,
    },
    /// `exec`: each line of `sql` run as it is, without parameters.
    Exec { binding: String, sql: String },
}

impl Call {
    pub fn binding(&self) -> &str {
        match self {
            Call::Query { binding, .. } | Call::Exec { binding, .. } => binding,
        }
    }
}

#[derive(Deserialize, Debug)]
pub struct Statement {
    sql: String,
    #[serde(default)]
    params: Vec<Param>,
}

/// A bound value, as the prelude converted it (numbers are bound as reals,
/// as D1 binds them; a blob comes in base64).
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub(crate) enum Param {
    Null(()),
    Number(f64),
    Text(String),
    Blob { blob: String },
}

/// What one statement answered: its columns, its rows, its `meta`, and
/// the database's bookmark after it.
#[derive(Serialize)]
struct Answer {
    columns: Vec<String>,
    rows: Vec<Vec<Value>>,
    meta: Meta,
    /// A session's bookmark after it; none for a script's statements.
    #[serde(skip_serializing_if = "String::is_empty")]
    bookmark: String,
}

/// A result's `meta`, its keys in D1's order.
#[derive(Serialize)]
struct Meta {
    served_by: &'static str,
    served_by_primary: bool,
    total_attempts: u32,
    timings: Timings,
    duration: f64,
    changes: u64,
    last_row_id: i64,
    changed_db: bool,
    size_after: u64,
    rows_read: u64,
    rows_written: u64,
}

#[derive(Serialize)]
struct Timings {
    sql_duration_ms: f64,
}

/// A column's value as D1 answers it: a blob as an array of its bytes.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl From<ValueRef<'_>> for Value {
    fn from(v: ValueRef<'_>) -> Value {
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(r) => Value::Real(r),
            ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        }
    }
}

/// One open database.
struct Database {
    conn: Connection,
    /// Counts the commits this process made: a session's bookmark.
    commits: u64,
    /// Its page size, and the largest it may grow now (`max_page_count`).
    page_size: u64,
    max_bytes: u64,
    /// Its size, as the last statement that only read found it: a read
    /// does not change it. Forgotten at the end of every call that may
    /// write ([`D1::with`]), so only a call answered at once, which only
    /// reads, outside a transaction, finds it.
    size: Option<u64>,
}

impl Database {
    /// Runs `f`, its statements interrupted by SQLite's progress handler
    /// at `until`.
    fn until<T>(&mut self, until: Instant, f: impl FnOnce(&mut Database) -> T) -> T {
        self.conn
            .progress_handler(1_000, Some(move || Instant::now() >= until));
        let out = f(self);
        self.conn.progress_handler(0, None::<fn() -> bool>);
        out
    }
}

/// One database: database `id` of `tenant`, at most `max_bytes` (its
/// tenant's quota).
#[derive(Clone, Debug)]
pub struct Db {
    pub tenant: String,
    pub id: String,
    pub max_bytes: u64,
}

impl Db {
    /// Its name among the open databases.
    fn key(&self) -> String {
        format!("{}/{}", self.tenant, self.id)
    }
}

/// Every tenant's databases, opened on first use and kept open.
pub struct D1 {
    /// `None`: in memory.
    dir: Option<PathBuf>,
    open: Mutex<HashMap<String, Arc<Mutex<Database>>>>,
}

pub(crate) fn sqlite_error(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqlInputError {
            error,
            msg,
            offset,
            sql,
        } => {
            // From the statement's first token, as D1 counts: a statement
            // after another's `;` starts with the space between them.
            let lead = (sql.len() - sql.trim_start().len()) as i32;
            let offset = if *offset >= lead {
                offset - lead
            } else {
                *offset
            };
            format!("{msg} at offset {offset}: {}", codes(error))
        }
        rusqlite::Error::SqliteFailure(error, msg) => {
            let text = msg.clone().unwrap_or_else(|| error.to_string());
            if error.code == rusqlite::ErrorCode::OperationInterrupted {
                return format!(
                    "the statement ran past its deadline (the render's, at most {} s) and was stopped: {}",
                    MAX_QUERY.as_secs(),
                    codes(error)
                );
            }
            format!("{text}: {}", codes(error))
        }
        other => other.to_string(),
    }
}

/// `SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)`, as D1 writes
/// a code.
fn codes(e: &rusqlite::ffi::Error) -> String {
    let primary = e.extended_code & 0xff;
    let name = |c: i32| code_name(c).map_or_else(|| format!("SQLITE_{c}"), String::from);
    if e.extended_code == primary {
        name(primary)
    } else {
        format!("{} (extended: {})", name(primary), name(e.extended_code))
    }
}

fn code_name(code: i32) -> Option<&'static str> {
    use rusqlite::ffi::*;
    Some(match code {
        SQLITE_ERROR => "SQLITE_ERROR",
        SQLITE_INTERNAL => "SQLITE_INTERNAL",
        SQLITE_PERM => "SQLITE_PERM",
        SQLITE_ABORT => "SQLITE_ABORT",
        SQLITE_BUSY => "SQLITE_BUSY",
        SQLITE_LOCKED => "SQLITE_LOCKED",
        SQLITE_NOMEM => "SQLITE_NOMEM",
        SQLITE_READONLY => "SQLITE_READONLY",
        SQLITE_INTERRUPT => "SQLITE_INTERRUPT",
        SQLITE_IOERR => "SQLITE_IOERR",
        SQLITE_CORRUPT => "SQLITE_CORRUPT",
        SQLITE_FULL => "SQLITE_FULL",
        SQLITE_CANTOPEN => "SQLITE_CANTOPEN",
        SQLITE_SCHEMA => "SQLITE_SCHEMA",
        SQLITE_TOOBIG => "SQLITE_TOOBIG",
        SQLITE_CONSTRAINT => "SQLITE_CONSTRAINT",
        SQLITE_MISMATCH => "SQLITE_MISMATCH",
        SQLITE_MISUSE => "SQLITE_MISUSE",
        SQLITE_AUTH => "SQLITE_AUTH",
        SQLITE_RANGE => "SQLITE_RANGE",
        SQLITE_CONSTRAINT_CHECK => "SQLITE_CONSTRAINT_CHECK",
        SQLITE_CONSTRAINT_FOREIGNKEY => "SQLITE_CONSTRAINT_FOREIGNKEY",
        SQLITE_CONSTRAINT_NOTNULL => "SQLITE_CONSTRAINT_NOTNULL",
        SQLITE_CONSTRAINT_PRIMARYKEY => "SQLITE_CONSTRAINT_PRIMARYKEY",
        SQLITE_CONSTRAINT_TRIGGER => "SQLITE_CONSTRAINT_TRIGGER",
        SQLITE_CONSTRAINT_UNIQUE => "SQLITE_CONSTRAINT_UNIQUE",
        SQLITE_CONSTRAINT_ROWID => "SQLITE_CONSTRAINT_ROWID",
        SQLITE_CONSTRAINT_DATATYPE => "SQLITE_CONSTRAINT_DATATYPE",
        _ => return None,
    })
}

fn d1_error(e: &rusqlite::Error) -> String {
    format!("D1_ERROR: {}", sqlite_error(e))
}

fn authorize(ctx: AuthContext<'_>) -> Authorization {
    match ctx.action {
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => Authorization::Deny,
        AuthAction::Pragma { pragma_name, .. } => {
            if PRAGMAS.contains(&pragma_name.to_ascii_lowercase().as_str()) {
                Authorization::Allow
            } else {
                Authorization::Deny
            }
        }
        _ => Authorization::Allow,
    }
}

/// A file name for a database id: the id itself when it is plain, else
/// its digest.
fn file_name(id: &str) -> String {
    let plain = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        format!("{id}.sqlite3")
    } else {
        format!("{}.sqlite3", &crate::artifact::digest(id.as_bytes())[..32])
    }
}

impl D1 {
    /// Databases in `dir`, or in memory; each at most the size a call
    /// gives (its tenant's quota).
    pub fn new(dir: Option<&Path>) -> D1 {
        D1 {
            dir: dir.map(Path::to_path_buf),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Database `db`, opened (and made) on first use.
    fn database(&self, db: &Db) -> Result<Arc<Mutex<Database>>, String> {
        let (tenant, id, key) = (&db.tenant, &db.id, db.key());
        let mut open = crate::sync::lock(&self.open);
        if let Some(db) = open.get(&key) {
            return Ok(db.clone());
        }
        let conn = match &self.dir {
            Some(dir) => {
                let dir = dir.join(tenant);
                std::fs::create_dir_all(&dir)
                    .map_err(|e| format!("D1_ERROR: cannot create {}: {e}", dir.display()))?;
                super::sqlite::durable(&dir.join(file_name(id))).map_err(|e| d1_error(&e))?
            }
            None => Connection::open_in_memory().map_err(|e| d1_error(&e))?,
        };
        let page_size: u64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .map_err(|e| d1_error(&e))?;
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(|e| d1_error(&e))?;
        conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_SQL)
            .and_then(|_| conn.set_limit(Limit::SQLITE_LIMIT_VARIABLE_NUMBER, MAX_PARAMS))
            .and_then(|_| conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE))
            .and_then(|_| conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0))
            .map_err(|e| d1_error(&e))?;
        conn.authorizer(Some(authorize));
        let db = Arc::new(Mutex::new(Database {
            conn,
            commits: 0,
            size: None,
            page_size: page_size.max(512),
            max_bytes: 0,
        }));
        open.insert(key, db.clone());
        Ok(db)
    }

    /// The bytes database `db` takes: none before its first use.
    pub fn bytes(&self, db: &Db) -> Result<u64, String> {
        let open = crate::sync::lock(&self.open).get(&db.key()).cloned();
        if let Some(open) = open {
            let open = crate::sync::lock(&open);
            let pages: u64 = open
                .conn
                .query_row("PRAGMA page_count", [], |r| r.get(0))
                .map_err(|e| d1_error(&e))?;
            return Ok(pages * open.page_size);
        }
        Ok(self
            .dir
            .as_ref()
            .and_then(|d| std::fs::metadata(d.join(&db.tenant).join(file_name(&db.id))).ok())
            .map_or(0, |m| m.len()))
    }

    /// Runs `sql` on database `db` as a script (`script`): the operator's
    /// `ssr d1 execute` and migrations.
    pub fn script(&self, db: &Db, sql: &str, migration: Option<&str>) -> Result<String, String> {
        self.with(db, Instant::now() + MAX_QUERY, |db| {
            script(db, sql, migration)
        })
    }

    /// Database `db` as SQL that makes it again.
    pub fn export(&self, db: &Db) -> Result<String, String> {
        self.with(db, Instant::now() + MAX_QUERY, export)
    }

    /// Runs `f` on database `db`, stopped by `deadline`, within its
    /// size.
    fn with(
        &self,
        db: &Db,
        deadline: Instant,
        f: impl FnOnce(&mut Database) -> Result<String, String>,
    ) -> Result<String, String> {
        let max_bytes = db.max_bytes;
        let db = self.database(db)?;
        let mut db = crate::sync::lock(&db);
        // A quota changes with its tenant's registration: applied here.
        // The authorizer refuses every PRAGMA a query asks for: it stands
        // aside for this one.
        if db.max_bytes != max_bytes {
            db.conn
                .authorizer(None::<fn(AuthContext<'_>) -> Authorization>);
            let set = db
                .conn
                .pragma_update(None, "max_page_count", max_bytes / db.page_size);
            db.conn.authorizer(Some(authorize));
            set.map_err(|e| d1_error(&e))?;
            db.max_bytes = max_bytes;
        }
        let out = db.until(deadline.min(Instant::now() + MAX_QUERY), f);
        db.size = None;
        out
    }

    /// Answers `call` on database `db`, stopping by `deadline`: its JSON
    /// (an answer per statement; `exec`'s `{count, duration}`), or D1's
    /// words for why not.
    pub fn answer(&self, db: &Db, call: Call, deadline: Instant) -> Result<String, String> {
        self.with(db, deadline, |db| match call {
            Call::Query {
                statements, batch, ..
            } => query(db, &statements, batch, false),
            Call::Exec { sql, .. } => exec(db, &sql),
        })
    }

    /// Answers `call` in the call itself when it only reads, outside a
    /// batch, from a database open and free, and is done within
    /// [`AT_ONCE`]: a point query then costs no thread's wake-ups (it took
    /// 278 µs through a blocking thread and 2 wake-ups, each way). `None`:
    /// run it by [`D1::answer`] on a thread that may block; what it read
    /// here had no effect.
    pub fn answer_at_once(&self, db: &Db, call: &Call) -> Option<Result<String, String>> {
        let Call::Query {
            statements,
            batch: false,
            ..
        } = call
        else {
            return None;
        };
        let open = crate::sync::lock(&self.open).get(&db.key()).cloned()?;
        let mut open = open.try_lock().ok()?;
        if open.max_bytes != db.max_bytes {
            return None;
        }
        let until = Instant::now() + AT_ONCE;
        match open.until(until, |db| query(db, statements, false, true)) {
            Err(e) if e == WOULD_WRITE || Instant::now() >= until => None,
            out => Some(out),
        }
    }
}

/// Runs `f` in one transaction: committed when it answers, rolled back
/// whole when it fails (a `batch`, a script, a migration).
fn atomically<T>(
    db: &mut Database,
    f: impl FnOnce(&mut Database) -> Result<T, String>,
) -> Result<T, String> {
    db.conn
        .execute_batch("BEGIN IMMEDIATE")
        .map_err(|e| d1_error(&e))?;
    let out = f(db).and_then(|v| {
        db.conn
            .execute_batch("COMMIT")
            .map(|()| v)
            .map_err(|e| d1_error(&e))
    });
    if out.is_err() {
        let _ = db.conn.execute_batch("ROLLBACK");
    }
    out
}

/// A script's statements (`ssr d1 execute`, a migration) run in one
/// transaction; with `migration`, only if no migration of that name was
/// applied, and recorded as applied in `d1_migrations` (the table
/// `wrangler d1 migrations apply` keeps). Answers whether it ran, and each
/// statement's answer.
fn script(db: &mut Database, sql: &str, migration: Option<&str>) -> Result<String, String> {
    if sql.trim().is_empty() {
        return Err("D1_ERROR: No SQL statements detected.".into());
    }
    let answers = atomically(db, |db| {
        if let Some(name) = migration {
            db.conn
                .execute_batch(
                    "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
                )
                .map_err(|e| d1_error(&e))?;
            let applied: bool = db
                .conn
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM d1_migrations WHERE name = ?1)",
                    [name],
                    |r| r.get(0),
                )
                .map_err(|e| d1_error(&e))?;
            if applied {
                return Ok(None);
            }
        }
        let mut answers = Vec::new();
        let mut batch = rusqlite::Batch::new(&db.conn, sql);
        while let Some(mut stmt) = batch.next().map_err(|e| d1_error(&e))? {
            answers.push(collect(&db.conn, &mut stmt, Instant::now(), &mut None)?.0);
        }
        if let Some(name) = migration {
            db.conn
                .execute("INSERT INTO d1_migrations (name) VALUES (?1)", [name])
                .map_err(|e| d1_error(&e))?;
        }
        Ok(Some(answers))
    })?;
    db.commits += 1;
    #[derive(Serialize)]
    struct Script {
        applied: bool,
        results: Vec<Answer>,
    }
    let out = Script {
        applied: answers.is_some(),
        results: answers.unwrap_or_default(),
    };
    Ok(serde_json::to_string(&out).expect("answers serialize"))
}

/// With `only_reads`, a statement that would write fails with
/// [`WOULD_WRITE`] before it runs.
fn query(
    db: &mut Database,
    statements: &[Statement],
    batch: bool,
    only_reads: bool,
) -> Result<String, String> {
    if statements.is_empty() || statements.iter().any(|s| s.sql.trim().is_empty()) {
        return Err("D1_ERROR: No SQL statements detected.".into());
    }
    let run_all = |db: &mut Database| {
        statements
            .iter()
            .map(|s| run(db, s, only_reads))
            .collect::<Result<Vec<_>, _>>()
    };
    let answers = if batch {
        atomically(db, run_all)?
    } else {
        run_all(db)?
    };
    Ok(serde_json::to_string(&answers).expect("answers serialize"))
}

/// Why [`query`] stopped a statement that `only_reads` ruled out.
const WOULD_WRITE: &str = "the statement writes";

/// Runs one statement, binding its parameters; with `only_reads`, only
/// one that reads.
fn run(db: &mut Database, s: &Statement, only_reads: bool) -> Result<Answer, String> {
    let started = Instant::now();
    // Prepared once per connection while it is among the last used (a
    // point query then skips SQLite's parser); its counters start again.
    let mut stmt = db.conn.prepare_cached(&s.sql).map_err(|e| d1_error(&e))?;
    stmt.reset_status(StatementStatus::FullscanStep);
    if only_reads && !stmt.readonly() {
        return Err(WOULD_WRITE.into());
    }
    if stmt.parameter_count() != s.params.len() {
        return Err("D1_ERROR: Wrong number of parameter bindings for SQL query.".into());
    }
    bind(&mut stmt, &s.params).map_err(|e| format!("D1_{e}"))?;
    let (answer, writes) = collect(&db.conn, &mut stmt, started, &mut db.size)?;
    if writes {
        db.commits += 1;
    }
    Ok(Answer {
        bookmark: format!("{:016x}", db.commits),
        ..answer
    })
}

/// Binds `params` to `stmt`'s parameters in order (as many as it has),
/// as D1 and Durable Objects' SQL bind them.
pub(crate) fn bind(stmt: &mut rusqlite::Statement<'_>, params: &[Param]) -> Result<(), String> {
    for (i, p) in params.iter().enumerate() {
        let at = i + 1;
        let bound = match p {
            Param::Null(()) => stmt.raw_bind_parameter(at, rusqlite::types::Null),
            Param::Number(n) => stmt.raw_bind_parameter(at, *n),
            Param::Text(t) => stmt.raw_bind_parameter(at, t),
            Param::Blob { blob } => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map_err(|_| "TYPE_ERROR: a blob parameter is not base64".to_string())?;
                stmt.raw_bind_parameter(at, bytes)
            }
        };
        bound.map_err(|e| format!("ERROR: {}", sqlite_error(&e)))?;
    }
    Ok(())
}

/// Runs `stmt`, bound, and answers its rows and `meta` (its bookmark left
/// to the caller), and whether it wrote. `size`: the database's size as a
/// read before it found it, kept by a read (it saves a statement of two
/// pragmas), forgotten by a write.
fn collect(
    conn: &Connection,
    stmt: &mut rusqlite::Statement<'_>,
    started: Instant,
    size: &mut Option<u64>,
) -> Result<(Answer, bool), String> {
    let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
    let writes = !stmt.readonly();
    let mut rows = Vec::new();
    {
        let mut cursor = stmt.raw_query();
        while let Some(row) = cursor.next().map_err(|e| d1_error(&e))? {
            rows.push(
                (0..columns.len())
                    .map(|i| row.get_ref(i).map(Value::from))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| d1_error(&e))?,
            );
        }
    }
    let scanned = stmt.get_status(StatementStatus::FullscanStep) as u64;
    let changes = if writes { conn.changes() } else { 0 };
    let size_after = match *size {
        Some(known) if !writes => known,
        _ => self::size(conn)?,
    };
    *size = (!writes).then_some(size_after);
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let answer = Answer {
        meta: Meta {
            served_by: "ssr",
            served_by_primary: true,
            total_attempts: 1,
            timings: Timings {
                sql_duration_ms: ms,
            },
            duration: ms,
            changes,
            last_row_id: conn.last_insert_rowid(),
            changed_db: writes,
            size_after,
            rows_read: scanned.max(rows.len() as u64),
            rows_written: changes,
        },
        columns,
        rows,
        bookmark: String::new(),
    };
    Ok((answer, writes))
}

/// The database's size in bytes.
fn size(conn: &Connection) -> Result<u64, String> {
    conn.prepare_cached(
        "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
    )
    .and_then(|mut s| s.query_row([], |r| r.get(0)))
    .map_err(|e| d1_error(&e))
}

/// The database as SQL that makes it again (`ssr d1 export`): each
/// table's, index's, view's and trigger's schema, and each table's rows
/// as `INSERT`s, values written by SQLite's own `quote()`; in one read
/// transaction, so a write meanwhile is wholly in or out.
fn export(db: &mut Database) -> Result<String, String> {
    let conn = &db.conn;
    let tx = conn.unchecked_transaction().map_err(|e| d1_error(&e))?;
    let mut out = String::from("PRAGMA defer_foreign_keys=TRUE;\n");
    let objects: Vec<(String, String, String)> = {
        let mut stmt = tx
            .prepare(
                "SELECT type, name, sql FROM sqlite_schema
                 WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                 ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, rowid",
            )
            .map_err(|e| d1_error(&e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| d1_error(&e))?;
        rows.collect::<Result<_, _>>().map_err(|e| d1_error(&e))?
    };
    for (kind, name, sql) in &objects {
        out.push_str(sql);
        out.push_str(";\n");
        if kind != "table" {
            continue;
        }
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        let columns: Vec<String> = {
            let mut stmt = tx
                .prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
                .map_err(|e| d1_error(&e))?;
            let rows = stmt
                .query_map([name], |r| r.get::<_, String>(0))
                .map_err(|e| d1_error(&e))?;
            rows.collect::<Result<_, _>>().map_err(|e| d1_error(&e))?
        };
        let values = columns
            .iter()
            .map(|c| format!("quote(\"{}\")", c.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" || ',' || ");
        let mut stmt = tx
            .prepare(&format!("SELECT {values} FROM {quoted}"))
            .map_err(|e| d1_error(&e))?;
        let mut rows = stmt.query([]).map_err(|e| d1_error(&e))?;
        while let Some(row) = rows.next().map_err(|e| d1_error(&e))? {
            let values: String = row.get(0).map_err(|e| d1_error(&e))?;
            out.push_str(&format!("INSERT INTO {quoted} VALUES({values});\n"));
        }
    }
    Ok(out)
}

/// `exec`: each line of `sql` is run whole; `{count, duration}`, or the
/// first line that failed, as D1 names it.
fn exec(db: &mut Database, sql: &str) -> Result<String, String> {
    let started = Instant::now();
    let lines: Vec<&str> = sql.split('\n').filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return Err("D1_EXEC_ERROR: Error in line 1: : No SQL statements detected.".into());
    }
    for (i, line) in lines.iter().enumerate() {
        db.conn.execute_batch(line).map_err(|e| {
            format!(
                "D1_EXEC_ERROR: Error in line {}: {line}: {}",
                i + 1,
                sqlite_error(&e)
            )
        })?;
        db.commits += 1;
    }
    Ok(serde_json::json!({
        "count": lines.len(),
        "duration": started.elapsed().as_secs_f64() * 1e3,
    })
    .to_string())
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    /// The tests' database, of 1 MiB.
    fn db() -> Db {
        Db {
            tenant: "t".into(),
            id: "db".into(),
            max_bytes: 1 << 20,
        }
    }

    fn call(d1: &D1, json: &str) -> Result<String, String> {
        let call: Call = serde_json::from_str(json).unwrap();
        d1.answer(&db(), call, Instant::now() + Duration::from_secs(5))
    }

    /// What would reach outside the database is refused; limits and a
    /// runaway query end in D1's errors; a failed batch leaves nothing.
    fn d1_stays_in_its_database_and_within_its_limits() {
        let dir = tempfile::tempdir().unwrap();
        let d1 = D1::new(Some(dir.path()));
        call(
            &d1,
            r#"{"op":"exec","binding":"DB","sql":"CREATE TABLE t (x)"}"#,
        )
        .unwrap();
        let outside = dir.path().join("outside.db");
        for sql in [
            format!("ATTACH DATABASE '{}' AS o", outside.display()),
            format!("VACUUM INTO '{}'", outside.display()),
            "PRAGMA journal_mode = DELETE".into(),
            "PRAGMA writable_schema = 1".into(),
        ] {
            let q = serde_json::json!({"op":"query","binding":"DB","statements":[{"sql": sql}]});
            let e = call(&d1, &q.to_string()).unwrap_err();
            assert!(e.starts_with("D1_ERROR: "), "{sql}: {e}");
        }
        assert!(!outside.exists());
        call(
            &d1,
            r#"{"op":"query","binding":"DB","statements":[{"sql":"PRAGMA table_info(t)"}]}"#,
        )
        .unwrap();
        let long = format!("SELECT '{}'", "x".repeat(MAX_SQL as usize));
        let q = serde_json::json!({"op":"query","binding":"DB","statements":[{"sql": long}]});
        let e = call(&d1, &q.to_string()).unwrap_err();
        assert!(e.contains("SQLITE_TOOBIG"), "{e}");
        let params: Vec<String> = (1..=101).map(|i| format!("?{i}")).collect();
        let q = serde_json::json!({"op":"query","binding":"DB","statements":[{"sql": format!("SELECT {}", params.join(",")), "params": vec![1; 101]}]});
        assert!(
            call(&d1, &q.to_string())
                .unwrap_err()
                .starts_with("D1_ERROR: ")
        );
        let forever = r#"{"op":"query","binding":"DB","statements":[{"sql":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"}]}"#;
        let d1_soon = |json: &str| {
            let call: Call = serde_json::from_str(json).unwrap();
            d1.answer(&db(), call, Instant::now() + Duration::from_millis(200))
        };
        let e = d1_soon(forever).unwrap_err();
        assert!(e.contains("SQLITE_INTERRUPT"), "{e}");
        // The database is full at 1 MiB: a write past it fails, and the
        // database stays usable.
        let big = r#"{"op":"query","binding":"DB","statements":[{"sql":"INSERT INTO t SELECT zeroblob(500000) FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3)"}]}"#;
        assert!(call(&d1, big).unwrap_err().contains("SQLITE_FULL"));
        let batch = r#"{"op":"query","binding":"DB","batch":true,"statements":[{"sql":"INSERT INTO t VALUES (1)"},{"sql":"INSERT INTO nope VALUES (1)"}]}"#;
        assert!(
            call(&d1, batch)
                .unwrap_err()
                .contains("no such table: nope")
        );
        let n = call(
            &d1,
            r#"{"op":"query","binding":"DB","statements":[{"sql":"SELECT count(*) FROM t"}]}"#,
        )
        .unwrap();
        assert!(n.contains(r#""rows":[[0]]"#), "{n}");
        assert_eq!(file_name("a-b_1"), "a-b_1.sqlite3");
        assert_eq!(file_name("../x").len(), 32 + ".sqlite3".len());
    }

    /// A read answers in the call itself; a write, a read that outlasts
    /// `AT_ONCE`, one of a batch and one of a database another call holds
    /// do not, and leave nothing behind.
    fn only_a_short_read_of_a_free_database_is_answered_at_once() {
        let d1 = D1::new(None);
        let at_once = |json: &str| d1.answer_at_once(&db(), &serde_json::from_str(json).unwrap());
        let read =
            r#"{"op":"query","binding":"DB","statements":[{"sql":"SELECT count(*) FROM t"}]}"#;
        // Not yet open: its first call opens it, off the engine's thread.
        assert!(at_once(read).is_none());
        call(
            &d1,
            r#"{"op":"exec","binding":"DB","sql":"CREATE TABLE t (x)"}"#,
        )
        .unwrap();
        let n = at_once(read).unwrap().unwrap();
        assert!(n.contains(r#""rows":[[0]]"#), "{n}");
        let write = r#"{"op":"query","binding":"DB","statements":[{"sql":"SELECT 1"},{"sql":"INSERT INTO t VALUES (1)"}]}"#;
        assert!(at_once(write).is_none());
        let batch =
            r#"{"op":"query","binding":"DB","batch":true,"statements":[{"sql":"SELECT 1"}]}"#;
        assert!(at_once(batch).is_none());
        let forever = r#"{"op":"query","binding":"DB","statements":[{"sql":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"}]}"#;
        let started = Instant::now();
        assert!(at_once(forever).is_none());
        assert!(
            started.elapsed() < Duration::from_millis(100),
            "{:?}",
            started.elapsed()
        );
        let held = d1.database(&db()).unwrap();
        let guard = crate::sync::lock(&held);
        assert!(at_once(read).is_none());
        drop(guard);
        // The write was not made here: its first statement alone was run.
        let n = at_once(read).unwrap().unwrap();
        assert!(n.contains(r#""rows":[[0]]"#), "{n}");
    }

    /// `meta.size_after` of a read answered at once is the database's
    /// size after every write, batch rolled back and `exec` before it.
    fn a_read_at_once_reports_the_size_that_writes_left() {
        let d1 = D1::new(None);
        let read = r#"{"op":"query","binding":"DB","statements":[{"sql":"SELECT 1"}]}"#;
        let size_of = |answer: &str| -> u64 {
            let v: serde_json::Value = serde_json::from_str(answer).unwrap();
            v[0]["meta"]["size_after"].as_u64().unwrap()
        };
        let at_once = || {
            size_of(
                &d1.answer_at_once(&db(), &serde_json::from_str(read).unwrap())
                    .unwrap()
                    .unwrap(),
            )
        };
        let waited = || size_of(&call(&d1, read).unwrap());
        call(
            &d1,
            r#"{"op":"exec","binding":"DB","sql":"CREATE TABLE t (x)"}"#,
        )
        .unwrap();
        let empty = at_once();
        assert_eq!(empty, waited());
        assert_eq!(at_once(), empty);
        let grow = r#"{"op":"query","binding":"DB","statements":[{"sql":"INSERT INTO t SELECT zeroblob(100000)"}]}"#;
        call(&d1, grow).unwrap();
        let grown = at_once();
        assert!(grown > empty, "{grown} > {empty}");
        assert_eq!(grown, waited());
        // A batch that grew the database and failed: rolled back, and the
        // size a read then reports is the size before it.
        let failed = r#"{"op":"query","binding":"DB","batch":true,"statements":[{"sql":"SELECT 1"},{"sql":"INSERT INTO t SELECT zeroblob(100000)"},{"sql":"INSERT INTO nope VALUES (1)"}]}"#;
        call(&d1, failed).unwrap_err();
        assert_eq!(at_once(), waited());
        call(
            &d1,
            r#"{"op":"exec","binding":"DB","sql":"CREATE TABLE u (x)\nINSERT INTO u SELECT zeroblob(100000)"}"#,
        )
        .unwrap();
        assert!(at_once() > grown);
        assert_eq!(at_once(), waited());
    }

    crate::unit_tests!(
        d1_stays_in_its_database_and_within_its_limits,
        only_a_short_read_of_a_free_database_is_answered_at_once,
        a_read_at_once_reports_the_size_that_writes_left
    );
}
