#!/usr/bin/env bash
# The test command (README "Quick start"; CI runs this too): installs what is
# missing, then runs every test in release mode (Wasmtime compiles plugins
# much faster in a release build).
#
# What only the tests need (Debian's chromium, redis-server, nginx; the npm
# packages) is installed while the build has the CPUs: on a fresh 2-core
# machine the build is most of the run, and the installs mostly wait on the
# network.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
npm_log=$(mktemp)
scripts/setup.sh tests >"$npm_log" 2>&1 &
npm_pid=$!
# `test-hooks` lets tests make a V8 worker process misbehave (hostile.rs).
features=(--release --workspace --features ssr/test-hooks)
built=0
# `--lib` builds the V8 worker too (`libssr_v8.so`, a cdylib that `cargo
# test` would not build: no test depends on it as a crate).
cargo build "${features[@]}" --lib --bins --tests || built=$?
npm=0
wait "$npm_pid" || npm=$?
cat "$npm_log" >&2
rm -f "$npm_log"
[ "$built" -eq 0 ] || exit "$built"
[ "$npm" -eq 0 ] || { echo "test: installing what the tests need failed (scripts/setup.sh tests)" >&2; exit "$npm"; }
# The tests' scratch directories (`support::tempdir`: ssr-TAG-PID-N) stay
# after a run, for a failure to be looked at; those of runs that have
# ended go now, so that a machine that keeps its /tmp between runs (as
# CI's may) does not fill up: a full run leaves several GB.
for dir in "${TMPDIR:-/tmp}"/ssr-*-*-*; do
  [ -d "$dir" ] || continue
  pid=${dir%-*}
  pid=${pid##*-}
  case $pid in '' | *[!0-9]*) continue ;; esac
  kill -0 "$pid" 2>/dev/null || rm -rf "$dir"
done
cargo test "${features[@]}" "$@"

# Conformance (tests/wpt/): the Web Platform Tests are fetched by no
# registry this machine reaches, so the check runs where a checkout is.
wpt=${SSR_WPT_DIR:-../wpt}
if [ -f "$wpt/resources/testharness.js" ]; then
  RUNTIMES=ssr-wasm,ssr-v8 WRITE_RESULTS=0 benches/wpt.sh "$wpt"
else
  echo "test: the WPT check (tests/wpt/) was skipped: no Web Platform Tests checkout at $wpt; set SSR_WPT_DIR (docs/development.md)" >&2
fi
