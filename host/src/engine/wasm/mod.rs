//! The Wasm engine: plugins are components run by Wasmtime.
//!
//! Lifetimes (see `STYLE.md`):
//! - process: [`WasmEngine`] (a `wasmtime::Engine`, its `Linker` and the epoch
//!   [`ticker::Ticker`], which every plugin shares: it stops only when the
//!   engine and all its plugins are gone);
//! - tenant bundle: [`WasmPlugin`] (the compiled `Component` and its
//!   `InstancePre`, so instantiation never compiles or resolves imports);
//! - instance: [`WasmInstance`] (one `Store`, serving one tenant only).
//!
//! Sandbox: the WASI context is empty (no preopened directories, environment,
//! arguments or sockets, stdin empty, stdout/stderr discarded); `console.*`
//! and the host's capabilities are reached only through the contract's `log`
//! and `host` imports ([`Imports`], tagged with the tenant). Each store has
//! a linear-memory cap and an epoch deadline.

pub mod guard;
pub mod shared;
mod split;
pub mod ticker;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use contract::host::ssr::plugin::{host, log, types};
use contract::host::{Plugin as Bindings, PluginPre};
use contract::{Request, Response};
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Module, ResourceLimiter, Store, Trap, UpdateDeadline};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::{Budget, Engine, EngineError, Instance, InstanceCaps, Plugin, Rendering};
use crate::activity;
use crate::artifact;
use crate::web::stream::Sink;
use crate::web::{Grants, Imports};

pub use crate::config::DEFAULT_MAX_WASM_STACK;

/// Settings fixed for the life of a [`WasmEngine`].
#[derive(Clone, Debug)]
pub struct WasmOptions {
    /// Use the pooling allocator with room for this many instances at once;
    /// `None` allocates on demand (fine for one-off renders).
    pub pooled_instances: Option<u32>,
    /// Cap on one instance's linear memory, in bytes (a tenant may set a
    /// lower one).
    pub memory_limit: usize,
    /// The wasm stack one render may use, in bytes.
    pub max_wasm_stack: usize,
    /// Where compiled plugins are cached across processes (`--code-cache`);
    /// `None`: nowhere.
    pub code_cache: Option<std::path::PathBuf>,
    /// What a freed pooled slot keeps of its linear memory resident
    /// (`Config::slot_keep_resident`).
    pub keep_resident: usize,
    /// How Cranelift compiles plugins.
    pub codegen: Codegen,
    /// Where the code plugins share is kept compiled across processes
    /// (`shared.rs`); `None`: in memory only.
    pub shared_dir: Option<std::path::PathBuf>,
    /// Share the runtime's compiled code between plugins (`split.rs`);
    /// `false` compiles each plugin whole, as before, for the benchmarks
    /// that compare the two (`benches/codegen.sh`, variant `whole`).
    pub split: bool,
    /// Compile a plugin's novel code first in a bounded process
    /// (`guard.rs`); `None`: compile it here at once.
    pub guard: Option<guard::CompileGuard>,
}

/// The compiler settings that trade compile time for render speed, measured
/// by `benches/codegen.sh` (`cargo bench -p ssr --features bench --bench engine` per setting,
/// alternating; `benches/RESULTS-density.md`). The default is what that
/// measurement kept: no setting rendered faster (inlining, eager tables and
/// speed-and-size at 1.00-1.03x of its warm render time, unoptimized
/// 1.03-1.09x), and inlining compiled 4.2x slower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Codegen {
    pub opt_level: wasmtime::OptLevel,
    /// Cranelift's function inlining (`Config::compiler_inlining`).
    pub inlining: bool,
    /// Tables filled on first use rather than at instantiation.
    pub lazy_tables: bool,
}

impl Default for Codegen {
    fn default() -> Self {
        Codegen {
            opt_level: wasmtime::OptLevel::Speed,
            inlining: false,
            lazy_tables: true,
        }
    }
}

impl Codegen {
    /// The settings the benchmark compares, by name.
    pub const VARIANTS: &[&str] = &["default", "inline", "eager-tables", "size", "unoptimized"];

