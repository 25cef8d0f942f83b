#!/usr/bin/env bash
# The test command (README "Quick start"; CI runs this too): installs what is
# missing, then runs every test in release mode (Wasmtime compiles plugins
# much faster in a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --release --workspace "$@"
