//! Following a tenant's log (`ssr tenant logs ID --follow`): its console
//! lines and render errors, as they happen, to whoever follows it here, and
//! through the shared store to followers on other replicas.
//!
//! Invariants:
//! - A render never waits for a follower: a line goes into each follower's
//!   bounded channel, or, when that is full, is dropped and counted
//!   (`ssr_log_lines_dropped_total{tenant}`), and the follower is told how
//!   many it lost when it reads again. A follower that stops reading holds
//!   at most [`FOLLOWER_LINES`] lines and its connection's buffers
//!   ([`SEND_BUFFER`]), and is let go by the server's send timeout.
//! - A tenant nobody follows costs one read-locked map lookup per line.
//! - Lines are the same text the host's log gets: budgeted by the console
//!   (`web/console.rs`), escaped, secrets redacted.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;

/// How many lines a follower may be behind before it loses the oldest, and
/// the longest line it gets (longer ones are cut): what a followed tenant
/// may hold of the server's memory, at most 2 MiB.
pub const FOLLOWER_LINES: usize = 256;
pub const LINE_BYTES: usize = 8 << 10;
/// The kernel's send buffer of a follower's connection.
pub const SEND_BUFFER: usize = 32 << 10;

/// How long a replica keeps sending a tenant's lines to the shared store
/// after another replica last said it follows the tenant; followers say so
/// every [`REMOTE_FOLLOW_EVERY`].
pub const REMOTE_FOLLOW_FOR: Duration = Duration::from_secs(15);
pub const REMOTE_FOLLOW_EVERY: Duration = Duration::from_secs(5);

/// One line of a tenant's log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Line {
    /// RFC 3339, in UTC, to the millisecond.
    pub time: String,
    /// `debug`, `info`, `warn` or `error`.
    pub level: String,
    /// The request being rendered: method and path (with its query).
    pub method: String,
    pub path: String,
    pub message: String,
}

/// What goes to the other replicas (`tenant::sync::forward_logs`).
pub enum Out {
    /// A line of a tenant that a follower elsewhere follows.
    Line(String, Line),
    /// A tenant's log is now followed here.
    Follow(String),
}

/// One follower, as the hub sees it.
struct Subscriber {
    id: u64,
    lines: mpsc::Sender<Arc<Line>>,
    /// Lines it lost since it last read.
    lost: Arc<AtomicU64>,
}

struct Hub {
    /// Tenants followed on this replica.
    local: RwLock<HashMap<String, Vec<Subscriber>>>,
    /// Tenants followed on other replicas, until when.
    remote: RwLock<HashMap<String, Instant>>,
    /// Where lines for other replicas go (set with a shared store).
    out: std::sync::OnceLock<crossbeam_channel::Sender<Out>>,
}

static HUB: LazyLock<Hub> = LazyLock::new(|| Hub {
    local: Default::default(),
    remote: Default::default(),
    out: Default::default(),
});

/// Whether anyone follows `tenant`, here or on another replica.
pub fn wanted(tenant: &str) -> bool {
    followed_here(tenant) || followed_there(tenant)
}

fn followed_here(tenant: &str) -> bool {
    crate::sync::read(&HUB.local).contains_key(tenant)
}

fn followed_there(tenant: &str) -> bool {
    HUB.out.get().is_some()
        && crate::sync::read(&HUB.remote)
            .get(tenant)
            .is_some_and(|until| Instant::now() < *until)
}

/// A tenant's line, given to its followers here and elsewhere.
pub fn publish(tenant: &str, level: &str, method: &str, path: &str, message: &str) {
    let (here, there) = (followed_here(tenant), followed_there(tenant));
    if !here && !there {
        return;
    }
    let line = Line {
        time: humantime::format_rfc3339_millis(SystemTime::now()).to_string(),
        level: level.to_string(),
        // The request's own text, as a client sent it: escaped like the
        // tenant's ([`escape`]), so that a follower's terminal shows
        // it as it is, and cut.
        method: loggable(method).into_owned(),
        path: loggable(path).into_owned(),
        message: if message.len() > LINE_BYTES {
            let mut cut = LINE_BYTES;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{} [cut]", &message[..cut])
        } else {
            message.to_string()
        },
    };
    if there && let Some(out) = HUB.out.get() {
        // Bounded: when the store cannot keep up, lines are dropped.
        if out
            .try_send(Out::Line(tenant.to_string(), line.clone()))
            .is_err()
        {
            dropped(tenant, 1);
        }
    }
    if here {
        deliver(tenant, line);
    }
}

/// Gives `line` to `tenant`'s followers on this replica.
pub fn deliver(tenant: &str, line: Line) {
    let local = crate::sync::read(&HUB.local);
    let Some(followers) = local.get(tenant) else {
        return;
    };
    let line = Arc::new(line);
    for f in followers {
        if f.lines.try_send(line.clone()).is_err() {
            f.lost.fetch_add(1, Ordering::Relaxed);
            dropped(tenant, 1);
        }
    }
}