    /// One of [`Codegen::VARIANTS`].
    pub fn variant(name: &str) -> Result<Codegen, String> {
        let d = Codegen::default();
        Ok(match name {
            "default" => d,
            "inline" => Codegen {
                inlining: true,
                ..d
            },
            "eager-tables" => Codegen {
                lazy_tables: false,
                ..d
            },
            "size" => Codegen {
                opt_level: wasmtime::OptLevel::SpeedAndSize,
                ..d
            },
            "unoptimized" => Codegen {
                opt_level: wasmtime::OptLevel::None,
                ..d
            },
            other => {
                return Err(format!(
                    "unknown codegen variant `{other}`; use one of {}",
                    Codegen::VARIANTS.join(", ")
                ));
            }
        })
    }
}

impl Default for WasmOptions {
    fn default() -> Self {
        WasmOptions {
            pooled_instances: None,
            memory_limit: super::DEFAULT_MEMORY_LIMIT,
            max_wasm_stack: DEFAULT_MAX_WASM_STACK,
            code_cache: None,
            keep_resident: 16 << 20,
            codegen: Codegen::default(),
            shared_dir: None,
            split: true,
            guard: None,
        }
    }
}

/// Per-store state: the empty WASI context, limits, and the tenant's way out.
pub struct HostState {
    wasi: WasiCtx,
    table: ResourceTable,
    limits: MemoryLimiter,
    imports: Imports,
    /// When the render in progress must stop, whatever its CPU time.
    deadline: Instant,
    /// The CPU time the render in progress may use.
    cpu: Duration,
    /// Whether it was stopped for its CPU time (else for its deadline).
    cpu_spent: bool,
    /// The instance's CPU count, for the time of calls run off its thread
    /// (`engine::offload`).
    slice: Option<Arc<Slice>>,
}

/// The store's resource limiter: caps linear memory, and remembers how large
/// the memories have grown (what [`WasmInstance::memory_bytes`] reports).
struct MemoryLimiter {
    memory_limit: usize,
    /// Current size of each memory seen, by first-seen order.
    memories: Vec<usize>,
    /// Whether a memory was refused growth during the render in progress:
    /// how [`response`] knows that an exception was the allocator failing
    /// at the cap (QuickJS throws an ordinary `InternalError`).
    refused: bool,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            self.refused = true;
            return Ok(false);
        }
        // Memories grow one at a time; match the one at `current` bytes.
        match self.memories.iter_mut().find(|m| **m == current) {
            Some(m) => *m = desired,
            None => self.memories.push(desired),
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _max: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }

    fn memory_grow_failed(&mut self, _error: wasmtime::Error) -> wasmtime::Result<()> {
        Err(wasmtime::Error::new(MemoryLimitReached))
    }
}

/// A render's linear memory could not grow past its cap: the trap
/// [`MemoryLimiter`] raises, which [`response`] reads as out of memory.
#[derive(Debug, thiserror::Error)]
#[error("linear memory limit reached")]
struct MemoryLimitReached;

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl types::Host for HostState {}

impl log::Host for HostState {
    fn write(&mut self, level: log::Level, message: String) {
        self.imports.log(level.into(), &message);
    }
}

impl host::Host for HostState {
    async fn call(
        &mut self,
        name: String,
        args: String,
        data: Vec<u8>,
    ) -> Result<host::Reply, String> {
        // A long call runs off this worker, which goes on with other
        // renders meanwhile; its CPU time is this render's, and the epoch
        // callback stops the render at the next tick if it is spent.
        if crate::engine::offload::is_long(&name, &args) {
            let done = crate::engine::offload::run(&name, &args, &data).await;
            if let Some(slice) = &self.slice {
                slice.charge(done.cpu);
            }
            return done.reply.map(Into::into);
        }
        let reply = self.imports.call(&name, &args, &data).await;
        // A WebSocket's render lives on as its messages come and go.
        if let Some(renewal) = self.imports.take_renewal() {
            self.deadline = renewal.deadline;
            if renewal.cpu
                && let Some(slice) = &self.slice
            {
                slice.renew();
            }
        }
        reply.map(Into::into)
    }
}

