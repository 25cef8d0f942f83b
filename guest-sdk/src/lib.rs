//! The guest SDK: what runs inside every `ssr` plugin.
//!
//! A plugin is this crate, compiled to wasm32-wasip1, with a site's JavaScript
//! bundle evaluated into it at build time (Wizer) and encoded as a component
//! implementing `wit/plugin.wit`.
//!
//! - [`runtime`]: QuickJS through javy, the contract's web-API prelude
//!   (`wit/prelude/`, which the V8 engine evaluates too), and the render
//!   loop. Target-independent.
//! - `plugin` (wasm only): the `render` export and the `wizer-initialize`
//!   entry point that reads the bundle from stdin. The contract's types,
//!   bindings and conversions are the `ssr-contract` crate's (`wit/`).
//!
//! The JavaScript contract is documented in `docs/renderers.md` and typed in
//! `guest-sdk/types/` (the npm package `@ssr/types`).

pub mod runtime;

#[cfg(target_family = "wasm")]
mod plugin;

pub use runtime::{Imports, Renderer};
