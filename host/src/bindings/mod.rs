//! Bindings: the state a tenant's Worker keeps through `env` (KV, D1, R2)
//! and the services it calls, and the stores that keep the state.
//! - [`Stores`]: where the server keeps every tenant's bindings: embedded
//!   (`sqlite.rs`, `r2/sqlite.rs`, `r2/files.rs`: files in the data dir, or
//!   memory without one), or across replicas in Redis (`redis.rs`,
//!   `r2/redis.rs`, with `--store redis://...`) and an S3-compatible
//!   object store (`r2/s3.rs`, with `--objects s3://...`).
//! - [`Bindings`]: a tenant version's own, by the names its app's wrangler
//!   config gives them (`kv_namespaces`, `d1_databases`, `r2_buckets`,
//!   `services`), each resolved to a namespace, database, bucket or
//!   service of that tenant.
//! - `kv.rs`: what a KV call may ask, Cloudflare's limits and words.
//! - `d1.rs`: D1's databases, a SQLite file each, on one server (not yet
//!   across replicas: with `--store redis://...` a D1 call is refused).
//! - `r2/`: what an R2 call may ask, R2's limits and words, bodies a piece
//!   at a time; `service.rs`: a service binding's request, rendered in the
//!   host.
//!
//! A call (`calls::KV`, `calls::D1`, `calls::R2`, `calls::SERVICE`) is
//! answered by `fetch-wait`, like a request: it runs on a thread that may
//! block, never on an engine's, so a slow disk, Redis or object store holds
//! up only the render that asked. Two exceptions are answered in the call
//! itself: a KV read of the embedded store, an index look-up in a local
//! file that never waits for a writer; a KV `get` of one key from Redis,
//! and a D1 statement that only reads, from a database no other call
//! holds, each when it is done within [`AT_ONCE`] (1 ms; past it, it stops
//! and runs on such a thread, so an engine's thread waits at most that
//! long on a store).
//!
//! Invariants:
//! - A namespace or bucket belongs to one tenant: its name in a store is
//!   the tenant's id, `/`, its id in the config, so no call of one tenant
//!   reaches another's keys or objects, whatever the binding's id says.
//! - A call names a binding, never a namespace: one the tenant version
//!   was not given is refused.

pub mod d1;
pub mod kv;
pub mod objects;
pub mod r2;
mod redis;
pub mod service;
pub(crate) mod sqlite;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use contract::Reply;

use crate::app::AppConfig;
use crate::web::fetch::Subrequests;

/// The longest a call answered in the call itself runs, on the thread
/// that called (a D1 read, [`d1::D1::answer_at_once`]; a KV `get` from
/// Redis, [`kv::Store::get_at_once`]): past it, it stops, and runs again on
/// a thread that may block.
pub const AT_ONCE: std::time::Duration = std::time::Duration::from_millis(1);

/// The tenant a namespace or bucket belongs to: its full name is
/// `<tenant>/<id>`.
pub(crate) fn tenant_of(ns: &str) -> &str {
    ns.split_once('/').map_or(ns, |(t, _)| t)
}

/// A call answered in the call itself: `{answer}` with its bytes, or
/// `{error}` (which the prelude rejects with, as it would a waited one's).
fn at_once(out: Result<(String, Vec<u8>), String>) -> Reply {
    match out {
        Ok((answer, data)) => Reply {
            value: format!("{{\"answer\":{answer}}}"),
            data,
        },
        Err(e) => Reply {
            value: serde_json::json!({ "error": e }).to_string(),
            data: Vec::new(),
        },
    }
}

/// What the operator bounds bindings' state by (`--d1-max-mib`,
/// `--kv-tenant-mib`, `--r2-tenant-mib`, `--r2-upload-expiry`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest a D1 database grows.
    pub d1_max_bytes: u64,
    /// The bytes one tenant keeps in KV on the embedded store.
    pub kv_tenant_bytes: u64,
    /// The bytes one tenant keeps in R2.
    pub r2_tenant_bytes: u64,
    /// How long an R2 multipart upload may stay unfinished.
    pub r2_upload_expiry: std::time::Duration,
    /// How long a Durable Object lives with no event (`--object-idle`).
    pub object_idle: std::time::Duration,
    /// The wall-clock time one of its events may take
    /// (`--request-timeout`).
    pub object_event: std::time::Duration,
}

