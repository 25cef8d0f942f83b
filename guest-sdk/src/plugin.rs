//! The plugin's export glue: the `render` export and the `wizer-initialize`
//! entry point. The bindings and their conversions are the contract
//! crate's (`contract::guest`).
//!
//! Lifetime: `wizer-initialize` runs once, at build time, under Wizer; the
//! `Renderer` it creates lives in linear memory and so in the snapshot. Every
//! instance made from the plugin starts from that snapshot.
//!
//! Invariants:
//! - Initialization reads the module name (one line), then the bundle, from
//!   stdin; on failure it writes
//!   `kind`, message and stack, separated by `\x1f`, to stdout and exits 1, so
//!   `ssr build` can report the JavaScript error.
//! - The first render of every instance reseeds `Math.random` from WASI
//!   entropy (see `runtime::reseed_random`).
//!
//! # Safety
//! This is the only module of the guest allowed `unsafe`: the `export_name`
//! attribute of the Wizer entry and the code `contract::guest::export!` expands to
//! need it.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};

use contract::guest::exports::ssr::plugin::renderer::Guest;
use contract::guest::ssr::plugin::{host, log, types};
use contract::{ErrorKind, LogLevel, RenderError, Reply};

use crate::runtime::{self, Imports, Renderer};

thread_local! {
    static RENDERER: RefCell<Option<Renderer>> = const { RefCell::new(None) };
    static SEEDED: Cell<bool> = const { Cell::new(false) };
}

/// The runtime's way out: the contract's imports.
const IMPORTS: Imports = Imports {
    log: |level: LogLevel, message: &str| log::write(level.into(), message),
    call: |name: &str, args: &str, data: &[u8]| host::call(name, args, data).map(Reply::from),
};

/// Pre-initialization: evaluate the bundle given on stdin.
#[unsafe(export_name = "wizer-initialize")]
pub extern "C" fn wizer_initialize() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        fail(&RenderError::new(
            ErrorKind::NotInitialized,
            format!("reading the bundle from stdin: {e}"),
        ));
    }
    // The first line names the module (for stack traces); the rest is the bundle.
    let (name, bundle) = input.split_once('\n').unwrap_or(("bundle.js", &input));
    match Renderer::new(name, bundle, IMPORTS) {
        Ok(r) => RENDERER.with(|cell| *cell.borrow_mut() = Some(r)),
        Err(e) => fail(&e),
    }
}

fn fail(e: &RenderError) -> ! {
    let mut out = std::io::stdout();
    let _ = write!(
        out,
        "{}\x1f{}\x1f{}",
        e.kind.as_str(),
        e.message,
        e.stack.as_deref().unwrap_or("")
    );
    let _ = out.flush();
    std::process::exit(1);
}

struct Plugin;

impl Guest for Plugin {
    fn render(req: types::Request) -> Result<types::Response, types::RenderError> {
        if !SEEDED.get() {
            let mut seed = [0u8; 8];
            if getrandom::fill(&mut seed).is_ok() {
                runtime::reseed_random(u64::from_le_bytes(seed));
            }
            SEEDED.set(true);
        }
        RENDERER.with(|cell| {
            let renderer = cell.borrow();
            let Some(renderer) = renderer.as_ref() else {
                return Err(RenderError::new(
                    ErrorKind::NotInitialized,
                    "this plugin holds no bundle: build it with `ssr build`",
                )
                .into());
            };
            renderer
                .render(&req.into())
                .map(Into::into)
                .map_err(Into::into)
        })
    }
}

contract::guest::export!(Plugin with_types_in contract::guest);
