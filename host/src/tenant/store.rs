//! Tenant persistence in the data dir.
//!
//! Layout:
//! ```text
//! <data-dir>/plugins/<digest>.wasm    the plugin as registered (immutable;
//!                                     <digest> is its SHA-256)
//! <data-dir>/plugins/<digest>.cwasm   the same, compiled for this host
//!                                     (Wasm tenants only; written once)
//! <data-dir>/code/<sha256>.cwasm      code Wasm plugins share, compiled
//!                                     (`engine::wasm::shared`)
//! <data-dir>/tenants/<id>.json        the registration, naming a digest
//! <data-dir>/secrets/<id>.json        the tenant's secrets, name to value
//!                                     (mode 0600, in a 0700 directory)
//! ```
//!
//! Invariants (crash safety):
//! - Every file is written atomically (`fs::write_atomically`, or
//!   `fs::write_cold` for the compiled files a tenant runs mapped from).
//! - A registration is written only after both plugin files it names are
//!   durable (the compiled one first, as registration loads from it), so a
//!   `<id>.json` never points at a missing or partial plugin: after a crash
//!   at any moment a tenant has its old registration or its new one.
//! - Plugin files no registration names are garbage, removed at start-up,
//!   and so are secrets of no registration, and shared code (`code/`) that
//!   no loaded tenant links.
//! - Secrets are written before the registration whose version they go
//!   with; they are never in a registration, so never in what the admin API
//!   shows or what a plugin file holds.
//! - Files are content-addressed by SHA-256 and never rewritten while a
//!   registration names them; a `.wasm` read back whose SHA-256 is not its
//!   name is refused (that tenant is skipped), never run.
//! - Loading a Wasm tenant prefers the compiled `.cwasm` (`deserialize_file`, no
//!   compilation); if it cannot be used (another wasmtime version, say) the
//!   `.wasm` is compiled again and the `.cwasm` rewritten.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Defaults;
use super::Registration;
use super::env::Env;
use crate::assets::Assets;
use crate::engine::{EngineKind, Engines, Plugin};
use crate::fs::{sync_dir, write_atomically, write_cold, write_private};
use crate::report::Chain;

/// A stored registration with its loaded plugin and its secrets.
pub struct Saved {
    pub registration: Registration,
    pub plugin: Arc<dyn Plugin>,
    pub assets: Arc<Assets>,
    pub secrets: Env,
}

/// The data dir.
pub struct Store {
    plugins: PathBuf,
    /// The Wasm engine's shared code ([`Store::SHARED_CODE`]).
    code: PathBuf,
    tenants: PathBuf,
    secrets: PathBuf,
}

impl Store {
    /// The subdirectory where the Wasm engine keeps the modules plugins
    /// share, compiled (`engine::wasm::shared`).
    pub const SHARED_CODE: &str = "code";

    pub fn open(dir: &Path) -> std::io::Result<Store> {
        use std::os::unix::fs::PermissionsExt;
        let store = Store {
            plugins: dir.join("plugins"),
            code: dir.join(Store::SHARED_CODE),
            tenants: dir.join("tenants"),
            secrets: dir.join("secrets"),
        };
        std::fs::create_dir_all(&store.plugins)?;
        std::fs::create_dir_all(&store.tenants)?;
        std::fs::create_dir_all(&store.secrets)?;
        std::fs::set_permissions(&store.secrets, std::fs::Permissions::from_mode(0o700))?;
        Ok(store)
    }

    /// Where the compiled form of plugin `digest` is stored.
    pub fn compiled_path(&self, digest: &str) -> PathBuf {
        self.plugins.join(format!("{digest}.cwasm"))
    }

    fn record_path(&self, id: &str) -> PathBuf {
        self.tenants.join(format!("{id}.json"))
    }

    fn secrets_path(&self, id: &str) -> PathBuf {
        self.secrets.join(format!("{id}.json"))
    }

    /// Persists tenant `id`'s secrets (none: removes the file).
    pub fn save_secrets(&self, id: &str, secrets: &Env) -> std::io::Result<()> {
        if secrets.is_empty() {
            return remove_file(&self.secrets_path(id), &self.secrets);
        }
        let json = serde_json::to_vec(secrets).map_err(std::io::Error::other)?;
        write_private(&self.secrets_path(id), &json)
    }

    fn load_secrets(&self, id: &str) -> Result<Env, String> {
        match std::fs::read(self.secrets_path(id)) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("secrets file: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Env::new()),
            Err(e) => Err(format!("secrets file: {e}")),
        }
    }

    /// Stores the compiled form of plugin `digest` (written once: it is
    /// content-addressed); where it is. Before the registration naming it;
    /// one that no registration names is removed at start-up.
    pub fn save_compiled(&self, digest: &str, compiled: &[u8]) -> std::io::Result<PathBuf> {
        let path = self.compiled_path(digest);
        write_once(&path, compiled, write_cold)?;
        Ok(path)
    }

    /// Persists a registration: the plugin file first (its compiled form,
    /// if any, is already stored: [`Store::save_compiled`]), then the record.
    pub fn save(&self, record: &Registration, wasm: &[u8]) -> std::io::Result<()> {
        let path = self.plugins.join(format!("{}.wasm", record.digest));
        write_once(&path, wasm, write_atomically)?;
        self.save_record(record)
    }

