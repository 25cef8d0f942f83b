//! Where tenants persist: one interface ([`Store`]) over two places.
//! - [`DataDir`] (`dir.rs`): the local data dir, the embedded default; one
//!   machine needs nothing else.
//! - [`RedisStore`] (`redis.rs`): Redis, shared by replicas behind a load
//!   balancer (`ssr serve --store redis://...`). Each replica still keeps
//!   the code it compiled in its own data dir, never in Redis.
//!
//! Both hold the same things: records (settings, hosts, limits,
//! allow-lists, vars), secrets apart from records, and plugin files,
//! content-addressed by SHA-256 and written before the record that names
//! them, so a reader never sees a record whose plugin is missing.
//!
//! Invariants:
//! - Every write is versioned; with Redis, versions come from Redis, so
//!   they order the writes of every replica.
//! - A write is based on the version its writer knew; with Redis it lands
//!   only if that is still current ([`TenantError::Changed`] otherwise), so
//!   two replicas never lose one another's change silently.
//! - Loading a tenant ([`load`]) is the same for both: the compiled code
//!   in the local dir if it is there and usable, else the plugin compiled
//!   again (and the compiled file written for next time).

pub mod dir;
pub mod redis;

use std::sync::Arc;

pub use dir::DataDir;
pub use redis::RedisStore;

use super::env::Env;
use super::{Defaults, Registration, TenantError};
use crate::assets::{Assets, Verify};
use crate::engine::{EngineKind, Engines, Plugin};
use crate::fs::write_cold;
use crate::report::Chain;
use crate::stack_map::StackMap;

/// Where tenants persist.
pub enum Store {
    /// The data dir holds everything.
    Local(DataDir),
    /// Redis holds records, secrets and plugins; `code`, this replica's
    /// data dir, only what it compiled.
    Shared {
        redis: Box<RedisStore>,
        code: DataDir,
    },
}

/// A stored registration with its loaded plugin and its secrets.
pub struct Saved {
    pub registration: Registration,
    pub plugin: Arc<dyn Plugin>,
    pub assets: Arc<Assets>,
    pub secrets: Env,
    /// Where its plugin's source map is, if it has one.
    pub stack_map: Option<Arc<StackMap>>,
}

/// The source map of `bytes` for `engine`, if it has one: written once beside
/// the plugin in `dir` (only where the map is: `stack_map.rs` reads
/// it at the tenant's first error), else kept in memory.
pub fn stack_map(
    bytes: &[u8],
    engine: EngineKind,
    digest: &str,
    dir: Option<&DataDir>,
) -> Result<Option<Arc<StackMap>>, std::io::Error> {
    let Some(map) = crate::stack_map::source_map(bytes, engine) else {
        return Ok(None);
    };
    match dir {
        Some(dir) => {
            let path = dir.map_path(digest, engine);
            if !path.exists() {
                write_cold(&path, map)?;
            }
            Ok(Some(StackMap::in_file(path)))
        }
        None => Ok(Some(StackMap::in_memory(map))),
    }
}

/// What a write stores.
pub struct Write<'a> {
    pub record: &'a Registration,
    /// The plugin's bytes, when the write registers one.
    pub plugin: Option<&'a [u8]>,
    pub secrets: &'a Env,
    /// Whether `secrets` differ from the base version's.
    pub secrets_changed: bool,
    /// The id's version the writer knew (0: none).
    pub base: u64,
}

impl Store {
    /// The local dir: compiled code, and, without Redis, everything.
    pub fn dir(&self) -> &DataDir {
        match self {
            Store::Local(dir) => dir,
            Store::Shared { code, .. } => code,
        }
    }

    /// Stores plugin bytes, before any record names them. The data dir
    /// writes them with the record ([`Store::write`]).
    pub fn save_plugin(&self, digest: &str, bytes: &[u8]) -> Result<(), TenantError> {
        match self {
            Store::Local(_) => Ok(()),
            Store::Shared { redis, .. } => Ok(redis.save_plugin(digest, bytes)?),
        }
    }

    /// Persists a registration (and its plugin, its secrets).
    pub fn write(&self, w: Write<'_>) -> Result<(), TenantError> {
        match self {
            Store::Local(dir) => {
                if w.secrets_changed {
                    dir.save_secrets(&w.record.id, w.secrets)?;
                }
                match w.plugin {
                    Some(bytes) => dir.save(w.record, bytes)?,
                    None => dir.save_record(w.record)?,
                }
                Ok(())
            }
            Store::Shared { redis, .. } => {
                let mut answer = redis.put(w.record, w.secrets, w.base)?;
                if let (redis::Applied::NoPlugin, Some(bytes)) = (&answer, w.plugin) {
                    // Saved, then let go by its last user before this
                    // write named it: once more.
                    redis.save_plugin(&w.record.digest, bytes)?;
                    answer = redis.put(w.record, w.secrets, w.base)?;
                }
                applied(answer, &w.record.id)
            }
        }
    }

