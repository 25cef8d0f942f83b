//! R2's bytes on one server: a file per blob in `<data-dir>/bindings/r2/`
//! (or in a directory of the system's temporary one, removed at exit,
//! without a data dir).
//!
//! Invariants:
//! - A blob is written to a temporary file in the same directory, synced,
//!   then renamed to its id and the directory synced: a blob a row names
//!   is whole on disk, whatever crashed when.
//! - Blob ids are random and never reused, so a blob never changes once
//!   named; a reader holding one reads it to its end even if it is
//!   deleted meanwhile (its file stays open).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::{BlobWriter, Blobs, Segment};

pub struct Files {
    dir: PathBuf,
    /// The temporary directory it is in, without a data dir.
    _temporary: Option<tempfile::TempDir>,
}

impl Files {
    /// Blobs in `dir`, or in a new temporary directory.
    pub fn open(dir: Option<&std::path::Path>) -> Result<Files, String> {
        let (dir, temporary) = match dir {
            Some(dir) => (dir.to_path_buf(), None),
            None => {
                let t = tempfile::Builder::new()
                    .prefix("ssr-r2-")
                    .tempdir()
                    .map_err(|e| format!("cannot make a directory for R2's objects: {e}"))?;
                (t.path().to_path_buf(), Some(t))
            }
        };
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Files {
            dir,
            _temporary: temporary,
        })
    }

    /// Deletes the blobs that `named` does not name and temporary files
    /// left by writes a crash cut off: how many.
    pub fn sweep_unnamed(&self, named: &std::collections::HashSet<String>) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let mut swept = 0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !named.contains(&name) && std::fs::remove_file(entry.path()).is_ok() {
                swept += 1;
            }
        }
        swept
    }
}

fn failed(what: &str, e: std::io::Error) -> String {
    format!("the embedded R2 store failed to {what}: {e}")
}

impl Blobs for Files {
    fn writer(&self) -> Result<Box<dyn BlobWriter>, String> {
        let file = tempfile::Builder::new()
            .prefix(".part-")
            .tempfile_in(&self.dir)
            .map_err(|e| failed("create a file", e))?;
        Ok(Box::new(FileWriter {
            file: Some(std::io::BufWriter::with_capacity(256 << 10, file)),
            dir: self.dir.clone(),
            size: 0,
        }))
    }

    fn open(&self, id: &str, offset: u64, length: u64) -> Result<Box<dyn Read + Send>, String> {
        let mut file = File::open(self.dir.join(id)).map_err(|e| failed("open a blob", e))?;
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| failed("read a blob", e))?;
        Ok(Box::new(file.take(length)))
    }

    fn delete(&self, ids: &[String]) {
        for id in ids {
            if let Err(e) = std::fs::remove_file(self.dir.join(id))
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!("R2: could not delete blob {id}: {e}");
            }
        }
    }
}

struct FileWriter {
    file: Option<std::io::BufWriter<tempfile::NamedTempFile>>,
    dir: PathBuf,
    size: u64,
}

impl BlobWriter for FileWriter {
    fn write(&mut self, data: &[u8]) -> Result<(), String> {
        let file = self.file.as_mut().ok_or("the blob is already written")?;
        file.write_all(data)
            .map_err(|e| failed("write a blob", e))?;
        self.size += data.len() as u64;
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<Vec<Segment>, String> {
        let file = self.file.take().ok_or("the blob is already written")?;
        let file = file
            .into_inner()
            .map_err(|e| failed("write a blob", e.into_error()))?;
        file.as_file()
            .sync_all()
            .map_err(|e| failed("sync a blob", e))?;
        let id = crate::artifact::random_hex(16);
        file.persist(self.dir.join(&id))
            .map_err(|e| failed("name a blob", e.error))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| failed("sync the blobs' directory", e))?;
        // An empty object has no blob to read, but one to name.
        Ok(vec![Segment {
            id,
            size: self.size,
        }])
    }
}
