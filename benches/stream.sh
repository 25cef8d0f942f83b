#!/usr/bin/env bash
# Time to first byte and total time of a streamed React page against the same
# page sent whole: one command rewrites the streaming section of
# benches/RESULTS-stream.md.
#
# plugins/stream/app.jsx renders a shell and a Suspense boundary whose data
# come from a loopback API (a Node server here) that answers after DELAY_MS
# (1000). Streamed, the shell leaves at once and the boundary follows when
# the API answers; with ?whole the handler waits for everything first (as a
# page rendered into one string must). Each engine, each mode, ROUNDS
# requests in turn (streamed, whole, alternating), each with its own query
# so none is a cache hit; curl's time_starttransfer and time_total.
# PREBUILT=1 skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
DELAY_MS=${DELAY_MS:-1000}
PORT=18391
API=$((PORT + 1))
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-stream.md
if [ -z "${PREBUILT:-}" ]; then
  scripts/setup.sh
  cargo build --release
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

node -e "require('http').createServer((q, s) => setTimeout(() => s.end('[1,2,3,4,5]'), $DELAY_MS)).listen($API, '127.0.0.1')" &
target/release/ssr serve --demo=false --path-routing --listen 127.0.0.1:$PORT --admin-token $TOKEN \
  --request-timeout 10000 2>"$work/serve.log" &
for _ in $(seq 1 120); do
  curl -fs "http://127.0.0.1:$PORT/_ssr/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done
target/release/ssr build -q plugins/stream/app.jsx -o "$work/stream.wasm"
for engine in wasm v8; do
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/stream.wasm" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/s-$engine?engine=$engine&var=API=http://127.0.0.1:$API&allow_fetch=http://127.0.0.1:$API&render_deadline_ms=5000" >/dev/null
  # Warm: an instance and a connection to the API.
  curl -fs "http://127.0.0.1:$PORT/t/s-$engine/?warm" >/dev/null
done

times() { # url -> "ttfb_ms total_ms"
  curl -fs -o /dev/null -w '%{time_starttransfer} %{time_total}\n' "$1" |
    awk '{printf "%.1f %.1f\n", $1 * 1000, $2 * 1000}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

rows=() runs=()
for engine in wasm v8; do
  st=() sw=() wt=() ww=()
  for r in $(seq 1 "$ROUNDS"); do
    read -r t w < <(times "http://127.0.0.1:$PORT/t/s-$engine/?r=$r-$RANDOM")
    st+=("$t") sw+=("$w")
    read -r t w < <(times "http://127.0.0.1:$PORT/t/s-$engine/?whole&r=$r-$RANDOM")
    wt+=("$t") ww+=("$w")
  done
  m() { printf '%s\n' "$@" | median; }
  rows+=("| $engine | streamed | $(m "${st[@]}") | $(m "${sw[@]}") |")
  rows+=("| $engine | whole (\`?whole\`) | $(m "${wt[@]}") | $(m "${ww[@]}") |")
  runs+=("- $engine streamed, ttfb: ${st[*]}; total: ${sw[*]}")
  runs+=("- $engine whole, ttfb: ${wt[*]}; total: ${ww[*]}")
done
# The shell alone: the same page with data that are there at once.
shell=()
for engine in wasm v8; do
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/stream.wasm" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/n-$engine?engine=$engine" >/dev/null
  curl -fs "http://127.0.0.1:$PORT/t/n-$engine/?warm" >/dev/null
  s=()
  for r in $(seq 1 "$ROUNDS"); do
    read -r t _ < <(times "http://127.0.0.1:$PORT/t/n-$engine/?whole&r=$r-$RANDOM")
    s+=("$t")
  done
  shell+=("$engine $(printf '%s\n' "${s[@]}" | median) ms")
done

section=$(
  echo "## Streaming a React page, $(nproc) cores"
  echo
  echo "Measures rendering and serving (no cache: every request has its own query): a React 19 page (plugins/stream/app.jsx) whose Suspense boundary waits on a loopback API answering after $DELAY_MS ms, streamed with renderToReadableStream, against the same page sent whole (\`?whole\`: the handler awaits \`allReady\` first, as a page rendered into one string must)."
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo "Command: \`ROUNDS=$ROUNDS DELAY_MS=$DELAY_MS benches/stream.sh\` (curl's time_starttransfer and time_total, one request at a time, streamed and whole alternating); medians in ms."
  echo
  echo "| engine | page | time to first byte | total |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "The same page rendered whole with data that are there at once (the shell's and the boundary's render, no wait): ${shell[*]}."
  echo
  echo "Every request (ms):"
  echo
  printf '%s\n' "${runs[@]}"
)
[ -f "$OUT" ] || printf '# Streaming results\n\nFigures from `benches/stream.sh`; each section says its command, machine, date and commit.\n' > "$OUT"
python3 benches/section.py "$OUT" "stream-$(nproc)" "$section"
echo "wrote the streaming section of $OUT" >&2
