//! The only unsafe code of the V8 engine: declarations of `shim.cc`'s C API
//! and [`Isolate`], a safe owner of one `ssr_v8` (an isolate with one context).
//!
//! Invariants the safe API relies on (see `shim.cc`):
//! - [`init`] runs once, on the thread that loaded the addon, before any
//!   isolate is made (the worker's first step, `worker.rs`).
//! - Every shim call takes the isolate's `v8::Locker`, so an `Isolate` may be
//!   sent to another thread; `&mut self` keeps two calls from overlapping.
//! - Strings in an `ssr_v8_result` live until the next call on the same
//!   isolate: [`Isolate`] copies them out before returning.
//! - The log and call callbacks' data pointer is the boxed [`Host`] the
//!   `Isolate` owns, freed only after the isolate; a reply's buffers live
//!   in it until the next call.
//! - What the callbacks reach is a [`HostCalls`]: the channel to the
//!   server (`worker.rs`), or nothing (`service.rs`).
//! - A leaf: it names no other module of the crate.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_void};

use contract::Reply;
/// How a call into an isolate ended: what the lane carries back.
pub use ssr::engine::v8::process::wire::Outcome;

/// What an isolate's JavaScript reaches: `__ssr_log` and `__ssr_host`.
pub trait HostCalls {
    /// One `console.*` line.
    fn log(&self, level: contract::LogLevel, message: &str);
    /// A capability that answers at once (`Imports::call_now`).
    fn call_now(&mut self, name: &str, args: &str, data: &[u8]) -> Result<Reply, String>;
}

// `shim.cc`'s outcome codes.
const OUTCOME_OK: i32 = 0;
const OUTCOME_TIMEOUT: i32 = 2;
const OUTCOME_OOM: i32 = 3;
const OUTCOME_WAITING: i32 = 4;

#[repr(C)]
struct RawResult {
    outcome: i32,
    body: *const c_char,
    body_len: usize,
    meta: *const c_char,
    meta_len: usize,
    wait_ms: i64,
}

#[repr(C)]
struct RawIsolate {
    _private: [u8; 0],
}

#[repr(C)]
struct RawReply {
    value: *const c_char,
    value_len: usize,
    data: *const u8,
    data_len: usize,
}

type LogFn = extern "C" fn(data: *mut c_void, level: i32, msg: *const c_char, len: usize);

type CallFn = extern "C" fn(
    data: *mut c_void,
    name: *const c_char,
    name_len: usize,
    args: *const c_char,
    args_len: usize,
    bytes: *const u8,
    bytes_len: usize,
    out: *mut RawReply,
) -> i32;

unsafe extern "C" {
    fn ssr_v8_init() -> i32;
    fn ssr_v8_script(
        inst: *mut RawIsolate,
        script: *const c_char,
        script_len: usize,
        name: *const c_char,
        deadline_ms: u32,
        out: *mut RawResult,
    ) -> i32;
    fn ssr_v8_invoke(
        inst: *mut RawIsolate,
        function: *const c_char,
        arg: *const c_char,
        arg_len: usize,
        cpu_ms: u32,
        out: *mut RawResult,
    ) -> i32;
    fn ssr_v8_new(
        heap_limit: usize,
        stack_bytes: usize,
        offer_core_after_ms: u32,
        offer_every_us: u32,
        log: LogFn,
        call: CallFn,
        host_data: *mut c_void,
    ) -> *mut RawIsolate;
    #[allow(clippy::too_many_arguments)]
    fn ssr_v8_load(
        inst: *mut RawIsolate,
        prelude: *const c_char,
        prelude_len: usize,
        prelude_name: *const c_char,
        name: *const c_char,
        name_len: usize,
        bundle: *const c_char,
        bundle_len: usize,
        deadline_ms: u32,
        out: *mut RawResult,
    ) -> i32;
    fn ssr_v8_render(
        inst: *mut RawIsolate,
        request: *const c_char,
        request_len: usize,
        body: *const u8,
        body_len: usize,
        cpu_ms: u32,
        deadline_ms: u32,
        may_lower: bool,
        out: *mut RawResult,
    ) -> i32;
    fn ssr_v8_resume(
        inst: *mut RawIsolate,
        value: *const c_char,
        value_len: usize,
        data: *const u8,
        data_len: usize,
        cpu_ms: u32,
        deadline_ms: u32,
        may_lower: bool,
        out: *mut RawResult,
    ) -> i32;
    fn ssr_v8_heap_used(inst: *mut RawIsolate) -> usize;
    fn ssr_v8_core_offers() -> u64;
    fn ssr_v8_end_when_stuck(grace_ms: u32);
    fn ssr_v8_lower_when_contended(nice: i32);
    fn ssr_v8_thread_lowered() -> bool;
    fn ssr_v8_free(inst: *mut RawIsolate);
}

