//! Rendering engines: what turns a contract [`Request`] into a [`Response`]
//! by running a tenant's JavaScript.
//!
//! Two engines share one shape, three lifetimes deep:
//! - [`Engine`] (process): loads a plugin artifact;
//! - [`Plugin`] (one tenant version): makes instances;
//! - [`Instance`] (one isolate or store, serving one tenant): renders.
//!
//! [`wasm::WasmEngine`] runs the artifact's component (QuickJS in Wasmtime);
//! `v8::V8Engine` (feature `v8`) runs the JavaScript bundle the same
//! artifact carries, in V8. Both evaluate the contract's prelude
//! (`wit/prelude/`), so request shaping, response normalization and error
//! kinds are the same code, and both take and give the contract's types.
//! The pool, the cache, HTTP and metrics see only these traits.
//!
//! Invariant: an engine never panics on what a plugin does; every failure of
//! the JavaScript or of the sandbox is an [`EngineError`].

pub mod offload;
#[cfg(feature = "v8")]
pub mod v8;
pub mod wasm;

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use contract::{RenderError, Request, Response};
use thiserror::Error;

use crate::artifact::ArtifactError;
use crate::config::Scheduling;
pub use crate::config::{DEFAULT_DEADLINE, DEFAULT_MEMORY_LIMIT, EngineKind, Mode};
pub use crate::web::Grants;
use crate::web::Imports;

/// A render's outcome as the host passes it on: a secret's value redacted
/// from an error, its stack in the site's own files (`stack_map.rs`), and
/// the error told to the tenant's log followers (`logs.rs`).
pub(crate) fn ended<T>(imports: &Imports, out: Result<T, EngineError>) -> Result<T, EngineError> {
    let grants = imports.grants();
    let out = match out {
        Err(EngineError::Js(e)) => {
            let mut e = grants.redact_error(e);
            if let Some(map) = &grants.stack_map {
                e.stack = e.stack.map(|stack| map.apply(&stack));
            }
            Err(EngineError::Js(e))
        }
        out => out,
    };
    if let Err(e) = &out {
        let said = match e {
            EngineError::Js(e) => match &e.stack {
                Some(stack) => format!("{}: {}\n{stack}", e.kind, e.message),
                None => format!("{}: {}", e.kind, e.message),
            },
            other => crate::report::Chain(other).to_string(),
        };
        imports.failed(&said);
    }
    out
}

/// [`ended`] for a render: its response as the page cache may keep it
/// ([`crate::web::stored_as_bound`]).
pub(crate) fn rendered(
    imports: &Imports,
    out: Result<Response, EngineError>,
) -> Result<Response, EngineError> {
    ended(imports, out).map(|r| crate::web::stored_as_bound(r, imports.bound()))
}

/// Loads plugin artifacts (process lifetime).
pub trait Engine: Send + Sync {
    /// Checks an artifact built by `ssr build` and prepares it to run, its
    /// instances held to `limits`.
    fn load_plugin(
        &self,
        artifact: &[u8],
        limits: InstanceCaps,
    ) -> Result<Arc<dyn Plugin>, EngineError>;
}

/// One loaded plugin (one tenant version).
pub trait Plugin: Send + Sync {
    /// A new instance serving the tenant version `grants` describes, in the
    /// state the plugin was built in.
    fn instantiate(&self, grants: &Arc<Grants>) -> Result<Box<dyn Instance>, EngineError>;

    /// Whether its renders yield at the end of each time slice (see
    /// [`Rendering`]); one that cannot holds its thread until it ends.
    fn yields(&self) -> bool;

    /// Whether its renders run elsewhere (a worker process) and only wait
    /// in this one, so that a task of the server's async runtime may await
    /// one whole (`pool::Pool::render`).
    fn awaits(&self) -> bool {
        false
    }

    /// Gives back the memory the plugin keeps for instances to come, if it
    /// has had none for `idle`; whether it did. The next instance reads it
    /// in again.
    fn trim(&self, _idle: Duration) -> bool {
        false
    }
}

/// A render in progress.
///
/// `Pending` means either "my time slice is over, poll me again" (a Wasm
/// render yields once it has run a tick since it was polled; it wakes its
/// waker before returning), or "I wait for a `fetch`" (a Wasm render whose
/// fiber suspended in the host import; its waker is woken when a request
/// finishes or the wait times out, at the latest at the render's deadline).
/// A scheduler therefore polls a render again once its waker was woken
/// (`pool::worker`), and [`block_on`] drives one to completion. A V8
/// render cannot yield mid-script, but between calls into its isolate it
/// waits for a `fetch` the same way (`v8::render`).
pub type Rendering<'a> = Pin<Box<dyn Future<Output = Result<Response, EngineError>> + Send + 'a>>;

