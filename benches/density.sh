#!/usr/bin/env bash
# What one more tenant costs: registers distinct plugins one after another,
# and after each step of STEPS tenants records the registration times
# (median, p99), the server's RSS with every tenant idle (no request has
# been served yet) and the data directory's size. Then, with all of them
# registered: the first request of SAMPLE randomly chosen tenants (cold:
# never requested), the RSS each of those then adds with one warm instance,
# the p99 of a steady load spread over every tenant (wrk, a render per
# request), and the RSS after it. One command rewrites
# benches/RESULTS-density.md and benches/density.png (tenants vs idle RSS,
# Wasm and V8).
#
# Distinct plugins: plugins/hello built once, each copy with a custom
# section of its own (so each has its own SHA-256 and is compiled as a new
# plugin), the way distinct sites built by one `ssr` differ in data only.
# STEPS="100 1000 10000" is the issue's run; the default is shorter.
# Needs: wrk and gnuplot (installed here when missing), python3. Disk: about
# 3.2 MB per Wasm tenant and 2.2 MB per V8 tenant, one engine at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=${STEPS:-"50 100"}
ENGINES=${ENGINES:-"wasm v8"}
SAMPLE=${SAMPLE:-50}
LOAD_SECS=${LOAD_SECS:-10}
PORT=18491
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-density.md
CHART=benches/density.png
. benches/needs.sh
. benches/common.sh
needs wrk=wrk gnuplot=gnuplot-nox
if [ -z "${PREBUILT:-}" ]; then
  scripts/setup.sh
  cargo build --release --bin ssr
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
target/release/ssr build -q plugins/hello/render.js -o "$work/hello.wasm"

rows=() points=() served=()
for engine in $ENGINES; do
  data="$work/data-$engine"
  target/release/ssr serve --demo=false --path-routing --data-dir "$data" --listen 127.0.0.1:$PORT \
    --admin-token $TOKEN --warm-instances "$SAMPLE" 2>"$work/serve-$engine.log" &
  server=$!
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$PORT/_ssr/readyz" >/dev/null 2>&1 && break
    sleep 0.5
  done
  rss_mib() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$server/status"; }
  # The part of RSS that is the process's own memory, not mapped files.
  anon_mib() { awk '/RssAnon/ {printf "%.1f", $2 / 1024}' "/proc/$server/status"; }
  points+=("$engine 0 $(rss_mib)")
  rss0=$(rss_mib)
  n=0 prev=0 prev_rss=$rss0 prev_anon=$(anon_mib)
  for step in $STEPS; do
    : > "$work/reg"
    while [ "$n" -lt "$step" ]; do
      n=$((n + 1))
      variant "$n" "$work/hello.wasm" | curl -fs -o /dev/null -w '%{time_total}\n' -X PUT -H "Authorization: Bearer $TOKEN" \
        --data-binary @- \
        "http://127.0.0.1:$PORT/_ssr/admin/tenants/d-$n?engine=$engine" |
        awk '{printf "%.1f\n", $1 * 1000}' >> "$work/reg"
    done
    rss=$(rss_mib) anon=$(anon_mib)
    disk=$(du -sm "$data" | awk '{print $1}')
    # Beyond the plugin files themselves: compiled code, records.
    own=$(find "$data/plugins" -name '*.wasm' -printf '%s\n' | awk '{s += $1} END {print s}')
    beyond=$(du -sb "$data" | awk -v own="$own" -v n="$n" '{printf "%.2f", ($1 - own) / n / 1048576}')
    # The marginal cost: from the last step's idle RSS to this one's.
    per=$(awk -v a="$rss" -v b="$prev_rss" -v n=$((n - prev)) 'BEGIN {printf "%.2f", (a - b) / n}')
    per_anon=$(awk -v a="$anon" -v b="$prev_anon" -v n=$((n - prev)) 'BEGIN {printf "%.2f", (a - b) / n}')
    rows+=("| $engine | $n | $(pct 50 < "$work/reg") | $(pct 99 < "$work/reg") | $rss | $per | $per_anon | $disk | $beyond |")
    points+=("$engine $n $rss")
    echo "$engine $n tenants: RSS $rss MiB, disk $disk MiB ($beyond MiB/tenant beyond plugins), registration p50 $(pct 50 < "$work/reg") ms" >&2
    prev=$n prev_rss=$rss prev_anon=$anon
  done
  # Cold tenants (never requested): their first request, and what each
  # then holds with one warm instance (--warm-instances keeps them all).
  : > "$work/cold"
  before=$(rss_mib)
  for id in $(seq 1 "$n" | shuf -n "$SAMPLE"); do
    curl -fs -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$PORT/t/d-$id/" |
      awk '{printf "%.1f\n", $1 * 1000}' >> "$work/cold"
  done
  warm=$(awk -v a="$(rss_mib)" -v b="$before" -v n="$SAMPLE" 'BEGIN {printf "%.2f", (a - b) / n}')
  p99=$(TENANTS=$n wrk -t1 -c16 -d"${LOAD_SECS}s" --latency -s benches/density.lua "http://127.0.0.1:$PORT" |
    awk '$1 == "99%" {print $2}')
  served+=("| $engine | $n | $(pct 50 < "$work/cold") | $(pct 99 < "$work/cold") | $warm | $p99 | $(rss_mib) |")
  kill "$server"
  wait "$server" 2>/dev/null || true
  rm -rf "$data"