    /// Removes tenant `id` (at `version`, based on `base`).
    pub fn remove(&self, id: &str, version: u64, base: u64) -> Result<(), TenantError> {
        match self {
            Store::Local(dir) => Ok(dir.remove(id)?),
            Store::Shared { redis, .. } => applied(redis.remove(id, version, base)?, id),
        }
    }
}

/// What a conditional write to Redis did to tenant `id`, as the writer's
/// answer.
fn applied(applied: redis::Applied, id: &str) -> Result<(), TenantError> {
    match applied {
        redis::Applied::Yes => Ok(()),
        redis::Applied::Stale | redis::Applied::NoPlugin => {
            Err(TenantError::Changed(id.to_string()))
        }
        redis::Applied::HostTaken { host, owner } => Err(TenantError::HostTaken { host, owner }),
    }
}

/// Checks and loads `record`: its assets and app config and its engine's
/// plugin, the Wasm one from the compiled file in `dir` if usable. `bytes`
/// reads the plugin (checked against its digest), called only when needed:
/// most plugins have no assets or app config, and a Wasm plugin loads from
/// its `.cwasm`.
pub fn load(
    record: Registration,
    secrets: Env,
    bytes: impl FnOnce() -> Result<Vec<u8>, String>,
    dir: &DataDir,
    engines: &Engines,
    defaults: &Defaults,
) -> Result<Saved, String> {
    super::validate_id(&record.id).map_err(said)?;
    record.limits.check_ranges().map_err(said)?;
    super::env::check(&record.vars, &secrets).map_err(said)?;
    let limits = record.limits.resolve(record.engine, defaults).engine();
    let mut bytes = Lazy {
        held: None,
        read: Some(bytes),
    };
    if record.assets > 0 || record.app_config != Some(false) || record.engine != EngineKind::Wasm {
        bytes.get()?;
    }
    // `bytes` checks a SHA-256 digest, which vouches for a table checked
    // whole at registration; a record named by the older hash does not.
    let verify = match record.digest.len() {
        64 => Verify::Structure,
        _ => Verify::Whole,
    };
    let assets = match &bytes.held {
        Some(bytes) => Assets::from_plugin(bytes, verify).map_err(said)?,
        None => Assets::default(),
    };
    let assets = Arc::new(assets);
    let plugin: Arc<dyn Plugin> = if record.engine != EngineKind::Wasm {
        let engine = engines.get(record.engine).map_err(said)?;
        engine.load_plugin(bytes.get()?, limits).map_err(said)?
    } else {
        let wasm = &engines.wasm;
        let compiled = dir.compiled_path(&record.digest);
        match wasm.load_precompiled(&compiled, limits) {
            Ok(p) => Arc::new(p),
            Err(e) => {
                // Missing (a replica that never ran it), or from another
                // wasmtime version or engine configuration.
                if compiled.exists() {
                    tracing::warn!(
                        tenant = record.id,
                        "compiled plugin unusable ({}); compiling again",
                        Chain(&e)
                    );
                }
                let code = wasm.precompile(bytes.get()?).map_err(said)?;
                write_cold(&compiled, &code).map_err(said)?;
                Arc::new(wasm.load_precompiled(&compiled, limits).map_err(said)?)
            }
        }
    };
    // The map's file, written when the plugin was registered or first
    // read here; a plugin read now (a replica's first load) writes it.
    let map = dir.map_path(&record.digest, record.engine);
    let stack_map = match &bytes.held {
        _ if map.exists() => Some(StackMap::in_file(map)),
        Some(bytes) => stack_map(bytes, record.engine, &record.digest, Some(dir)).map_err(said)?,
        None => None,
    };
    Ok(Saved {
        registration: record,
        plugin,
        assets,
        secrets,
        stack_map,
    })
}

/// Plugin bytes read at most once, when first needed.
struct Lazy<F> {
    held: Option<Vec<u8>>,
    read: Option<F>,
}

impl<F: FnOnce() -> Result<Vec<u8>, String>> Lazy<F> {
    fn get(&mut self) -> Result<&[u8], String> {
        if self.held.is_none()
            && let Some(read) = self.read.take()
        {
            self.held = Some(read()?);
        }
        self.held
            .as_deref()
            .ok_or_else(|| "the plugin could not be read".to_string())
    }
}

/// Checks plugin bytes read back against the digest their record names.
/// `from` says where they were read, for the error.
pub fn check_digest(digest: &str, bytes: &[u8], from: &str) -> Result<(), String> {
    // Records written before digests were SHA-256 (32 hex digits of xxh3)
    // name their file by that; they load until re-registered.
    if digest.len() == 64 && crate::artifact::digest(bytes) != digest {
        return Err(format!(
            "the plugin in {from} does not hash to its name; register the tenant again"
        ));
    }
    Ok(())
}

/// An error with its causes, as the skipped tenant's log line says it.
pub fn said(e: impl std::error::Error + 'static) -> String {
    Chain(&e).to_string()
}
