//! The QuickJS renderer runtime: one javy `Runtime`, the web-API prelude, one
//! evaluated bundle, and the loop that drives a render to its result.
//!
//! Lifetime: a [`Renderer`] is created once per plugin (at build time, inside
//! Wizer, so its state lands in the snapshot) and then serves many renders.
//!
//! Invariants:
//! - The bundle's top level runs exactly once, in [`Renderer::new`]; a render
//!   only calls the `render` function the module exported.
//! - A reused instance's memory stays bounded: cycles are collected after
//!   every few renders, and after every render once garbage no longer fits
//!   in the memory its first render left ([`COLLECT_EVERY`]).
//! - Every JavaScript failure becomes a [`RenderError`], never a panic.
//!
//! This code compiles both for wasm32-wasip1 (the plugin) and for the host
//! (the "native QuickJS" baseline in the benchmarks).

use std::cell::Cell;

use contract::{CachePolicy, ErrorKind, LogLevel, RenderError, Reply, Request, Response};
use javy::quickjs::{
    Array, Ctx, Error as JsError, Function, Object, Promise, TypedArray, context::EvalOptions,
    function::Opt, prelude::Func, promise::PromiseState,
};
use javy::{Config, Runtime};

/// What the runtime reaches outside itself: the WIT imports in the plugin,
/// stand-ins on the host (the native baseline of the benchmarks).
#[derive(Clone, Copy)]
pub struct Imports {
    /// Where `console.*` lines go (WIT `log.write`).
    pub log: fn(LogLevel, &str),
    /// The host's capabilities (WIT `host.call`): name, JSON arguments and
    /// bytes.
    pub call: fn(&str, &str, &[u8]) -> Result<Reply, String>,
}

/// A QuickJS runtime with one bundle evaluated in it.
pub struct Renderer {
    runtime: Runtime,
    imports: Imports,
    /// Renders since the last cycle collection.
    uncollected: Cell<u32>,
    /// Renders between collections: [`COLLECT_EVERY`] at first, halved
    /// to the renders the memory's room lasted whenever it ran out.
    interval: Cell<u32>,
    /// The instance's memory size after its first render, or after the
    /// collection that followed its last growth (Wasm only; `None` before
    /// the first render).
    base: Cell<Option<usize>>,
}

/// A reused instance collects cycles every `interval` renders, at most
/// `COLLECT_EVERY`; when its memory grows (the room its first render left
/// could not hold the cycles of the renders since the last collection), it
/// collects at once, keeps the room it grew to, and from then on collects
/// at least twice as often as that room lasted. Not after the first render:
/// a fresh-mode instance renders once and is dropped, and a new instance's
/// collection walks its whole snapshot, faulting in every page of it
/// (`render_fresh` in `benches/engine.rs`).
/// javy turns QuickJS's automatic cycle collection off; collecting after
/// every render kept a React instance at its snapshot's size but cost 24 us
/// even for a trivial render (the collector walks the whole heap, prelude
/// included; `ssr render --repeat`), and QuickJS's own adaptive trigger grew
/// React to 48 MiB. Reference counting frees everything acyclic at once, so
/// only cyclic garbage waits, and only in room the instance has: a render
/// that leaves more (8 MiB of cycles each, `tests/all/runtime.rs`) grows it
/// by one render's worth, then is collected every time. A fixed count had to
/// choose: collecting every 16th render, the collection was 12% of the
/// server's CPU on the trivial page (`perf`, wrk, every request rendered);
/// every 64th, the trivial page gained 15-20% but the Hono page, whose
/// cycles outgrew the room, lost 20-27% to a collection after every render
/// (one server per build side by side, alternating wrk runs).
const COLLECT_EVERY: u32 = 64;

/// The instance's linear memory, in bytes: it only grows, and grows only when
/// the allocator has no room left. Not measured on the host (the native
/// baseline collects by count alone).
fn memory_size() -> usize {
    #[cfg(target_family = "wasm")]
    {
        core::arch::wasm32::memory_size::<0>() << 16
    }
    #[cfg(not(target_family = "wasm"))]
    {
        0
    }
}