done

printf '%s\n' "${points[@]}" > "$work/points"
for engine in $ENGINES; do awk -v e="$engine" '$1 == e {print $2, $3}' "$work/points" > "$work/$engine.dat"; done
{
  echo "set terminal png size 720,420"
  echo "set output '$CHART'"
  echo "set title 'RSS of one ssr serve with N registered idle tenants (plugins/hello variants)'"
  echo "set xlabel 'tenants'"
  echo "set ylabel 'RSS (MiB)'"
  echo "set key left top"
  plot="plot "
  for engine in $ENGINES; do plot+="'$work/$engine.dat' with linespoints title '$engine', "; done
  echo "${plot%, }"
} > "$work/chart.gp"
gnuplot "$work/chart.gp"

section=$(
  echo "## What a tenant costs, $(nproc) cores"
  echo
  echo "Measures registration and memory of idle tenants, cold first requests, and rendering under a load spread over every tenant (a render per request, no cache hit)."
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo "Command: \`STEPS=\"$STEPS\" ENGINES=\"$ENGINES\" SAMPLE=$SAMPLE LOAD_SECS=$LOAD_SECS benches/density.sh\`; load: \`wrk -t1 -c16 -d${LOAD_SECS}s --latency -s benches/density.lua\`."
  echo
  echo "Every tenant idle (registered, never requested):"
  echo
  echo "| engine | tenants | registration p50 (ms) | p99 (ms) | RSS (MiB) | RSS per tenant since the last step (MiB) | of which anonymous (MiB) | data dir (MiB) | data dir per tenant beyond its plugin file (MiB) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Then, with all of them registered: $SAMPLE cold first requests (tenants chosen at random, never requested), the RSS each of those tenants then adds with its one warm instance (\`--warm-instances $SAMPLE\` keeps them all), a load over every tenant, and the RSS after it:"
  echo
  echo "| engine | tenants | cold first request p50 (ms) | p99 (ms) | RSS per tenant with one warm instance (MiB) | load p99 | RSS after the load (MiB) |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${served[@]}"
  echo
  echo "RSS with no tenant: the first point of each line in [density.png](density.png)."
)
[ -f "$OUT" ] || printf '# Density results\n\nFigures from `benches/density.sh`; each section says its command, machine, date and commit.\n\n![tenants vs RSS](density.png)\n' > "$OUT"
python3 benches/section.py "$OUT" "density-$(nproc)" "$section"
echo "wrote $OUT and $CHART" >&2
