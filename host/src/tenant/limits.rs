//! Per-tenant limits: what a registration may set ([`LimitOverrides`], stored
//! with it), the server's defaults for them ([`Defaults`], from `Config`),
//! and what then applies to the tenant's renders ([`AppliedLimits`]).
//!
//! Invariants: a registration stores only what it set, so a tenant that set
//! nothing follows the server's defaults across restarts with new flags; a
//! limit that cannot hold (zero, or memory over the server's cap, which is
//! the size of a pooling-allocator slot) is refused at registration with
//! the setting's name.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Mode, TenantError};
use crate::engine::{self, EngineKind};

/// Each limit's name and largest value (the smallest is 1): bounds that keep
/// every stored value usable (no overflow in a unit conversion, no
/// semaphore beyond what tokio allows).
pub const RANGES: [(&str, u64); 11] = [
    ("render_deadline_ms", 600_000),
    ("memory_limit_mib", 1 << 20),
    ("max_response_kib", 1 << 22),
    ("max_concurrency", 4_096),
    ("max_request_kib", 1 << 22),
    ("max_upload_mib", 1 << 20),
    ("max_subrequests", 10_000),
    ("max_fetch_kib", 1 << 22),
    ("kv_mib", 1 << 24),
    ("r2_mib", 1 << 24),
    ("d1_mib", 1 << 24),
];

/// The limits a registration may set; each one not set is the server's default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitOverrides {
    /// The CPU time one render may use, in milliseconds (its waits cost none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_deadline_ms: Option<u64>,
    /// Cap on an instance's memory (Wasm linear memory or the V8 heap), MiB;
    /// at most the server's `--memory-limit-mib`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit_mib: Option<usize>,
    /// The largest response body a render may produce, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_response_kib: Option<usize>,
    /// Renders of this tenant in flight at once, across all workers; more
    /// wait for one to finish (within the request's deadline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<usize>,
    /// The largest request body the host reads for this tenant, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_request_kib: Option<usize>,
    /// The largest request body its renderer may read as it arrives, MiB:
    /// past `max_request_kib`, the rest streams into the renderer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_upload_mib: Option<usize>,
    /// Outbound requests (`fetch`) one render may make.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_subrequests: Option<usize>,
    /// Response bytes one render may fetch, all its requests together, KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_fetch_kib: Option<usize>,
    /// What its KV namespaces hold, all together, MiB (the embedded
    /// store's quota; `--kv-tenant-mib` where not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_mib: Option<u64>,
    /// What its R2 buckets hold, all together, MiB (`--r2-tenant-mib`
    /// where not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r2_mib: Option<u64>,
    /// The largest each of its D1 databases grows, MiB (`--d1-max-mib`
    /// where not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub d1_mib: Option<u64>,
}

