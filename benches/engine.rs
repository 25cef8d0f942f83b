//! Engine benchmarks: what running a render costs, per engine × workload.
//!
//! Groups (BenchmarkId = engine/workload):
//! - `instantiate`: a new instance (Wasm: from the pre-instantiated
//!   component, pooling allocator; V8: a new isolate with the prelude and
//!   the bundle evaluated), dropped outside the timed loop. hello and react.
//! - `discard`: dropping an instance after one render (Wasm: the pooling
//!   allocator resets the slot's dirtied memory; V8: the isolate is
//!   disposed). hello and react.
//! - `render_warm`: one render on an instance that has rendered before, on
//!   `wasm`, `v8`, and `native-quickjs` (the same guest runtime compiled for
//!   the host, so the cost of Wasm itself is visible). Every example plugin.
//! - `render_fresh`: a new instance, then one render (the `fresh` mode cost).
//!   hello and react.
//!
//! - `compile`: loading a plugin (what a registration compiles: the
//!   tenant's state module, once the shared code is compiled), only with
//!   `SSR_BENCH_CODEGEN` set.
//!
//! `SSR_BENCH_CODEGEN=<variant>` compiles Wasm plugins with one of
//! `Codegen::VARIANTS`, or `whole` (each plugin compiled whole, no code
//! shared), and names the Wasm engine `wasm-<variant>` (`benches/codegen.sh`
//! runs them in turn).
//!
//! `SSR_BENCH_KEEP_RESIDENT_KIB=<n>`: what a freed pooled slot keeps
//! resident (`--warm-memory-mib`'s share per slot; 16 MiB otherwise), for
//! what `render_fresh` pays with less.
//!
//! Plugins are built in setup, outside every timed loop; every engine's
//! output is checked byte for byte against the others before timing.
//! Run: `cargo bench -p ssr --features bench --bench engine` (`benches/run.sh` runs it for
//! `benches/RESULTS.md`).

use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use ssr::build::{self, Quiet};
use ssr::engine::wasm::{Codegen, WasmOptions};
use ssr::engine::{EngineKind, EngineOptions, Engines, Grants, Instance, InstanceCaps, Plugin};

