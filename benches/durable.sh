#!/usr/bin/env bash
# Durable Objects beside workerd (issue 59): benches/durable/bench.js, a
# Worker that makes N calls in a row to one object in one request and
# answers the mean per call in microseconds: an RPC call that does nothing
# (`ping`), one that reads and writes its storage (`increment`), a stub's
# `fetch`; and N SQL inserts inside one call (`inserts`, the storage
# alone). On workerd (objects on its local disk, SQLite) and on ssr's Wasm
# and V8 tenants (a data dir), the sides alternated for ROUNDS rounds in
# one run; the median round is reported. Writes benches/RESULTS-durable.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
N=${N:-500}
PORT=18295
WD=18296
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-durable.md
scripts/setup.sh build
. benches/common.sh
cargo build --release -p ssr -p ssr-v8-worker
root=$PWD
ssr=$root/target/release/ssr
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

cp benches/durable/bench.js benches/durable/wrangler.jsonc "$work/"
(cd "$work" && PATH="$root/plugins/node_modules/.bin:$PATH" "$ssr" build -q -o bench.wasm)
mkdir -p "$work/wd-objects" "$work/data"
cat >"$work/config.capnp" <<CAPNP
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .app), (name = "objects", disk = (path = "$work/wd-objects", writable = true))],
  sockets = [(name = "http", address = "127.0.0.1:$WD", http = (), service = "main")],
);
const app :Workerd.Worker = (
  modules = [(name = "bench.js", esModule = embed "bench.js")],
  compatibilityDate = "2026-11-01",
  bindings = [(name = "COUNTER", durableObjectNamespace = "Counter")],
  durableObjectNamespaces = [(className = "Counter", uniqueKey = "bench-Counter", enableSql = true)],
  durableObjectStorage = (localDisk = "objects"),
);
CAPNP

SSR_ADMIN_TOKEN=$TOKEN "$ssr" serve --listen "127.0.0.1:$PORT" --demo=false --path-routing \
  --data-dir "$work/data" 2>"$work/ssr.log" &
wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
for engine in wasm v8; do
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/bench.wasm" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/do-$engine?engine=$engine" >/dev/null
done
(cd "$work" && exec "$root/tests/peers/node_modules/.bin/workerd" serve config.capnp) >/dev/null 2>"$work/workerd.log" &
wait_for "http://127.0.0.1:$WD/"

base() { # side
  case $1 in
    workerd) echo "http://127.0.0.1:$WD" ;;
    *) echo "http://127.0.0.1:$PORT/t/do-$1" ;;
  esac
}
cases="ping increment fetch inserts"
declare -A us
for side in workerd wasm v8; do # warm: each side's object made and its code compiled
  for c in $cases; do curl -fs "$(base $side)/$c?n=20" >/dev/null; done
done
for round in $(seq 1 "$ROUNDS"); do
  for side in workerd wasm v8; do
    for c in $cases; do
      us[$side-$c]+="$(curl -fs "$(base $side)/$c?n=$N") "
    done
  done
  echo "durable: round $round done" >&2
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
row() { # case
  local w a v
  w=$(median <<<"${us[workerd-$1]}"); a=$(median <<<"${us[wasm-$1]}"); v=$(median <<<"${us[v8-$1]}")
  awk -v c="$1" -v w="$w" -v a="$a" -v v="$v" \
    'BEGIN {printf "| %s | %.0f | %.0f (%.2fx) | %.0f (%.2fx) |\n", c, w, a, a / w, v, v / w}'
}
table=$(
  echo "| call | workerd us | ssr Wasm us (x workerd) | ssr V8 us (x workerd) |"
  echo "|---|---|---|---|"
  for c in $cases; do row "$c"; done
)
cat >"$OUT" <<EOF2
# Durable Objects: ssr beside workerd

$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)).
\`ROUNDS=$ROUNDS N=$N benches/durable.sh\`: one request makes $N calls in a row to one object and answers the mean per call (\`benches/durable/bench.js\`); \`inserts\` is $N SQL inserts inside one call, per insert. workerd $("$root/tests/peers/node_modules/.bin/workerd" --version | cut -d' ' -f2) with its objects on local disk (SQLite), ssr with a data dir and default settings; the sides alternated each round, median of $ROUNDS rounds. Lower is better; x workerd is ssr's time over workerd's, same run.

$table

What it measures: \`ping\`, a call's way from the caller's render to the object's instance and back (on ssr: the host call, the directory's channel, the object's render woken by its wait, its answer, the caller's wait); \`increment\`, that and a storage read and write (on ssr each write is committed and synced before the call returns; workerd coalesces writes and confirms them before output); \`fetch\`, a stub's \`fetch\` with a small response; \`inserts\`, SQLite inside the object.
EOF2
echo "$table"