impl LimitOverrides {
    /// Sets `name` (as in the admin API's query) from its text.
    pub fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
        let n =
            || {
                value.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    format!("`{name}` must be a whole number above 0, not `{value}`")
                })
            };
        match name {
            "render_deadline_ms" => self.render_deadline_ms = Some(n()?),
            "memory_limit_mib" => self.memory_limit_mib = Some(n()? as usize),
            "max_response_kib" => self.max_response_kib = Some(n()? as usize),
            "max_concurrency" => self.max_concurrency = Some(n()? as usize),
            "max_request_kib" => self.max_request_kib = Some(n()? as usize),
            "max_upload_mib" => self.max_upload_mib = Some(n()? as usize),
            "max_subrequests" => self.max_subrequests = Some(n()? as usize),
            "max_fetch_kib" => self.max_fetch_kib = Some(n()? as usize),
            "kv_mib" => self.kv_mib = Some(n()?),
            "r2_mib" => self.r2_mib = Some(n()?),
            "d1_mib" => self.d1_mib = Some(n()?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The names [`LimitOverrides::set`] knows, for error messages.
    pub const NAMES: &'static str = "`render_deadline_ms`, `memory_limit_mib`, `max_response_kib`, `max_concurrency`, `max_request_kib`, `max_upload_mib`, `max_subrequests`, `max_fetch_kib`, `kv_mib`, `r2_mib`, `d1_mib`";

    /// Checks that each limit set is within its range ([`RANGES`]): what a
    /// stored registration must pass to be applied at all.
    pub fn check_ranges(&self) -> Result<(), TenantError> {
        let set = [
            self.render_deadline_ms,
            self.memory_limit_mib.map(|v| v as u64),
            self.max_response_kib.map(|v| v as u64),
            self.max_concurrency.map(|v| v as u64),
            self.max_request_kib.map(|v| v as u64),
            self.max_upload_mib.map(|v| v as u64),
            self.max_subrequests.map(|v| v as u64),
            self.max_fetch_kib.map(|v| v as u64),
            self.kv_mib,
            self.r2_mib,
            self.d1_mib,
        ];
        for ((name, max), value) in RANGES.iter().zip(set) {
            if let Some(v) = value
                && (v == 0 || v > *max)
            {
                return Err(TenantError::Limit(format!(
                    "`{name}` {v} is out of range; use 1 to {max}"
                )));
            }
        }
        Ok(())
    }

    /// Checks what was set: its range, then the server's caps (a tenant may
    /// lower its memory, response and request caps, not raise them).
    pub fn validate(&self, d: &Defaults) -> Result<(), TenantError> {
        self.check_ranges()?;
        let caps = [
            (
                "max_response_kib",
                self.max_response_kib,
                d.max_response_bytes >> 10,
                "--max-response-kib",
            ),
            (
                "max_request_kib",
                self.max_request_kib,
                d.max_request_bytes >> 10,
                "--max-request-kib",
            ),
            (
                "max_upload_mib",
                self.max_upload_mib,
                d.max_upload_bytes >> 20,
                "--max-upload-mib",
            ),
            (
                "max_subrequests",
                self.max_subrequests,
                d.max_subrequests,
                "--max-subrequests",
            ),
            (
                "max_fetch_kib",
                self.max_fetch_kib,
                d.max_fetch_bytes >> 10,
                "--max-fetch-kib",
            ),
            (
                "memory_limit_mib",
                self.memory_limit_mib,
                d.memory_limit >> 20,
                "--memory-limit-mib",
            ),
        ];
        for (name, set, cap, flag) in caps {
            if let Some(v) = set
                && v > cap
            {
                return Err(TenantError::Limit(format!(
                    "`{name}` {v} is over the server's {flag} {cap}; a tenant may lower it, not raise it"
                )));
            }
        }
        Ok(())
    }

    /// The limits that apply to a tenant on `engine`.
    pub fn resolve(&self, engine: EngineKind, d: &Defaults) -> AppliedLimits {
        AppliedLimits {
            render_deadline: self
                .render_deadline_ms
                .map_or(d.render_deadline, Duration::from_millis),
            memory: lowered(self.memory_limit_mib, 20, d.memory_limit),
            max_response_bytes: lowered(self.max_response_kib, 10, d.max_response_bytes),
            concurrency: self
                .max_concurrency
                .unwrap_or_else(|| d.concurrency(engine)),
            max_request_bytes: lowered(self.max_request_kib, 10, d.max_request_bytes),
            max_upload_bytes: lowered(self.max_upload_mib, 20, d.max_upload_bytes),
            max_subrequests: lowered(self.max_subrequests, 0, d.max_subrequests),
            max_fetch_bytes: lowered(self.max_fetch_kib, 10, d.max_fetch_bytes),
            // Quotas are the operator's to set either way: a tenant's
            // token may not change its limits (`docs/admin-api.md`).
            quotas: crate::bindings::Quotas {
                kv_bytes: self.kv_mib.map_or(d.bindings.kv_tenant_bytes, |m| m << 20),
                r2_bytes: self.r2_mib.map_or(d.bindings.r2_tenant_bytes, |m| m << 20),
                d1_bytes: self.d1_mib.map_or(d.bindings.d1_max_bytes, |m| m << 20),
            },
        }
    }
}

/// A limit a tenant may lower but not raise: what it `set`, in its unit
/// (`<< shift` makes bytes of KiB or MiB), else the server's `cap`.
fn lowered(set: Option<usize>, shift: u32, cap: usize) -> usize {
    set.map_or(cap, |v| v << shift).min(cap)
}

/// The server's defaults for every tenant (`Config::tenant_defaults`).
#[derive(Clone, Debug)]
pub struct Defaults {
    pub mode: Mode,
    pub max_plugin_bytes: usize,
    pub render_deadline: Duration,
    pub memory_limit: usize,
    pub max_response_bytes: usize,
    pub max_request_bytes: usize,
    pub max_upload_bytes: usize,
    pub max_subrequests: usize,
    pub max_fetch_bytes: usize,
    /// `--tenant-concurrency`; `None` picks per engine (see
    /// [`Defaults::concurrency`]).
    pub concurrency: Option<usize>,
    pub workers: usize,
    /// `--v8-threads`: the V8 renders the server runs or awaits at once.
    pub v8_threads: usize,
    /// `--d1-max-mib`, `--kv-tenant-mib` and `--r2-tenant-mib`.
    pub bindings: crate::bindings::Limits,
    /// `--objects`: where R2's bytes go, when not in the data dir.
    pub objects: Option<crate::config::ObjectsUrl>,
}

impl Defaults {
    /// A tenant's default concurrency cap.
    /// - Wasm: one render per worker. A Wasm render yields every time
    ///   slice, so that fills `1 / --renders-per-worker` of the slots.
    /// - V8: half the V8 threads (which are also the renders awaited in
    ///   worker processes at once). A V8 render cannot yield: it holds its
    ///   thread until it ends, and the rest are left to other tenants; the
    ///   kernel shares the cores, and lowers a long render (`crate::sched`).
    ///
    /// V8's cap was one per worker too: a core then sat idle while a render
    /// went to a worker process and back. On 2 cores (`wrk -t1 -c16`, every
    /// request rendered, one server per cap, alternating, 2026-11-27), 2
    /// against 4: in worker processes, trivial page 9,213-9,918 against
    /// 10,092-11,796 req/s, Hono 6,341-6,883 against 7,623-8,145; in the
    /// server's process, trivial 9,638-10,342 against 10,892-12,783.
    /// Wasm at one more (the HTTP thread's first slice) rendered 7-14% more
    /// (8,293-9,021 against 7,498-8,610 on the trivial page), but the good
    /// tenant of `benches/attack.sh` missed its bound in one round of three
    /// in two runs (12.74 ms against 11.60), where one per worker met every
    /// round with room (5.64-6.02 ms against 7.25-9.61).
    pub fn concurrency(&self, engine: EngineKind) -> usize {
        self.concurrency.unwrap_or(match engine {
            EngineKind::Wasm => self.workers,
            EngineKind::V8 => (self.v8_threads / 2).max(1),
        })
    }
}

impl Default for Defaults {
    /// What `ssr serve` gives tenants with no flags set.
    fn default() -> Self {
        Defaults::from(&crate::config::Config::default())
    }
}

impl From<&crate::config::Config> for Defaults {
    /// What tenants get for the limits they do not set.
    fn from(c: &crate::config::Config) -> Self {
        Defaults {
            mode: c.mode,
            max_plugin_bytes: c.max_plugin_mib.bytes(),
            render_deadline: c.render_deadline.duration(),
            memory_limit: c.memory_limit_mib.bytes(),
            max_response_bytes: c.max_response_kib.bytes(),
            max_request_bytes: c.max_request_kib.bytes(),
            max_upload_bytes: c.max_upload_mib.bytes(),
            max_subrequests: c.max_subrequests,
            max_fetch_bytes: c.max_fetch_kib.bytes(),
            concurrency: c.tenant_concurrency,
            workers: c.workers,
            v8_threads: c.v8_threads(),
            bindings: crate::bindings::Limits {
                d1_max_bytes: c.d1_max_mib.bytes() as u64,
                kv_tenant_bytes: c.kv_tenant_mib.bytes() as u64,
                r2_tenant_bytes: c.r2_tenant_mib.bytes() as u64,
                r2_upload_expiry: c.r2_upload_expiry.duration(),
                object_idle: c.object_idle.duration(),
                object_event: c.request_timeout.duration(),
            },
            // Checked by `Config::validate`.
            objects: c
                .objects
                .as_deref()
                .and_then(|o| crate::config::ObjectsUrl::parse(o).ok()),
        }
    }
}

/// The limits that apply to one tenant version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppliedLimits {
    pub render_deadline: Duration,
    pub memory: usize,
    pub max_response_bytes: usize,
    pub concurrency: usize,
    pub max_request_bytes: usize,
    pub max_upload_bytes: usize,
    pub max_subrequests: usize,
    pub max_fetch_bytes: usize,
    pub quotas: crate::bindings::Quotas,
}