/// A process-wide Wasmtime engine for plugins.
pub struct WasmEngine {
    engine: wasmtime::Engine,
    linker: Linker<HostState>,
    /// The compiled code plugins share (`split.rs`).
    modules: shared::SharedCode<Module>,
    glue: shared::SharedCode<Component>,
    /// [`shared::code_key`]: in the name of every file of compiled code.
    code_key: String,
    options: WasmOptions,
    /// Shared with every plugin: a plugin's renders need the ticker for
    /// their deadlines however long the engine is kept.
    ticker: Arc<ticker::Ticker>,
    /// The shared code of the runtime this `ssr` builds plugins with
    /// ([`WasmEngine::warm`]), kept compiled with no tenant using it.
    warm: std::sync::Mutex<Option<Held>>,
}

impl WasmEngine {
    pub fn new(options: WasmOptions) -> Result<Self, EngineError> {
        let mut config = wasmtime::Config::new();
        config.epoch_interruption(true);
        let codegen = options.codegen;
        config.cranelift_opt_level(codegen.opt_level);
        config.compiler_inlining(match codegen.inlining {
            true => wasmtime::Inlining::Yes,
            false => wasmtime::Inlining::No,
        });
        config.table_lazy_init(codegen.lazy_tables);
        // A render runs on its own fiber stack (`call_async`); host calls
        // get 1 MiB beyond the wasm stack.
        config.max_wasm_stack(options.max_wasm_stack);
        config.async_stack_size(options.max_wasm_stack + (1 << 20));
        // `SSR_PERFMAP=1`: write /tmp/perf-<pid>.map so `perf record` names
        // the plugin's functions (docs/development.md).
        if std::env::var_os("SSR_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        if let Some(dir) = &options.code_cache {
            use_code_cache(&mut config, dir).map_err(|e| EngineError::Compile(e.into()))?;
        }
        if let Some(n) = options.pooled_instances {
            let mut pool = wasmtime::PoolingAllocationConfig::default();
            pool.total_component_instances(n)
                // The adapter and the runtime each have one memory.
                .total_memories(n * 2)
                .total_tables(n * 2)
                .total_stacks(n)
                .max_memory_size(options.memory_limit)
                // Reset a freed slot's first `keep_resident` bytes with memset
                // rather than madvise: a fresh-mode instance then reuses
                // resident pages instead of faulting them in again, and
                // freeing a slot sends no TLB shootdown to the other
                // workers' cores (benches/load.sh, "cache miss, react
                // (fresh)").
                .linear_memory_keep_resident(options.keep_resident)
                .table_keep_resident(1 << 20);
            config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool));
        }
        let engine = wasmtime::Engine::new(&config).map_err(|e| EngineError::Compile(e.into()))?;
        let mut linker = Linker::new(&engine);
        let link = |linker: &mut Linker<HostState>| -> wasmtime::Result<()> {
            wasmtime_wasi::p2::add_to_linker_sync(linker)?;
            Bindings::add_to_linker::<_, HasSelf<_>>(linker, |s| s)?;
            Ok(())
        };
        link(&mut linker).map_err(|e| EngineError::Compile(e.into()))?;
        let (key, dir) = (shared::code_key(&engine), options.shared_dir.clone());
        Ok(WasmEngine {
            ticker: Arc::new(ticker::Ticker::start(engine.clone())),
            modules: shared::SharedCode::new(engine.clone(), key.clone(), dir.clone()),
            glue: shared::SharedCode::new(engine.clone(), key.clone(), dir),
            code_key: key,
            engine,
            linker,
            options,
            warm: Default::default(),
        })
    }

    /// Compiles (or, from `shared_dir`, loads) the code `plugin` shares
    /// with every plugin built by the same `ssr`, and keeps it while the
    /// engine lives: a server does this before it says it is ready, so its
    /// first tenant, like every later one, compiles only its own state
    /// module. A plugin that does not split warms nothing.
    pub fn warm(&self, plugin: &[u8]) -> Result<(), EngineError> {
        artifact::check_is_component(plugin)?;
        if let Some(split) = self.split(plugin)? {
            let held = self.shared(&split)?;
            *self.warm.lock().unwrap_or_else(|e| e.into_inner()) = Some(held);
        }
        Ok(())
    }

    /// Checks, compiles and pre-instantiates a plugin: its state module
    /// only, when it splits (`split.rs`), else whole.
    pub fn load(&self, bytes: &[u8], limits: InstanceCaps) -> Result<WasmPlugin, EngineError> {
        artifact::check_before_compiling(bytes)?;
        artifact::check_runs_on_wasm(bytes)?;
        let split = self.split(bytes)?;
        self.guarded(bytes, split.as_ref())?;
        let Some(split) = split else {
            tracing::debug!("the plugin does not split; compiling it whole");
            let component =
                Component::new(&self.engine, bytes).map_err(|e| EngineError::Compile(e.into()))?;
            return self.whole(component, limits);
        };
        let held = self.shared(&split)?;
        let state =
            Module::new(&self.engine, &split.state).map_err(|e| EngineError::Compile(e.into()))?;
        self.link(held, state, limits)
    }

    /// The plugin compiled for this engine, to store beside it and load
    /// with [`WasmEngine::load_precompiled`]: its state module only, when
    /// it splits (the shared code it links is compiled now, and stored in
    /// `shared_dir`), else whole. Compiled straight to bytes: nothing is
    /// loaded, and no memory image made, for a copy that is never run.
    pub fn precompile(&self, bytes: &[u8]) -> Result<Vec<u8>, EngineError> {
        artifact::check_before_compiling(bytes)?;
        let split = self.split(bytes)?;
        self.guarded(bytes, split.as_ref())?;
        let compiled = match split {
            None => self.engine.precompile_component(bytes),
            Some(split) => {
                self.shared(&split)?;
                self.engine.precompile_module(&split.state)
            }
        };
        compiled.map_err(|e| EngineError::Compile(e.into()))
    }

    /// Loads a plugin compiled by [`WasmEngine::precompile`], memory-mapping
    /// it: no compilation. A state module finds its glue and shared modules
    /// by their digests, compiled in memory or in `shared_dir`.
    ///
    /// Only for files this host wrote into its own data dir: Wasmtime trusts
    /// precompiled code. It does check that the file was made by the same
    /// Wasmtime version with a compatible configuration, and fails otherwise
    /// (callers then compile the `.wasm` again).
    #[allow(unsafe_code)]
    pub fn load_precompiled(
        &self,
        path: &std::path::Path,
        limits: InstanceCaps,
    ) -> Result<WasmPlugin, EngineError> {
        let failed = |e: wasmtime::Error| EngineError::Compile(e.into());
        // SAFETY (both): `path` is a `.cwasm` this process's `Store` wrote
        // with `precompile` into the data dir, which only the server writes;
        // it is not input from a tenant or a client.
        match wasmtime::Engine::detect_precompiled_file(path).map_err(failed)? {
            Some(wasmtime::Precompiled::Module) => {
                let state =
                    unsafe { Module::deserialize_file(&self.engine, path) }.map_err(failed)?;
                let glue = split::glue_digest(&state).ok_or_else(|| {
                    EngineError::Compile("the compiled module names no glue".into())
                })?;
                let glue = self.glue.find(&glue)?;
                let mut modules = Vec::new();
                for (name, _) in glue.code().component_type().imports(&self.engine) {
                    if let Some(digest) = split::shared_digest(name) {
                        modules.push((name.to_string(), self.modules.find(digest)?));
                    }
                }
                self.link(
                    Held {
                        glue: Some(glue),
                        modules,
                    },
                    state,
                    limits,
                )
            }
            _ => {
                let component =
                    unsafe { Component::deserialize_file(&self.engine, path) }.map_err(failed)?;
                self.whole(component, limits)
            }
        }
    }

    /// What names this engine's compiled code ([`shared::code_key`]).
    pub fn code_key(&self) -> &str {
        &self.code_key
    }

    /// The SHA-256 of every piece of shared code a loaded plugin links.
    pub fn shared_in_use(&self) -> std::collections::HashSet<String> {
        let mut all: std::collections::HashSet<String> =
            self.modules.in_use().into_iter().collect();
        all.extend(self.glue.in_use());
        all
    }

    fn split(&self, bytes: &[u8]) -> Result<Option<split::Split>, EngineError> {
        match self.options.split {
            true => Ok(split::split(bytes)?),
            false => Ok(None),
        }
    }

    /// Passes `bytes` through the compile guard (`guard.rs`) when it
    /// brings code this engine has not compiled: it does not split, or a
    /// shared module or its glue is new.
    fn guarded(&self, bytes: &[u8], split: Option<&split::Split>) -> Result<(), EngineError> {
        let Some(guard) = &self.options.guard else {
            return Ok(());
        };
        let novel = match split {
            None => true,
            Some(split) => {
                !self.glue.known(&split.glue_digest)
                    || split.shared.iter().any(|m| !self.modules.known(&m.digest))
            }
        };
        match novel {
            true => guard.check(bytes),
            false => Ok(()),
        }
    }

    /// The glue and shared modules `split` links, compiled.
    fn shared(&self, split: &split::Split) -> Result<Held, EngineError> {
        let mut modules = Vec::with_capacity(split.shared.len());
        for m in &split.shared {
            modules.push((m.name.clone(), self.modules.get(&m.digest, &m.bytes)?));
        }
        Ok(Held {
            glue: Some(self.glue.get(&split.glue_digest, &split.glue)?),
            modules,
        })
    }

    /// A plugin compiled whole: its own memory image, the engine's linker.
    fn whole(&self, component: Component, limits: InstanceCaps) -> Result<WasmPlugin, EngineError> {
        make_memory_images(|| component.initialize_copy_on_write_image())?;
        let image = component.image_range();
        self.prepare(component, &self.linker, Held::default(), limits, image)
    }

    /// A split plugin: the glue, linked with the shared modules and the
    /// tenant's state module.
    fn link(
        &self,
        held: Held,
        state: Module,
        limits: InstanceCaps,
    ) -> Result<WasmPlugin, EngineError> {
        let failed = |e: wasmtime::Error| EngineError::Instantiate(e.into());
        let mut linker = self.linker.clone();
        for (name, module) in &held.modules {
            linker.root().module(name, &module.code()).map_err(failed)?;
        }
        linker
            .root()
            .module(split::STATE_IMPORT, &state)
            .map_err(failed)?;
        make_memory_images(|| state.initialize_copy_on_write_image())?;
        let glue = held.glue.as_ref().expect("a split plugin has glue").code();
        self.prepare(glue, &linker, held, limits, state.image_range())
    }

    fn prepare(
        &self,
        component: Component,
        linker: &Linker<HostState>,
        held: Held,
        limits: InstanceCaps,
        image: std::ops::Range<*const u8>,
    ) -> Result<WasmPlugin, EngineError> {
        let ty = component.component_type();
        let names: Vec<String> = ty
            .exports(&self.engine)
            .map(|(n, _)| n.to_string())
            .collect();
        artifact::check_contract(names.iter().map(String::as_str))?;
        // The glue's imports of modules are the host's own, not the plugin's.
        let linked = |n: &str| {
            held.glue.is_some() && (n == split::STATE_IMPORT || split::shared_digest(n).is_some())
        };
        let imports: Vec<String> = ty
            .imports(&self.engine)
            .map(|(n, _)| n.to_string())
            .filter(|n| !linked(n))
            .collect();
        artifact::check_imports(imports.iter().map(String::as_str))?;
        let pre = linker
            .instantiate_pre(&component)
            .map_err(|e| EngineError::Instantiate(e.into()))?;
        let pre = PluginPre::new(pre).map_err(|e| EngineError::Instantiate(e.into()))?;
        Ok(WasmPlugin {
            pre,
            // A pooling-allocator slot holds no more than the engine's cap.
            memory_limit: limits.memory.min(self.options.memory_limit),
            image: image.start.addr()..image.end.addr(),
            usage: Default::default(),
            _held: held,
            _ticker: self.ticker.clone(),
        })
    }
}

