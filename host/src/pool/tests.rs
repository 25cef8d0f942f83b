//! The pool on its own, with real Wasmtime and a real plugin: renders and
//! warm instances, the bounded queue, the tenant's line, deadlines.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use super::{Pool, PoolError, PoolOptions};
use crate::config::Config;
use crate::engine::{EngineError, EngineOptions, Engines};
use crate::tenant::{Defaults, LimitOverrides, Registry, Settings, Tenant};

/// `/spin` never ends; any other path answers `ok <path>`.
const PLUGIN: &str = "export function render(req) {\n\
    if (req.path === '/spin') for (;;) {}\n\
    return 'ok ' + req.path;\n\
}\n";

/// How long a spinner holds its worker: the tests' renders' deadline.
const SPIN: Duration = Duration::from_secs(2);

fn plugin() -> &'static [u8] {
    static BUILT: OnceLock<Vec<u8>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let bundle = crate::build::Bundle {
            name: "pool-test.js".into(),
            source: PLUGIN.into(),
            lowered: None,
            maps: Default::default(),
        };
        crate::build::build_bundle(&bundle, None, &mut crate::build::Quiet).expect("building")
    })
}

/// A pool of one worker that interleaves one render, never lowers one, and
/// queues `queue` jobs; and a tenant `t` on it with `limits`. The registry
/// is dropped: the tenant's plugin keeps what its deadlines need.
fn pool(queue: usize, limits: LimitOverrides) -> (Pool, Arc<Tenant>) {
    let (pool, mut tenants) = pool_of(queue, limits, 1 << 30, &["t"]);
    (pool, tenants.remove(0))
}

/// [`pool`] with warm instances holding `warm_bytes` of memory in all, and
/// a tenant of each id in `ids`.
fn pool_of(
    queue: usize,
    limits: LimitOverrides,
    warm_bytes: usize,
    ids: &[&str],
) -> (Pool, Vec<Arc<Tenant>>) {
    let config = Config::default();
    let engines = Engines::new(EngineOptions::default()).expect("engines");
    let registry = Registry::open(engines, None, Defaults::from(&config), None).expect("registry");
    // Renders may run as long as the requests wait (`SPIN`), so that a
    // spinner holds its worker or permit for the whole test.
    let limits = LimitOverrides {
        render_deadline_ms: Some(SPIN.as_millis() as u64),
        ..limits
    };
    let tenants = ids
        .iter()
        .map(|id| {
            let settings = Settings {
                limits: limits.clone(),
                ..Settings::default()
            };
            registry
                .put(id, plugin(), settings)
                .expect("registering")
                .tenant
        })
        .collect();
    let pool = Pool::start(PoolOptions {
        workers: 1,
        pin: false,
        queue_capacity: queue,
        renders_per_worker: 1,
        v8_threads: 1,
        warm_instances: 4,
        warm_bytes,
        warm_idle: None,
        waiting_per_worker: 4,
        scheduling: Default::default(),
        inline_slices: 0,
    });
    (pool, tenants)
}

fn get(path: &str) -> contract::Request {
    contract::Request::get("t", path)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn body(r: Result<super::Rendered, PoolError>) -> String {
    String::from_utf8(r.expect("rendered").response.body).expect("UTF-8")
}

fn renders_reuse_a_warm_instance_until_the_tenant_is_forgotten() {
    let (pool, tenant) = pool(4, LimitOverrides::default());
    let rt = runtime();
    let soon = || Instant::now() + Duration::from_secs(5);
    assert_eq!(
        body(rt.block_on(pool.render(&tenant, get("/a"), soon(), None))),
        "ok /a"
    );
    assert_eq!(pool.warm_instances(), 1);
    assert_eq!(
        body(rt.block_on(pool.render(&tenant, get("/b"), soon(), None))),
        "ok /b"
    );
    assert_eq!(
        pool.warm_instances(),
        1,
        "the second render reused the first's instance"
    );
    pool.forget(&tenant.id, None);
    assert_eq!(pool.warm_instances(), 0);
}

fn warm_instances_past_the_memory_budget_make_way_for_the_newest() {
    let rt = runtime();
    let soon = || Instant::now() + Duration::from_secs(5);
    for (budget, warm) in [(1 << 30, 2), (2, 1)] {
        let (pool, tenants) = pool_of(4, LimitOverrides::default(), budget, &["a", "b"]);
        for t in &tenants {
            let path = format!("/{}", t.id);
            let r = rt.block_on(pool.render(t, get(&path), soon(), None));
            assert_eq!(body(r), format!("ok {path}"));
        }
        // With a budget of 2 bytes each set keeps one instance, the last.
        assert_eq!(pool.warm_instances(), warm, "budget {budget}");
    }
}

fn a_render_past_its_deadline_is_stopped_and_the_worker_goes_on() {
    let (pool, tenant) = pool(4, LimitOverrides::default());
    let rt = runtime();
    let started = Instant::now();
    let spun = rt.block_on(pool.render(
        &tenant,
        get("/spin"),
        started + Duration::from_millis(300),
        None,
    ));
    assert!(
        matches!(
            spun,
            Err(PoolError::Timeout | PoolError::Engine(EngineError::Timeout(_)))
        ),
        "{spun:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let next = rt.block_on(pool.render(
        &tenant,
        get("/a"),
        Instant::now() + Duration::from_secs(5),
        None,
    ));
    assert_eq!(body(next), "ok /a");
}