/// One tenant's quotas: the server's ([`Limits`]) unless its registration
/// set its own (`kv_mib`, `r2_mib`, `d1_mib`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quotas {
    /// The bytes its KV namespaces hold, all together (embedded store).
    pub kv_bytes: u64,
    /// The bytes its R2 buckets hold, all together.
    pub r2_bytes: u64,
    /// The largest each of its D1 databases grows.
    pub d1_bytes: u64,
}

impl From<&Limits> for Quotas {
    fn from(l: &Limits) -> Quotas {
        Quotas {
            kv_bytes: l.kv_tenant_bytes,
            r2_bytes: l.r2_tenant_bytes,
            d1_bytes: l.d1_max_bytes,
        }
    }
}

impl Default for Quotas {
    fn default() -> Quotas {
        Quotas::from(&Limits::default())
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            d1_max_bytes: (crate::config::DEFAULT_D1_MAX_MIB as u64) << 20,
            kv_tenant_bytes: (crate::config::DEFAULT_KV_TENANT_MIB as u64) << 20,
            r2_tenant_bytes: (crate::config::DEFAULT_R2_TENANT_MIB as u64) << 20,
            r2_upload_expiry: std::time::Duration::from_millis(
                crate::config::DEFAULT_R2_UPLOAD_EXPIRY_MS,
            ),
            object_idle: std::time::Duration::from_secs(70),
            object_event: std::time::Duration::from_secs(30),
        }
    }
}

/// Where the server keeps bindings' state.
pub struct Stores {
    kv: Arc<dyn kv::Store>,
    /// None across replicas, where D1 is not provided yet.
    d1: Option<Arc<d1::D1>>,
    /// None across replicas without an object store (`--objects`).
    r2: Option<Arc<r2::Store>>,
    /// None across replicas, where Durable Objects are not provided yet.
    objects: Option<Arc<objects::Objects>>,
    /// What runs a service binding's request as its tenant's: the server,
    /// once it is up (`service.rs`).
    pub dispatch: service::Dispatcher,
}

impl Stores {
    /// The server's Durable Objects, where it has them.
    pub fn objects(&self) -> Option<&Arc<objects::Objects>> {
        self.objects.as_ref()
    }

    /// The embedded stores: in `dir` (the data dir's `bindings/`), or in
    /// memory, within `limits`.
    /// R2's bytes in the object store `objects` names, or in
    /// `dir` (the data dir's `bindings/`, or memory).
    pub fn embedded(
        dir: Option<&Path>,
        limits: Limits,
        objects: Option<&crate::config::ObjectsUrl>,
    ) -> Result<Arc<Stores>, String> {
        let dir = dir.map(|d| d.join("bindings"));
        let d1_dir = dir.as_ref().map(|d| d.join("d1"));
        let meta = r2::sqlite::Sqlite::open(dir.as_deref())?;
        let blobs: Arc<dyn r2::Blobs> = match objects {
            Some(config) => Arc::new(r2::s3::S3::open(config)?),
            None => {
                let files = r2::files::Files::open(dir.as_ref().map(|d| d.join("r2")).as_deref())?;
                // Blobs no row names: writes a crash cut off before they
                // were named.
                let swept = files.sweep_unnamed(&r2::Meta::named_blobs(&meta)?);
                if swept > 0 {
                    tracing::info!("R2: removed {swept} blobs that no object names");
                }
                Arc::new(files)
            }
        };
        let r2 = Arc::new(r2::Store {
            meta: Arc::new(meta),
            blobs,
        });
        sweep_uploads(&r2, limits.r2_upload_expiry);
        let objects_dir = dir.as_ref().map(|d| d.join("objects"));
        let objects = objects::Objects::open(objects_dir.as_deref(), &limits)?;
        Ok(Arc::new(Stores {
            kv: Arc::new(sqlite::Kv::open(dir.as_deref())?),
            d1: Some(Arc::new(d1::D1::new(d1_dir.as_deref()))),
            r2: Some(r2),
            objects: Some(objects),
            dispatch: Default::default(),
        }))
    }

    /// KV in the Redis that `client` reaches, shared by every replica; R2
    /// there too, its bytes in the object store `objects` names.
    pub fn redis(
        client: ::redis::Client,
        limits: Limits,
        objects: Option<&crate::config::ObjectsUrl>,
    ) -> Result<Arc<Stores>, String> {
        let r2 = match objects {
            Some(config) => {
                let r2 = Arc::new(r2::Store {
                    meta: Arc::new(r2::redis::Redis::new(client.clone())),
                    blobs: Arc::new(r2::s3::S3::open(config)?),
                });
                sweep_uploads(&r2, limits.r2_upload_expiry);
                Some(r2)
            }
            None => None,
        };
        Ok(Arc::new(Stores {
            kv: Arc::new(redis::Kv::new(client)),
            d1: None,
            r2,
            objects: None,
            dispatch: Default::default(),
        }))
    }
}

