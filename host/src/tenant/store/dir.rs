//! The data dir: where tenants persist on one machine, and where a replica
//! sharing tenants through Redis keeps the code it compiled (then only
//! `plugins/*.cwasm` and `code/`).
//!
//! Layout:
//! ```text
//! <data-dir>/plugins/<digest>.wasm    the plugin as registered (immutable;
//!                                     <digest> is its SHA-256)
//! <data-dir>/plugins/<digest>.<key>.cwasm
//!                                     the same, compiled for this host
//!                                     (Wasm tenants only; written once)
//! <data-dir>/code/<sha256>.<key>.cwasm
//!                                     code Wasm plugins share, compiled
//!                                     (`engine::wasm::shared`)
//! <data-dir>/code/runtime-<key>.wasm  a plugin of an empty module, which
//!                                     warms that code at start-up
//!                                     (`build::runtime_plugin`)
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
//! - Compiled files are named by the engine's key too (`<key>`:
//!   `engine::wasm::shared::code_key`, its Wasmtime version, CPU and
//!   configuration), so code compiled by another engine is never loaded.
//! - Plugin files no registration names are garbage, removed at start-up,
//!   and so are secrets of no registration, shared code (`code/`) that no
//!   loaded tenant links, and code compiled under another engine key.
//! - Secrets are written before the registration whose version they go
//!   with; they are never in a registration, so never in what the admin API
//!   shows or what a plugin file holds.
//! - Files are content-addressed by SHA-256 and never rewritten while a
//!   registration names them; a `.wasm` read back whose SHA-256 is not its
//!   name is refused (that tenant is skipped), never run.
//! - Loading a Wasm tenant prefers the compiled `.cwasm` (`deserialize_file`, no
//!   compilation); if it is missing or cannot be used the `.wasm` is
//!   compiled again and the `.cwasm` rewritten.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::super::env::Env;
use super::super::{Defaults, Registration};
use super::{Saved, said};
use crate::engine::Engines;
use crate::fs::{sync_dir, write_atomically, write_cold, write_private};

/// The data dir.
pub struct DataDir {
    /// The data dir itself.
    root: PathBuf,
    plugins: PathBuf,
    /// The Wasm engine's shared code ([`DataDir::SHARED_CODE`]).
    code: PathBuf,
    /// The Wasm engine's key, in the name of each compiled file.
    key: String,
    tenants: PathBuf,
    secrets: PathBuf,
    /// Tenant tokens' records (`tenant/tokens.rs`), mode 0600.
    tokens: PathBuf,
}

impl DataDir {
    /// The subdirectory where the Wasm engine keeps the modules plugins
    /// share, compiled (`engine::wasm::shared`).
    pub const SHARED_CODE: &str = "code";

    /// Opens `dir` for code compiled by the engine of `key`, making what is
    /// missing: the whole layout, or with `code_only` (a replica of a shared
    /// store), `plugins/` alone.
    pub fn open(dir: &Path, code_only: bool, key: &str) -> std::io::Result<DataDir> {
        use std::os::unix::fs::PermissionsExt;
        let store = DataDir {
            root: dir.to_path_buf(),
            plugins: dir.join("plugins"),
            code: dir.join(DataDir::SHARED_CODE),
            key: key.to_string(),
            tenants: dir.join("tenants"),
            secrets: dir.join("secrets"),
            tokens: dir.join("tokens.json"),
        };
        std::fs::create_dir_all(&store.plugins)?;
        if !code_only {
            std::fs::create_dir_all(&store.tenants)?;
            std::fs::create_dir_all(&store.secrets)?;
            std::fs::set_permissions(&store.secrets, std::fs::Permissions::from_mode(0o700))?;
        }
        Ok(store)
    }

    /// The data dir itself (`bindings/` keeps its embedded store below it).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where [`crate::build::runtime_plugin`] is kept, named by
    /// [`crate::build::runtime_key`].
    pub fn runtime_path(&self) -> PathBuf {
        let key = crate::build::runtime_key();
        self.code.join(format!("runtime-{key}.wasm"))
    }