/// One V8 isolate with one context, whose JavaScript reaches `H`.
pub struct Isolate<H: HostCalls> {
    raw: *mut RawIsolate,
    /// What the callbacks reach; outlives `raw`.
    host: *mut Host<H>,
}

/// The callbacks' data: what the instance reaches, and the last reply,
/// which the shim copies out before the next call.
struct Host<H> {
    imports: H,
    reply: Result<Reply, String>,
}

// SAFETY: every shim entry point takes the isolate's `v8::Locker` and sets
// the stack limit for the calling thread, so the isolate may be used from any
// one thread at a time; `&mut self` on every call enforces "one at a time".
// Why an `unsafe impl` at all: the isolate is a raw pointer, which Rust
// never deems `Send`, and warm instances move between the pool's threads
// (a render may end on another thread than it began); the `Locker` is what
// makes that sound, and only this file can say so.
unsafe impl<H: HostCalls + Send> Send for Isolate<H> {}

/// A buffer the shim passes for the duration of a callback.
///
/// SAFETY (caller): `ptr` is null or points to `len` readable bytes that
/// outlive the returned slice.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if ptr.is_null() || len == 0 {
        return &[];
    }
    // SAFETY: as the caller promised.
    unsafe { std::slice::from_raw_parts(ptr, len) }
}

extern "C" fn log<H: HostCalls>(data: *mut c_void, level: i32, msg: *const c_char, len: usize) {
    // SAFETY: `data` is the `Host` this isolate's `Isolate` owns and frees
    // only after `ssr_v8_free`; `msg`/`len` is a UTF-8 buffer the shim keeps
    // alive for this call.
    let (host, msg) = unsafe { (&*(data as *const Host<H>), bytes(msg.cast(), len)) };
    host.imports.log(
        contract::LogLevel::from_code(level),
        &String::from_utf8_lossy(msg),
    );
}

#[allow(clippy::too_many_arguments)]
extern "C" fn call<H: HostCalls>(
    data: *mut c_void,
    name: *const c_char,
    name_len: usize,
    args: *const c_char,
    args_len: usize,
    data_ptr: *const u8,
    data_len: usize,
    out: *mut RawReply,
) -> i32 {
    // SAFETY: `data` is the `Host` this isolate's `Isolate` owns (see `log`);
    // the shim runs one callback at a time per isolate and no other
    // reference to the `Host` is live during a shim call. The buffers are
    // the shim's, alive for this call; `out` is its reply, written here.
    let (host, name, args, input, out) = unsafe {
        (
            &mut *(data as *mut Host<H>),
            bytes(name.cast(), name_len),
            bytes(args.cast(), args_len),
            bytes(data_ptr, data_len),
            &mut *out,
        )
    };
    let (name, args) = (String::from_utf8_lossy(name), String::from_utf8_lossy(args));
    // Only `fetch-wait` waits, and the engine calls it itself, between
    // calls into the isolate (`V8Instance::render`).
    host.reply = host.imports.call_now(&name, &args, input);
    let (ok, value, data): (i32, &str, &[u8]) = match &host.reply {
        Ok(reply) => (1, &reply.value, &reply.data),
        Err(message) => (0, message, &[]),
    };
    *out = RawReply {
        value: value.as_ptr().cast(),
        value_len: value.len(),
        data: data.as_ptr(),
        data_len: data.len(),
    };
    ok
}