/// Aborts `r2`'s uploads left unfinished past `expiry`, now and then
/// every quarter of it (at most hourly), while `r2` is in use: on every
/// replica, each abort one transaction, so two sweeps never both free a
/// part.
fn sweep_uploads(r2: &Arc<r2::Store>, expiry: std::time::Duration) {
    let every = (expiry / 4).clamp(
        std::time::Duration::from_millis(100),
        std::time::Duration::from_secs(3600),
    );
    let r2 = Arc::downgrade(r2);
    std::thread::Builder::new()
        .name("ssr-r2-sweep".into())
        .spawn(move || {
            while let Some(store) = r2.upgrade() {
                match store.sweep_uploads(expiry) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("R2: aborted {n} multipart uploads left unfinished"),
                    Err(e) => tracing::warn!("R2: sweeping unfinished uploads failed: {e}"),
                }
                match store.sweep_blobs(expiry) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("R2: deleted {n} blobs that no object names"),
                    Err(e) => tracing::warn!("R2: sweeping unnamed blobs failed: {e}"),
                }
                drop(store);
                std::thread::sleep(every);
            }
        })
        .expect("spawning the R2 upload sweeper");
}

/// A tenant version's bindings.
#[derive(Default)]
pub struct Bindings {
    /// KV bindings: the name in `env`, to the namespace's name in the store.
    kv: BTreeMap<String, String>,
    /// D1 bindings: the name in `env`, to the database's id.
    d1: BTreeMap<String, String>,
    /// R2 bindings: the name in `env`, to the bucket's name in the store.
    r2: BTreeMap<String, String>,
    /// Service bindings: the name in `env`, to the tenant it reaches.
    services: BTreeMap<String, String>,
    /// Durable Object namespaces: the name in `env`, to its class.
    objects: BTreeMap<String, String>,
    /// Those bound to a named entrypoint: the name in `env`, to its export.
    entrypoints: BTreeMap<String, String>,
    /// The other tenants the operator lets it call (`allow_service`).
    callable: Vec<String>,
    tenant: String,
    stores: Option<Arc<Stores>>,
    quotas: Quotas,
}

impl Bindings {
    /// What `app`'s config binds for `tenant`, kept in `stores` within
    /// `quotas`.
    pub fn new(tenant: &str, app: &AppConfig, stores: &Arc<Stores>, quotas: Quotas) -> Bindings {
        Bindings {
            kv: app
                .kv_namespaces
                .iter()
                .map(|(name, id)| (name.clone(), format!("{tenant}/{id}")))
                .collect(),
            d1: app.d1_databases.clone(),
            r2: app
                .r2_buckets
                .iter()
                .map(|(name, bucket)| (name.clone(), format!("{tenant}/{bucket}")))
                .collect(),
            services: app
                .services
                .iter()
                .map(|(name, service)| {
                    // The app's own name, or its tenant's id, is itself.
                    let own = app.name.as_deref() == Some(service.as_str());
                    (
                        name.clone(),
                        if own { tenant.into() } else { service.clone() },
                    )
                })
                .collect(),
            entrypoints: app.service_entrypoints.clone(),
            objects: app.durable_objects.clone(),
            callable: Vec::new(),
            tenant: tenant.into(),
            stores: Some(stores.clone()),
            quotas,
        }
    }

    /// These bindings, whose services may reach the tenants in `allowed`
    /// besides their own (the operator's `allow_service`).
    pub fn calling(mut self, allowed: &[String]) -> Bindings {
        self.callable = allowed.to_vec();
        self
    }

    /// The tenant's quotas.
    pub fn quotas(&self) -> Quotas {
        self.quotas
    }

