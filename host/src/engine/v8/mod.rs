//! The V8 engine: the JavaScript bundle a plugin artifact carries, run in
//! V8 14 (Node 26's) in worker processes this server starts and watches
//! (`process/`): each is Node 26's `node` with `ssr`'s worker loaded as an
//! addon (`host/v8-worker`). Nothing of V8 runs in this process.
//!
//! Lifetimes:
//! - process: [`V8Engine`] (its supervisor, or why V8 cannot run here);
//! - tenant bundle: [`V8Plugin`] (the bundle's text, checked at load);
//! - instance: `process::RemoteInstance`, one isolate in a worker process
//!   with one context in which the prelude and the bundle were evaluated.
//!   An isolate serves one tenant, so a tenant that exhausts its heap or is
//!   terminated loses only its own isolate. A render cannot yield
//!   mid-script (`Plugin::yields`); a render waiting for a `fetch` leaves
//!   the isolate between calls.
//!
//! Limits (enforced in the worker): a render deadline (a watchdog thread
//! calls `TerminateExecution`; the instance is then discarded) and a heap
//! cap (V8's near-heap-limit callback terminates the script; the instance
//! is discarded). A render still running after `demote_after` (the
//! server's `--demote-after`, 20 ms by default) offers its core to other
//! threads every `sched::OFFER_EVERY` ([`core_offers`] counts them; the
//! policy is `crate::sched`'s): under five spinning V8 tenants a
//! well-behaved one's p99 went from 11.0-14.7 ms to 5.9-7.9 ms
//! (`benches/attack.sh`, V8, nine rounds each).
//!
//! Why processes: V8 aborts the whole process when one allocation inside a
//! C++ builtin cannot be satisfied (`new Array(5e8).fill(1.5)`, a 4 GB
//! backing store, whatever the heap cap), and a V8 bug exploited by a
//! tenant reaches only the process it ran in.

pub mod process;

/// How many times V8 renders offered their core, in worker processes.
pub fn core_offers() -> u64 {
    process::core_offers()
}

use std::sync::Arc;
use std::time::{Duration, Instant};

use contract::{ErrorKind, RenderError, Request, Response};

use super::{Budget, Engine, EngineError, Instance, InstanceCaps, Plugin, Rendering};
use crate::artifact;
use crate::config::Scheduling;
use crate::sched;
use crate::web::stream::Sink;
use crate::web::{Grants, Imports};
use process::Supervisor;
use process::wire::Outcome;

/// The tenant a registration's load check ([`V8Engine::load`]) runs as.
const LOAD_CHECK: &str = "(load)";

/// The V8 engine.
pub struct V8Engine {
    /// See [`super::EngineOptions::scheduling`].
    pub scheduling: Scheduling,
    /// The worker processes isolates live in, or why there are none (no
    /// usable `node`: `process::Node::find`), which a V8 tenant's
    /// registration is refused with.
    pub processes: Result<Arc<Supervisor>, String>,
}

impl V8Engine {
    /// Reads the bundle out of `artifact` and checks that V8 can load it (its
    /// top level runs once, in a throwaway isolate, where its instances
    /// will run).
    pub fn load(&self, artifact: &[u8], limits: InstanceCaps) -> Result<V8Plugin, EngineError> {
        let processes = self.processes.clone().map_err(EngineError::NoV8)?;
        let bundle = artifact::bundle(artifact)?;
        let plugin = V8Plugin {
            bundle: bundle.into(),
            params: Params {
                heap_limit: limits.memory,
                offer_after_ms: self.scheduling.demote_after.map_or(0, millis),
                offer_every_us: u32::try_from(sched::OFFER_EVERY.as_micros()).unwrap_or(u32::MAX),
            },
            processes,
        };
        plugin.instantiate(&Grants::new(LOAD_CHECK))?;
        Ok(plugin)
    }
}

/// What an isolate is made with.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Params {
    /// Its heap cap, in bytes.
    pub heap_limit: usize,
    /// A call still running after this long (0: never) offers its core
    /// every `offer_every_us` (`crate::sched`).
    pub offer_after_ms: u32,
    pub offer_every_us: u32,
}

impl Engine for V8Engine {
    fn load_plugin(
        &self,
        artifact: &[u8],
        limits: InstanceCaps,
    ) -> Result<Arc<dyn Plugin>, EngineError> {
        Ok(Arc::new(self.load(artifact, limits)?))
    }
}

/// A plugin's bundle, ready to make isolates.
pub struct V8Plugin {
    bundle: Arc<str>,
    params: Params,
    processes: Arc<Supervisor>,
}

impl Plugin for V8Plugin {
    /// With lanes the server's runtime drives.
    fn awaits(&self) -> bool {
        self.processes.awaits()
    }

    fn instantiate(&self, grants: &Arc<Grants>) -> Result<Box<dyn Instance>, EngineError> {
        Ok(Box::new(self.processes.instance(
            &self.bundle,
            self.params,
            Imports::new(grants),
        )?))
    }

    fn yields(&self) -> bool {
        false
    }
}

/// What loading the prelude and the bundle into an isolate ended in.
fn loaded(outcome: Outcome) -> Result<(), EngineError> {
    match outcome {
        Outcome::Ok { .. } => Ok(()),
        Outcome::Timeout => Err(EngineError::Instantiate(
            format!(
                "the bundle's top level did not finish within {:?}; move slow setup into `render`",
                super::INSTANTIATE_DEADLINE
            )
            .into(),
        )),
        other => Err(error(other, super::INSTANTIATE_DEADLINE)),
    }
}

