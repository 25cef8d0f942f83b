#!/usr/bin/env bash
# What one more tenant costs: registers distinct plugins one after another,
# and after each step of STEPS tenants records the registration times
# (median, p99), the server's RSS with every tenant idle (no request has
# been served yet) and the data directory's size. Then, with all of them
# registered: the first request of SAMPLE randomly chosen tenants (cold:
# never requested), the RSS each of those then adds with one warm instance,
# the p99 of a steady load spread over every tenant (wrk, a render per
# request), and the RSS after it. Then, on a second server, "active, then
# idle": after each step's registrations every new tenant serves one page,
# and the server waits past --warm-idle (IDLE seconds) and the plugins'
# trim, so that what a tenant keeps once it went idle shows. One command
# rewrites benches/RESULTS-density.md and benches/density.png (tenants vs
# RSS: registered and never served, and served once then idle; Wasm and
# V8).
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
IDLE=${IDLE:-4}
PORT=18491
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-density.md
CHART=benches/density.png
. benches/needs.sh
. benches/common.sh
needs wrk=wrk gnuplot=gnuplot-nox
if [ -z "${PREBUILT:-}" ]; then
  scripts/setup.sh
  cargo build --release
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
target/release/ssr build -q plugins/hello/render.js -o "$work/hello.wasm"

# Starts `ssr serve` on $PORT over data dir $1 with more flags; sets
# $server and waits until it is ready.
start_server() {
  local data=$1
  shift
  target/release/ssr serve --demo=false --path-routing --data-dir "$data" --listen 127.0.0.1:$PORT \
    --admin-token $TOKEN "$@" 2>>"$work/serve.log" &
  server=$!
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$PORT/_ssr/readyz" >/dev/null 2>&1 && break
    sleep 0.5
  done
}
stop_server() {
  kill "$server"
  wait "$server" 2>/dev/null || true
}
rss_mib() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$server/status"; }
# The part of RSS that is the process's own memory, not mapped files.
anon_mib() { awk '/RssAnon/ {printf "%.1f", $2 / 1024}' "/proc/$server/status"; }
# Registers tenants d-$1 .. d-$2 of engine $3; each registration's time
# (ms) goes to stdout.
register() {
  local n
  for n in $(seq "$1" "$2"); do
    variant "$n" "$work/hello.wasm" | curl -fs -o /dev/null -w '%{time_total}\n' -X PUT -H "Authorization: Bearer $TOKEN" \
      --data-binary @- \
      "http://127.0.0.1:$PORT/_ssr/admin/tenants/d-$n?engine=$3" |
      awk '{printf "%.1f\n", $1 * 1000}'
  done
}

rows=() points=() served=() idle_rows=() idle_points=()
for engine in $ENGINES; do
  data="$work/data-$engine"
  start_server "$data" --warm-instances "$SAMPLE"
  points+=("$engine 0 $(rss_mib)")
  rss0=$(rss_mib)
  n=0 prev=0 prev_rss=$rss0 prev_anon=$(anon_mib)
  for step in $STEPS; do
    register $((n + 1)) "$step" "$engine" > "$work/reg"
    n=$step
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
  stop_server
  rm -rf "$data"

  # Active, then idle: each step's new tenants serve one page each, then
  # the server waits until their warm instances are gone (--warm-idle) and
  # their plugins trimmed (as long again), plus a margin.
  start_server "$data" --warm-idle "$IDLE"
  idle_points+=("$engine 0 $(rss_mib)")
  n=0 kept=0
  for step in $STEPS; do
    register $((n + 1)) "$step" "$engine" > /dev/null
    before=$(rss_mib)
    for id in $(seq $((n + 1)) "$step"); do
      curl -fs -o /dev/null "http://127.0.0.1:$PORT/t/d-$id/"
    done
    active=$(rss_mib)
    sleep $((IDLE * 2 + IDLE / 2 + 2))
    after=$(rss_mib)
    # What the tenants that served keep, in all: each step's rise from its
    # registrations to its idle end.
    kept=$(awk -v k="$kept" -v a="$after" -v b="$before" 'BEGIN {printf "%.1f", k + a - b}')
    n=$step
    idle_rows+=("| $engine | $n | $before | $active | $after | $(awk -v k="$kept" -v n="$n" 'BEGIN {printf "%.2f", k / n}') |")
    idle_points+=("$engine $n $after")
    echo "$engine $n tenants, served then idle: RSS $after MiB ($before before they served, $active just after)" >&2
  done
  stop_server
  rm -rf "$data"
done

printf '%s\n' "${points[@]}" > "$work/points"
printf '%s\n' "${idle_points[@]}" > "$work/idle-points"
for engine in $ENGINES; do
  awk -v e="$engine" '$1 == e {print $2, $3}' "$work/points" > "$work/$engine.dat"
  awk -v e="$engine" '$1 == e {print $2, $3}' "$work/idle-points" > "$work/$engine-idle.dat"
done
{
  echo "set terminal png size 720,420"
  echo "set output '$CHART'"
  echo "set title 'RSS of one ssr serve with N tenants (plugins/hello variants)'"
  echo "set xlabel 'tenants'"
  echo "set ylabel 'RSS (MiB)'"
  echo "set key left top"
  plot="plot "
  for engine in $ENGINES; do
    plot+="'$work/$engine.dat' with linespoints title '$engine, never served', "
    plot+="'$work/$engine-idle.dat' with linespoints title '$engine, served once then idle', "
  done
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
  echo
  echo "Active, then idle (another server, \`--warm-idle $IDLE\`): after each step's registrations, each new tenant serves one page; then the server waits $((IDLE * 2 + IDLE / 2 + 2)) s, past the warm instances' idle time and the plugins' trim. What each tenant that served keeps: the rises from before its step's pages to the step's idle end, summed, over the tenants:"
  echo
  echo "| engine | tenants | RSS before the step's tenants served (MiB) | just after (MiB) | once idle (MiB) | RSS per tenant that served and went idle (MiB) |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${idle_rows[@]}"
  echo
  echo "RSS with no tenant: the first point of each line in [density.png](density.png)."
)
[ -f "$OUT" ] || printf '# Density results\n\nFigures from `benches/density.sh`; each section says its command, machine, date and commit.\n\n![tenants vs RSS](density.png)\n' > "$OUT"
python3 benches/section.py "$OUT" "density-$(nproc)" "$section"
echo "wrote $OUT and $CHART" >&2