impl Renderer {
    /// Creates the runtime, evaluates the prelude, then evaluates `bundle` as
    /// an ES module named `name` and settles its top-level promise.
    ///
    /// Fails when the bundle does not parse, its top level throws, or it
    /// exports no render function.
    pub fn new(name: &str, bundle: &str, imports: Imports) -> Result<Self, RenderError> {
        let mut config = Config::default();
        config.text_encoding(true);
        // WeakRef and FinalizationRegistry, as V8 and workerd have them
        // (javy leaves them out by default).
        config.weak_ref(true);
        let runtime = Runtime::new(config)
            .map_err(|e| RenderError::new(ErrorKind::Exception, e.to_string()))?;
        runtime.context().with(|ctx| -> Result<(), RenderError> {
            let log = Func::from(move |level: i32, message: String| {
                (imports.log)(LogLevel::from_code(level), &message);
            });
            ctx.globals()
                .set("__ssr_log", log)
                .map_err(|e| caught(&ctx, e))?;
            ctx.globals()
                .set(
                    "__ssr_host",
                    Func::from(move |ctx, name, args, data| {
                        call_host(ctx, imports.call, name, args, data)
                    }),
                )
                .map_err(|e| caught(&ctx, e))?;
            let mut opts = EvalOptions::default();
            opts.global = true;
            opts.strict = false;
            opts.filename = Some(contract::PRELUDE_NAME.into());
            ctx.eval_with_options::<(), _>(contract::PRELUDE, opts)
                .map_err(|e| caught(&ctx, e))?;

            let module = javy::quickjs::Module::declare(ctx.clone(), name, bundle)
                .map_err(|e| caught(&ctx, e))?;
            let (module, promise) = module.eval().map_err(|e| caught(&ctx, e))?;
            // A top-level `await` settles here, at build time, or never.
            settle::<javy::quickjs::Value>(&ctx, promise, &imports).map_err(|e| {
                if e.kind != ErrorKind::NeverSettled {
                    return e;
                }
                RenderError::new(
                    ErrorKind::NeverSettled,
                    "the module's top level awaits a promise that can never settle: no job, timer or message is left that could settle it (the top level runs at build time, where no request or fetch is)",
                )
            })?;
            let ns = module.namespace().map_err(|e| caught(&ctx, e))?;
            driver(&ctx)?
                .get::<_, Function>("resolve")
                .and_then(|f| f.call::<_, ()>((ns,)))
                .map_err(|e| caught(&ctx, e))?;
            driver(&ctx)?
                .get::<_, Function>("reset")
                .and_then(|f| f.call::<_, ()>(()))
                .map_err(|e| caught(&ctx, e))?;
            ctx.run_gc();
            Ok(())
        })?;
        Ok(Renderer {
            runtime,
            imports,
            uncollected: Cell::new(0),
            interval: Cell::new(COLLECT_EVERY),
            base: Cell::new(None),
        })
    }

    /// Renders one request: calls the exported `render`, drives microtasks
    /// and timers until its promise settles, and maps the result.
    pub fn render(&self, req: &Request) -> Result<Response, RenderError> {
        self.runtime.context().with(|ctx| {
            let result = render_in(&ctx, req, &self.imports);
            // Nothing scheduled by this request may run during the next one.
            if let Ok(reset) = driver(&ctx)
                .and_then(|d| d.get::<_, Function>("reset").map_err(|e| caught(&ctx, e)))
            {
                let _ = reset.call::<_, ()>(());
            }
            let renders = self.uncollected.get() + 1;
            match self.base.get() {
                // The first render sets the size later ones are held to.
                None => {
                    self.base.set(Some(memory_size()));
                    self.uncollected.set(renders);
                }
                Some(base) if memory_size() > base => {
                    ctx.run_gc();
                    self.base.set(Some(memory_size()));
                    let lasted = (renders / 2).max(1);
                    self.interval.set(self.interval.get().min(lasted));
                    self.uncollected.set(0);
                }
                Some(_) if renders >= self.interval.get() => {
                    ctx.run_gc();
                    self.uncollected.set(0);
                }
                Some(_) => self.uncollected.set(renders),
            }
            result
        })
    }
}