    /// Writes a registration whose plugin files are already stored.
    pub fn save_record(&self, record: &Registration) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
        write_atomically(&self.record_path(&record.id), &json)
    }

    /// Removes tenant `id`: its registration, then its secrets.
    pub fn remove(&self, id: &str) -> std::io::Result<()> {
        remove_file(&self.record_path(id), &self.tenants)?;
        remove_file(&self.secrets_path(id), &self.secrets)
    }

    /// Every stored registration that loads; a broken one is logged and
    /// skipped, never fatal. Removes unreferenced plugin files.
    pub fn load_all(&self, engines: &Engines, defaults: &Defaults) -> Vec<Saved> {
        let mut saved = Vec::new();
        let entries = match std::fs::read_dir(&self.tenants) {
            Ok(e) => e,
            Err(e) => {
                tracing::error!(dir = %self.tenants.display(), "cannot list tenants: {e}");
                return saved;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                // Leftover temporary files of an interrupted write.
                let _ = std::fs::remove_file(&path);
                continue;
            }
            match self.load_one(&path, engines, defaults) {
                Ok(s) => saved.push(s),
                Err(e) => {
                    metrics::counter!("ssr_tenants_skipped_total").increment(1);
                    tracing::error!(file = %path.display(), "skipping a stored tenant: {e}")
                }
            }
        }
        let ids: HashSet<&str> = saved.iter().map(|s| s.registration.id.as_str()).collect();
        if let Ok(entries) = std::fs::read_dir(&self.secrets) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !name
                    .strip_suffix(".json")
                    .is_some_and(|id| ids.contains(id))
                {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        let live: HashSet<&str> = saved
            .iter()
            .map(|s| s.registration.digest.as_str())
            .collect();
        remove_unused(&self.plugins, &live);
        // Shared code no stored tenant links: another `ssr` version's, say.
        let linked = engines.wasm.shared_in_use();
        remove_unused(&self.code, &linked.iter().map(String::as_str).collect());
        saved
    }

    fn load_one(
        &self,
        path: &Path,
        engines: &Engines,
        defaults: &Defaults,
    ) -> Result<Saved, String> {
        let text = std::fs::read(path).map_err(said)?;
        let record: Registration = serde_json::from_slice(&text).map_err(said)?;
        super::validate_id(&record.id).map_err(said)?;
        record.limits.check_ranges().map_err(said)?;
        let secrets = self.load_secrets(&record.id)?;
        super::env::check(&record.vars, &secrets).map_err(said)?;
        let limits = record.limits.resolve(record.engine, defaults).engine();
        let wasm_path = self.plugins.join(format!("{}.wasm", record.digest));
        let read_wasm = || {
            let bytes = std::fs::read(&wasm_path).map_err(|e| format!("plugin file: {e}"))?;
            // Records written before digests were SHA-256 (32 hex digits of
            // xxh3) name their file by that; they load until re-registered.
            if record.digest.len() == 64 && crate::artifact::digest(&bytes) != record.digest {
                return Err(format!(
                    "{} does not hash to its name; register the tenant again",
                    wasm_path.display()
                ));
            }
            Ok(bytes)
        };
        // Read (and checked) once, and only when needed: most plugins have
        // no assets, and a Wasm plugin loads from its .cwasm.
        let bytes = match record.assets > 0 || record.engine != EngineKind::Wasm {
            true => Some(read_wasm()?),
            false => None,
        };
        let assets = match (record.assets, &bytes) {
            (1.., Some(bytes)) => Assets::from_plugin(bytes).map_err(said)?,
            _ => Assets::default(),
        };
        let assets = Arc::new(assets);
        let bytes = || bytes.map_or_else(read_wasm, Ok);
        if record.engine != EngineKind::Wasm {
            let engine = engines.get(record.engine).map_err(said)?;
            let plugin = engine.load_plugin(&bytes()?, limits).map_err(said)?;
            return Ok(Saved {
                registration: record,
                plugin,
                assets,
                secrets,
            });
        }
        let wasm = &engines.wasm;
        let compiled = self.compiled_path(&record.digest);
        let plugin = match wasm.load_precompiled(&compiled, limits) {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(
                    tenant = record.id,
                    "compiled plugin unusable ({}); compiling again",
                    Chain(&e)
                );
                let bytes = wasm.precompile(&bytes()?).map_err(said)?;
                write_cold(&compiled, &bytes).map_err(said)?;
                wasm.load_precompiled(&compiled, limits).map_err(said)?
            }
        };
        Ok(Saved {
            registration: record,
            plugin: Arc::new(plugin),
            assets,
            secrets,
        })
    }
}

/// An error with its causes, as the skipped tenant's log line says it.
fn said(e: impl std::error::Error + 'static) -> String {
    Chain(&e).to_string()
}

/// Removes the files of `dir` whose name, up to its first dot, is not in
/// `live`.
fn remove_unused(dir: &Path, live: &HashSet<&str>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let digest = name.split('.').next().unwrap_or_default();
        if !live.contains(digest) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes a content-addressed file with `write`, unless it is there
/// already.
fn write_once(
    path: &Path,
    bytes: &[u8],
    write: fn(&Path, &[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match path.exists() {
        true => Ok(()),
        false => write(path, bytes),
    }
}

/// Removes `path` from `dir` durably; one already gone is fine.
fn remove_file(path: &Path, dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}
