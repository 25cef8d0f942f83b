//! The plugin's export glue: WIT bindings, the `render` export, and the
//! `wizer-initialize` entry point.
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
//! This is the only module of the guest allowed `unsafe`: the code generated
//! by `wit_bindgen` and the `export_name` attribute of the Wizer entry need it.
#![allow(unsafe_code)]

use std::cell::{Cell, RefCell};
use std::io::{Read, Write};

use crate::runtime::{self, ErrorKind, LogLevel, RenderError, Renderer};

wit_bindgen::generate!({
    path: "../wit",
    world: "plugin",
});

use exports::ssr::plugin::renderer::Guest;
use ssr::plugin::log;
use ssr::plugin::types;

thread_local! {
    static RENDERER: RefCell<Option<Renderer>> = const { RefCell::new(None) };
    static SEEDED: Cell<bool> = const { Cell::new(false) };
}

fn log_to_host(level: LogLevel, message: &str) {
    let level = match level {
        LogLevel::Debug => log::Level::Debug,
        LogLevel::Info => log::Level::Info,
        LogLevel::Warn => log::Level::Warn,
        LogLevel::Error => log::Level::Error,
    };
    log::write(level, message);
}

/// Pre-initialization: evaluate the bundle given on stdin.
#[unsafe(export_name = "wizer-initialize")]
pub extern "C" fn wizer_initialize() {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        fail(&RenderError {
            kind: ErrorKind::NotInitialized,
            message: format!("reading the bundle from stdin: {e}"),
            stack: None,
        });
    }
    // The first line names the module (for stack traces); the rest is the bundle.
    let (name, bundle) = input.split_once('\n').unwrap_or(("bundle.js", &input));
    match Renderer::new(name, bundle, log_to_host) {
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
        let req = runtime::Request {
            method: req.method,
            url: req.url,
            href: req.href,
            base: req.base,
            path: req.path,
            query: req.query,
            headers: req.headers,
            tenant: req.tenant,
        };
        RENDERER.with(|cell| {
            let renderer = cell.borrow();
            let Some(renderer) = renderer.as_ref() else {
                return Err(to_wit_error(RenderError {
                    kind: ErrorKind::NotInitialized,
                    message: "this plugin holds no bundle: build it with `ssr build`".into(),
                    stack: None,
                }));
            };
            renderer
                .render(&req)
                .map(|r| types::Response {
                    status: r.status,
                    headers: r.headers,
                    body: r.body,
                    cache: match r.cache {
                        runtime::CachePolicy::HostDefault => types::CachePolicy::HostDefault,
                        runtime::CachePolicy::NoStore => types::CachePolicy::NoStore,
                        runtime::CachePolicy::Ttl(t) => types::CachePolicy::Ttl(t),
                    },
                    vary: r.vary,
                })
                .map_err(to_wit_error)
        })
    }
}

fn to_wit_error(e: RenderError) -> types::RenderError {
    types::RenderError {
        kind: match e.kind {
            ErrorKind::Exception => types::ErrorKind::Exception,
            ErrorKind::BadResult => types::ErrorKind::BadResult,
            ErrorKind::NeverSettled => types::ErrorKind::NeverSettled,
            ErrorKind::NotInitialized => types::ErrorKind::NotInitialized,
        },
        message: e.message,
        stack: e.stack,
    }
}

export!(Plugin);
