#!/usr/bin/env bash
# Cache hits beside renders (issue 35): on one `ssr serve`, wrk sends
# CONNS connections of cache hits for one tenant and, at the same time,
# CONNS of rendered requests (a new query string each, benches/miss.lua) for
# another, both the trivial page on Wasm; prints hits/s, the hits' p50 and
# p99, and renders/s. SERVE_FLAGS go to `ssr serve`: run it with and
# without `--render-on pool`, alternating, to see what renders begun on the
# HTTP threads cost cache hits. Prints one line; writes no file.
# Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-8}
PORT=18392
TOKEN=bench-token-0123456789
command -v wrk >/dev/null || { echo "mixed.sh needs wrk: apt-get install wrk" >&2; exit 1; }
scripts/setup.sh
. benches/common.sh
cargo build --release
ssr=$PWD/target/release/ssr
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
trivial_page "$work/trivial.js"
"$ssr" build -q "$work/trivial.js" -o "$work/trivial.wasm"
# shellcheck disable=SC2086 # SERVE_FLAGS are words.
SSR_ADMIN_TOKEN=$TOKEN "$ssr" serve --listen "127.0.0.1:$PORT" --demo=false ${SERVE_FLAGS:-} 2>"$work/ssr.log" &
wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
for id in hits renders; do
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/trivial.wasm" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/$id?host=$id.test" >/dev/null
done
curl -fs -H "Host: hits.test" "http://127.0.0.1:$PORT/" >/dev/null
wrk -t1 -c"$CONNS" -d2s -s benches/miss.lua -H "Host: renders.test" "http://127.0.0.1:$PORT/" >/dev/null
wrk -t1 -c"$CONNS" -d"${SECS}s" -s benches/miss.lua -H "Host: renders.test" "http://127.0.0.1:$PORT/" >"$work/renders.txt" &
renders=$!
wrk -t1 -c"$CONNS" -d"${SECS}s" --latency -H "Host: hits.test" "http://127.0.0.1:$PORT/" >"$work/hits.txt"
wait "$renders"
awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} END {printf "hits %d req/s, p50 %s, p99 %s; ", r, p50, p99}' "$work/hits.txt"
awk '/Requests\/sec/ {printf "renders %d req/s\n", $2}' "$work/renders.txt"