    /// Keeps the runtime plugin at [`DataDir::runtime_path`].
    pub fn save_runtime(&self, bytes: &[u8]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.code)?;
        write_atomically(&self.runtime_path(), bytes)
    }

    /// Where the compiled form of plugin `digest` is stored.
    pub fn compiled_path(&self, digest: &str) -> PathBuf {
        self.plugins.join(format!("{digest}.{}.cwasm", self.key))
    }

    /// Where the source map of plugin `digest` for `engine` is kept
    /// (`tenant::store::stack_map`).
    pub fn map_path(&self, digest: &str, engine: crate::engine::EngineKind) -> PathBuf {
        let engine = match engine {
            crate::engine::EngineKind::Wasm => "wasm",
            crate::engine::EngineKind::V8 => "v8",
        };
        self.plugins.join(format!("{digest}.{engine}.map"))
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

    /// Persists every tenant token's record (`tenant/tokens.rs`).
    pub fn save_tokens(
        &self,
        tokens: &std::collections::BTreeMap<String, super::super::tokens::TokenRecord>,
    ) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(tokens).map_err(std::io::Error::other)?;
        write_private(&self.tokens, &json)
    }

    /// The tenant tokens' records kept by [`DataDir::save_tokens`]: none
    /// when there is no file; a file that cannot be read is an error, so
    /// that a server never starts without the revocations it holds.
    pub fn load_tokens(
        &self,
    ) -> std::io::Result<std::collections::BTreeMap<String, super::super::tokens::TokenRecord>>
    {
        match std::fs::read(&self.tokens) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", self.tokens.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
            Err(e) => Err(e),
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
    /// if any, is already stored: [`DataDir::save_compiled`]), then the record.
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
        self.remove_unused_code(saved.iter().map(|s| &s.registration), engines);
        saved
    }

    /// Removes compiled code that none of `live` uses: plugins' and, of
    /// the code they share, what no loaded tenant links (another `ssr`
    /// version's, say); and what another engine key compiled.
    pub fn remove_unused_code<'a>(
        &self,
        live: impl Iterator<Item = &'a Registration>,
        engines: &Engines,
    ) {
        let live: HashSet<&str> = live.map(|r| r.digest.as_str()).collect();
        remove_unused(&self.plugins, &live, &self.key);
        let linked = engines.wasm.shared_in_use();
        let runtime = format!("runtime-{}", crate::build::runtime_key());
        let linked = linked
            .iter()
            .map(String::as_str)
            .chain([runtime.as_str()])
            .collect();
        remove_unused(&self.code, &linked, &self.key);
    }

    fn load_one(
        &self,
        path: &Path,
        engines: &Engines,
        defaults: &Defaults,
    ) -> Result<Saved, String> {
        let text = std::fs::read(path).map_err(said)?;
        let record: Registration = serde_json::from_slice(&text).map_err(said)?;
        let secrets = self.load_secrets(&record.id)?;
        let wasm_path = self.plugins.join(format!("{}.wasm", record.digest));
        let digest = record.digest.clone();
        let read = || {
            let bytes = std::fs::read(&wasm_path).map_err(|e| format!("plugin file: {e}"))?;
            super::check_digest(&digest, &bytes, &wasm_path.display().to_string())?;
            Ok(bytes)
        };
        super::load(record, secrets, read, self, engines, defaults)
    }
}

/// Removes the files of `dir` whose name, up to its first dot, is not in
/// `live`, and compiled ones not named by engine key `key`.
fn remove_unused(dir: &Path, live: &HashSet<&str>, key: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let digest = name.split('.').next().unwrap_or_default();
        let foreign = name
            .strip_suffix(".cwasm")
            .is_some_and(|stem| stem != format!("{digest}.{key}"));
        if foreign || !live.contains(digest) {
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

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::*;

    fn unused_code_and_code_of_another_engine_key_are_removed() {
        let dir = std::env::temp_dir().join(format!("ssr-unused-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (live, dead) = ("a".repeat(64), "b".repeat(64));
        let names = [
            format!("{live}.wasm"),
            format!("{live}.0123456789abcdef.cwasm"),
            format!("{live}.fedcba9876543210.cwasm"),
            format!("{live}.cwasm"),
            format!("{dead}.wasm"),
            format!("{dead}.0123456789abcdef.cwasm"),
        ];
        for name in &names {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        remove_unused(&dir, &HashSet::from([live.as_str()]), "0123456789abcdef");
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [names[1].clone(), names[0].clone()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    crate::unit_tests!(unused_code_and_code_of_another_engine_key_are_removed);
}
