//! `ssr`: a sandboxed, multi-tenant server-side-rendering host.
//!
//! Brief overview, following one plugin from source to response:
//! - [`build`] turns a site's JavaScript renderer into a plugin: bundle,
//!   pre-initialize under Wizer, encode as a component, embed the bundle.
//! - [`artifact`] defines what a plugin file is and checks its contract
//!   version.
//! - [`engine`] runs a plugin: [`engine::wasm`] in Wasmtime.

pub mod artifact;
pub mod build;
pub mod engine;
