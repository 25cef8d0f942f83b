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
//! Not contained: V8 aborts the whole process when one allocation inside a
//! C++ builtin cannot be satisfied: `new Array(5e8).fill(1.5)` (a 4 GB
//! backing store) ends `ssr` with SIGTRAP, whatever the heap cap. Growth from
//! JavaScript code (`new Array(2e8).fill(1.5)`, or a loop of pushes) is caught
//! by the heap cap. Only process isolation contains the former: docs/engines.md
//! and `ssr serve --help`.
//!
//! The only unsafe code is in `ffi.rs`.

mod ffi;

pub use self::ffi::core_offers;

use std::sync::Arc;
use std::time::{Duration, Instant};

use contract::{ErrorKind, RenderError, Request, Response};

use super::imports::{Grants, Imports};
use super::stream::Sink;
use super::{Budget, Engine, EngineError, Instance, InstanceCaps, Plugin, Rendering};
use crate::artifact;
use crate::sched::{self, Scheduling};

/// JavaScript may use this much of the stack of the thread rendering
/// (V8's own default is 984 KiB; the pool's workers have 8 MiB stacks).
const STACK_BYTES: usize = 1 << 20;

/// The module name the bundle has in stack traces.
const BUNDLE_NAME: &str = "bundle.js";

/// The V8 engine.
pub struct V8Engine {
    /// See [`super::EngineOptions::scheduling`].
    pub scheduling: Scheduling,
}

impl V8Engine {
    /// Reads the bundle out of `artifact` and checks that V8 can load it (its
    /// top level runs once, in a throwaway isolate).
    pub fn load(&self, artifact: &[u8], limits: InstanceCaps) -> Result<V8Plugin, EngineError> {
        let bundle = artifact::bundle(artifact)?;
        let plugin = V8Plugin {
            bundle: bundle.into(),
            limits,
            scheduling: self.scheduling,
        };
        plugin.instance(&Grants::new("(load)"))?;
        Ok(plugin)
    }
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
    limits: InstanceCaps,
    scheduling: Scheduling,
}