fn render_in(ctx: &Ctx<'_>, req: &Request, imports: &Imports) -> Result<Response, RenderError> {
    let ssr = driver(ctx)?;
    let call: Function = ssr.get("call").map_err(|e| caught(ctx, e))?;
    let request = to_js(ctx, req).map_err(|e| caught(ctx, e))?;
    let promise: Promise = call.call((request,)).map_err(|e| caught(ctx, e))?;
    let out: Object = settle(ctx, promise, imports)?;
    from_js(&out).map_err(|e| caught(ctx, e))
}

/// The prelude's `__ssr_host(name, args, data?)` (`data` a `Uint8Array`):
/// `[true, value, bytes]`, or `[false, message]` when the host refused.
fn call_host<'js>(
    ctx: Ctx<'js>,
    call: fn(&str, &str, &[u8]) -> Result<Reply, String>,
    name: String,
    args: String,
    data: Opt<Option<TypedArray<'js, u8>>>,
) -> javy::quickjs::Result<Array<'js>> {
    let bytes = data.0.flatten();
    let bytes = bytes
        .as_ref()
        .and_then(|d| d.as_bytes())
        .unwrap_or_default();
    let out = Array::new(ctx.clone())?;
    match call(&name, &args, bytes) {
        Ok(reply) => {
            out.set(0, true)?;
            out.set(1, reply.value)?;
            out.set(2, TypedArray::<u8>::new(ctx, reply.data)?)?;
        }
        Err(message) => {
            out.set(0, false)?;
            out.set(1, message)?;
        }
    }
    Ok(out)
}

/// The prelude's hidden `__ssr` object.
fn driver<'js>(ctx: &Ctx<'js>) -> Result<Object<'js>, RenderError> {
    ctx.globals()
        .get("__ssr")
        .map_err(|_| RenderError::new(ErrorKind::NotInitialized, "the prelude was not evaluated"))
}

/// Runs jobs and timers until `promise` settles; while only requests are
/// in flight, waits for them with the host's `fetch-wait` (in the plugin,
/// the render's fiber suspends there and its worker serves other renders).
fn settle<'js, T: javy::quickjs::FromJs<'js>>(
    ctx: &Ctx<'js>,
    promise: Promise<'js>,
    imports: &Imports,
) -> Result<T, RenderError> {
    let driver = driver(ctx)?;
    let run_next_timer: Function = driver.get("runNextTimer").map_err(|e| caught(ctx, e))?;
    loop {
        while ctx.execute_pending_job() {}
        match promise.state() {
            PromiseState::Pending => {
                let fired: javy::quickjs::Value =
                    run_next_timer.call(()).map_err(|e| caught(ctx, e))?;
                if let Some(ms) = fired.as_number() {
                    let wait = if ms < 0.0 {
                        "null".to_string()
                    } else {
                        ms.to_string()
                    };
                    let reply = (imports.call)(contract::calls::FETCH_WAIT, &wait, &[])
                        .map_err(|e| RenderError::new(ErrorKind::Exception, e))?;
                    let data = TypedArray::<u8>::new(ctx.clone(), reply.data)
                        .map_err(|e| caught(ctx, e))?;
                    driver
                        .get::<_, Function>("arrived")
                        .and_then(|f| f.call::<_, ()>((reply.value, data)))
                        .map_err(|e| caught(ctx, e))?;
                } else if !fired.as_bool().unwrap_or(false) {
                    return Err(RenderError::new(
                        ErrorKind::NeverSettled,
                        "the promise returned by render() can never settle: no job, timer or message is left that could settle it",
                    ));
                }
            }
            PromiseState::Resolved | PromiseState::Rejected => {
                return match promise.result::<T>() {
                    Some(Ok(v)) => Ok(v),
                    Some(Err(e)) => Err(caught(ctx, e)),
                    None => Err(RenderError::new(ErrorKind::Exception, "promise lost")),
                };
            }
        }
    }
}

