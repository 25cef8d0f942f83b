//! The V8 engine's worker process, as an addon of Node 26's `node`: the
//! server's supervisor (`ssr::engine::v8::process`) starts
//! `node -e 'process.dlopen(…)' libssr_v8.so --address-space … --frame-limit …`,
//! and this addon's initializer takes the process over and never returns
//! (`worker.rs`). Node has started V8 and its platform by then; nothing of
//! Node's own environment (its module loader, `process`, `require`) reaches
//! the isolates made here: each is a bare V8 isolate with the prelude.
//!
//! - `ffi.rs` and `shim.cc`: the only unsafe code, a C API over V8;
//! - `worker.rs`: the lanes to the server, the isolates' table;
//! - `confine.rs`: what the operating system holds the process to;
//! - `service.rs`: the `Intl` service isolates for the Wasm engine.

mod confine;
mod ffi;
mod service;
mod worker;

/// Node's entry point of an addon (Node-API's name: Node looks it up when
/// it loads the addon). The arguments are Node's environment and the
/// module's exports, which the worker does not use.
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
pub extern "C" fn napi_register_module_v1(
    _env: *mut std::ffi::c_void,
    _exports: *mut std::ffi::c_void,
) -> *mut std::ffi::c_void {
    worker::run()
}