impl<H: HostCalls> Isolate<H> {
    /// A new isolate whose heap is capped at `heap_limit` bytes and whose
    /// JavaScript may use `stack_bytes` of the calling thread's stack; a call
    /// still running after `offer_core_after_ms` (0: never) offers its core
    /// every `offer_every_us`; its JavaScript reaches the host through
    /// `imports`.
    pub fn new(
        heap_limit: usize,
        stack_bytes: usize,
        offer_core_after_ms: u32,
        offer_every_us: u32,
        imports: H,
    ) -> Isolate<H> {
        let host = Box::into_raw(Box::new(Host {
            imports,
            reply: Ok(Reply::default()),
        }));
        // SAFETY: `init` ran (the worker's first step); `host` stays valid
        // until `drop`, after the isolate is freed.
        let raw = unsafe {
            ssr_v8_new(
                heap_limit,
                stack_bytes,
                offer_core_after_ms,
                offer_every_us,
                log::<H>,
                call::<H>,
                host as *mut c_void,
            )
        };
        Isolate { raw, host }
    }

    /// Evaluates the prelude (a classic script) and the bundle (an ES module).
    pub fn load(
        &mut self,
        prelude: &str,
        prelude_name: &str,
        name: &str,
        bundle: &str,
        deadline_ms: u32,
    ) -> Outcome {
        let mut out = empty_result();
        let prelude_name = std::ffi::CString::new(prelude_name).unwrap_or_default();
        // SAFETY: all pointers are valid for the call; `out` is read only by
        // `outcome`, before any other call on this isolate.
        unsafe {
            ssr_v8_load(
                self.raw,
                prelude.as_ptr().cast(),
                prelude.len(),
                prelude_name.as_ptr(),
                name.as_ptr().cast(),
                name.len(),
                bundle.as_ptr().cast(),
                bundle.len(),
                deadline_ms,
                &mut out,
            );
            outcome(&out)
        }
    }

    /// Renders one request, given as the prelude's raw request JSON and its
    /// body, within `cpu_ms` of this thread's CPU time and `deadline_ms`.
    /// `may_lower`: other renders were in flight when it began, so it may
    /// lower its thread ([`lower_when_contended`]).
    pub fn render(
        &mut self,
        request_json: &str,
        body: &[u8],
        cpu_ms: u32,
        deadline_ms: u32,
        may_lower: bool,
    ) -> Outcome {
        let mut out = empty_result();
        // SAFETY: as in `load`.
        unsafe {
            ssr_v8_render(
                self.raw,
                request_json.as_ptr().cast(),
                request_json.len(),
                body.as_ptr(),
                body.len(),
                cpu_ms,
                deadline_ms,
                may_lower,
                &mut out,
            );
            outcome(&out)
        }
    }

    /// Goes on with a render that answered [`Outcome::Waiting`], given the
    /// host's `fetch-wait` reply; `may_lower` as for [`Isolate::render`].
    pub fn resume(
        &mut self,
        value: &str,
        data: &[u8],
        cpu_ms: u32,
        deadline_ms: u32,
        may_lower: bool,
    ) -> Outcome {
        let mut out = empty_result();
        // SAFETY: as in `load`.
        unsafe {
            ssr_v8_resume(
                self.raw,
                value.as_ptr().cast(),
                value.len(),
                data.as_ptr(),
                data.len(),
                cpu_ms,
                deadline_ms,
                may_lower,
                &mut out,
            );
            outcome(&out)
        }
    }

    /// Evaluates `script`, a classic script of the host's own (a service
    /// isolate's: no prelude, no bundle).
    pub fn script(&mut self, script: &str, name: &str, deadline_ms: u32) -> Outcome {
        let mut out = empty_result();
        let name = std::ffi::CString::new(name).unwrap_or_default();
        // SAFETY: as in `load`.
        unsafe {
            ssr_v8_script(
                self.raw,
                script.as_ptr().cast(),
                script.len(),
                name.as_ptr(),
                deadline_ms,
                &mut out,
            );
            outcome(&out)
        }
    }

    /// Calls the global function `function` with `arg`: its result as text
    /// is [`Outcome::Ok`]'s body.
    pub fn invoke(&mut self, function: &str, arg: &str, cpu_ms: u32) -> Outcome {
        let mut out = empty_result();
        let function = std::ffi::CString::new(function).unwrap_or_default();
        // SAFETY: as in `load`.
        unsafe {
            ssr_v8_invoke(
                self.raw,
                function.as_ptr(),
                arg.as_ptr().cast(),
                arg.len(),
                cpu_ms,
                &mut out,
            );
            outcome(&out)
        }
    }