/// Turns a QuickJS error (usually a pending exception) into a [`RenderError`]
/// through the prelude's `describe`.
fn caught(ctx: &Ctx<'_>, err: JsError) -> RenderError {
    if !err.is_exception() {
        return RenderError::new(ErrorKind::Exception, err.to_string());
    }
    let reason = ctx.catch();
    let described = driver(ctx).ok().and_then(|d| {
        let f: Function = d.get("describe").ok()?;
        f.call::<_, Object>((reason.clone(),)).ok()
    });
    match described {
        Some(d) => {
            let stack: String = d.get("stack").unwrap_or_default();
            RenderError {
                kind: ErrorKind::parse(&d.get::<_, String>("kind").unwrap_or_default()),
                message: d.get("message").unwrap_or_default(),
                stack: (!stack.is_empty()).then_some(stack),
            }
        }
        // Before the prelude exists (a syntax error in the prelude itself).
        None => {
            let ex = reason.as_exception();
            RenderError {
                kind: ErrorKind::Exception,
                message: ex
                    .and_then(|e| e.message())
                    .unwrap_or_else(|| format!("{reason:?}")),
                stack: ex.and_then(|e| e.stack()),
            }
        }
    }
}

/// The raw request `__ssr.call` takes (the serde form of `Request`, which
/// the V8 engine passes as JSON), field by field: through `rquickjs-serde` a
/// render took 10 us longer (65 against 56 us for a one-line page, `ssr
/// render --repeat 50000`, alternating builds) and every plugin 89 KiB more.
fn to_js<'js>(ctx: &Ctx<'js>, req: &Request) -> javy::quickjs::Result<Object<'js>> {
    let pairs = |list: &[(String, String)]| -> javy::quickjs::Result<Array<'js>> {
        let out = Array::new(ctx.clone())?;
        for (i, (k, v)) in list.iter().enumerate() {
            let pair = Array::new(ctx.clone())?;
            pair.set(0, k.as_str())?;
            pair.set(1, v.as_str())?;
            out.set(i, pair)?;
        }
        Ok(out)
    };
    let o = Object::new(ctx.clone())?;
    o.set("method", req.method.as_str())?;
    o.set("url", req.url.as_str())?;
    o.set("href", req.href.as_str())?;
    o.set("base", req.base.as_str())?;
    o.set("path", req.path.as_str())?;
    o.set("query", pairs(&req.query)?)?;
    o.set("headers", pairs(&req.headers)?)?;
    o.set("tenant", req.tenant.as_str())?;
    if !req.body.is_empty() {
        o.set("body", TypedArray::<u8>::new_copy(ctx.clone(), &req.body)?)?;
    }
    Ok(o)
}

fn from_js(out: &Object<'_>) -> javy::quickjs::Result<Response> {
    let headers: Array = out.get("headers")?;
    let headers = headers
        .iter::<Array>()
        .map(|pair| {
            let pair = pair?;
            Ok((pair.get::<String>(0)?, pair.get::<String>(1)?))
        })
        .collect::<javy::quickjs::Result<Vec<_>>>()?;
    // The prelude leaves a string body a string (encoding it in JavaScript
    // would be slower) and makes any other body a `Uint8Array`.
    let body: javy::quickjs::Value = out.get("body")?;
    let body = match body.as_string() {
        Some(text) => text.to_string()?.into_bytes(),
        None => TypedArray::<u8>::from_value(body)?
            .as_bytes()
            .map(<[u8]>::to_vec)
            .unwrap_or_default(),
    };
    Ok(Response {
        status: out.get("status")?,
        headers,
        body,
        cache: CachePolicy::from(out.get::<_, f64>("ttl")?),
        vary: out.get::<_, Vec<String>>("vary")?,
    })
}

/// Reseeds `Math.random` from the system's entropy. Called once per instance
/// before its first render, so a seed drawn at build time (and frozen into
/// the snapshot) is never replayed.
pub fn reseed_random(seed: u64) {
    fastrand::seed(seed);
}
