#!/usr/bin/env bash
# The test command (README "Quick start"; CI runs this too): installs what is
# missing, then runs every test in release mode (Wasmtime compiles plugins
# much faster in a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# `test-hooks` lets tests make a V8 worker process misbehave (hostile.rs).
cargo test --release --workspace --features ssr/test-hooks "$@"
