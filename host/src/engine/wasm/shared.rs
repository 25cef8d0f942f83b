//! The compiled code tenants share (`split.rs`): each distinct core module
//! and glue component compiled once per process, and, with a directory,
//! once per host.
//!
//! Invariants:
//! - Code is found by the SHA-256 of its bytes, so a tenant gets shared
//!   compiled code only for the very bytes its own plugin carries. Compiled
//!   code is immutable; each instance has its own globals, tables and
//!   memory, so sharing it shares no state between tenants.
//! - Code stays compiled while a loaded plugin uses it, and no longer (the
//!   map holds it weakly).
//! - Two loads needing the same new code compile it once; the second waits
//!   for the first.
//! - On disk, `<dir>/<sha256>.<engine key>.cwasm` ([`code_key`]) is written
//!   atomically and only by this process's engine, so it is trusted as
//!   precompiled code; a file that Wasmtime refuses all the same is compiled
//!   again and replaced.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use wasmtime::Module;
use wasmtime::component::Component;

use crate::engine::EngineError;

/// The key of `engine`'s compiled code: 16 hex digits of the SHA-256 of
/// what Wasmtime says makes precompiled code compatible (its version, the
/// target and its CPU features, compiler flags, tunables, wasm features).
/// Every compiled file's name carries it, so code compiled under another
/// Wasmtime, CPU or configuration is never even opened, and hosts that
/// differ keep a file each instead of taking turns rewriting one.
pub fn code_key(engine: &wasmtime::Engine) -> String {
    use sha2::Digest;
    use std::hash::Hash;
    struct Sha(sha2::Sha256);
    impl std::hash::Hasher for Sha {
        fn write(&mut self, bytes: &[u8]) {
            self.0.update(bytes);
        }
        fn finish(&self) -> u64 {
            let sha = self.0.clone().finalize();
            u64::from_le_bytes(sha[..8].try_into().expect("8 bytes"))
        }
    }
    let mut sha = Sha(sha2::Sha256::new());
    engine.precompile_compatibility_hash().hash(&mut sha);
    sha.0.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What can be shared: a core module or a component.
pub trait Code: Clone + Send + Sync + 'static {
    fn compile(engine: &wasmtime::Engine, bytes: &[u8]) -> wasmtime::Result<Self>;
    fn serialize(&self) -> wasmtime::Result<Vec<u8>>;
    /// # Safety
    /// `path` must hold what [`Code::serialize`] wrote, for this engine.
    #[allow(unsafe_code)]
    unsafe fn deserialize_file(engine: &wasmtime::Engine, path: &Path) -> wasmtime::Result<Self>;
}

impl Code for Module {
    fn compile(engine: &wasmtime::Engine, bytes: &[u8]) -> wasmtime::Result<Self> {
        Module::new(engine, bytes)
    }
    fn serialize(&self) -> wasmtime::Result<Vec<u8>> {
        Module::serialize(self)
    }
    #[allow(unsafe_code)]
    unsafe fn deserialize_file(engine: &wasmtime::Engine, path: &Path) -> wasmtime::Result<Self> {
        // SAFETY: as the caller promises.
        unsafe { Module::deserialize_file(engine, path) }
    }
}

impl Code for Component {
    fn compile(engine: &wasmtime::Engine, bytes: &[u8]) -> wasmtime::Result<Self> {
        Component::new(engine, bytes)
    }
    fn serialize(&self) -> wasmtime::Result<Vec<u8>> {
        Component::serialize(self)
    }
    #[allow(unsafe_code)]
    unsafe fn deserialize_file(engine: &wasmtime::Engine, path: &Path) -> wasmtime::Result<Self> {
        // SAFETY: as the caller promises.
        unsafe { Component::deserialize_file(engine, path) }
    }
}

/// One piece of shared code, compiled.
pub struct Shared<T> {
    code: Mutex<Option<T>>,
}

impl<T: Code> Shared<T> {
    pub fn code(&self) -> T {
        self.code
            .lock()
            .expect("never poisoned")
            .clone()
            .expect("compiled before it is handed out")
    }
}

/// Every piece of shared code of one kind in use, by SHA-256.
pub struct SharedCode<T> {
    engine: wasmtime::Engine,
    /// [`code_key`] of `engine`.
    key: String,
    dir: Option<PathBuf>,
    code: Mutex<HashMap<String, Weak<Shared<T>>>>,
}

impl<T: Code> SharedCode<T> {
    /// Code compiled by `engine`, whose [`code_key`] is `key`, kept in `dir`.
    pub fn new(engine: wasmtime::Engine, key: String, dir: Option<PathBuf>) -> SharedCode<T> {
        SharedCode {
            key,
            engine,
            dir,
            code: Mutex::new(HashMap::new()),
        }
    }

