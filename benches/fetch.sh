#!/usr/bin/env bash
# Serving pages that fetch their data (issue 17). The shop's product page
# (plugins/shop/shop.js) with every request rendered (a new query string each,
# benches/miss.lua), each render fetching one JSON document from the shop's
# API (plugins/shop/api.mjs: node, loopback, with a secret bearer token). The
# same handler on three servers, alternated for ROUNDS rounds:
# - ssr, the tenant on Wasm;
# - ssr, the tenant on V8;
# - Node 20 serving the handler with its own Request, Response and fetch
#   (benches/node-handler.mjs, one process).
# Once with the API answering at once and once after DELAY ms, so that most
# of a request's time is a wait. For ssr, `ssr_fetch_in_flight` is sampled
# from /_ssr/metrics in the middle of each run.
# Writes benches/RESULTS-fetch.md (between the `fetch:start`/`fetch:end`
# markers). Needs: wrk (apt-get install wrk), node.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-32}
ROUNDS=${ROUNDS:-3}
DELAYS=${DELAYS:-"0 20"}
PORT=18281
API=18282
NODE=18283
TOKEN=bench-token-0123456789
export SHOP_API_TOKEN=bench-api-token-0123
OUT=benches/RESULTS-fetch.md
command -v wrk >/dev/null || { echo "fetch.sh needs wrk: apt-get install wrk" >&2; exit 1; }
scripts/setup.sh
. benches/common.sh
cargo build --release
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
target/release/ssr build -q plugins/shop/shop.js -o "$work/front.wasm"

admin() { # method path [curl args...]
  local method=$1 path=$2; shift 2
  curl -fs -X "$method" -H "Authorization: Bearer $TOKEN" "$@" "http://127.0.0.1:$PORT/_ssr/admin/$path" >/dev/null
}
run_wrk() { # url -> prints "rps p50 p99 non2xx"
  local args=(-t1 -c"$CONNS" --latency -s benches/miss.lua)
  wrk "${args[@]}" -d2s "$1" >/dev/null
  local out; out=$(wrk "${args[@]}" -d"${SECS}s" "$1")
  awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} /Non-2xx or 3xx responses/ {e=$5}
       END {printf "%d %s %s %d\n", r, p50, p99, e}' <<<"$out"
}
in_flight() { # sampled halfway through a run
  sleep "$(( (SECS + 2) / 2 + 2 ))"
  curl -fs -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/_ssr/metrics" |
    awk '$1=="ssr_fetch_in_flight" {print $2}'
}

rows=()
for delay in $DELAYS; do
  SHOP_API_DELAY_MS=$delay node plugins/shop/api.mjs $API >/dev/null &
  api=$!
  target/release/ssr serve --listen 127.0.0.1:$PORT --admin-token $TOKEN --demo=false --path-routing \
    2>"$work/serve.log" &
  ssr=$!
  wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
  wait_for "http://127.0.0.1:$API/"
  for engine in wasm v8; do
    # A tenant that waits on its API needs more renders in flight than a
    # CPU-bound one: about req/s x the API's latency.
    admin PUT "tenants/front-$engine?engine=$engine&allow_fetch=http://127.0.0.1:$API&var=API=http://127.0.0.1:$API&max_concurrency=64" \
      --data-binary @"$work/front.wasm"
    admin PUT "tenants/front-$engine/secrets/API_TOKEN" --data-binary "$SHOP_API_TOKEN"
  done
  PORT=$NODE ENV_JSON="{\"API\":\"http://127.0.0.1:$API\",\"API_TOKEN\":\"$SHOP_API_TOKEN\"}" \
    node benches/node-handler.mjs plugins/shop/shop.js &
  node=$!
  wait_for "http://127.0.0.1:$NODE/"
  declare -A url=(
    [wasm]="http://127.0.0.1:$PORT/t/front-wasm/product/1"
    [v8]="http://127.0.0.1:$PORT/t/front-v8/product/1"
    [node]="http://127.0.0.1:$NODE/product/1"
  )
  for side in wasm v8 node; do
    page=$(curl -fs "${url[$side]}")
    grep -q '<h1>Desk lamp</h1>' <<<"$page" || { echo "$side does not serve the page: $page" >&2; exit 1; }
  done
  for round in $(seq 1 "$ROUNDS"); do
    for side in wasm v8 node; do
      flying=-
      if [ "$side" != node ]; then
        in_flight >"$work/flying" &
        sampler=$!
      fi
      read -r rps p50 p99 errs <<<"$(run_wrk "${url[$side]}")"
      if [ "$side" != node ]; then
        wait "$sampler"
        flying=$(cat "$work/flying")
      fi
      echo "API +${delay} ms, round $round, $side: $rps req/s, p50 $p50, p99 $p99, non-2xx $errs, in flight $flying" >&2
      rows+=("| +${delay} ms | $round | $side | $rps | $p50 | $p99 | $errs | $flying |")
    done
  done
  kill "$node" "$ssr" "$api" 2>/dev/null || true
  wait "$node" "$ssr" "$api" 2>/dev/null || true
done

{
  echo "<!-- fetch:start -->"
  echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores; \`wrk -t1 -c$CONNS -d${SECS}s --latency -s benches/miss.lua\` after a 2 s warm-up, sides alternated each round."
  echo
  echo "| API answers | round | server | req/s | p50 | p99 | non-2xx | ssr fetches in flight (mid-run) |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo "<!-- fetch:end -->"
} >"$work/table"
if [ -f "$OUT" ] && grep -q 'fetch:start' "$OUT"; then
  python3 - "$OUT" "$work/table" <<'PY'
import sys, re
path, table = sys.argv[1], open(sys.argv[2]).read().strip()
text = open(path).read()
text = re.sub(r"<!-- fetch:start -->.*<!-- fetch:end -->", lambda _: table, text, flags=re.S)
open(path, "w").write(text)
PY
else
  cat "$work/table" >"$OUT"
fi
echo "wrote $OUT" >&2