impl AppliedLimits {
    /// What the engine enforces itself.
    pub fn engine(&self) -> engine::InstanceCaps {
        engine::InstanceCaps {
            memory: self.memory,
        }
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn defaults() -> Defaults {
        Defaults {
            workers: 4,
            v8_threads: 16,
            ..Defaults::default()
        }
    }

    fn unset_limits_follow_the_defaults() {
        let d = defaults();
        let l = LimitOverrides::default().resolve(EngineKind::Wasm, &d);
        assert_eq!(l.render_deadline, d.render_deadline);
        assert_eq!(l.memory, d.memory_limit);
        // One per worker.
        assert_eq!(l.concurrency, 4);
        let v8 = |d: &Defaults| {
            LimitOverrides::default()
                .resolve(EngineKind::V8, d)
                .concurrency
        };
        // Half the V8 threads, and at least one.
        assert_eq!(v8(&d), 8);
        assert_eq!(
            v8(&Defaults {
                v8_threads: 4,
                ..d.clone()
            }),
            2
        );
        assert_eq!(
            v8(&Defaults {
                v8_threads: 1,
                ..d.clone()
            }),
            1
        );
    }

    fn set_limits_obeyed() {
        let mut t = LimitOverrides::default();
        assert!(t.set("render_deadline_ms", "250").unwrap());
        assert!(t.set("max_concurrency", "1").unwrap());
        assert!(!t.set("colour", "red").unwrap());
        t.validate(&defaults()).unwrap();
        let l = t.resolve(EngineKind::Wasm, &defaults());
        assert_eq!(l.render_deadline, Duration::from_millis(250));
        assert_eq!(l.concurrency, 1);
    }

    fn bad_limits_violated() {
        let mut t = LimitOverrides::default();
        assert!(t.set("max_concurrency", "0").is_err());
        assert!(t.set("render_deadline_ms", "soon").is_err());
        t.memory_limit_mib = Some(100_000);
        let e = t.validate(&defaults()).unwrap_err().to_string();
        assert!(e.contains("memory_limit_mib"), "{e}");
        // 2^44 MiB once wrapped to 0 bytes when shifted.
        t.memory_limit_mib = Some(1 << 44);
        let e = t.check_ranges().unwrap_err().to_string();
        assert!(e.contains("out of range; use 1 to 1048576"), "{e}");
    }

    crate::unit_tests!(
        unset_limits_follow_the_defaults,
        set_limits_obeyed,
        bad_limits_violated
    );
}