impl V8Plugin {
    /// A new isolate with the prelude and the bundle evaluated, serving the
    /// tenant version `grants` describes.
    pub fn instance(&self, grants: &Arc<Grants>) -> Result<V8Instance, EngineError> {
        let mut isolate = ffi::Isolate::new(
            self.limits.memory,
            STACK_BYTES,
            self.scheduling.demote_after.map_or(0, millis),
            u32::try_from(sched::OFFER_EVERY.as_micros()).unwrap_or(u32::MAX),
            Imports::new(grants),
        );
        let outcome = isolate.load(
            contract::PRELUDE,
            contract::PRELUDE_NAME,
            BUNDLE_NAME,
            &self.bundle,
            millis(super::INSTANTIATE_DEADLINE),
        );
        match outcome {
            ffi::Outcome::Ok { .. } => Ok(V8Instance { isolate }),
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
}

/// An isolate that runs only a script of the host's own, never a tenant's:
/// a service the host calls (`engine/intl.rs`). Its JavaScript has no host
/// capability: it gets text and answers text.
pub struct Service {
    isolate: ffi::Isolate,
}

impl Service {
    /// A new isolate of at most `heap_limit` bytes with `script` evaluated.
    /// It may be called from a Wasm render's host call, on the render's
    /// fiber, which has 1 MiB beyond the Wasm stack
    /// (`engine/wasm`'s `async_stack_size`): its JavaScript gets a quarter
    /// of that.
    pub fn new(script: &str, name: &str, heap_limit: usize) -> Result<Service, String> {
        let mut isolate = ffi::Isolate::new(
            heap_limit,
            STACK_BYTES / 4,
            0,
            0,
            Imports::new(&Grants::new(name)),
        );
        match isolate.script(script, name, millis(super::INSTANTIATE_DEADLINE)) {
            ffi::Outcome::Ok { .. } => Ok(Service { isolate }),
            other => Err(service_error(other)),
        }
    }

    /// The text the global function `function` gives for `arg`, within
    /// `cpu_ms`; after an error the service should be made anew.
    pub fn invoke(&mut self, function: &str, arg: &str, cpu_ms: u32) -> Result<String, String> {
        match self.isolate.invoke(function, arg, cpu_ms) {
            ffi::Outcome::Ok { body, .. } => {
                String::from_utf8(body).map_err(|_| "an answer that is not UTF-8".to_string())
            }
            other => Err(service_error(other)),
        }
    }
}

fn service_error(outcome: ffi::Outcome) -> String {
    match outcome {
        ffi::Outcome::Timeout => "it ran out of time".into(),
        ffi::Outcome::OutOfMemory => "it ran out of memory".into(),
        ffi::Outcome::JsError(e) => e,
        ffi::Outcome::Ok { .. } | ffi::Outcome::Waiting(_) => "it did not answer".into(),
    }
}

impl Plugin for V8Plugin {
    fn instantiate(&self, grants: &Arc<Grants>) -> Result<Box<dyn Instance>, EngineError> {
        Ok(Box::new(self.instance(grants)?))
    }

    fn yields(&self) -> bool {
        false
    }
}

/// One isolate serving one tenant.
pub struct V8Instance {
    isolate: ffi::Isolate,
}

impl V8Instance {
    /// The render's calls into the isolate, and its waits for `fetch` in
    /// between, until it settles or fails.
    async fn run(
        &mut self,
        req: &Request,
        ends: Instant,
        budget: Budget,
    ) -> Result<Response, EngineError> {
        let left = || millis(ends.saturating_duration_since(Instant::now()));

        // The prelude's raw request and normalized response are the
        // contract's serde form; the bodies travel beside the JSON.
        let json = serde_json::to_string(req)
            .map_err(|e| EngineError::Trap(format!("encoding the request: {e}").into()))?;
        // The CPU time left: each call into the isolate runs on this thread
        // and spends what the thread's clock says it used.
        let mut cpu = budget.cpu;
        let spend = |cpu: &mut Duration, from: Duration| {
            *cpu = cpu.saturating_sub(crate::sched::thread_cpu_time().saturating_sub(from));
        };
        let started = crate::sched::thread_cpu_time();
        let mut outcome = self.isolate.render(&json, &req.body, millis(cpu), left());
        spend(&mut cpu, started);
        while let ffi::Outcome::Waiting(ms) = outcome {
            let arg = ms.map_or_else(|| "null".to_string(), |ms| ms.to_string());
            let reply = self
                .isolate
                .imports()
                .call(contract::calls::FETCH_WAIT, &arg, &[])
                .await
                .map_err(|e| EngineError::Trap(format!("waiting for fetch: {e}").into()))?;
            // The wait ends at the deadline at the latest; past it the
            // render is over, as a Wasm render's epoch ends it.
            if Instant::now() >= ends {
                return Err(EngineError::Timeout(budget.wall));
            }
            let resumed = crate::sched::thread_cpu_time();
            outcome = self
                .isolate
                .resume(&reply.value, &reply.data, millis(cpu), left());
            spend(&mut cpu, resumed);
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
}

impl Instance for V8Instance {
    /// V8 cannot yield mid-script: each call into the isolate runs until the
    /// render settles or waits only for requests in flight. Then the render
    /// leaves the isolate and its thread (the future is pending on the
    /// host's `fetch-wait`), and goes on when a response arrives.
    fn render<'a>(
        &'a mut self,
        req: &'a Request,
        budget: Budget,
        body: Option<Sink>,
    ) -> Rendering<'a> {
        Box::pin(async move {
            let _running = crate::activity::renders().begin();
            let ends = Instant::now() + budget.wall;
            self.isolate.imports().start_render(ends, body);
            let out = self.run(req, ends, budget).await;
            // Every way out of the render, failures included.
            self.isolate.imports().end_render();
            self.isolate.imports().grants().redact_error(out)
        })
    }

    fn memory_bytes(&self) -> usize {
        self.isolate.heap_used()
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

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX).max(1)
}