fn a_job_whose_deadline_has_passed_is_not_started() {
    let (pool, tenant) = pool(4, LimitOverrides::default());
    let rt = runtime();
    let late = rt.block_on(pool.render(&tenant, get("/a"), Instant::now(), None));
    assert!(matches!(late, Err(PoolError::Timeout)), "{late:?}");
    assert_eq!(pool.warm_instances(), 0, "nothing was instantiated for it");
}

type Reply = tokio::task::JoinHandle<Result<super::Rendered, PoolError>>;

/// Renders `path` by the tests' deadline on a task of `rt`.
fn spawn(
    rt: &tokio::runtime::Runtime,
    pool: &Arc<Pool>,
    tenant: &Arc<Tenant>,
    path: &'static str,
    deadline: Instant,
) -> Reply {
    let (pool, tenant) = (pool.clone(), tenant.clone());
    rt.spawn(async move { pool.render(&tenant, get(path), deadline, None).await })
}

/// Waits until `ready` holds (the pool's threads move on their own).
fn until(ready: impl Fn() -> bool) {
    let asked = Instant::now();
    while !ready() {
        assert!(asked.elapsed() < Duration::from_secs(10), "never ready");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn a_full_queue_refuses_at_once() {
    // One worker busy spinning, one job in the queue of one: the next job
    // is refused without waiting (the tenant's cap is out of the way).
    let uncapped = LimitOverrides {
        max_concurrency: Some(100),
        ..LimitOverrides::default()
    };
    let (pool, tenant) = pool(1, uncapped);
    let pool = Arc::new(pool);
    let rt = runtime();
    let deadline = Instant::now() + SPIN;
    let all = tenant.admission.permits.available_permits();
    let spinning = spawn(&rt, &pool, &tenant, "/spin", deadline);
    until(|| tenant.admission.permits.available_permits() < all && pool.queue_depth() == 0);
    let queued = spawn(&rt, &pool, &tenant, "/a", deadline);
    until(|| pool.queue_depth() == 1);
    let refused = rt.block_on(pool.render(&tenant, get("/b"), deadline, None));
    assert!(matches!(refused, Err(PoolError::Saturated)), "{refused:?}");
    // The spinner ends at the deadline; the queued job was waiting behind
    // it and its deadline has passed too.
    assert!(rt.block_on(spinning).unwrap().is_err());
    assert!(rt.block_on(queued).unwrap().is_err());
}

fn a_tenant_at_its_cap_waits_in_a_line_as_long_as_the_queue() {
    let cap = LimitOverrides {
        max_concurrency: Some(1),
        ..LimitOverrides::default()
    };
    let (pool, tenant) = pool(1, cap);
    let pool = Arc::new(pool);
    let rt = runtime();
    let deadline = Instant::now() + SPIN;
    let spinning = spawn(&rt, &pool, &tenant, "/spin", deadline);
    until(|| tenant.admission.permits.available_permits() == 0);
    let waiting = spawn(&rt, &pool, &tenant, "/a", deadline);
    until(|| tenant.admission.line.waiting() == 1);
    let refused = rt.block_on(pool.render(&tenant, get("/b"), deadline, None));
    assert!(matches!(refused, Err(PoolError::TenantBusy)), "{refused:?}");
    assert!(rt.block_on(spinning).unwrap().is_err());
    // The one in line stayed there until its deadline, which the
    // spinner's ran to.
    assert!(rt.block_on(waiting).unwrap().is_err());
}

crate::unit_tests!(
    renders_reuse_a_warm_instance_until_the_tenant_is_forgotten,
    warm_instances_past_the_memory_budget_make_way_for_the_newest,
    a_render_past_its_deadline_is_stopped_and_the_worker_goes_on,
    a_job_whose_deadline_has_passed_is_not_started,
    a_full_queue_refuses_at_once,
    a_tenant_at_its_cap_waits_in_a_line_as_long_as_the_queue
);