    /// `bytes` (of SHA-256 `digest`) compiled: the copy in use, the one on
    /// disk, or compiled now.
    pub fn get(&self, digest: &str, bytes: &[u8]) -> Result<Arc<Shared<T>>, EngineError> {
        self.slot(digest, || {
            T::compile(&self.engine, bytes).map_err(|e| EngineError::Compile(e.into()))
        })
    }

    /// The compiled code of SHA-256 `digest`, in use or on disk; an error
    /// names it if it is in neither.
    pub fn find(&self, digest: &str) -> Result<Arc<Shared<T>>, EngineError> {
        self.slot(digest, || {
            Err(EngineError::Compile(
                format!("the shared code {digest} is not compiled on this host").into(),
            ))
        })
    }

    /// Whether the code of SHA-256 `digest` is compiled, in use or on disk.
    pub fn known(&self, digest: &str) -> bool {
        let in_use = {
            let all = self.code.lock().expect("never poisoned");
            all.get(digest).is_some_and(|m| m.strong_count() > 0)
        };
        in_use
            || self
                .dir
                .as_ref()
                .is_some_and(|dir| dir.join(format!("{digest}.{}.cwasm", self.key)).exists())
    }

    /// The digests of the code compiled and in use.
    pub fn in_use(&self) -> Vec<String> {
        let all = self.code.lock().expect("never poisoned");
        all.iter()
            .filter(|(_, m)| m.strong_count() > 0)
            .map(|(d, _)| d.clone())
            .collect()
    }

    fn slot(
        &self,
        digest: &str,
        compile: impl FnOnce() -> Result<T, EngineError>,
    ) -> Result<Arc<Shared<T>>, EngineError> {
        let slot = {
            let mut all = self.code.lock().expect("never poisoned");
            match all.get(digest).and_then(Weak::upgrade) {
                Some(slot) => slot,
                None => {
                    all.retain(|_, m| m.strong_count() > 0);
                    let slot = Arc::new(Shared {
                        code: Mutex::new(None),
                    });
                    all.insert(digest.to_string(), Arc::downgrade(&slot));
                    slot
                }
            }
        };
        let mut compiled = slot.code.lock().expect("never poisoned");
        if compiled.is_none() {
            *compiled = Some(self.load_or(digest, compile)?);
        }
        drop(compiled);
        Ok(slot)
    }

    /// The code from `<dir>/<digest>.<key>.cwasm`, or else `compile`d and stored
    /// there.
    fn load_or(
        &self,
        digest: &str,
        compile: impl FnOnce() -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        let Some(dir) = &self.dir else {
            return compile();
        };
        let path = dir.join(format!("{digest}.{}.cwasm", self.key));
        if path.exists() {
            // SAFETY: `path` is a `.cwasm` that this function wrote with
            // `serialize` into the server's own directory; it is not input
            // from a tenant or a client. Wasmtime checks its version and
            // settings.
            #[allow(unsafe_code)]
            match unsafe { T::deserialize_file(&self.engine, &path) } {
                Ok(code) => return Ok(code),
                Err(e) => tracing::warn!(
                    file = %path.display(),
                    "compiled shared code unusable ({e:#}); compiling again"
                ),
            }
        }
        let compiled = compile()?;
        let written = compiled
            .serialize()
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                std::fs::create_dir_all(dir)?;
                crate::fs::write_atomically(&path, &bytes)
            });
        if let Err(e) = written {
            // Only costs a compile at the next start.
            tracing::warn!(file = %path.display(), "cannot store compiled shared code: {e}");
        }
        Ok(compiled)
    }
}

#[cfg(feature = "test-hooks")]
pub(crate) mod tests {
    use super::code_key;

    fn engine(opt_level: wasmtime::OptLevel) -> wasmtime::Engine {
        let mut config = wasmtime::Config::new();
        config.cranelift_opt_level(opt_level);
        wasmtime::Engine::new(&config).unwrap()
    }

    fn the_code_key_follows_the_engines_configuration() {
        let speed = code_key(&engine(wasmtime::OptLevel::Speed));
        assert_eq!(speed.len(), 16);
        assert!(speed.bytes().all(|b| b.is_ascii_hexdigit()), "{speed}");
        assert_eq!(speed, code_key(&engine(wasmtime::OptLevel::Speed)));
        assert_ne!(speed, code_key(&engine(wasmtime::OptLevel::None)));
    }

    crate::unit_tests!(the_code_key_follows_the_engines_configuration);
}
