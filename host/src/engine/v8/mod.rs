//! The V8 engine: the JavaScript bundle a plugin artifact carries, run in V8
//! (Debian's libnode, Node 18 / V8 10.2) through a small C++ shim.
//!
//! Lifetimes:
//! - process: [`V8Engine`] (V8's platform is initialized once, on first use);
//! - tenant bundle: [`V8Plugin`] (the bundle's text, checked at load);
//! - instance: [`V8Instance`], one isolate with one context in which the
//!   prelude and the bundle were evaluated. An isolate serves one tenant, so
//!   a tenant that exhausts its heap or is terminated loses only its own
//!   isolate. A pool thread owns its instances; they never run on two
//!   threads at once. A render cannot yield mid-script (`Plugin::yields`), so
//!   the pool runs V8 renders on its blocking threads; a render waiting for
//!   a `fetch` leaves the isolate (and its thread) between calls.
//!
//! Limits: a render deadline (a watchdog thread calls `TerminateExecution`;
//! the instance is then discarded) and a heap cap (V8's near-heap-limit
//! callback terminates the script; the instance is discarded). A render
//! still running after `demote_after` (the server's `--demote-after`, 20 ms
//! by default) offers its core to other threads every `sched::OFFER_EVERY`
//! (the watchdog requests an interrupt that calls `sched_yield`;
//! [`core_offers`] counts them; the policy is `crate::sched`'s): under five
//! spinning V8 tenants a well-behaved one's p99 went from 11.0-14.7 ms to
//! 5.9-7.9 ms (`benches/attack.sh`, V8, nine rounds each).
//!
//! Where isolates live: V8 aborts the whole process when one allocation
//! inside a C++ builtin cannot be satisfied (`new Array(5e8).fill(1.5)`, a
//! 4 GB backing store, whatever the heap cap; growth from JavaScript code is
//! caught by the heap cap). So `ssr serve` runs them in worker processes
//! it supervises (`process/`), where such an abort ends one process; `ssr
//! render`, the tests of the engine itself and `--v8-processes 0` run them
//! in this process ([`V8Instance`]). One render loop serves both
//! ([`Calls`]).
//!
//! The only unsafe code is in `ffi.rs`.

mod ffi;
pub mod process;
pub mod service;

