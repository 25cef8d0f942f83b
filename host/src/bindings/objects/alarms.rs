//! Every Durable Object's alarm (`ctx.storage.setAlarm`): when it runs,
//! kept in one table for the server (`<data-dir>/bindings/objects/
//! alarms.sqlite3`, or memory), and the task that runs each when due by
//! delivering an `alarm` event to its object (its `alarm()` handler).
//!
//! Invariants:
//! - An object has at most one alarm; setting it replaces it, and its
//!   run counts as done only if it was not set again meanwhile.
//! - An alarm whose handler throws (or fails) runs again after 2, 4, 8...
//!   seconds, at most [`RETRIES`] times, as Cloudflare retries it; then
//!   it is dropped, with a log line.
//! - One run of an object's alarm at a time; it survives a restart of the
//!   server (with a data dir) and runs then if it came due meanwhile.

use std::collections::HashSet;
use std::path::Path;
use std::sync::{Mutex, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};

use super::{Key, Objects};

/// How many times an alarm whose handler failed runs again.
pub const RETRIES: u32 = 6;
/// The longest one run of an alarm's handler takes (Cloudflare's 15
/// minutes).
const RUN_TIME: Duration = Duration::from_secs(15 * 60);
/// The longest the task sleeps between looks at the table: it sleeps
/// until the next alarm is due, or one is set or ends its run.
const LOOK_EVERY: Duration = Duration::from_secs(60);

/// An alarm due: its object, when it was set for, and its runs that
/// failed so far.
type Due = (Key, i64, u32);

pub(super) struct Alarms {
    conn: Mutex<Connection>,
    /// The objects whose alarm runs now.
    running: Mutex<HashSet<Key>>,
    /// An alarm was set, or a run ended: the task looks again now.
    set: tokio::sync::Notify,
}

fn error(e: rusqlite::Error) -> String {
    format!("Durable Object alarms: {e}")
}

