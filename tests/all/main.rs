//! The integration tests: one binary, one module per feature.
//!
//! They drive the real `ssr` binary (built by cargo for this test run), real
//! Wasmtime, real V8 (Node 26's, in worker processes), and Node as the reference renderer. Plugins are built once per
//! run, with `ssr build`, into `target/test-plugins/`.

mod apps;
mod assets;
mod binding_apps;
mod bindings;
mod browser;
mod build_errors;
mod cache;
mod cluster;
mod contract;
mod density;
mod dev;
mod fairness;
mod fetch;
mod handlers;
mod hardening;
mod hostile;
mod init;
mod intl;
mod limits;
mod node_modules;
mod objects;
mod pool;
mod probe;
mod probe4;
mod render;
mod runtime;
mod sockets;
mod streams;
mod structure;
mod support;
mod tenants;
mod tokens;
mod tutorial;
mod types;
#[cfg(feature = "v8")]
mod v8;
mod web_platform;
mod websockets;
mod workers;
