#!/usr/bin/env bash
# Where a rendered request's time goes (issue 35): `ssr serve` under wrk
# (a new query string per request, so every request renders), sampled by
# `perf record` (the cpu-clock event, DWARF call graphs), one page and
# engine at a time, folded by inferno into a flame graph.
#
# Usage: benches/profile.sh [PAGE...]   (default: trivial; also any
# plugins/<dir> with a wrangler config, e.g. hono)
# Writes benches/profile-<page>-<engine><TAG>.svg and prints, per engine,
# the share of samples whose stack holds each group of frames named below
# (FOLDED_DIR, if set, keeps the folded stacks). SERVE_FLAGS go to `ssr
# serve` (e.g. `--render-on pool`, with TAG=-pool, for the graph before
# renders began on the HTTP thread). SSR=PATH REV=COMMIT profiles another
# build of `ssr` (e.g. an older one, with TAG=-before), named by REV.
# Needs: perf (linux-perf), wrk, and inferno (cargo install inferno).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-16}
PAGES=${*:-trivial}
PORT=18293
TOKEN=bench-token-0123456789
for tool in perf wrk inferno-collapse-perf inferno-flamegraph; do
  command -v "$tool" >/dev/null || { echo "profile.sh needs $tool" >&2; exit 1; }
done
scripts/setup.sh
. benches/common.sh
if [ -n "${SSR:-}" ]; then
  ssr=$(realpath "$SSR") rev=${REV:?REV names the commit SSR was built at}
else
  cargo build --release
  ssr=$PWD/target/release/ssr rev=$(git rev-parse --short HEAD)
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
trivial_page "$work/trivial.js"

# SSR_PERFMAP: Wasmtime writes a perf map, so the Wasm frames (QuickJS's
# functions) have names. V8's JavaScript has none here: V8 writes its perf
# map only in the server's process (docs/development.md).
# shellcheck disable=SC2086 # SERVE_FLAGS are words.
SSR_PERFMAP=1 SSR_ADMIN_TOKEN=$TOKEN "$ssr" serve --listen "127.0.0.1:$PORT" --demo=false ${SERVE_FLAGS:-} 2>"$work/ssr.log" &
pid=$!
wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
for page in $PAGES; do
  if [ "$page" = trivial ]; then
    "$ssr" build -q "$work/trivial.js" -o "$work/$page.wasm"
  else
    (cd "plugins/$page" && "$ssr" build -q -o "$work/$page.wasm" 2>/dev/null)
  fi
  for engine in wasm v8; do
    curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/$page.wasm" \
      "http://127.0.0.1:$PORT/_ssr/admin/tenants/$page-$engine?engine=$engine&host=$page-$engine.test&var=GREETING=Hello" >/dev/null
    # Warm up, then sample the whole server while wrk runs.
    wrk -t1 -c"$CONNS" -d2s -s benches/miss.lua -H "Host: $page-$engine.test" "http://127.0.0.1:$PORT/" >/dev/null
    # The server and its V8 worker processes, where V8 tenants render.
    pids=$(pgrep -P "$pid" | paste -sd, - || true)
    perf record -q -e cpu-clock -F 499 --call-graph dwarf,32768 -p "$pid${pids:+,$pids}" -o "$work/perf.data" -- sleep "$SECS" 2>/dev/null &
    rec=$!
    wrk -t1 -c"$CONNS" -d"${SECS}s" -s benches/miss.lua -H "Host: $page-$engine.test" "http://127.0.0.1:$PORT/" |
      awk -v p="$page" -v e="$engine" '/Requests\/sec/ {print p " " e ": " $2 " req/s while sampled"}'
    wait "$rec" || true
    perf script -i "$work/perf.data" 2>/dev/null | inferno-collapse-perf >"$work/$page-$engine.folded"
    inferno-flamegraph --minwidth 0.2 --title "ssr serve ${SERVE_FLAGS:-}, $page page on $engine, every request rendered ($(date -u +%Y-%m-%d), $rev)" \
      <"$work/$page-$engine.folded" >"benches/profile-$page-$engine${TAG:-}.svg"
    [ -z "${FOLDED_DIR:-}" ] || cp "$work/$page-$engine.folded" "$FOLDED_DIR/"
    python3 - "$work/$page-$engine.folded" <<'PY'
import sys, re
# Share of all samples whose stack contains a frame matching each pattern.
groups = [
    ('HTTP: hyper/axum/tokio I/O', r'hyper::|tokio::net|tokio::io|axum::'),
    ('handing the job to a worker and back', r'ssr::pool::|crossbeam|tokio::sync::oneshot|futures_channel|std::sync::mpmc'),
    ('engine: Wasm (wasmtime)', r'wasmtime::'),
    ('engine: V8', r'ssr_v8_|v8::internal'),
    ('JSON (serde) of request/response', r'serde_json::'),
    ('cache: key, insert, ETag', r'ssr::cache::'),
    ('compression', r'brotli|flate2|zstd|miniz'),
    ('allocation', r'malloc|free|realloc|__rust_alloc|__rust_dealloc'),
    ('kernel (syscalls)', r'\[unknown\]|syscall|entry_SYSCALL'),
]
total = 0
hits = {name: 0 for name, _ in groups}
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip().rpartition(' ')
    n = int(n)
    total += n
    for name, pat in groups:
        if re.search(pat, stack):
            hits[name] += n
for name, _ in groups:
    print(f"  {name}: {100 * hits[name] / max(total, 1):.1f}%")
print(f"  ({total} samples)")
PY
  done
done