/// Milliseconds since the epoch, now.
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Alarms {
    /// The table in `dir`, or memory.
    pub(super) fn open(dir: Option<&Path>) -> Result<Alarms, String> {
        let conn = match dir {
            Some(dir) => super::super::sqlite::durable(&dir.join("alarms.sqlite3")),
            None => Connection::open_in_memory(),
        }
        .map_err(error)?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS alarms (
                tenant TEXT NOT NULL, class TEXT NOT NULL, id TEXT NOT NULL,
                at INTEGER NOT NULL, retries INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (tenant, class, id)) WITHOUT ROWID;
             CREATE INDEX IF NOT EXISTS alarms_at ON alarms (at);",
        )
        .map_err(error)?;
        Ok(Alarms {
            conn: Mutex::new(conn),
            running: Mutex::default(),
            set: tokio::sync::Notify::new(),
        })
    }

    /// When `key`'s alarm runs (ms since the epoch), if set.
    pub(super) fn get(&self, key: &Key) -> Result<Option<i64>, String> {
        crate::sync::lock(&self.conn)
            .query_row(
                "SELECT at FROM alarms WHERE tenant = ?1 AND class = ?2 AND id = ?3",
                params![key.tenant, key.class, key.id],
                |r| r.get(0),
            )
            .optional()
            .map_err(error)
    }

    /// `key`'s alarm runs at `at` (ms since the epoch).
    pub(super) fn set(&self, key: &Key, at: i64) -> Result<(), String> {
        crate::sync::lock(&self.conn)
            .execute(
                "INSERT OR REPLACE INTO alarms (tenant, class, id, at, retries) VALUES (?1, ?2, ?3, ?4, 0)",
                params![key.tenant, key.class, key.id, at],
            )
            .map_err(error)?;
        self.set.notify_one();
        Ok(())
    }

    /// `key` has no alarm.
    pub(super) fn delete(&self, key: &Key) -> Result<(), String> {
        crate::sync::lock(&self.conn)
            .execute(
                "DELETE FROM alarms WHERE tenant = ?1 AND class = ?2 AND id = ?3",
                params![key.tenant, key.class, key.id],
            )
            .map(drop)
            .map_err(error)
    }

    /// The alarms due at `now` that are not running, each marked running;
    /// and when the next of the others is due.
    fn due(&self, now: i64) -> Result<(Vec<Due>, Option<i64>), String> {
        let conn = crate::sync::lock(&self.conn);
        let mut running = crate::sync::lock(&self.running);
        let mut stmt = conn
            .prepare_cached(
                "SELECT tenant, class, id, at, retries FROM alarms ORDER BY at LIMIT 256",
            )
            .map_err(error)?;
        let rows = stmt
            .query_map([], |r| {
                let key = Key {
                    tenant: r.get(0)?,
                    class: r.get(1)?,
                    id: r.get(2)?,
                };
                Ok((key, r.get::<_, i64>(3)?, r.get::<_, u32>(4)?))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(error)?;
        let (mut due, mut next) = (Vec::new(), None);
        for (key, at, retries) in rows {
            if running.contains(&key) {
                continue;
            }
            if at <= now {
                running.insert(key.clone());
                due.push((key, at, retries));
            } else {
                next = Some(at);
                break;
            }
        }
        Ok((due, next))
    }

    /// `key`'s run of its alarm set for `at` ended, `ok` or not: done,
    /// retried later, or dropped, unless it was set again meanwhile.
    fn ran(&self, key: &Key, at: i64, retries: u32, ok: bool) {
        let conn = crate::sync::lock(&self.conn);
        let out = if ok {
            conn.execute(
                "DELETE FROM alarms WHERE tenant = ?1 AND class = ?2 AND id = ?3 AND at = ?4",
                params![key.tenant, key.class, key.id, at],
            )
        } else if retries >= RETRIES {
            tracing::warn!(
                tenant = key.tenant,
                class = key.class,
                id = key.id,
                "Durable Object alarm dropped: its handler failed {} times",
                retries + 1
            );
            conn.execute(
                "DELETE FROM alarms WHERE tenant = ?1 AND class = ?2 AND id = ?3 AND at = ?4",
                params![key.tenant, key.class, key.id, at],
            )
        } else {
            let again = now_ms() + (2_000i64 << retries);
            conn.execute(
                "UPDATE alarms SET at = ?5, retries = ?6 WHERE tenant = ?1 AND class = ?2 AND id = ?3 AND at = ?4",
                params![key.tenant, key.class, key.id, at, again, retries + 1],
            )
        };
        if let Err(e) = out {
            tracing::warn!("Durable Object alarms: {e}");
        }
        crate::sync::lock(&self.running).remove(key);
        // Its next time (a retry's) is for the task to see.
        self.set.notify_one();
    }
}

/// Runs alarms as they come due while `objects` is in use, on the
/// server's runtime.
pub(super) fn start(objects: Weak<Objects>) {
    let Some(runtime) = objects.upgrade().and_then(|o| o.runtime()) else {
        return;
    };
    runtime.spawn(async move {
        loop {
            let Some(o) = objects.upgrade() else {
                return;
            };
            let now = now_ms();
            let (due, next) = o.alarms.due(now).unwrap_or_else(|e| {
                tracing::warn!("{e}");
                (Vec::new(), None)
            });
            for (key, at, retries) in due {
                let o = o.clone();
                tokio::spawn(async move {
                    let what = serde_json::json!({
                        "kind": "alarm",
                        "retryCount": retries,
                        "isRetry": retries > 0,
                    });
                    let out = o
                        .call(
                            &key,
                            what.to_string(),
                            Vec::new(),
                            Instant::now() + RUN_TIME,
                            None,
                        )
                        .await;
                    let ok = matches!(&out, Ok(a) if a.status < 300);
                    if let Err(e) = &out {
                        tracing::warn!(
                            tenant = key.tenant,
                            class = key.class,
                            id = key.id,
                            "Durable Object alarm failed: {e}"
                        );
                    }
                    let outcome = if ok { "ok" } else { "failed" };
                    metrics::counter!("ssr_object_alarms_total", "outcome" => outcome).increment(1);
                    o.alarms.ran(&key, at, retries, ok);
                });
            }
            let wait = next.map_or(LOOK_EVERY, |at| {
                Duration::from_millis((at - now).max(0) as u64).min(LOOK_EVERY)
            });
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = o.alarms.set.notified() => {}
            }
        }
    });
}