    /// What it binds, what each holds and its quotas, for the admin API
    /// (`GET /_ssr/admin/tenants/{id}/bindings`). It may block.
    pub fn usage(&self) -> Result<serde_json::Value, String> {
        use serde_json::json;
        let Some(stores) = &self.stores else {
            return Err("bindings need a server (`ssr serve`)".into());
        };
        let pairs = |m: &BTreeMap<String, String>, what: &str| -> Vec<serde_json::Value> {
            m.iter()
                .map(|(b, v)| json!({ "binding": b, what: v.split_once('/').map_or(v.as_str(), |(_, id)| id) }))
                .collect()
        };
        let r2_bytes = match &stores.r2 {
            Some(r2) if !self.r2.is_empty() => Some(r2.meta.usage(&self.tenant)?),
            _ => None,
        };
        let mut databases = Vec::new();
        for name in self.d1.keys() {
            let bytes = match self.d1_database(name) {
                Ok((d1, db)) => Some(d1.bytes(&db)?),
                Err(_) => None,
            };
            databases.push(json!({ "binding": name, "id": self.d1[name], "bytes": bytes }));
        }
        Ok(json!({
            "kv": {
                "namespaces": pairs(&self.kv, "id"),
                "bytes": stores.kv.usage(&self.tenant)?,
                "quota_bytes": self.quotas.kv_bytes,
            },
            "r2": {
                "buckets": pairs(&self.r2, "bucket"),
                "bytes": r2_bytes,
                "quota_bytes": self.quotas.r2_bytes,
            },
            "d1": {
                "databases": databases,
                "quota_bytes_each": self.quotas.d1_bytes,
            },
            "services": self.services.iter().map(|(b, s)| json!({ "binding": b, "service": s })).collect::<Vec<_>>(),
            "durable_objects": self.objects.iter().map(|(b, class)| {
                let (objects, bytes) = stores
                    .objects
                    .as_ref()
                    .map_or((0, 0), |o| o.usage(&self.tenant, class));
                json!({ "binding": b, "class": class, "objects": objects, "bytes": bytes })
            }).collect::<Vec<_>>(),
        }))
    }

    /// The names of its KV bindings.
    pub fn kv_names(&self) -> impl Iterator<Item = &str> {
        self.kv.keys().map(String::as_str)
    }

    /// The names of its D1 bindings.
    pub fn d1_names(&self) -> impl Iterator<Item = &str> {
        self.d1.keys().map(String::as_str)
    }

    /// The names of its service bindings.
    pub fn service_names(&self) -> impl Iterator<Item = &str> {
        self.services.keys().map(String::as_str)
    }

    /// Its service bindings to the app itself, each to the export it names
    /// (`""`: the default one). The prelude answers them in the calling
    /// instance, as `workerd` answers them in the same isolate
    /// (`31_services.js`); a call of one that reaches the host (an app of a
    /// render function) is rendered as below.
    pub fn own_services(&self) -> BTreeMap<&str, &str> {
        self.services
            .iter()
            .filter(|(_, target)| **target == self.tenant)
            .map(|(b, _)| {
                (
                    b.as_str(),
                    self.entrypoints.get(b).map_or("", String::as_str),
                )
            })
            .collect()
    }

    /// `calls::SERVICE`: a request through service binding `binding`,
    /// rendered as its tenant's own request without leaving the host
    /// (`service.rs`); its response comes by `fetch-wait` as a fetch's.
    pub fn service(
        &self,
        subrequests: &mut Subrequests,
        grant: &crate::web::fetch::FetchGrant,
        args: &str,
        data: &[u8],
    ) -> Result<Reply, String> {
        let call: service::Call = serde_json::from_str(args)
            .map_err(|e| format!("{}: bad arguments: {e}", contract::calls::SERVICE))?;
        let Some(target) = self.services.get(&call.binding) else {
            return Err(format!(
                "env.{}: the tenant's app binds no service `{}` (its wrangler config's services)",
                call.binding, call.binding
            ));
        };
        if *target != self.tenant && !self.callable.contains(target) {
            return Err(format!(
                "env.{}: tenant `{}` may not call tenant `{target}`: the operator grants it with `allow_service={target}` at its registration",
                call.binding, self.tenant
            ));
        }
        subrequests.admit(grant, &format!("env.{}.fetch()", call.binding))?;
        let Some(stores) = &self.stores else {
            return Err("service bindings need a server (`ssr serve`)".into());
        };
        let entrypoint = self.entrypoints.get(&call.binding).map(String::as_str);
        let request = call.request(target, entrypoint, data)?;
        let dispatch = stores.dispatch.clone();
        let deadline = subrequests.deadline();
        subrequests.dispatch(async move { dispatch.render(request, deadline).await })
    }

    /// The names of its Durable Object namespaces.
    pub fn object_names(&self) -> impl Iterator<Item = &str> {
        self.objects.keys().map(String::as_str)
    }

