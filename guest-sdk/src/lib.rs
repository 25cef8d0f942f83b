//! The guest SDK: what runs inside every `ssr` plugin.
//!
//! A plugin is this crate, compiled to wasm32-wasip1, with a site's JavaScript
//! bundle evaluated into it at build time (Wizer) and encoded as a component
//! implementing `wit/plugin.wit`.
//!
//! - [`runtime`]: QuickJS through javy, the web-API prelude (`prelude.js`,
//!   shared with the V8 engine), and the render loop. Target-independent.
//! - `plugin` (wasm only): the WIT export glue and the `wizer-initialize`
//!   entry point that reads the bundle from stdin.
//!
//! The JavaScript contract is documented in `docs/renderers.md` and typed in
//! `guest-sdk/ssr.d.ts`.

pub mod runtime;

#[cfg(target_family = "wasm")]
mod plugin;

pub use runtime::{
    CachePolicy, ErrorKind, LogLevel, PRELUDE, RenderError, Renderer, Request, Response,
};
