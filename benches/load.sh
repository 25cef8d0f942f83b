#!/usr/bin/env bash
# HTTP load benchmark against the real server: one command regenerates the
# table in benches/RESULTS-http.md and benches/RESULTS-server.md (between
# the `load:start`/`load:end` markers of each).
#
# Scenarios, all in one run, each `wrk -t1 -c$CONNS -d$SECS --latency` after a
# 2 s warm-up:
# - bare axum returning the same bytes as the cached hello page (the ceiling);
# - cache hits (hello, react): what serving from cache costs;
# - cache misses (a new query string per request, so every request renders):
#   hello and react in reuse mode, react in fresh mode, react with unpinned
#   workers, and both rendered on the async runtime's threads instead of the
#   pool (`--render-on runtime`).
# Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-32}
PORT=18181
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-http.md
command -v wrk >/dev/null || { echo "load.sh needs wrk: apt-get install wrk" >&2; exit 1; }
scripts/setup.sh
cargo build --release && cargo build --release -p ssr --example bare_axum
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT


start_ssr() { # args: extra serve flags
  target/release/ssr serve --listen 127.0.0.1:$PORT --admin-token $TOKEN --cache-mib 1024 --cache-tenant-mib 1024 "$@" 2>"$work/serve.log" &
  server=$!
  for _ in $(seq 1 240); do
    curl -fs "http://127.0.0.1:$PORT/_ssr/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "the server did not become ready:" >&2; cat "$work/serve.log" >&2; exit 1
}
stop_ssr() { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }

rows=()
run_wrk() { # url, [lua script] -> prints "rps p50 p99 non2xx"
  local url=$1 script=${2:-}
  local args=(-t1 -c"$CONNS" --latency)
  [ -n "$script" ] && args+=(-s "$script")
  wrk "${args[@]}" -d2s "$url" >/dev/null
  local out; out=$(wrk "${args[@]}" -d"${SECS}s" "$url")
  awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} /Non-2xx or 3xx responses/ {e=$5}
       END {printf "%d %s %s %d\n", r, p50, p99, e}' <<<"$out"
}
row() { # name, "rps p50 p99 non2xx"
  read -r rps p50 p99 errs <<<"$2"
  rows+=("| $1 | $rps | $p50 | $p99 | $errs |")
  echo "$1: $rps req/s, p50 $p50, p99 $p99, non-2xx $errs" >&2
}
measure() { row "$1" "$(run_wrk "$2" "${3:-}")"; }
median() { sort -n | sed -n 2p; } # of three "rps ..." lines

start_ssr
curl -fs "http://127.0.0.1:$PORT/t/hello/" -o "$work/hello.html"
target/release/examples/bare_axum "$work/hello.html" 127.0.0.1:$((PORT + 1)) 2>/dev/null &
bare=$!
sleep 1
# The ceiling and the cache hit, interleaved three times (the median of each
# is reported): on a small machine the load generator shares the cores, and
# interleaving keeps drifts from favouring either side.
bare_runs=() hit_runs=()
for _ in 1 2 3; do
  bare_runs+=("$(run_wrk "http://127.0.0.1:$((PORT + 1))/")")
  hit_runs+=("$(run_wrk "http://127.0.0.1:$PORT/t/hello/")")
done
kill "$bare" 2>/dev/null || true
row "bare axum, same bytes as hello (median of 3)" "$(printf '%s\n' "${bare_runs[@]}" | median)"
row "cache hit, hello (median of 3, interleaved with bare axum)" "$(printf '%s\n' "${hit_runs[@]}" | median)"
target/release/ssr build -q plugins/react/app.jsx -o "$work/react.wasm"
curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/react.wasm" \
  "http://127.0.0.1:$PORT/_ssr/admin/tenants/react-fresh?mode=fresh" >/dev/null
measure "cache hit, react" "http://127.0.0.1:$PORT/t/react/"
measure "cache miss, hello (reuse)" "http://127.0.0.1:$PORT/t/hello/" benches/miss.lua
measure "cache miss, react (reuse)" "http://127.0.0.1:$PORT/t/react/" benches/miss.lua
measure "cache miss, react (fresh)" "http://127.0.0.1:$PORT/t/react-fresh/" benches/miss.lua
stop_ssr
start_ssr --pin false
measure "cache miss, react (reuse, unpinned)" "http://127.0.0.1:$PORT/t/react/" benches/miss.lua
stop_ssr
start_ssr --render-on runtime
measure "cache miss, hello (on the async runtime's threads)" "http://127.0.0.1:$PORT/t/hello/" benches/miss.lua
measure "cache miss, react (on the async runtime's threads)" "http://127.0.0.1:$PORT/t/react/" benches/miss.lua
stop_ssr


table=$(
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(date -u +%Y-%m-%d)."
  echo "Tool: \`wrk -t1 -c$CONNS -d${SECS}s --latency\` after a 2 s warm-up per measurement, on the same machine as the server (\`benches/load.sh\`); server: default flags (workers = cores)."
  echo
  echo "| scenario | req/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
python3 - "$OUT" "$table" <<'PY'
import sys, re
# The same table between the `load:start`/`load:end` markers of both files
# (benches/hits.sh owns another section of RESULTS-http.md).
table = sys.argv[2] + '\n'
for path in (sys.argv[1], 'benches/RESULTS-server.md'):
    text = open(path).read()
    new = re.sub(r'(<!-- load:start -->\n).*?(<!-- load:end -->)', lambda m: m.group(1) + table + m.group(2), text, flags=re.S)
    open(path, 'w').write(new)
PY
echo "wrote $OUT and benches/RESULTS-server.md" >&2