    /// Durable Object binding `binding`'s objects and namespace: the one
    /// look-up of the Worker's calls and the admin API's.
    pub fn objects(
        &self,
        binding: &str,
    ) -> Result<(&Arc<objects::Objects>, objects::Namespace), String> {
        let (Some(class), Some(stores)) = (self.objects.get(binding), &self.stores) else {
            return Err(format!(
                "env.{binding}: the tenant's app binds no Durable Object namespace `{binding}` (its wrangler config's durable_objects.bindings)"
            ));
        };
        let Some(objects) = &stores.objects else {
            return Err(format!(
                "env.{binding}: Durable Objects are not provided across replicas yet (this server keeps its tenants in Redis); run it on one server, without --store"
            ));
        };
        // A plugin's config is the tenant's to make: its class names a
        // folder, so only a name the wrangler config allows passes.
        objects::check_class(class).map_err(|e| format!("env.{binding}: {e}"))?;
        let ns = objects::Namespace {
            tenant: self.tenant.clone(),
            class: class.clone(),
        };
        Ok((objects, ns))
    }

    /// The server's Durable Objects, if it has them.
    pub fn object_directory(&self) -> Option<&Arc<objects::Objects>> {
        self.stores.as_ref().and_then(|s| s.objects.as_ref())
    }

    /// The names of its R2 bindings.
    pub fn r2_names(&self) -> impl Iterator<Item = &str> {
        self.r2.keys().map(String::as_str)
    }

    /// `calls::D1`: checks the call names one of its D1 bindings, and
    /// starts it in `subrequests`, which answers it by the render's
    /// deadline.
    pub fn d1(&self, subrequests: &mut Subrequests, args: &str) -> Result<Reply, String> {
        let call: d1::Call = serde_json::from_str(args)
            .map_err(|e| format!("{}: bad arguments: {e}", contract::calls::D1))?;
        let (d1, db) = self
            .d1_database(call.binding())
            .map_err(|e| format!("env.{}: {e}", call.binding()))?;
        if let Some(answer) = d1.answer_at_once(&db, &call) {
            return Ok(at_once(answer.map(|json| (json, Vec::new()))));
        }
        let d1 = d1.clone();
        let deadline = subrequests.deadline();
        subrequests.run(move || Ok((d1.answer(&db, call, deadline)?, Vec::new())))
    }

    /// KV binding `binding`'s store and namespace: the one lookup of the
    /// Worker's calls and the admin API's.
    pub fn kv_namespace(&self, binding: &str) -> Result<(&Arc<dyn kv::Store>, &str), String> {
        match (self.kv.get(binding), &self.stores) {
            (Some(ns), Some(stores)) => Ok((&stores.kv, ns)),
            _ => Err(format!(
                "the tenant's app binds no KV namespace `{binding}` (its wrangler config's kv_namespaces)"
            )),
        }
    }

    /// Runs `sql` as a script on D1 binding `binding` (in one transaction;
    /// with `migration`, once per name), for the admin API. It may block.
    pub fn d1_script(
        &self,
        binding: &str,
        sql: &str,
        migration: Option<&str>,
    ) -> Result<String, String> {
        let (d1, db) = self.d1_database(binding)?;
        d1.script(&db, sql, migration)
    }

    /// D1 binding `binding`'s database as SQL that makes it again, for the
    /// admin API. It may block.
    pub fn d1_export(&self, binding: &str) -> Result<String, String> {
        let (d1, db) = self.d1_database(binding)?;
        d1.export(&db)
    }

    /// D1 binding `binding`'s databases and its database there: the one
    /// lookup of the Worker's calls and the admin API's.
    fn d1_database(&self, binding: &str) -> Result<(&Arc<d1::D1>, d1::Db), String> {
        let (Some(id), Some(stores)) = (self.d1.get(binding), &self.stores) else {
            return Err(format!(
                "the tenant's app binds no D1 database `{binding}` (its wrangler config's d1_databases)"
            ));
        };
        let Some(d1) = &stores.d1 else {
            return Err("D1 is not provided across replicas yet (this server keeps its tenants in Redis); run it on one server, without --store".into());
        };
        let db = d1::Db {
            tenant: self.tenant.clone(),
            id: id.clone(),
            max_bytes: self.quotas.d1_bytes,
        };
        Ok((d1, db))
    }

