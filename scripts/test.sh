#!/usr/bin/env bash
# The test command (README "Quick start"; CI runs this too): installs what is
# missing, then runs every test in release mode (Wasmtime compiles plugins
# much faster in a release build).
#
# The tests' npm packages are fetched while the build has the CPUs: on a
# fresh 2-core machine the build is most of the run, and the fetch is mostly
# waiting on the network.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
npm_log=$(mktemp)
scripts/setup.sh npm >"$npm_log" 2>&1 &
npm_pid=$!
# `test-hooks` lets tests make a V8 worker process misbehave (hostile.rs).
features=(--release --workspace --features ssr/test-hooks)
built=0
cargo test "${features[@]}" --no-run || built=$?
npm=0
wait "$npm_pid" || npm=$?
cat "$npm_log" >&2
rm -f "$npm_log"
[ "$built" -eq 0 ] || exit "$built"
[ "$npm" -eq 0 ] || { echo "test: installing the tests' npm packages failed" >&2; exit "$npm"; }
cargo test "${features[@]}" "$@"