/// How many times V8 renders offered their core, in this process and in
/// worker processes.
pub fn core_offers() -> u64 {
    ffi::core_offers() + process::core_offers()
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

/// JavaScript may use this much of the stack of the thread rendering
/// (V8's own default is 984 KiB; the pool's workers have 8 MiB stacks).
const STACK_BYTES: usize = 1 << 20;

/// The module name the bundle has in stack traces.
const BUNDLE_NAME: &str = "bundle.js";

/// The tenant a registration's load check ([`V8Engine::load`]) runs as.
const LOAD_CHECK: &str = "(load)";

/// The V8 engine.
pub struct V8Engine {
    /// See [`super::EngineOptions::scheduling`].
    pub scheduling: Scheduling,
    /// The worker processes isolates live in; none: this process.
    pub processes: Option<Arc<Supervisor>>,
}

impl V8Engine {
    /// Reads the bundle out of `artifact` and checks that V8 can load it (its
    /// top level runs once, in a throwaway isolate, where its instances
    /// will run).
    pub fn load(&self, artifact: &[u8], limits: InstanceCaps) -> Result<V8Plugin, EngineError> {
        let bundle = artifact::bundle(artifact)?;
        let plugin = V8Plugin {
            bundle: bundle.into(),
            params: Params {
                heap_limit: limits.memory,
                offer_after_ms: self.scheduling.demote_after.map_or(0, millis),
                offer_every_us: u32::try_from(sched::OFFER_EVERY.as_micros()).unwrap_or(u32::MAX),
            },
            processes: self.processes.clone(),
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
    processes: Option<Arc<Supervisor>>,
}

impl V8Plugin {
    /// A new isolate in this process with the prelude and the bundle
    /// evaluated, serving the tenant version `grants` describes.
    pub fn instance(&self, grants: &Arc<Grants>) -> Result<V8Instance, EngineError> {
        let (isolate, outcome) = load(self.params, Imports::new(grants), &self.bundle);
        loaded(outcome).map(|()| V8Instance { isolate })
    }
}

/// A new isolate of `params` reaching `host`, with the prelude and `bundle`
/// evaluated within [`super::INSTANTIATE_DEADLINE`], in this process or in a
/// worker (`process/worker.rs`); [`loaded`] reads the outcome.
fn load<H: ffi::HostCalls>(
    params: Params,
    host: H,
    bundle: &str,
) -> (ffi::Isolate<H>, ffi::Outcome) {
    let mut isolate = ffi::Isolate::new(
        params.heap_limit,
        STACK_BYTES,
        params.offer_after_ms,
        params.offer_every_us,
        host,
    );
    let outcome = isolate.load(
        contract::PRELUDE,
        contract::PRELUDE_NAME,
        BUNDLE_NAME,
        bundle,
        millis(super::INSTANTIATE_DEADLINE),
    );
    (isolate, outcome)
}

/// What loading the prelude and the bundle into an isolate ended in.
fn loaded(outcome: ffi::Outcome) -> Result<(), EngineError> {
    match outcome {
        ffi::Outcome::Ok { .. } => Ok(()),
        ffi::Outcome::Timeout => Err(EngineError::Instantiate(
            format!(
                "the bundle's top level did not finish within {:?}; move slow setup into `render`",
                super::INSTANTIATE_DEADLINE
            )
            .into(),
        )),
        other => Err(error(other, super::INSTANTIATE_DEADLINE)),
    }
}

impl Plugin for V8Plugin {
    /// In worker processes (with lanes the server's runtime drives).
    fn awaits(&self) -> bool {
        self.processes.as_ref().is_some_and(|p| p.awaits())
    }

    fn instantiate(&self, grants: &Arc<Grants>) -> Result<Box<dyn Instance>, EngineError> {
        match &self.processes {
            None => Ok(Box::new(self.instance(grants)?)),
            Some(processes) => Ok(Box::new(processes.instance(
                &self.bundle,
                self.params,
                Imports::new(grants),
            )?)),
        }
    }

    fn yields(&self) -> bool {
        false
    }
}

/// One isolate in this process, serving one tenant.
pub struct V8Instance {
    isolate: ffi::Isolate<Imports>,
}

/// A call into an isolate: a render's start, or its going on after a wait.
pub enum Entry<'a> {
    Render { request: &'a str, body: &'a [u8] },
    Resume { value: &'a str, data: &'a [u8] },
}

/// An isolate wherever it lives: this process ([`V8Instance`]) or a worker
/// process (`process::RemoteInstance`). The render loop ([`render`]) is
/// the same for both.
trait Calls: Send {
    /// Calls into the isolate: how it ended, and the CPU time it used.
    fn enter<'a>(
        &'a mut self,
        entry: Entry<'a>,
        cpu_ms: u32,
        deadline_ms: u32,
    ) -> impl Future<Output = Result<(ffi::Outcome, Duration), EngineError>> + Send + 'a;
    /// What its JavaScript reaches in the host.
    fn imports(&mut self) -> &mut Imports;
    /// Bytes of its heap in use.
    fn heap_used(&self) -> usize;
}

impl Calls for V8Instance {
    async fn enter(
        &mut self,
        entry: Entry<'_>,
        cpu_ms: u32,
        deadline_ms: u32,
    ) -> Result<(ffi::Outcome, Duration), EngineError> {
        // Each call runs on this thread, which spends what its clock says.
        // In the server's process its watch lowers threads, never a render.
        let started = crate::sched::thread_cpu_time();
        let outcome = match entry {
            Entry::Render { request, body } => {
                self.isolate
                    .render(request, body, cpu_ms, deadline_ms, false)
            }
            Entry::Resume { value, data } => {
                self.isolate.resume(value, data, cpu_ms, deadline_ms, false)
            }
        };
        Ok((
            outcome,
            crate::sched::thread_cpu_time().saturating_sub(started),
        ))
    }

    fn imports(&mut self) -> &mut Imports {
        self.isolate.imports()
    }

    fn heap_used(&self) -> usize {
        self.isolate.heap_used()
    }
}

/// A render's calls into the isolate, and its waits for `fetch` in between,
/// until it settles or fails.
async fn run(
    isolate: &mut impl Calls,
    req: &Request,
    ends: Instant,
    budget: Budget,
) -> Result<Response, EngineError> {
    let left = || millis(ends.saturating_duration_since(Instant::now()));

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
    let (mut outcome, used) = isolate.enter(entry, millis(cpu), left()).await?;
    cpu = cpu.saturating_sub(used);
    while let ffi::Outcome::Waiting(ms) = outcome {
        let arg = ms.map_or_else(|| "null".to_string(), |ms| ms.to_string());
        let reply = isolate
            .imports()
            .call(contract::calls::FETCH_WAIT, &arg, &[])
            .await
            .map_err(|e| EngineError::Trap(format!("waiting for fetch: {e}").into()))?;
        // The wait ends at the deadline at the latest; past it the
        // render is over, as a Wasm render's epoch ends it.
        if Instant::now() >= ends {
            return Err(EngineError::Timeout(budget.wall));
        }
        let entry = Entry::Resume {
            value: &reply.value,
            data: &reply.data,
        };
        let (next, used) = isolate.enter(entry, millis(cpu), left()).await?;
        cpu = cpu.saturating_sub(used);
        outcome = next;
    }
    match outcome {
        ffi::Outcome::Ok { body, meta } => {
            let mut response: Response = serde_json::from_str(&meta)
                .map_err(|e| EngineError::Trap(format!("reading the response: {e}").into()))?;
            response.body = body;
            Ok(response)
        }
        // Stopped with its CPU time used up (within the watchdog's
        // millisecond), when that was the tighter limit.
        ffi::Outcome::Timeout if budget.cpu < budget.wall && cpu < Duration::from_millis(2) => {
            Err(EngineError::CpuTime(budget.cpu))
        }
        other => Err(error(other, budget.wall)),
    }
}

/// [`Instance::render`] for an isolate wherever it lives. V8 cannot yield
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

/// One impl for an isolate wherever it lives.
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

fn error(outcome: ffi::Outcome, deadline: Duration) -> EngineError {
    match outcome {
        ffi::Outcome::Timeout => EngineError::Timeout(deadline),
        ffi::Outcome::OutOfMemory => EngineError::OutOfMemory,
        // The prelude's `describe()`, or the shim's own message in that form.
        ffi::Outcome::JsError(json) => EngineError::Js(
            serde_json::from_str(&json)
                .unwrap_or_else(|_| RenderError::new(ErrorKind::Exception, json)),
        ),
        ffi::Outcome::Ok { .. } | ffi::Outcome::Waiting(_) => {
            EngineError::Trap(format!("an unexpected outcome: {outcome:?}").into())
        }
    }
}

impl ffi::HostCalls for Imports {
    fn log(&self, level: contract::LogLevel, message: &str) {
        Imports::log(self, level, message)
    }
    fn call_now(&mut self, name: &str, args: &str, data: &[u8]) -> Result<contract::Reply, String> {
        Imports::call_now(self, name, args, data)
    }
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX).max(1)
}