/// One instance: owned by one thread at a time, serving one tenant.
pub trait Instance: Send {
    /// Renders one request within `budget`: its CPU time (the JavaScript it
    /// runs, on this thread, while it is polled) and its wall-clock time
    /// from the first poll (slices given to other renders and waits for
    /// `fetch` included).
    /// After an error for which [`EngineError::poisons_instance`] holds,
    /// drop the instance.
    /// With `body`, a renderer whose body is a stream sends it there as it
    /// is made (`stream.rs`), and its result's body is empty; without, its
    /// body is read whole.
    fn render<'a>(
        &'a mut self,
        req: &'a Request,
        budget: Budget,
        body: Option<crate::web::stream::Sink>,
    ) -> Rendering<'a>;

    /// [`Instance::render`] to completion on the calling thread, the body
    /// whole, within `deadline` of CPU and of wall-clock time.
    fn render_now(&mut self, req: &Request, deadline: Duration) -> Result<Response, EngineError> {
        let budget = Budget {
            cpu: deadline,
            wall: deadline,
        };
        block_on(self.render(req, budget, None))
    }

    /// Bytes of memory the instance's JavaScript holds (linear memory, or
    /// the V8 heap).
    fn memory_bytes(&self) -> usize;
}

/// Drives a future to completion on this thread: polls it, and while it is
/// pending parks the thread until its waker is woken (at once after a Wasm
/// render's time slice; when a request finishes for one waiting on
/// `fetch`).
pub fn block_on<T>(future: impl Future<Output = T>) -> T {
    struct Unpark {
        thread: std::thread::Thread,
        woken: AtomicBool,
    }
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.woken.store(true, Ordering::Release);
            self.thread.unpark();
        }
    }
    let unpark = Arc::new(Unpark {
        thread: std::thread::current(),
        woken: AtomicBool::new(false),
    });
    let waker = Waker::from(unpark.clone());
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        while !unpark.woken.swap(false, Ordering::Acquire) {
            std::thread::park();
        }
    }
}

/// The caps an engine puts on each instance of a plugin.
#[derive(Clone, Copy, Debug)]
pub struct InstanceCaps {
    /// Cap on an instance's memory: Wasm linear memory, or the V8 heap.
    pub memory: usize,
}

impl Default for InstanceCaps {
    fn default() -> Self {
        InstanceCaps {
            memory: DEFAULT_MEMORY_LIMIT,
        }
    }
}

/// Settings for both engines, fixed for the life of the process.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    pub wasm: wasm::WasmOptions,
    /// The pool's too: a V8 render past `demote_after` offers its core
    /// (`crate::sched`). Not before the pool lowers renders: a yield
    /// stretches a short render's wall time under contention, so offers
    /// that began earlier would get short renders lowered.
    pub scheduling: Scheduling,
    /// How V8's worker processes run, or why they cannot (no usable
    /// `node`); none: as a default `Config` says, with the `node` found
    /// as `v8::process::Node::find` finds one.
    #[cfg(feature = "v8")]
    pub v8_processes: Option<Result<v8::process::ProcessOptions, String>>,
}

/// The engines this host has, by kind.
#[derive(Clone)]
pub struct Engines {
    pub wasm: Arc<wasm::WasmEngine>,
    #[cfg(feature = "v8")]
    pub v8: Arc<v8::V8Engine>,
}

impl Engines {
    /// The engines this build has.
    pub const KINDS: &'static [EngineKind] = &[
        EngineKind::Wasm,
        #[cfg(feature = "v8")]
        EngineKind::V8,
    ];

    /// Both engines (V8 only when built with the `v8` feature).
    pub fn new(options: EngineOptions) -> Result<Engines, EngineError> {
        Ok(Engines {
            #[cfg(feature = "v8")]
            v8: Arc::new(v8::V8Engine {
                scheduling: options.scheduling,
                processes: options
                    .v8_processes
                    .unwrap_or_else(|| {
                        let node = v8::process::Node::find_default()?;
                        Ok(v8::process::ProcessOptions::of(
                            &crate::config::Config::default(),
                            node,
                        ))
                    })
                    .map(v8::process::Supervisor::new),
            }),
            wasm: Arc::new(wasm::WasmEngine::new(options.wasm)?),
        })
    }

    pub fn get(&self, kind: EngineKind) -> Result<&dyn Engine, EngineError> {
        match kind {
            EngineKind::Wasm => Ok(&*self.wasm),
            #[cfg(feature = "v8")]
            EngineKind::V8 => Ok(&*self.v8),
            #[cfg(not(feature = "v8"))]
            EngineKind::V8 => Err(EngineError::Unavailable(kind)),
        }
    }
}

