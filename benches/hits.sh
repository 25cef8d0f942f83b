#!/usr/bin/env bash
# Serving from cache against bare axum, at three page sizes: one command
# rewrites the "Cache hits by page size" section of benches/RESULTS-http.md.
#
# For each size (1, 28 and 100 KiB of HTML, from tests/plugins/visitor.js),
# ROUNDS rounds, each `wrk -t$THREADS -c$CONNS -d${SECS}s` after a 1 s warm-up
# against, in turn: bare axum answering every request with the page's bytes
# (host/examples/bare_axum.rs), ssr answering it from cache routed by Host,
# and ssr routed by path (/t/<id>/...). The table gives each side's median
# req/s and the ratio of medians; every round's figures follow it. On a
# 2-core machine wrk shares the cores with the server, and single runs move
# by ±10%: alternating and taking medians keeps drift from favouring a side.
# On a larger machine, keep the load generator off the servers' cores:
# SERVER_CPUS=0-3 WRK_CPUS=4-15 THREADS=8 pins both servers and wrk with
# taskset (each tokio runtime then starts one thread per core it may use).
# PREBUILT=1 skips the build: target/release/ssr and bare_axum exist.
# Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-"1 28 100"}
PORT=18191
OUT=benches/RESULTS-http.md
. benches/bare.sh

rows=() runs=()
for kib in $SIZES; do
  # The page's own markup is about 30 bytes; `kib` adds text up to the size.
  path="/page?kib=$(awk -v k="$kib" 'BEGIN {printf "%.2f", k - 0.03}')"
  curl -fs -H "Host: page.test" "http://127.0.0.1:$PORT$path" -o "$work/page.html"
  curl -fs "http://127.0.0.1:$PORT/t/page$path" >/dev/null
  bytes=$(stat -c %s "$work/page.html")
  "${server_pin[@]}" target/release/examples/bare_axum "$work/page.html" 127.0.0.1:$((PORT + 1)) 2>/dev/null &
  bare=$!
  sleep 0.5
  curl -fs "http://127.0.0.1:$((PORT + 1))/" | cmp -s - "$work/page.html" ||
    { echo "bare axum on port $((PORT + 1)) does not serve this page: is the port taken?" >&2; exit 1; }
  b=() h=() p=()
  for r in $(seq 1 "$ROUNDS"); do
    b+=("$(rps "http://127.0.0.1:$((PORT + 1))/")")
    h+=("$(rps "http://127.0.0.1:$PORT$path" page.test)")
    p+=("$(rps "http://127.0.0.1:$PORT/t/page$path")")
    echo "$kib KiB round $r: bare ${b[-1]}, host ${h[-1]}, path ${p[-1]} req/s" >&2
  done
  kill "$bare"; wait "$bare" 2>/dev/null || true
  mb=$(printf '%s\n' "${b[@]}" | median)
  mh=$(printf '%s\n' "${h[@]}" | median)
  mp=$(printf '%s\n' "${p[@]}" | median)
  rows+=("| $kib KiB ($bytes B) | $mb | $mh | $(ratio "$mh" "$mb") | $mp | $(ratio "$mp" "$mb") |")
  runs+=("- $kib KiB: bare ${b[*]}; by host ${h[*]}; by path ${p[*]}")
done

section=$(
  echo "## Cache hits by page size, $(nproc) cores"
  echo
  echo "Measures serving from cache (no rendering), against bare axum serving the same bytes."
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo "${COMMIT:-unknown}")."
  if [ -n "$SERVER_CPUS$WRK_CPUS" ]; then
    where="servers on cores $SERVER_CPUS and wrk on cores $WRK_CPUS (taskset)"
  else
    where="on the same cores as wrk"
  fi
  echo "Command: \`${SERVER_CPUS:+SERVER_CPUS=$SERVER_CPUS }${WRK_CPUS:+WRK_CPUS=$WRK_CPUS }THREADS=$THREADS CONNS=$CONNS ROUNDS=$ROUNDS SECS=$SECS benches/hits.sh\` (\`wrk -t$THREADS -c$CONNS -d${SECS}s\` after a 1 s warm-up, the three servers in turn each round, $where); medians of req/s."
  echo
  echo "| page | bare axum | ssr hit, by Host | ratio | ssr hit, by /t/ path | ratio |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Every round (req/s):"
  echo
  printf '%s\n' "${runs[@]}"
)
# One section per machine size: a run on 16 cores keeps the 2-core figures.
python3 benches/section.py "$OUT" "hits-$(nproc)" "$section"
echo "wrote the cache-hit section of $OUT" >&2
