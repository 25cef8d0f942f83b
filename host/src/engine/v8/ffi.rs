//! The only unsafe code of the V8 engine: declarations of `shim.cc`'s C API
//! and [`Isolate`], a safe owner of one `ssr_v8` (an isolate with one context).
//!
//! Invariants the safe API relies on (see `shim.cc`):
//! - `ssr_v8_init` runs once before any isolate is made ([`Isolate::new`]
//!   calls it; the shim makes repeats no-ops).
//! - Every shim call takes the isolate's `v8::Locker`, so an `Isolate` may be
//!   sent to another thread; `&mut self` keeps two calls from overlapping.
//! - Strings in an `ssr_v8_result` live until the next call on the same
//!   isolate: [`Isolate`] copies them out before returning.
//! - The log callback's data pointer is the boxed [`Console`] the `Isolate`
//!   owns, freed only after the isolate.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_void};

use crate::engine::console::Console;

// `shim.cc`'s outcome codes.
const OUTCOME_OK: i32 = 0;
const OUTCOME_TIMEOUT: i32 = 2;
const OUTCOME_OOM: i32 = 3;

#[repr(C)]
struct RawResult {
    outcome: i32,
    body: *const c_char,
    body_len: usize,
    meta: *const c_char,
    meta_len: usize,
}

#[repr(C)]
struct RawIsolate {
    _private: [u8; 0],
}

type LogFn = extern "C" fn(data: *mut c_void, level: i32, msg: *const c_char, len: usize);

unsafe extern "C" {
    fn ssr_v8_init();
    fn ssr_v8_new(
        heap_limit: usize,
        stack_bytes: usize,
        offer_core_after_ms: u32,
        log: LogFn,
        log_data: *mut c_void,
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
        deadline_ms: u32,
        out: *mut RawResult,
    ) -> i32;
    fn ssr_v8_heap_used(inst: *mut RawIsolate) -> usize;
    fn ssr_v8_core_offers() -> u64;
    fn ssr_v8_free(inst: *mut RawIsolate);
}

/// How a call into the isolate ended.
#[derive(Debug)]
pub enum Outcome {
    /// The body, and the rest of the response as JSON (the contract's
    /// `Response` in its serde form, without its body).
    Ok {
        body: String,
        meta: String,
    },
    /// The prelude's `describe()` of the failure, as JSON.
    JsError(String),
    Timeout,
    OutOfMemory,
}

/// One V8 isolate with one context.
pub struct Isolate {
    raw: *mut RawIsolate,
    /// The console the log callback writes to; outlives `raw`.
    console: *mut Console,
}

// SAFETY: every shim entry point takes the isolate's `v8::Locker` and sets
// the stack limit for the calling thread, so the isolate may be used from any
// one thread at a time; `&mut self` on every call enforces "one at a time".
unsafe impl Send for Isolate {}

extern "C" fn log_to_tracing(data: *mut c_void, level: i32, msg: *const c_char, len: usize) {
    // SAFETY: `data` is the `Console` this isolate's `Isolate` owns and frees
    // only after `ssr_v8_free`; `msg`/`len` is a UTF-8 buffer the shim keeps
    // alive for this call.
    let (console, msg) = unsafe {
        (
            &*(data as *const Console),
            std::slice::from_raw_parts(msg as *const u8, len),
        )
    };
    console.write(
        contract::LogLevel::from_code(level),
        &String::from_utf8_lossy(msg),
    );
}

impl Isolate {
    /// A new isolate whose heap is capped at `heap_limit` bytes and whose
    /// JavaScript may use `stack_bytes` of the calling thread's stack; a call
    /// still running after `offer_core_after_ms` (0: never) offers its core
    /// every millisecond; `console.*` is logged with the `tenant` tag.
    pub fn new(
        heap_limit: usize,
        stack_bytes: usize,
        offer_core_after_ms: u32,
        tenant: &str,
    ) -> Isolate {
        let console = Box::into_raw(Box::new(Console::new(tenant)));
        // SAFETY: init is idempotent; `console` stays valid until `drop`,
        // after the isolate is freed.
        let raw = unsafe {
            ssr_v8_init();
            ssr_v8_new(
                heap_limit,
                stack_bytes,
                offer_core_after_ms,
                log_to_tracing,
                console as *mut c_void,
            )
        };
        Isolate { raw, console }
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

    /// Renders one request, given as the prelude's raw request JSON.
    pub fn render(&mut self, request_json: &str, deadline_ms: u32) -> Outcome {
        let mut out = empty_result();
        // SAFETY: as in `load`.
        unsafe {
            ssr_v8_render(
                self.raw,
                request_json.as_ptr().cast(),
                request_json.len(),
                deadline_ms,
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

    /// Where this isolate's `console.*` goes.
    pub fn console(&self) -> &Console {
        // SAFETY: `console` is live until `drop`; it is only read through
        // `&` (its counters are atomics).
        unsafe { &*self.console }
    }
}

/// How many times V8 renders in this process offered their core.
pub fn core_offers() -> u64 {
    // SAFETY: reads an atomic counter; no isolate is needed.
    unsafe { ssr_v8_core_offers() }
}

impl Drop for Isolate {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `ssr_v8_new` and is freed once; the
        // console is freed after the isolate that could log to it.
        unsafe {
            ssr_v8_free(self.raw);
            drop(Box::from_raw(self.console));
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
            body: text(out.body, out.body_len),
            meta: text(out.meta, out.meta_len),
        },
        OUTCOME_TIMEOUT => Outcome::Timeout,
        OUTCOME_OOM => Outcome::OutOfMemory,
        _ => Outcome::JsError(text(out.meta, out.meta_len)),
    }
}
