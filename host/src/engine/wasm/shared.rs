//! The compiled core modules tenants share (`split.rs`): each distinct
//! module compiled once per process, and, with a directory, once per host.
//!
//! Invariants:
//! - A module is found by the SHA-256 of its bytes, so a tenant gets a
//!   shared compiled module only for the very bytes its own plugin carries.
//!   Compiled code is immutable; each instance has its own globals, tables
//!   and memory, so sharing it shares no state between tenants.
//! - A module stays compiled while a loaded plugin uses it, and no longer
//!   (the map holds it weakly): a tenant's own modules go with it.
//! - Two loads needing the same new module compile it once; the second
//!   waits for the first.
//! - On disk, `<dir>/<sha256>.cwasm` is written atomically and only by this
//!   process's engine, so it is trusted as precompiled code; a file that
//!   Wasmtime refuses (another version or configuration) is compiled again
//!   and replaced.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use wasmtime::Module;

use super::split::SharedModule;
use crate::engine::EngineError;

/// One shared module, compiled.
pub struct Shared {
    module: Mutex<Option<Module>>,
}

impl Shared {
    pub fn module(&self) -> Module {
        self.module
            .lock()
            .expect("compiled before it is handed out")
            .clone()
            .expect("compiled before it is handed out")
    }
}

/// Every shared module in use, by SHA-256.
pub struct SharedCode {
    engine: wasmtime::Engine,
    dir: Option<PathBuf>,
    modules: Mutex<HashMap<String, Weak<Shared>>>,
}

impl SharedCode {
    pub fn new(engine: wasmtime::Engine, dir: Option<PathBuf>) -> SharedCode {
        SharedCode {
            engine,
            dir,
            modules: Mutex::new(HashMap::new()),
        }
    }

    /// The compiled `module`: the one in use, the one on disk, or compiled
    /// now.
    pub fn get(&self, module: &SharedModule) -> Result<Arc<Shared>, EngineError> {
        self.slot(&module.digest, || {
            Module::new(&self.engine, &module.bytes).map_err(|e| EngineError::Compile(e.into()))
        })
    }

    /// The compiled module of SHA-256 `digest`, in use or on disk; an
    /// error names it if it is in neither.
    pub fn find(&self, digest: &str) -> Result<Arc<Shared>, EngineError> {
        self.slot(digest, || {
            Err(EngineError::Compile(
                format!("the shared module {digest} is not compiled on this host").into(),
            ))
        })
    }

    fn slot(
        &self,
        digest: &str,
        compile: impl FnOnce() -> Result<Module, EngineError>,
    ) -> Result<Arc<Shared>, EngineError> {
        let slot = {
            let mut modules = self.modules.lock().expect("never poisoned");
            match modules.get(digest).and_then(Weak::upgrade) {
                Some(slot) => slot,
                None => {
                    modules.retain(|_, m| m.strong_count() > 0);
                    let slot = Arc::new(Shared {
                        module: Mutex::new(None),
                    });
                    modules.insert(digest.to_string(), Arc::downgrade(&slot));
                    slot
                }
            }
        };
        let mut compiled = slot.module.lock().expect("never poisoned");
        if compiled.is_none() {
            *compiled = Some(self.load_or(digest, compile)?);
        }
        drop(compiled);
        Ok(slot)
    }

    /// The module from `<dir>/<digest>.cwasm`, or else `compile`d and
    /// stored there.
    fn load_or(
        &self,
        digest: &str,
        compile: impl FnOnce() -> Result<Module, EngineError>,
    ) -> Result<Module, EngineError> {
        let Some(dir) = &self.dir else {
            return compile();
        };
        let path = dir.join(format!("{digest}.cwasm"));
        if path.exists() {
            match load(&self.engine, &path) {
                Ok(m) => return Ok(m),
                Err(e) => tracing::warn!(
                    file = %path.display(),
                    "compiled shared module unusable ({e:#}); compiling again"
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
            tracing::warn!(file = %path.display(), "cannot store a compiled shared module: {e}");
        }
        Ok(compiled)
    }
}

#[allow(unsafe_code)]
fn load(engine: &wasmtime::Engine, path: &Path) -> wasmtime::Result<Module> {
    // SAFETY: `path` is a `.cwasm` that `SharedCode::compile` wrote with
    // `Module::serialize` into the server's own directory; it is not input
    // from a tenant or a client. Wasmtime checks its version and settings.
    unsafe { Module::deserialize_file(engine, path) }
}
