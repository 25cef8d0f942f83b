//! Engine benchmarks: what running a render costs, per engine × workload.
//!
//! Groups (BenchmarkId = engine/workload):
//! - `instantiate`: a new instance from the pre-instantiated component
//!   (`InstancePre`, pooling allocator); dropping it is included.
//! - `render_warm`: one render on an instance that has rendered before.
//! - `render_fresh`: a new instance, then one render (the `fresh` mode cost).
//! - `render_warm` also runs the same bundle on native QuickJS (the same
//!   guest runtime compiled for the host), so the cost of Wasm is visible.
//!
//! Plugins are built in setup, outside every timed loop.
//! Run: `cargo bench -p ssr --bench engine`.

use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ssr::build::{self, Quiet};
use ssr::engine::RenderRequest;
use ssr::engine::wasm::{WasmEngine, WasmOptions};

const WORKLOADS: &[(&str, &str, &str)] = &[
    ("hello", "plugins/hello/render.js", "/?name=bench"),
    ("react", "plugins/react/app.jsx", "/?count=200"),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn engines(c: &mut Criterion) {
    let engine = WasmEngine::new(WasmOptions {
        pooled_instances: Some(64),
        ..WasmOptions::default()
    })
    .unwrap();
    let deadline = Duration::from_secs(10);
    for (name, entry, url) in WORKLOADS {
        let built = build::build(&root().join(entry), &mut Quiet).unwrap();
        let plugin = engine.load(&built.plugin).unwrap();
        let req = RenderRequest::get("bench", url);

        c.benchmark_group("instantiate")
            .bench_function(BenchmarkId::new("wasm", name), |b| {
                b.iter(|| engine.instantiate(&plugin, "bench").unwrap())
            });

        let mut warm = engine.instantiate(&plugin, "bench").unwrap();
        warm.render(&req, deadline).unwrap();
        let native =
            ssr_guest::Renderer::new(&built.bundle.name, &built.bundle.source, |_, _| {}).unwrap();
        let native_req = ssr_guest::Request {
            method: req.method.clone(),
            url: req.url.clone(),
            path: req.path.clone(),
            query: req.query.clone(),
            headers: req.headers.clone(),
            tenant: req.tenant.clone(),
        };
        // Same bytes from both, or the comparison means nothing.
        assert_eq!(
            warm.render(&req, deadline).unwrap().body,
            native.render(&native_req).unwrap().body
        );

        let mut group = c.benchmark_group("render_warm");
        group.bench_function(BenchmarkId::new("wasm", name), |b| {
            b.iter(|| warm.render(&req, deadline).unwrap())
        });
        group.bench_function(BenchmarkId::new("native-quickjs", name), |b| {
            b.iter(|| native.render(&native_req).unwrap())
        });
        group.finish();

        c.benchmark_group("render_fresh")
            .bench_function(BenchmarkId::new("wasm", name), |b| {
                b.iter(|| {
                    let mut inst = engine.instantiate(&plugin, "bench").unwrap();
                    inst.render(&req, deadline).unwrap()
                })
            });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = engines
}
criterion_main!(benches);