/// The shared code a split plugin links, kept compiled while it lives.
#[derive(Default)]
struct Held {
    glue: Option<Arc<shared::Shared<Component>>>,
    /// By import name.
    modules: Vec<(String, Arc<shared::Shared<Module>>)>,
}

/// Makes the component's copy-on-write memory images now, at load, rather
/// than at its first instantiation, which would be inside a request.
///
/// A component compiled in memory gets each image as a sealed memfd, and
/// Linux refuses the seal (`EBUSY`, after waiting about 150 ms) while any of
/// the image's pages is briefly pinned elsewhere. That is rare but real on a
/// loaded machine: it failed one CI run ("cannot add seals to the memfd"), and
/// a C loop sealing 32 MiB memfds with both cores busy saw it once in 2,900.
/// Wasmtime does not remember the failure, so another try makes a new memfd.
fn make_memory_images(make: impl Fn() -> wasmtime::Result<()>) -> Result<(), EngineError> {
    const TRIES: u64 = 5;
    let mut tried = 1;
    loop {
        match make() {
            Ok(()) => return Ok(()),
            Err(e) if tried < TRIES => {
                tracing::warn!(
                    tried,
                    "making the plugin's memory image failed ({e:#}); trying again"
                );
                std::thread::sleep(Duration::from_millis(20 * tried));
                tried += 1;
            }
            Err(e) => {
                return Err(EngineError::Transient(format!(
                    "the kernel refused the plugin's memory image {TRIES} times ({e:#})"
                )));
            }
        }
    }
}

