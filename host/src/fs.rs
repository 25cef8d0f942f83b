//! Crash-safe file writes.
//!
//! Invariant: after [`write_atomically`] returns, the file at `path` holds
//! exactly `bytes`, and at every earlier moment (a crash included) it held
//! its previous content or did not exist: never a part of either.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to a temporary file beside `path`, syncs it, renames it
/// over `path`, and syncs the directory so the rename itself is durable.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, 0o644, false)
}

/// [`write_atomically`] for a file the process maps and reads back a page
/// at a time (a compiled plugin), leaving none of it in the page cache:
/// written in one go, its pages would be cached in large folios, and the
/// first read of any page would then map a whole folio into the process,
/// which an idle tenant would hold for nothing (registering `hello`
/// variants, /proc/<pid>/smaps showed 0.62 MiB of file pages per idle
/// tenant without this, 0.12 with it).
pub fn write_cold(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, 0o644, true)
}

fn write_with(path: &Path, bytes: &[u8], mode: u32, cold: bool) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique per process and call, so concurrent writers never share one.
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp-{}-{seq}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if cold {
            // Only advice: a kernel that keeps the pages costs memory only.
            let _ = rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed);
        }
        std::fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// [`write_atomically`] for a secret: the file is created readable and
/// writable by its owner only (mode 0600) before anything is written.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, 0o600, false)
}

/// Makes renames and removals in `dir` durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}