/// What one render may take.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// CPU time: what stops a runaway loop. Waiting for `fetch`, for a
    /// timer while one is in flight, or for a slow client costs none of it.
    pub cpu: Duration,
    /// Wall-clock time: what ends a render that waits or streams forever.
    pub wall: Duration,
}

/// What making an instance may take: the adapter's and runtime's start code
/// on Wasm (the bundle's top level ran at build time), the prelude and the
/// bundle's top level on V8. Not a render's deadline: it runs once per
/// instance, and a registration on a busy machine must not fail on it.
pub const INSTANTIATE_DEADLINE: Duration = Duration::from_secs(10);

/// Why an engine could not load a plugin or render a request.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error(transparent)]
    Artifact(#[from] ArtifactError),
    #[error("compiling the plugin failed")]
    Compile(#[source] Cause),
    #[error("instantiating the plugin failed")]
    Instantiate(#[source] Cause),
    /// The machine refused a resource for a while; the same call may succeed
    /// if made again.
    #[error("{0}; this is usually transient: try again")]
    Transient(String),
    /// The JavaScript failed; what it said, as the contract carries it.
    #[error(transparent)]
    Js(#[from] RenderError),
    #[error("render exceeded its deadline of {0:?}")]
    Timeout(Duration),
    #[error("render used up its CPU time of {0:?} (the tenant's `render_deadline_ms`)")]
    CpuTime(Duration),
    #[error("render exceeded its memory limit")]
    OutOfMemory,
    #[error("the response body is {size} bytes, over the limit of {limit} bytes")]
    ResponseTooLarge { size: usize, limit: usize },
    #[error("the plugin trapped")]
    Trap(#[source] Cause),
    /// The V8 worker process the render ran in ended or broke its channel
    /// (`v8/process`); the renders in flight there fail, others go on.
    #[error("the renderer's worker process failed: {0}")]
    Crashed(String),
    /// The tenant crashed its worker process too often lately
    /// (`v8/process`); it is refused for this long.
    #[error("the renderer crashed its worker process repeatedly; it is paused for {0:?}")]
    Quarantined(Duration),
    #[error(
        "this host was built without the {0} engine; rebuild it with default features, or register the tenant with engine `wasm`"
    )]
    Unavailable(EngineKind),
    /// The V8 engine has no `node` to run its worker processes with.
    #[error(
        "the V8 engine cannot run on this server: {0}; register the tenant with engine `wasm`, or see docs/engines.md"
    )]
    NoV8(String),
}

/// What an engine step failed on: Wasmtime's error with its own causes, or
/// the engine's words. Printed through `report::Chain`.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

impl EngineError {
    /// Whether the instance that produced this error must be discarded. An
    /// oversized response is one: the instance's heap grew to hold it and
    /// would keep that memory while warm.
    pub fn poisons_instance(&self) -> bool {
        matches!(
            self,
            EngineError::Timeout(_)
                | EngineError::CpuTime(_)
                | EngineError::OutOfMemory
                | EngineError::Trap(_)
                | EngineError::Crashed(_)
                | EngineError::ResponseTooLarge { .. }
        )
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn names_parse_back_and_unknown_ones_are_listed() {
        for kind in EngineKind::ALL {
            assert_eq!(kind.as_str().parse::<EngineKind>(), Ok(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
        }
        for mode in Mode::ALL {
            assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{mode}\""));
        }
        assert_eq!(
            "x".parse::<EngineKind>(),
            Err("unknown engine `x`; use `wasm` or `v8`".to_string())
        );
        assert_eq!(
            "x".parse::<Mode>(),
            Err("unknown isolation mode `x`; use `reuse` or `fresh`".to_string())
        );
    }

    crate::unit_tests!(names_parse_back_and_unknown_ones_are_listed);
}