impl Engine for WasmEngine {
    fn load_plugin(
        &self,
        artifact: &[u8],
        limits: InstanceCaps,
    ) -> Result<Arc<dyn Plugin>, EngineError> {
        Ok(Arc::new(self.load(artifact, limits)?))
    }
}

/// Makes `config` keep what it compiles in `dir` (`--code-cache`:
/// Wasmtime's cache, keyed by the module's bytes and the configuration).
pub fn use_code_cache(
    config: &mut wasmtime::Config,
    dir: &std::path::Path,
) -> wasmtime::Result<()> {
    let mut cache = wasmtime::CacheConfig::new();
    cache.with_directory(dir);
    config.cache(Some(wasmtime::Cache::new(cache)?));
    Ok(())
}

/// A compiled, pre-instantiated plugin.
pub struct WasmPlugin {
    pre: PluginPre<HostState>,
    memory_limit: usize,
    /// Where the compiled state module (or whole component) lies in memory:
    /// mapped from its `.cwasm`. Resetting a freed slot copies the
    /// snapshot's bytes from it, which leaves them resident in this
    /// mapping, for the plugin's life, until [`Plugin::trim`].
    image: std::ops::Range<usize>,
    usage: Arc<std::sync::Mutex<Usage>>,
    _held: Held,
    _ticker: Arc<ticker::Ticker>,
}

