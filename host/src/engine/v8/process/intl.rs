//! The Wasm engine's `Intl` (`web/intl.rs`), answered in a V8 worker
//! process of its own: each lane there has a service isolate that runs only
//! `intl.js`, never a tenant's code (`host/v8-worker/src/service.rs`).
//!
//! Why a worker process: ICU's C++ parses a tenant's locale tags and
//! options, and a bug there ends that process, never the server; and the
//! server links no V8 (`docs/engines.md`). It costs a round trip on a lane
//! per call, two threads' wake-ups (about 100 µs on 2 cores), so answers
//! are kept: an answer depends on its arguments alone (`web/intl.rs`), and
//! a page formats the same prices and dates render after render.
//!
//! Invariants:
//! - The process is started at the first call, and again after it dies; a
//!   call in flight when it dies fails alone. Crashes count as a tenant's
//!   would ([`INTL`] is the tenant): five in ten minutes pause `Intl` for a
//!   minute (`Supervisor::crashed`).
//! - The node it runs is the server's (`configure`), or found as
//!   `process::Node::find` finds one.
//! - Kept answers: the last [`KEPT`] whose arguments and answer are at
//!   most [`KEPT_BYTES`] bytes together, for every tenant (an answer is
//!   the same whoever asks).

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::{Answers, Broken, GRACE, Node, Outcome, Proc, ProcessOptions, Supervisor, ToWorker};
use crate::sync::lock;
use crate::web::{Grants, Imports};

/// The tenant the service's process is placed and struck as.
const INTL: &str = "(intl)";

/// Answers kept, and the largest kept (its arguments and itself).
const KEPT: usize = 4096;
const KEPT_BYTES: usize = 1024;

/// The answers kept, by their arguments.
static ANSWERS: Mutex<Option<hashlink::LruCache<String, Result<String, String>>>> =
    Mutex::new(None);

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
    if let Some(kept) = lock(&ANSWERS).as_mut().and_then(|a| a.get(args)) {
        return kept.clone();
    }
    let service = SERVICE
        .get_or_init(|| service(max_args))
        .as_ref()
        .map_err(|why| format!("TypeError: Intl is not available: {why}"))?;
    let (answer, pure) = service.ask(args);
    let size = args.len() + answer.as_ref().map_or_else(String::len, String::len);
    if pure && size <= KEPT_BYTES {
        lock(&ANSWERS)
            .get_or_insert_with(|| hashlink::LruCache::new(KEPT))
            .insert(args.to_string(), answer.clone());
    }
    answer
}

impl Service {
    /// The answer, and whether it is `intl.js`'s own (not a failure of the
    /// process or of the lanes, which another call may not meet).
    fn ask(&self, args: &str) -> (Result<String, String>, bool) {
        let ends = Instant::now() + DEADLINE;
        let message = ToWorker::Intl {
            args: args.to_string(),
        };
        let mut imports = Imports::new(&Grants::new(INTL));
        let mut refused = None;
        loop {
            let proc = match self.process() {
                Ok(proc) => proc,
                Err(why) => return (Err(why), false),
            };
            let mut answers = Answers {
                imports: &mut imports,
                refused: &mut refused,
            };
            let limit = self.supervisor.options.frame_limit;
            let answer = match proc.exchange(&message, &mut answers, ends, limit) {
                // `intl.js`'s answer, its errors (a bad locale or option)
                // included: pure.
                Ok((Outcome::Ok { body, .. }, _, _)) => String::from_utf8(body)
                    .map_err(|_| "TypeError: Intl answered bytes that are not UTF-8".into()),
                // The service's failure (out of time or memory).
                Ok((Outcome::JsError(why), _, _)) => return (Err(why), false),
                Ok((other, _, _)) => return (Err(format!("RangeError: Intl: {other:?}")), false),
                // Every lane is in a call: wait for one, within the deadline.
                Err(Broken::NoLane) if Instant::now() < ends => {
                    std::thread::sleep(Duration::from_micros(200));
                    continue;
                }
                Err(Broken::NoLane) => {
                    return (Err("RangeError: Intl: every lane is busy".into()), false);
                }
                Err(Broken::Io(e)) => {
                    lock(&self.at).take();
                    let why = format!("its process failed ({e}) within {GRACE:?} of the deadline");
                    let _ = self.supervisor.crashed(&proc, &self.tenant, &why);
                    return (
                        Err(format!("RangeError: Intl: the call failed: {why}")),
                        false,
                    );
                }
            };
            return (answer, true);
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