/// A call into an isolate: a render's start, or its going on after a wait.
pub enum Entry<'a> {
    Render { request: &'a str, body: &'a [u8] },
    Resume { value: &'a str, data: &'a [u8] },
}

/// An isolate as the render loop ([`render`]) sees it: calls into it, and
/// what it reaches (`process::RemoteInstance`).
trait Calls: Send {
    /// Calls into the isolate: how it ended, and the CPU time it used.
    fn enter<'a>(
        &'a mut self,
        entry: Entry<'a>,
        cpu_ms: u32,
        deadline_ms: u32,
    ) -> impl Future<Output = Result<(Outcome, Duration), EngineError>> + Send + 'a;
    /// What its JavaScript reaches in the host.
    fn imports(&mut self) -> &mut Imports;
    /// Bytes of its heap in use.
    fn heap_used(&self) -> usize;
}

/// A render's calls into the isolate, and its waits for `fetch` in between,
/// until it settles or fails.
async fn run(
    isolate: &mut impl Calls,
    req: &Request,
    mut ends: Instant,
    budget: Budget,
) -> Result<Response, EngineError> {
    let left = |ends: Instant| millis(ends.saturating_duration_since(Instant::now()));

    // The prelude's raw request and normalized response are the
    // contract's serde form; the bodies travel beside the JSON.
    let json = serde_json::to_string(req)
        .map_err(|e| EngineError::Trap(format!("encoding the request: {e}").into()))?;
    // The CPU time left.
    let mut cpu = budget.cpu;
    let entry = Entry::Render {
        request: &json,
        body: &req.body,
    };
    let (mut outcome, used) = isolate.enter(entry, millis(cpu), left(ends)).await?;
    cpu = cpu.saturating_sub(used);
    renew(isolate.imports(), &mut ends, &mut cpu, budget.cpu);
    while let Outcome::Waiting(ms) = outcome {
        let arg = ms.map_or_else(|| "null".to_string(), |ms| ms.to_string());
        let reply = isolate
            .imports()
            .call(contract::calls::FETCH_WAIT, &arg, &[])
            .await
            .map_err(|e| EngineError::Trap(format!("waiting for fetch: {e}").into()))?;
        renew(isolate.imports(), &mut ends, &mut cpu, budget.cpu);
        // The wait ends at the deadline at the latest; past it the
        // render is over, as a Wasm render's epoch ends it.
        if Instant::now() >= ends {
            return Err(EngineError::Timeout(budget.wall));
        }
        let entry = Entry::Resume {
            value: &reply.value,
            data: &reply.data,
        };
        let (next, used) = isolate.enter(entry, millis(cpu), left(ends)).await?;
        cpu = cpu.saturating_sub(used);
        renew(isolate.imports(), &mut ends, &mut cpu, budget.cpu);
        outcome = next;
    }
    match outcome {
        Outcome::Ok { body, meta } => {
            let mut response: Response = serde_json::from_str(&meta)
                .map_err(|e| EngineError::Trap(format!("reading the response: {e}").into()))?;
            response.body = body;
            Ok(response)
        }
        // Stopped with its CPU time used up (within the watchdog's
        // millisecond), when that was the tighter limit.
        Outcome::Timeout if budget.cpu < budget.wall && cpu < Duration::from_millis(2) => {
            Err(EngineError::CpuTime(budget.cpu))
        }
        other => Err(error(other, budget.wall)),
    }
}

/// A WebSocket's render lives on as its messages come and go: the
/// deadline its imports renewed, and its CPU time (`whole`) again.
fn renew(imports: &mut Imports, ends: &mut Instant, cpu: &mut Duration, whole: Duration) {
    if let Some(r) = imports.take_renewal() {
        *ends = r.deadline;
        if r.cpu {
            *cpu = whole;
        }
    }
}

/// [`Instance::render`] for an isolate. V8 cannot yield
/// mid-script: each call into the isolate runs until the render settles or
/// waits only for requests in flight. Then the render leaves the isolate and
/// its thread (the future is pending on the host's `fetch-wait`), and goes
/// on when a response arrives.
fn render<'a>(
    isolate: &'a mut impl Calls,
    req: &'a Request,
    budget: Budget,
    body: Option<Sink>,
) -> Rendering<'a> {
    Box::pin(async move {
        let _running = crate::activity::renders().begin();
        let ends = Instant::now() + budget.wall;
        isolate.imports().start_render(ends, body, req);
        let out = run(isolate, req, ends, budget).await;
        // Every way out of the render, failures included.
        isolate.imports().end_render();
        super::rendered(isolate.imports(), out)
    })
}

/// The isolate's [`Instance`].
impl<C: Calls> Instance for C {
    fn render<'a>(
        &'a mut self,
        req: &'a Request,
        budget: Budget,
        body: Option<Sink>,
    ) -> Rendering<'a> {
        render(self, req, budget, body)
    }

    fn memory_bytes(&self) -> usize {
        self.heap_used()
    }
}

fn error(outcome: Outcome, deadline: Duration) -> EngineError {
    match outcome {
        Outcome::Timeout => EngineError::Timeout(deadline),
        Outcome::OutOfMemory => EngineError::OutOfMemory,
        // The prelude's `describe()`, or the shim's own message in that form.
        Outcome::JsError(json) => EngineError::Js(
            serde_json::from_str(&json)
                .unwrap_or_else(|_| RenderError::new(ErrorKind::Exception, json)),
        ),
        Outcome::Ok { .. } | Outcome::Waiting(_) => {
            EngineError::Trap(format!("an unexpected outcome: {outcome:?}").into())
        }
    }
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX).max(1)
}