/// A plugin's live instances, and since when it has none after having
/// had some (`None` again once trimmed).
#[derive(Default)]
struct Usage {
    live: usize,
    idle_since: Option<Instant>,
}

/// Counts an instance live until it drops, its store (and so its slot's
/// reset) first: the last field of [`WasmInstance`].
struct Live(Arc<std::sync::Mutex<Usage>>);

impl Live {
    fn new(usage: &Arc<std::sync::Mutex<Usage>>) -> Live {
        crate::sync::lock(usage).live += 1;
        Live(usage.clone())
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let mut usage = crate::sync::lock(&self.0);
        usage.live -= 1;
        if usage.live == 0 {
            usage.idle_since = Some(Instant::now());
        }
    }
}

impl WasmPlugin {
    /// A fresh instance, serving the tenant version `grants` describes.
    pub fn instance(&self, grants: &Arc<Grants>) -> Result<WasmInstance, EngineError> {
        let state = HostState {
            wasi: WasiCtxBuilder::new().build(),
            table: ResourceTable::new(),
            limits: MemoryLimiter {
                memory_limit: self.memory_limit,
                memories: Vec::new(),
                refused: false,
            },
            imports: Imports::new(grants),
            deadline: Instant::now(),
            cpu: Duration::ZERO,
            cpu_spent: false,
            slice: None,
        };
        let mut store = Store::new(self.pre.engine(), state);
        store.limiter(|s| &mut s.limits);
        // Instantiation runs the adapter's and the runtime's start code.
        store.set_epoch_deadline(ticker::ticks(super::INSTANTIATE_DEADLINE));
        let _running = activity::renders().begin();
        // Async, as the `host` import is; nothing in it waits, so it ends
        // in its first poll.
        let bindings = super::block_on(self.pre.instantiate_async(&mut store))
            .map_err(|e| EngineError::Instantiate(e.into()))?;
        // From now on the epoch callback ends a render's time slice: at the
        // first tick after the render has run one `TICK` since it was last
        // polled, it yields to the caller's scheduler; past its deadline or
        // its CPU time (`WasmInstance::render` sets both) it is interrupted.
        // A render shorter than a tick is never cut, wherever the ticks fall.
        let slice = Arc::new(Slice::new());
        store.data_mut().slice = Some(slice.clone());
        let polled = slice.clone();
        store.epoch_deadline_callback(move |mut store| {
            let state = store.data_mut();
            Ok(if Instant::now() >= state.deadline {
                UpdateDeadline::Interrupt
            } else if polled.cpu() >= state.cpu {
                state.cpu_spent = true;
                UpdateDeadline::Interrupt
            } else if polled.ran() < ticker::TICK {
                UpdateDeadline::Continue(1)
            } else {
                UpdateDeadline::Yield(1)
            })
        });
        Ok(WasmInstance {
            store,
            bindings,
            slice,
            _live: Live::new(&self.usage),
        })
    }
}

