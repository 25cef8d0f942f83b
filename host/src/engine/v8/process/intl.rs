//! The Wasm engine's `Intl` (`web/intl.rs`), answered in a V8 worker
//! process of its own: each lane there has a service isolate that runs only
//! `intl.js`, never a tenant's code (`host/v8-worker/src/service.rs`).
//!
//! Why a worker process: ICU's C++ parses a tenant's locale tags and
//! options, and a bug there ends that process, never the server; and the
//! server links no V8 (`docs/engines.md`). It costs a round trip on a lane
//! per call.
//!
//! Invariants:
//! - The process is started at the first call, and again after it dies; a
//!   call in flight when it dies fails alone. Crashes count as a tenant's
//!   would ([`INTL`] is the tenant): five in ten minutes pause `Intl` for a
//!   minute (`Supervisor::crashed`).
//! - The node it runs is the server's (`configure`), or found as
//!   `process::Node::find` finds one.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{Answers, Broken, GRACE, Node, Outcome, Proc, ProcessOptions, Supervisor, ToWorker};
use crate::sync::lock;
use crate::web::{Grants, Imports};

/// The tenant the service's process is placed and struck as.
const INTL: &str = "(intl)";

/// How long one call may take, queueing for a lane included.
const DEADLINE: Duration = Duration::from_secs(2);

/// The `node` the service runs and its process's address space
/// (`configure`).
static SETTINGS: OnceLock<(Result<Node, String>, u64)> = OnceLock::new();

/// The service, or why there is none; made at the first call.
static SERVICE: OnceLock<Result<Service, String>> = OnceLock::new();

struct Service {
    supervisor: Arc<Supervisor>,
    /// Its live process, once started.
    at: Mutex<Option<Arc<Proc>>>,
    tenant: Arc<str>,
}

/// Sets the `node` the service runs and the address space of its process
/// (the server's `--v8-process-memory-mib`), before the first call; later
/// calls change nothing.
pub fn configure(node: Result<Node, String>, address_space: u64) {
    let _ = SETTINGS.set((node, address_space));
}

/// The service for calls of at most `max_args` bytes.
fn service(max_args: usize) -> Result<Service, String> {
    let (node, address_space) = SETTINGS
        .get_or_init(|| {
            let space = crate::config::Config::default().v8_process_memory_mib;
            (Node::find_default(), space.bytes() as u64)
        })
        .clone();
    let lanes = std::thread::available_parallelism().map_or(4, |n| n.get().min(16));
    let options = ProcessOptions {
        node: node?,
        max: 1,
        lanes,
        async_lanes: 0,
        address_space,
        // The arguments, an answer as long, and room.
        frame_limit: 2 * max_args + (1 << 20),
    };
    Ok(Service {
        supervisor: Supervisor::blocking(options),
        at: Mutex::default(),
        tenant: INTL.into(),
    })
}

/// The answer of `intl.js` to `args`, or the failure's message; calls
/// carry at most `max_args` bytes (the caller's bound, the same each time).
pub fn call(args: &str, max_args: usize) -> Result<String, String> {
    let service = SERVICE
        .get_or_init(|| service(max_args))
        .as_ref()
        .map_err(|why| format!("TypeError: Intl is not available: {why}"))?;
    service.ask(args)
}

impl Service {
    fn ask(&self, args: &str) -> Result<String, String> {
        let ends = Instant::now() + DEADLINE;
        let message = ToWorker::Intl {
            args: args.to_string(),
        };
        let mut imports = Imports::new(&Grants::new(INTL));
        let mut refused = None;
        loop {
            let proc = self.process()?;
            let mut answers = Answers {
                imports: &mut imports,
                refused: &mut refused,
            };
            let limit = self.supervisor.options.frame_limit;
            match proc.exchange(&message, &mut answers, ends, limit) {
                Ok((Outcome::Ok { body, .. }, _, _)) => {
                    return String::from_utf8(body)
                        .map_err(|_| "TypeError: Intl answered bytes that are not UTF-8".into());
                }
                Ok((Outcome::JsError(why), _, _)) => return Err(why),
                Ok((other, _, _)) => return Err(format!("RangeError: Intl: {other:?}")),
                // Every lane is in a call: wait for one, within the deadline.
                Err(Broken::NoLane) if Instant::now() < ends => {
                    std::thread::sleep(Duration::from_micros(200));
                }
                Err(Broken::NoLane) => return Err("RangeError: Intl: every lane is busy".into()),
                Err(Broken::Io(e)) => {
                    lock(&self.at).take();
                    let why = format!("its process failed ({e}) within {GRACE:?} of the deadline");
                    let _ = self.supervisor.crashed(&proc, &self.tenant, &why);
                    return Err(format!("RangeError: Intl: the call failed: {why}"));
                }
            }
        }
    }

    /// The live process, started if there is none.
    fn process(&self) -> Result<Arc<Proc>, String> {
        let mut at = lock(&self.at);
        if let Some(proc) = at
            .as_ref()
            .filter(|p| !p.dead.load(std::sync::atomic::Ordering::Acquire))
        {
            return Ok(proc.clone());
        }
        let proc = self
            .supervisor
            .place(&self.tenant)
            .map_err(|e| format!("RangeError: Intl is not available: {e}"))?;
        *at = Some(proc.clone());
        Ok(proc)
    }
}
