#!/usr/bin/env bash
# What each of Node's built-in modules exports on workerd (issue 56): runs
# benches/node/exports.js on workerd (tests/peers) with nodejs_compat and
# today's compatibility date, for every name of Node's
# `module.builtinModules` but the internal `_` ones (and those Node has
# only as `node:NAME` that workerd has too), and writes
# host/src/build/node/workerd.json: each module's export names and kinds,
# the values that are plain data, the errors of what is not implemented,
# and the default export's keys. `ssr build` makes a module it has no
# implementation of from it, and tests/all/node_modules.rs checks every
# module's names against it.
#
# Usage: benches/node-exports.sh [DATE] (the compatibility date; default
# the one recorded in the file, else today)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=host/src/build/node/workerd.json
date=${1:-$(python3 -c "import json,sys; print(json.load(open('$out'))['compatibility_date'])" 2>/dev/null || date +%F)}
workerd=tests/peers/node_modules/.bin/workerd
port=18390
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cp benches/node/exports.js "$work/exports.js"
cat >"$work/config.capnp" <<CAPNP
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (
    modules = [(name = "exports.js", esModule = embed "exports.js")],
    compatibilityDate = "$date",
    compatibilityFlags = ["nodejs_compat"],
  ))],
  sockets = [(name = "http", address = "127.0.0.1:$port", http = (), service = "main")],
);
CAPNP
"$workerd" serve "$work/config.capnp" >"$work/log" 2>&1 &
names=$(node -p 'JSON.stringify(require("module").builtinModules.filter((n) => !n.startsWith("_")))')
for _ in $(seq 1 100); do curl -s "http://127.0.0.1:$port/" -o /dev/null 2>&1 && break; sleep 0.1; done
# Node 22-26's modules that exist only as `node:NAME`; those workerd has
# are kept, marked `prefix_only` (their bare names are left to npm).
# Node's internal `_` modules (`node:_stream_readable`...) are tried the
# same way.
prefix_only=$(node -p 'JSON.stringify(["sea", "sqlite", "test", "test/reporters", "quic", ...require("module").builtinModules.filter((n) => n.startsWith("_"))])')
curl -fsS -G --data-urlencode "names=$names" --data-urlencode "prefix_only=$prefix_only" "http://127.0.0.1:$port/" >"$work/exports.json" \
  || { cat "$work/log" >&2; exit 1; }
python3 - "$work/exports.json" "$out" "$date" "$("$workerd" --version)" "$(node --version)" <<'PY'
import json, sys
modules = json.load(open(sys.argv[1]))
doc = {
    "about": "What each Node built-in module exports on workerd, written by benches/node-exports.sh; do not edit by hand.",
    "workerd": sys.argv[4],
    "compatibility_date": sys.argv[3],
    "names_from": f"module.builtinModules of Node {sys.argv[5]}, without the internal `_` ones",
    "modules": modules,
}
with open(sys.argv[2], "w") as f:
    json.dump(doc, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(modules)} modules, {sum(len(m['exports']) for m in modules.values())} export names -> {sys.argv[2]}")
PY