impl Plugin for WasmPlugin {
    fn instantiate(&self, grants: &Arc<Grants>) -> Result<Box<dyn Instance>, EngineError> {
        Ok(Box::new(self.instance(grants)?))
    }

    fn yields(&self) -> bool {
        true
    }

    /// `MADV_PAGEOUT` over the compiled image: the kernel takes back the
    /// pages it can (the file's, which it reads again when needed) and
    /// keeps the rest (any it cannot write back): nothing is lost.
    /// 300 tenants of `plugins/hello` that each served once and went idle
    /// held 588 MiB there, 2 MiB each, the snapshot's pages read by slot
    /// resets (the server's `/proc/<pid>/smaps`); `benches/density.sh`'s
    /// "active, then idle" phase measures what is left.
    #[allow(unsafe_code)]
    fn trim(&self, idle: Duration) -> bool {
        let mut usage = crate::sync::lock(&self.usage);
        let due = usage.live == 0 && usage.idle_since.is_some_and(|t| t.elapsed() >= idle);
        if !due {
            return false;
        }
        usage.idle_since = None;
        let page = rustix::param::page_size();
        let start = self.image.start.next_multiple_of(page);
        let end = self.image.end / page * page;
        if end > start {
            // SAFETY: the range lies within the image Wasmtime mapped for
            // this plugin, alive while `self` is; `MADV_PAGEOUT` changes no
            // byte a reader sees, only where the pages are kept.
            let _ = unsafe {
                rustix::mm::madvise(
                    start as *mut std::ffi::c_void,
                    end - start,
                    rustix::mm::Advice::LinuxPageOut,
                )
            };
        }
        true
    }
}

/// One instance of a plugin, with its own store.
pub struct WasmInstance {
    store: Store<HostState>,
    bindings: Bindings,
    slice: Arc<Slice>,
    /// Last: dropped after the store.
    _live: Live,
}

/// When the instance's render was last polled, and the CPU time its polls
/// have used, for its epoch callback.
struct Slice {
    base: Instant,
    polled_nanos: AtomicU64,
    /// The thread's CPU clock when the poll in progress began.
    cpu_at_poll: AtomicU64,
    /// The CPU time of the render's polls that have ended.
    cpu_used: AtomicU64,
}

impl Slice {
    fn new() -> Slice {
        Slice {
            base: Instant::now(),
            polled_nanos: AtomicU64::new(0),
            cpu_at_poll: AtomicU64::new(0),
            cpu_used: AtomicU64::new(0),
        }
    }

    /// A new render: none of its CPU time is used.
    fn start(&self) {
        self.cpu_used.store(0, Ordering::Relaxed);
    }

    /// The render's CPU time is whole again, from now (a WebSocket's
    /// message, in a poll).
    fn renew(&self) {
        self.start();
        let cpu = crate::sched::thread_cpu_time().as_nanos() as u64;
        self.cpu_at_poll.store(cpu, Ordering::Relaxed);
    }

    /// A poll begins.
    fn mark(&self) {
        let now = self.base.elapsed().as_nanos() as u64;
        self.polled_nanos.store(now, Ordering::Relaxed);
        let cpu = crate::sched::thread_cpu_time().as_nanos() as u64;
        self.cpu_at_poll.store(cpu, Ordering::Relaxed);
    }

