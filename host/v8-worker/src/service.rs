//! An isolate that runs only a script of the host's own, never a tenant's:
//! a service the server calls. One: `Intl` for the Wasm engine
//! (`ssr::web::intl`), `intl.js` beside that module, one isolate per lane
//! thread. Its JavaScript has no host capability and no console: it gets
//! text and answers text.
//!
//! Invariants: its heap is capped at [`HEAP`] and `intl.js` keeps at most
//! 512 formatters; a call that runs out of time or memory fails alone and
//! the thread's service is made anew.

use std::cell::RefCell;

use contract::{LogLevel, Reply};

use crate::ffi::{self, Outcome};

/// Its stack, of the lane thread's.
const STACK_BYTES: usize = 256 << 10;

/// The `Intl` service isolate's heap cap.
const HEAP: usize = 128 << 20;

/// CPU time for one `Intl` call.
const CPU_MS: u32 = 1000;

thread_local! {
    static INTL: RefCell<Option<Service>> = const { RefCell::new(None) };
}

/// Answers one `Intl` call (`contract::calls::INTL`) with this thread's
/// service: `Ok` with the answer as the body, or the failure's message.
pub fn intl(args: &str) -> Outcome {
    let answer = INTL.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            let script = include_str!("../../src/web/intl.js");
            let made = Service::new(script, "ssr:intl", HEAP)
                .map_err(|e| format!("TypeError: Intl could not start: {e}"))?;
            *slot = Some(made);
        }
        let service = slot.as_mut().expect("made above");
        service.invoke("intl", args, CPU_MS).map_err(|e| {
            *slot = None;
            format!("RangeError: Intl: the call failed: {e}")
        })
    });
    match answer {
        Ok(text) => Outcome::Ok {
            body: text.into_bytes(),
            meta: String::new(),
        },
        Err(message) => Outcome::JsError(message),
    }
}

/// CPU time for the script's own start.
const START_MS: u32 = 10_000;

/// What a service's JavaScript reaches: nothing.
struct Nothing;

impl ffi::HostCalls for Nothing {
    fn log(&self, _: LogLevel, _: &str) {}
    fn call_now(&mut self, name: &str, _: &str, _: &[u8]) -> Result<Reply, String> {
        Err(format!("{name}: a service has no host capability"))
    }
}

struct Service {
    isolate: ffi::Isolate<Nothing>,
}

impl Service {
    /// A new isolate of at most `heap_limit` bytes with `script` evaluated.
    pub fn new(script: &str, name: &str, heap_limit: usize) -> Result<Service, String> {
        let mut isolate = ffi::Isolate::new(heap_limit, STACK_BYTES, 0, 0, Nothing);
        match isolate.script(script, name, START_MS) {
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