/// name, entry, url, whether to time instantiation and fresh renders.
const WORKLOADS: &[(&str, &str, &str, bool)] = &[
    ("hello", "plugins/hello/render.js", "/?name=bench", true),
    ("react", "plugins/react/app.jsx", "/?count=200", true),
    ("preact", "plugins/preact/app.jsx", "/", false),
    ("vue", "plugins/vue/app.js", "/", false),
    ("handlebars", "plugins/handlebars/render.js", "/", false),
    ("liquid", "plugins/liquid/render.js", "/", false),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn engines(c: &mut Criterion) {
    let variant = std::env::var("SSR_BENCH_CODEGEN").ok();
    // `whole`: each plugin compiled whole, no code shared (`split.rs`).
    let (codegen, split) = match variant.as_deref() {
        Some("whole") => (Codegen::default(), false),
        Some(v) => (Codegen::variant(v).unwrap(), true),
        None => (Codegen::default(), true),
    };
    let wasm_name = |kind: EngineKind| match (&variant, kind) {
        (Some(v), EngineKind::Wasm) => format!("wasm-{v}"),
        _ => kind.as_str().to_string(),
    };
    let engines = Engines::new(EngineOptions {
        wasm: WasmOptions {
            pooled_instances: Some(64),
            codegen,
            split,
            keep_resident: std::env::var("SSR_BENCH_KEEP_RESIDENT_KIB")
                .map(|k| k.parse::<usize>().expect("KiB") << 10)
                .unwrap_or(WasmOptions::default().keep_resident),
            ..WasmOptions::default()
        },
        ..EngineOptions::default()
    })
    .unwrap();
    let deadline = Duration::from_secs(10);
    let only = std::env::var("SSR_BENCH_PLUGINS").ok();
    for (name, entry, url, lifecycle) in WORKLOADS {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(',').any(|p| p == *name))
        {
            continue;
        }
        let built = build::build(&root().join(entry), &Default::default(), &mut Quiet).unwrap();
        let req = contract::Request::get("bench", url);
        let plugins: Vec<(EngineKind, std::sync::Arc<dyn Plugin>)> = Engines::KINDS
            .iter()
            .map(|&k| {
                (
                    k,
                    engines
                        .get(k)
                        .unwrap()
                        .load_plugin(&built.plugin, InstanceCaps::default())
                        .unwrap(),
                )
            })
            .collect();

        let imports = ssr_guest::Imports {
            log: |_, _| {},
            // An empty `env` (render functions get one), and the pure
            // capabilities (`Intl`, URL, Web Crypto, text), as the engines
            // answer them; nothing else.
            call: |name, args, data| match name {
                contract::calls::ENV => Ok(contract::Reply {
                    value: "{}".into(),
                    data: Vec::new(),
                }),
                _ => ssr::web::at_build(name, args, data),
            },
        };
        let native =
            ssr_guest::Renderer::new(&built.bundle.name, &built.bundle.source, imports).unwrap();
        let expected = native.render(&req).unwrap().body;

        let mut warm: Vec<(EngineKind, Box<dyn Instance>)> = Vec::new();
        for (kind, plugin) in &plugins {
            let mut inst = plugin.instantiate(&Grants::new("bench")).unwrap();
            // Same bytes from every engine, or the comparison means nothing.
            assert_eq!(
                inst.render_now(&req, deadline).unwrap().body,
                expected,
                "{kind}/{name}"
            );
            warm.push((*kind, inst));
        }

        if *lifecycle {
            // Batches of 16 stay well inside the 64 pooled slots; the
            // instances are dropped outside the timed loop.
            let batch = BatchSize::NumIterations(16);
            let mut group = c.benchmark_group("instantiate");
            for (kind, plugin) in &plugins {
                group.bench_function(BenchmarkId::new(kind.as_str(), name), |b| {
                    b.iter_batched(
                        || (),
                        |()| plugin.instantiate(&Grants::new("bench")).unwrap(),
                        batch,
                    )
                });
            }
            group.finish();
            let mut group = c.benchmark_group("discard");
            for (kind, plugin) in &plugins {
                group.bench_function(BenchmarkId::new(kind.as_str(), name), |b| {
                    b.iter_batched(
                        || {
                            let mut inst = plugin.instantiate(&Grants::new("bench")).unwrap();
                            inst.render_now(&req, deadline).unwrap();
                            inst
                        },
                        drop,
                        batch,
                    )
                });
            }
            group.finish();
        }

        if variant.is_some() {
            let mut group = c.benchmark_group("compile");
            group.sample_size(10);
            group.bench_function(BenchmarkId::new(wasm_name(EngineKind::Wasm), name), |b| {
                b.iter(|| {
                    engines
                        .wasm
                        .load(&built.plugin, InstanceCaps::default())
                        .unwrap()
                })
            });
            group.finish();
        }

        let mut group = c.benchmark_group("render_warm");
        for (kind, inst) in &mut warm {
            group.bench_function(BenchmarkId::new(wasm_name(*kind), name), |b| {
                b.iter(|| inst.render_now(&req, deadline).unwrap())
            });
        }
        group.bench_function(BenchmarkId::new("native-quickjs", name), |b| {
            b.iter(|| native.render(&req).unwrap())
        });
        group.finish();

        if *lifecycle {
            let mut group = c.benchmark_group("render_fresh");
            for (kind, plugin) in &plugins {
                group.bench_function(BenchmarkId::new(kind.as_str(), name), |b| {
                    b.iter(|| {
                        let mut inst = plugin.instantiate(&Grants::new("bench")).unwrap();
                        inst.render_now(&req, deadline).unwrap()
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(3))
        .measurement_time(Duration::from_secs(3));
    targets = engines
}
criterion_main!(benches);
