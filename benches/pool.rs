//! Pool benchmark: what the queue and the hop to a pinned worker cost, next
//! to rendering on the calling thread with the same instance logic.
//!
//! - `pool/submit`: `Pool::render` (permit, queue, reply; one worker).
//! - `pool/here`: `Pool::render_here`, the same render on this thread.
//!
//! The difference is the shared queue's hand-off, the number the queueing
//! design in `host/src/pool/mod.rs` rests on.
//! Run: `cargo bench -p ssr --features bench --bench pool`.

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ssr::build::{self, Quiet};
use ssr::engine::wasm::WasmOptions;
use ssr::engine::{EngineOptions, Engines};
use ssr::pool::{Pool, PoolOptions};
use ssr::tenant::{Defaults, Registry, Settings};

fn pool(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let engines = Engines::new(EngineOptions {
        wasm: WasmOptions {
            pooled_instances: Some(16),
            ..WasmOptions::default()
        },
        ..EngineOptions::default()
    })
    .unwrap();
    let registry = Registry::open(engines, None, Defaults::default(), None).unwrap();
    let built = build::build(
        &root.join("plugins/hello/render.js"),
        &Default::default(),
        &mut Quiet,
    )
    .unwrap();
    let tenant = registry
        .put("bench", &built.plugin, Settings::default())
        .unwrap()
        .tenant;
    let pool = Pool::start(PoolOptions {
        workers: 1,
        pin: true,
        queue_capacity: 16,
        warm_instances: 4,
        warm_bytes: 1 << 30,
        warm_idle: None,
        renders_per_worker: 1,
        v8_threads: 1,
        waiting_per_worker: 4,
        inline_slices: 1,
        scheduling: Default::default(),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let req = contract::Request::get("bench", "/?name=bench");
    let deadline = || Instant::now() + Duration::from_secs(5);

    let mut group = c.benchmark_group("pool");
    group.bench_function(BenchmarkId::new("submit", "wasm/hello"), |b| {
        b.iter(|| {
            rt.block_on(pool.render(&tenant, req.clone(), deadline(), None))
                .unwrap()
        })
    });
    group.bench_function(BenchmarkId::new("here", "wasm/hello"), |b| {
        b.iter(|| pool.render_here(&*tenant, &req, deadline()).unwrap())
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = pool
}
criterion_main!(benches);