    /// A poll ended: its CPU time counts.
    fn unmark(&self) {
        let cpu = crate::sched::thread_cpu_time().as_nanos() as u64;
        let began = self.cpu_at_poll.load(Ordering::Relaxed);
        self.cpu_used
            .fetch_add(cpu.saturating_sub(began), Ordering::Relaxed);
    }

    /// CPU time the render used on another thread (`engine::offload`).
    fn charge(&self, cpu: Duration) {
        self.cpu_used
            .fetch_add(cpu.as_nanos() as u64, Ordering::Relaxed);
    }

    /// The render's CPU time, the poll in progress included (the epoch
    /// callback runs inside a poll, on the polling thread).
    fn cpu(&self) -> Duration {
        let began = self.cpu_at_poll.load(Ordering::Relaxed);
        let now = crate::sched::thread_cpu_time().as_nanos() as u64;
        Duration::from_nanos(self.cpu_used.load(Ordering::Relaxed) + now.saturating_sub(began))
    }

    /// How long the render has run since it was last polled.
    fn ran(&self) -> Duration {
        let polled = Duration::from_nanos(self.polled_nanos.load(Ordering::Relaxed));
        self.base.elapsed().saturating_sub(polled)
    }
}

impl Instance for WasmInstance {
    fn render<'a>(
        &'a mut self,
        req: &'a Request,
        budget: Budget,
        body: Option<Sink>,
    ) -> Rendering<'a> {
        Box::pin(async move {
            let wit_req = types::Request::from(req);
            // The callback installed by `WasmPlugin::instance` reads the
            // deadline and the CPU time, and `slice` to end a slice one tick
            // after each poll and to count the polls' CPU time.
            let state = self.store.data_mut();
            state.deadline = Instant::now() + budget.wall;
            state.cpu = budget.cpu;
            state.cpu_spent = false;
            state.limits.refused = false;
            state.imports.start_render(state.deadline, body, req);
            self.store.set_epoch_deadline(1);
            // Until the render ends or is dropped, suspended slices included.
            let _running = activity::renders().begin();
            let slice = &self.slice;
            slice.start();
            let out = {
                let mut call = std::pin::pin!(
                    self.bindings
                        .ssr_plugin_renderer()
                        .call_render(&mut self.store, &wit_req)
                );
                std::future::poll_fn(|cx| {
                    slice.mark();
                    let polled = call.as_mut().poll(cx);
                    slice.unmark();
                    polled
                })
                .await
            };
            self.store.data_mut().imports.end_render();
            let data = self.store.data();
            super::rendered(&data.imports, response(out, budget, data))
        })
    }

    /// Bytes of linear memory, all memories together.
    fn memory_bytes(&self) -> usize {
        self.store.data().limits.memories.iter().sum()
    }
}

/// The engine's view of what `render` returned or how it trapped.
fn response(
    out: wasmtime::Result<Result<types::Response, types::RenderError>>,
    budget: Budget,
    state: &HostState,
) -> Result<Response, EngineError> {
    let refused_memory = state.limits.refused;
    let timeout = || match state.cpu_spent {
        true => EngineError::CpuTime(budget.cpu),
        false => EngineError::Timeout(budget.wall),
    };
    match out {
        Ok(Ok(r)) => Ok(r.into()),
        // QuickJS turns a failed allocation (the memory cap) into an
        // exception, but an instance whose heap filled its linear memory
        // keeps that memory for good: discard it like a trap.
        Ok(Err(_)) if refused_memory => Err(EngineError::OutOfMemory),
        Ok(Err(e)) => Err(EngineError::Js(e.into())),
        Err(trap) => Err(match trap.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) | Some(Trap::OutOfFuel) => timeout(),
            _ if trap.downcast_ref::<MemoryLimitReached>().is_some() => EngineError::OutOfMemory,
            // A growth the cap refused, then a trap: an allocator that
            // aborts when memory runs out (wit-bindgen's, taking a host
            // call's reply) rather than failing the allocation.
            _ if refused_memory => EngineError::OutOfMemory,
            _ => EngineError::Trap(trap.into()),
        }),
    }
}