    /// `calls::KV`: checks the call names one of its KV bindings, and
    /// starts it in `subrequests`, which answers it.
    pub fn kv(
        &self,
        subrequests: &mut Subrequests,
        args: &str,
        data: &[u8],
    ) -> Result<Reply, String> {
        let call: kv::Call = serde_json::from_str(args)
            .map_err(|e| format!("{}: bad arguments: {e}", contract::calls::KV))?;
        let (store, ns) = self
            .kv_namespace(call.binding())
            .map_err(|e| format!("env.{}: {e}", call.binding()))?;
        let quota = self.quotas.kv_bytes;
        if call.reads() && store.reads_at_once() {
            let answer = kv::answer(&**store, ns, call, Vec::new(), kv::now(), quota);
            return Ok(at_once(answer));
        }
        if let Some(answer) = kv::answer_at_once(&**store, ns, &call, kv::now()) {
            return Ok(at_once(answer));
        }
        let (ns, store, data) = (ns.to_string(), store.clone(), data.to_vec());
        subrequests.run(move || kv::answer(&*store, &ns, call, data, kv::now(), quota))
    }
}

impl Bindings {
    /// R2 binding `binding`'s store and bucket: the one lookup of the
    /// Worker's calls and the admin API's.
    pub fn r2_bucket(&self, binding: &str) -> Result<(&Arc<r2::Store>, &str), String> {
        let (Some(bucket), Some(stores)) = (self.r2.get(binding), &self.stores) else {
            return Err(format!(
                "the tenant's app binds no R2 bucket `{binding}` (its wrangler config's r2_buckets)"
            ));
        };
        let Some(r2) = &stores.r2 else {
            return Err("R2 across replicas needs an object store: start every replica with --objects s3://...".into());
        };
        Ok((r2, bucket))
    }

    /// `calls::R2`: checks the call names one of its R2 bindings, and
    /// starts it in `subrequests`, which answers it. A body larger than a
    /// piece is held there from call to call, by a handle the answer
    /// gives (`r2.rs`).
    pub fn r2(
        &self,
        subrequests: &mut Subrequests,
        args: &str,
        data: &[u8],
    ) -> Result<Reply, String> {
        let call: r2::Call = serde_json::from_str(args)
            .map_err(|e| format!("{}: bad arguments: {e}", contract::calls::R2))?;
        let (store, ns) = self
            .r2_bucket(call.binding())
            .map_err(|e| format!("env.{}: {e}", call.binding()))?;
        let (store, ns) = (store.clone(), ns.to_string());
        let data = data.to_vec();
        let quota = self.quotas.r2_bytes;
        let gone = || "the body is no longer there (its render ended)".to_string();
        match call {
            r2::Call::Read { handle, .. } | r2::Call::Write { handle, .. } => {
                let slot = subrequests.held(handle, false).ok_or_else(gone)?;
                subrequests.run(move || {
                    let mut slot = crate::sync::lock(&slot);
                    let held = slot.as_mut().and_then(|h| h.downcast_mut::<r2::Held>());
                    done(store.answer(&ns, quota, call, data, held))
                })
            }
            r2::Call::Finish { handle, .. } => {
                let slot = subrequests.held(handle, true).ok_or_else(gone)?;
                subrequests.run(move || {
                    let held = crate::sync::lock(&slot).take().ok_or_else(gone)?;
                    let held = held.downcast::<r2::Held>().map_err(|_| gone())?;
                    done(store.finish_held(&ns, *held))
                })
            }
            // A call whose body may outlast its answer gets a slot to
            // hold it in.
            call @ (r2::Call::Get { .. } | r2::Call::Put { .. } | r2::Call::UploadPart { .. }) => {
                let (handle, slot) = subrequests.hold();
                subrequests.run(move || match store.answer(&ns, quota, call, data, None)? {
                    r2::Answer::Hold(mut v, held) => {
                        *crate::sync::lock(&slot) = Some(Box::new(held));
                        v["handle"] = handle.into();
                        Ok((v.to_string(), Vec::new()))
                    }
                    answer => done(Ok(answer)),
                })
            }
            call => subrequests.run(move || done(store.answer(&ns, quota, call, data, None))),
        }
    }
}

/// An R2 answer that holds nothing, as a call's.
fn done(answer: Result<r2::Answer, String>) -> Result<(String, Vec<u8>), String> {
    match answer? {
        r2::Answer::Done(json, bytes) => Ok((json, bytes)),
        r2::Answer::Hold(..) => Err("R2: an answer held a body where none can be".into()),
    }
}
