//! An isolate that runs only a script of the host's own, never a tenant's:
//! a service the host calls (`web/intl.rs`). Its JavaScript has no host
//! capability and no console: it gets text and answers text.
//!
//! Invariant: it names nothing of the crate but `ffi.rs`, so a web API may
//! use it without the engine reaching back.

use contract::{LogLevel, Reply};

use super::ffi;

/// Its stack: a call may come from a Wasm render's host call, on the
/// render's fiber, which has 1 MiB beyond the Wasm stack
/// (`engine/wasm`'s `async_stack_size`): a quarter of that.
const STACK_BYTES: usize = 256 << 10;

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

pub struct Service {
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
