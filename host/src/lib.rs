//! `ssr`: a sandboxed, multi-tenant server-side-rendering host.
//!
//! Brief overview, following one plugin from source to response:
//! - [`build`] turns a site's JavaScript renderer into a plugin: bundle,
//!   pre-initialize under Wizer, encode as a component, embed the bundle.
//! - [`artifact`] defines what a plugin file is and checks its contract
//!   version.
//! - [`assets`] packs a site's static files into its plugin and serves
//!   them before any render, as its [`app`] config (from the app's
//!   `wrangler.jsonc`, `_headers` and `_redirects`) says.
//! - [`tenant`] registers plugins per tenant, persists them, routes hosts.
//! - [`http`] serves requests: (1) route → (2) tenant → (3) [`cache`] lookup
//!   → (4) [`pool`] submit → (5) [`engine`] render → (6) cache insert → (7)
//!   response or `ApiError`.
//! - [`cron`] reads an app's cron triggers, which `http` fires on time.
//! - [`config`] holds every setting and its default; [`sync`] the one
//!   policy for poisoned locks; [`report`] how an error and its causes are
//!   printed; [`sched`] how renders share the cores.

/// Whether this build carries the test hooks (the feature `test-hooks`):
/// the V8 worker reads it to misbehave on a test's request.
pub const TEST_HOOKS: bool = cfg!(feature = "test-hooks");

pub mod activity;
pub mod app;
pub mod artifact;
pub mod assets;
pub mod bindings;
pub mod build;
pub mod cache;
pub mod config;
pub mod counter;
pub mod cron;
pub mod encoding;
pub mod engine;
pub mod framing;
pub mod fs;
pub mod http;
pub mod logs;
pub mod pool;
pub mod report;
pub mod sched;
pub mod site;
pub mod stack_map;
pub mod sync;
pub mod tenant;
#[cfg(feature = "test-hooks")]
pub mod unit;
pub mod unsent;
pub mod web;