    /// Bytes of V8 heap in use.
    pub fn heap_used(&self) -> usize {
        // SAFETY: `raw` is live; the shim takes the locker.
        unsafe { ssr_v8_heap_used(self.raw) }
    }
}

/// Takes the V8 platform of the Node that loaded this addon: once, on the
/// thread that loaded it, before any [`Isolate`]. False when this is not
/// the V8 the shim was built for, or not a Node addon's thread (the shim
/// says which on standard error).
pub fn init() -> bool {
    // SAFETY: called once, on the addon's loading thread (see above).
    unsafe { ssr_v8_init() == 0 }
}

/// Makes this process end itself when a call goes on `grace` (of CPU or
/// of wall-clock time) past its termination: in a V8 worker process only,
/// where the supervisor then fails its renders and starts another.
pub fn end_when_stuck(grace: std::time::Duration) {
    let ms = u32::try_from(grace.as_millis()).unwrap_or(u32::MAX);
    // SAFETY: stores an atomic.
    unsafe { ssr_v8_end_when_stuck(ms) }
}

/// Makes a render of this process that offers its core (past its
/// `offer_after_ms`) lower its own thread to `nice` once it has had less
/// than 3/4 of a core since it started, if other renders were in flight
/// when it began (`may_lower` of [`Isolate::render`]): in a V8 worker
/// process only, whose lanes no watch of the server's lowers
/// (`crate::sched`).
pub fn lower_when_contended(nice: i32) {
    // SAFETY: stores an atomic.
    unsafe { ssr_v8_lower_when_contended(nice) }
}

/// Whether a render lowered the calling thread ([`lower_when_contended`]).
pub fn thread_lowered() -> bool {
    // SAFETY: reads a thread-local flag.
    unsafe { ssr_v8_thread_lowered() }
}

/// How many times V8 renders in this process offered their core.
pub fn core_offers() -> u64 {
    // SAFETY: reads an atomic counter; no isolate is needed.
    unsafe { ssr_v8_core_offers() }
}

impl<H: HostCalls> Drop for Isolate<H> {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `ssr_v8_new` and is freed once; the
        // host is freed after the isolate that could call it.
        unsafe {
            ssr_v8_free(self.raw);
            drop(Box::from_raw(self.host));
        }
    }
}

fn empty_result() -> RawResult {
    RawResult {
        outcome: OUTCOME_OK,
        body: std::ptr::null(),
        body_len: 0,
        meta: std::ptr::null(),
        meta_len: 0,
        wait_ms: -1,
    }
}

/// Copies a result out of the shim's buffers.
///
/// SAFETY (caller): `out` was just filled by a shim call on a live isolate.
unsafe fn outcome(out: &RawResult) -> Outcome {
    let text = |ptr: *const c_char, len: usize| -> String {
        if ptr.is_null() || len == 0 {
            return String::new();
        }
        // SAFETY: the shim's buffer of `len` bytes, valid until the next call.
        let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
        // The shim writes UTF-8 with lone surrogates replaced, so this never
        // falls back; validating is fast, the lossy path is not.
        match std::str::from_utf8(bytes) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        }
    };
    match out.outcome {
        OUTCOME_OK => Outcome::Ok {
            // SAFETY: the shim's buffer of `body_len` bytes, valid until
            // the next call.
            body: unsafe { bytes(out.body.cast(), out.body_len) }.to_vec(),
            meta: text(out.meta, out.meta_len),
        },
        OUTCOME_TIMEOUT => Outcome::Timeout,
        OUTCOME_OOM => Outcome::OutOfMemory,
        OUTCOME_WAITING => Outcome::Waiting(u64::try_from(out.wait_ms).ok()),
        _ => Outcome::JsError(text(out.meta, out.meta_len)),
    }
}

/// Ends the process at once: not through Node's exit, whose teardown would
/// run beside the lane threads still in V8.
pub fn exit(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process; nothing runs after it.
    unsafe { libc::_exit(code) }
}
