//! Renderers' `console.*` output on its way to the host's log, on both
//! engines: each instance owns a [`Console`], which bounds and escapes what
//! its tenant writes.
//!
//! Invariants:
//! - One render writes at most [`RENDER_BYTES`] in [`RENDER_LINES`] lines;
//!   one tenant, over all its instances, at most [`TENANT_BYTES_PER_SEC`]
//!   and [`TENANT_LINES_PER_SEC`] (a bucket holding [`TENANT_BURST_SECS`]
//!   seconds of them). A line past a budget is dropped, and a long line
//!   is cut at what is left; both are counted in
//!   `ssr_console_dropped_lines_total{tenant}` and
//!   `ssr_console_dropped_bytes_total{tenant}`, and the first drop of a
//!   render is said once in the log.
//! - A tenant's text never reaches the log unescaped: [`escape`](crate::logs::escape) writes
//!   control characters (newlines, ANSI escapes, line separators) as
//!   `\n`, `\u{1b}`, ..., so a renderer cannot forge a line of the host's. It
//!   is the one place that does so, for console lines and for error
//!   messages and stacks alike.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Instant;

use contract::LogLevel;

use crate::logs::{escape, floor_char_boundary};

/// What one render may write: enough for a page's diagnostics, far from
/// the 1 MB x 1000 lines one V8 render once wrote (349 MB of log).
pub const RENDER_BYTES: usize = 64 << 10;
pub const RENDER_LINES: usize = 256;
/// What one tenant may write per second, over all its renders.
pub const TENANT_BYTES_PER_SEC: f64 = (64 << 10) as f64;
pub const TENANT_LINES_PER_SEC: f64 = 256.0;
/// How many seconds of the tenant's rate may be written at once.
pub const TENANT_BURST_SECS: f64 = 4.0;

/// One instance's console: its tenant, and what the render in progress has
/// written.
pub struct Console {
    tenant: Arc<str>,
    /// The request being rendered, for the tenant's log followers.
    method: String,
    path: String,
    bytes: AtomicUsize,
    lines: AtomicUsize,
    /// Whether this render's first drop was said.
    said: AtomicBool,
}

impl Console {
    pub fn new(tenant: &str) -> Console {
        Console {
            tenant: tenant.into(),
            method: String::new(),
            path: String::new(),
            bytes: AtomicUsize::new(0),
            lines: AtomicUsize::new(0),
            said: AtomicBool::new(false),
        }
    }

    /// A new render of `req` starts with the whole per-render budget.
    pub fn start_render(&mut self, req: &contract::Request) {
        self.method.clone_from(&req.method);
        self.path.clear();
        self.path.push_str(&req.base);
        self.path.push_str(&req.url);
        self.bytes.store(0, Ordering::Relaxed);
        self.lines.store(0, Ordering::Relaxed);
        self.said.store(false, Ordering::Relaxed);
    }

    /// Logs one `console.*` line at `level`, within the budgets.
    pub fn write(&self, level: LogLevel, message: &str) {
        let lines = self.lines.fetch_add(1, Ordering::Relaxed);
        let used = self.bytes.load(Ordering::Relaxed);
        let room = RENDER_BYTES.saturating_sub(used);
        let mut keep = if lines < RENDER_LINES {
            message.len().min(room)
        } else {
            0
        };
        if keep > 0 {
            keep = tenant_budget(&self.tenant, keep);
        }
        let cut = floor_char_boundary(message, keep);
        if cut < message.len() {
            self.dropped(message.len() - cut, cut == 0);
        }
        if cut == 0 {
            return;
        }
        self.bytes.fetch_add(cut, Ordering::Relaxed);
        let text = escape(&message[..cut]);
        let more = if cut < message.len() { " [cut]" } else { "" };
        let tenant = &*self.tenant;
        match level {
            LogLevel::Debug => tracing::debug!(target: "ssr::console", tenant, "{text}{more}"),
            LogLevel::Info => tracing::info!(target: "ssr::console", tenant, "{text}{more}"),
            LogLevel::Warn => tracing::warn!(target: "ssr::console", tenant, "{text}{more}"),
            LogLevel::Error => tracing::error!(target: "ssr::console", tenant, "{text}{more}"),
        }
        if crate::logs::wanted(tenant) {
            let level = match level {
                LogLevel::Debug => "debug",
                LogLevel::Info => "info",
                LogLevel::Warn => "warn",
                LogLevel::Error => "error",
            };
            let line = format!("{text}{more}");
            crate::logs::publish(tenant, level, &self.method, &self.path, &line);
        }
    }

    /// The render failed, as `said` (an error with its stack): its
    /// followers see it (the host's log has it from `http/routes.rs`).
    pub fn failed(&self, said: &str) {
        if !crate::logs::wanted(&self.tenant) {
            return;
        }
        // Each line escaped, the stack's line breaks kept.
        let said: Vec<_> = said.lines().map(escape).collect();
        crate::logs::publish(
            &self.tenant,
            "error",
            &self.method,
            &self.path,
            &said.join("\n"),
        );
    }

    fn dropped(&self, bytes: usize, line: bool) {
        let tenant = self.tenant.to_string();
        metrics::counter!("ssr_console_dropped_bytes_total", "tenant" => tenant.clone())
            .increment(bytes as u64);
        if line {
            metrics::counter!("ssr_console_dropped_lines_total", "tenant" => tenant).increment(1);
        }
        if !self.said.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                tenant = &*self.tenant,
                "console output over its budget ({RENDER_BYTES} bytes and {RENDER_LINES} lines a render, {TENANT_BYTES_PER_SEC} bytes and {TENANT_LINES_PER_SEC} lines a second a tenant); the rest of this render's is dropped or cut (ssr_console_dropped_*)"
            );
        }
    }
}

/// A tenant's allowance: bytes and lines that refill at its rate.
struct Bucket {
    bytes: f64,
    lines: f64,
    at: Instant,
}

static BUCKETS: LazyLock<Mutex<HashMap<Arc<str>, Bucket>>> = LazyLock::new(Default::default);

/// Takes one line of up to `want` bytes from `tenant`'s bucket; returns the
/// bytes it may write (0: none).
fn tenant_budget(tenant: &Arc<str>, want: usize) -> usize {
    let mut buckets = crate::sync::lock(&BUCKETS);
    let now = Instant::now();
    let b = buckets.entry(tenant.clone()).or_insert(Bucket {
        bytes: TENANT_BYTES_PER_SEC * TENANT_BURST_SECS,
        lines: TENANT_LINES_PER_SEC * TENANT_BURST_SECS,
        at: now,
    });
    let secs = now.duration_since(b.at).as_secs_f64();
    b.at = now;
    b.bytes = (b.bytes + secs * TENANT_BYTES_PER_SEC).min(TENANT_BYTES_PER_SEC * TENANT_BURST_SECS);
    b.lines = (b.lines + secs * TENANT_LINES_PER_SEC).min(TENANT_LINES_PER_SEC * TENANT_BURST_SECS);
    if b.lines < 1.0 {
        return 0;
    }
    let granted = want.min(b.bytes as usize);
    if granted > 0 {
        b.lines -= 1.0;
        b.bytes -= granted as f64;
    }
    granted
}
