//! What a renderer reaches in the host, the same for both engines: its
//! console (WIT `log`) and the host's capabilities (WIT `host.call`).
//!
//! A capability is one arm of [`Imports::call`], named in the contract
//! crate's `calls` (with the JSON form of its arguments and reply) and
//! wrapped for JavaScript in the prelude. The engines only carry the call:
//! Wasmtime through the WIT import, V8 through the shim's `__ssr_host`.
//! Adding a capability therefore touches that arm, `calls`, the prelude and
//! a test, and no binding.
//!
//! Lifetime: one [`Imports`] per instance (a Wasm store or a V8 isolate),
//! serving one tenant.
//!
//! Invariants:
//! - Default-deny: a name that is not an arm here is refused, and so is a
//!   call whose arguments do not parse, with a message naming the
//!   capability and what was wrong (the prelude throws it as a
//!   `TypeError`). A refusal never fails the render by itself.
//! - A call never blocks on I/O: the pool's workers rely on it
//!   (`pool::worker`).

use contract::{LogLevel, Reply, calls};

use super::console::Console;

/// One instance's way out to the host.
pub struct Imports {
    console: Console,
}

impl Imports {
    pub fn new(tenant: &str) -> Imports {
        Imports {
            console: Console::new(tenant),
        }
    }

    /// A new render starts: per-render budgets are whole again.
    pub fn start_render(&self) {
        self.console.start_render();
    }

    /// One `console.*` line.
    pub fn log(&self, level: LogLevel, message: &str) {
        self.console.write(level, message);
    }

    /// Calls the capability `name` with `args` (JSON) and `data`.
    pub fn call(&self, name: &str, args: &str, _data: &[u8]) -> Result<Reply, String> {
        match name {
            calls::RANDOM => random(parse(name, args)?),
            _ => Err(format!(
                "the host has no capability \"{name}\" (this plugin may need a newer host)"
            )),
        }
    }
}

fn parse<'a, T: serde::Deserialize<'a>>(name: &str, args: &'a str) -> Result<T, String> {
    serde_json::from_str(args).map_err(|e| format!("{name}: bad arguments {args:?}: {e}"))
}

/// `bytes` from the operating system's generator.
fn random(bytes: usize) -> Result<Reply, String> {
    if bytes > calls::RANDOM_MAX_BYTES {
        return Err(format!(
            "{}: {bytes} bytes asked, at most {} at once",
            calls::RANDOM,
            calls::RANDOM_MAX_BYTES
        ));
    }
    let mut data = vec![0; bytes];
    getrandom::fill(&mut data).map_err(|e| format!("{}: {e}", calls::RANDOM))?;
    Ok(Reply {
        value: String::new(),
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_gives_the_bytes_asked_and_no_more_than_the_web_limit() {
        let imports = Imports::new("t");
        let reply = imports.call(calls::RANDOM, "32", &[]).unwrap();
        assert_eq!((reply.value.as_str(), reply.data.len()), ("", 32));
        assert_ne!(
            reply.data,
            imports.call(calls::RANDOM, "32", &[]).unwrap().data
        );
        let max = calls::RANDOM_MAX_BYTES;
        assert_eq!(
            imports
                .call(calls::RANDOM, &max.to_string(), &[])
                .unwrap()
                .data
                .len(),
            max
        );
        let err = imports
            .call(calls::RANDOM, &(max + 1).to_string(), &[])
            .unwrap_err();
        assert_eq!(err, "random: 65537 bytes asked, at most 65536 at once");
    }

    #[test]
    fn unknown_capabilities_and_bad_arguments_are_refused_by_name() {
        let imports = Imports::new("t");
        let err = imports.call("socket", "{}", &[]).unwrap_err();
        assert!(err.contains("no capability \"socket\""), "{err}");
        let err = imports.call(calls::RANDOM, "\"lots\"", &[]).unwrap_err();
        assert!(
            err.starts_with("random: bad arguments \"\\\"lots\\\"\""),
            "{err}"
        );
    }
}