/// Counts lines a follower (or the way to one) lost.
pub fn dropped(tenant: &str, lines: u64) {
    metrics::counter!("ssr_log_lines_dropped_total", "tenant" => tenant.to_string())
        .increment(lines);
}

/// A follower of one tenant on this replica; it stops following when
/// dropped.
pub struct Follower {
    tenant: String,
    id: u64,
    lines: mpsc::Receiver<Arc<Line>>,
    lost: Arc<AtomicU64>,
}

/// What a follower reads next.
pub enum Next {
    Line(Arc<Line>),
    /// It lost this many lines (it was too slow) before the next one.
    Lost(u64),
}

impl Follower {
    /// The next line, or what was lost before it.
    pub async fn next(&mut self) -> Next {
        let lost = self.lost.swap(0, Ordering::Relaxed);
        if lost > 0 {
            return Next::Lost(lost);
        }
        match self.lines.recv().await {
            Some(line) => Next::Line(line),
            // The hub holds the sender while this follower lives.
            None => std::future::pending().await,
        }
    }
}

/// Starts following `tenant` here.
pub fn follow(tenant: &str) -> Follower {
    static IDS: AtomicU64 = AtomicU64::new(0);
    metrics::gauge!("ssr_log_followers").increment(1.0);
    let (tx, lines) = mpsc::channel(FOLLOWER_LINES);
    let lost = Arc::new(AtomicU64::new(0));
    let id = IDS.fetch_add(1, Ordering::Relaxed);
    crate::sync::write(&HUB.local)
        .entry(tenant.to_string())
        .or_default()
        .push(Subscriber {
            id,
            lines: tx,
            lost: lost.clone(),
        });
    if let Some(out) = HUB.out.get() {
        let _ = out.try_send(Out::Follow(tenant.to_string()));
    }
    Follower {
        tenant: tenant.to_string(),
        id,
        lines,
        lost,
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        metrics::gauge!("ssr_log_followers").decrement(1.0);
        let mut local = crate::sync::write(&HUB.local);
        if let Some(followers) = local.get_mut(&self.tenant) {
            followers.retain(|f| f.id != self.id);
            if followers.is_empty() {
                local.remove(&self.tenant);
            }
        }
    }
}

/// The tenants followed on this replica now.
pub fn followed() -> Vec<String> {
    crate::sync::read(&HUB.local).keys().cloned().collect()
}

/// Another replica follows `tenant`: send its lines to the store for a
/// while.
pub fn follows_there(tenant: &str) {
    let now = Instant::now();
    let mut remote = crate::sync::write(&HUB.remote);
    remote.retain(|_, until| now < *until);
    remote.insert(tenant.to_string(), now + REMOTE_FOLLOW_FOR);
}

/// Where this replica's lines for followers elsewhere go; once, with a
/// shared store.
pub fn send_remote_lines_to(out: crossbeam_channel::Sender<Out>) {
    let _ = HUB.out.set(out);
}

/// The largest char boundary of `s` at or below `at`.
pub fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The most of one renderer-supplied field (an error's message or stack)
/// that a log line carries.
pub const LOG_FIELD_BYTES: usize = 8 << 10;

/// A renderer-supplied string for a log line: [`escape`]d, and cut at
/// [`LOG_FIELD_BYTES`].
pub fn loggable(s: &str) -> Cow<'_, str> {
    let cut = floor_char_boundary(s, LOG_FIELD_BYTES);
    match (escape(&s[..cut]), cut < s.len()) {
        (text, false) => text,
        (text, true) => Cow::Owned(format!("{text} [cut]")),
    }
}

/// `s` with every control character (C0 and C1), the Unicode line and
/// paragraph separators and the bidirectional controls (which reorder
/// what a terminal shows after them) written as an escape (`\n`,
/// `\u{1b}`, `\u{202e}`), so that it is one line of plain text that reads
/// as it is; borrowed when there is none.
pub fn escape(s: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}'
                    | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            )
    };
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn control_characters_are_escaped() {
        assert_eq!(escape("plain €"), "plain €");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(
            escape("a\nb\r\u{1b}[31m\u{2028}\t"),
            "a\\nb\\r\\u{1b}[31m\\u{2028}\\t"
        );
        assert_eq!(
            escape("C1 \u{9b}31m, bidi \u{202e}gnp.exe\u{2066}"),
            "C1 \\u{9b}31m, bidi \\u{202e}gnp.exe\\u{2066}"
        );
    }

    fn a_long_field_is_cut() {
        let long = "x\n".repeat(LOG_FIELD_BYTES);
        let text = loggable(&long);
        assert!(text.ends_with(" [cut]") && !text.contains('\n'));
        assert!(text.len() < LOG_FIELD_BYTES * 2);
    }

    fn a_cut_keeps_whole_characters() {
        assert_eq!(floor_char_boundary("aé", 2), 1);
        assert_eq!(floor_char_boundary("aé", 9), 3);
    }

    crate::unit_tests!(
        control_characters_are_escaped,
        a_long_field_is_cut,
        a_cut_keeps_whole_characters
    );
}
