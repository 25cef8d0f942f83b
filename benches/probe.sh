#!/usr/bin/env bash
# Memory the second security probe's attacks make `ssr serve` hold (issue
# 32), for one build or two side by side (BASE, an older `ssr` binary, run
# alternately with this one); prints a Markdown table for
# benches/RESULTS-probe.md.
#
# - fetch: one render's 50 parallel requests of 8 MB each (a loopback Node
#   origin, chunked), under the default 16 MiB a render; the server's peak
#   RSS (VmHWM) before and after, per engine.
# - stalled: STALLED (150) clients ask for an 8 MiB page that is never
#   stored and read none of it (receive buffer 4 KiB); the server's RSS and
#   `ssr_unsent_bytes` 6 s later, with the default settings and with
#   --max-unsent-mib 128, and at 10 s with --send-timeout 5000.
# PREBUILT=1 skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=18620
ORIGIN=$((PORT + 1))
STALLED=${STALLED:-150}
TOKEN=bench-token-0123456789
if [ -z "${PREBUILT:-}" ]; then
  scripts/setup.sh
  cargo build --release
fi
plugin=target/test-plugins/probe.wasm
target/release/ssr build tests/plugins/probe.js -o "$plugin" >/dev/null 2>&1
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

node -e "
const chunk = Buffer.alloc(64000);
require('http').createServer((q, s) => {
  let n = 125;
  const pump = () => { while (n > 0) { n--; if (!s.write(chunk)) return s.once('drain', pump); } s.end(); };
  pump();
}).listen($ORIGIN, '127.0.0.1')" &

kib() { awk "/^$2:/{print int(\$2/1024)}" /proc/$1/status; }
metric() {
  curl -s -H "authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/_ssr/metrics" |
    awk -v m="$1" '$1 == m {printf "%d", $2 / 1048576}'
}

# serve BINARY [FLAGS...]: starts it with the probe as tenant `p`, on
# ENGINE; sets $pid.
serve() {
  local bin=$1
  shift
  "$bin" serve --listen 127.0.0.1:$PORT --admin-token $TOKEN --demo=false --path-routing "$@" 2>"$work/serve.log" &
  pid=$!
  until curl -s -o /dev/null "http://127.0.0.1:$PORT/_ssr/healthz"; do sleep 0.1; done
  curl -s -o /dev/null -X PUT --data-binary @"$plugin" -H "Authorization: Bearer $TOKEN" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/p?engine=${ENGINE:-wasm}&allow_fetch=http://127.0.0.1:$ORIGIN"
}
stop() { kill $pid; wait $pid 2>/dev/null || true; }

fetch_row() {
  local bin=$1 name=$2 engine=$3
  ENGINE=$engine serve "$bin"
  curl -s -o /dev/null "http://127.0.0.1:$PORT/t/p/parallel?n=1&url=http://127.0.0.1:$ORIGIN/"
  local before after
  before=$(kib $pid VmHWM)
  curl -s -o /dev/null "http://127.0.0.1:$PORT/t/p/parallel?n=50&url=http://127.0.0.1:$ORIGIN/"
  after=$(kib $pid VmHWM)
  echo "| fetch, 50 x 8 MB in one render, $engine | $name | $before | $after | +$((after - before)) | |"
  stop
}

stall_row() {
  local bin=$1 name=$2 at=$3 label=$4
  shift 4
  serve "$bin" "$@"
  local idle
  idle=$(kib $pid VmRSS)
  python3 - "$PORT" "$STALLED" "$at" <<'PY' &
import socket, sys, time
port, n, at = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
conns = []
for i in range(n):
    c = socket.create_connection(('127.0.0.1', port))
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.sendall(f'GET /t/p/big?kib=8192&i={i} HTTP/1.1\r\nhost: x\r\n\r\n'.encode())
    conns.append(c)
time.sleep(at + 2)
PY
  local clients=$!
  sleep "$at"
  echo "| $STALLED stalled clients, $label, at ${at} s | $name | $idle | $(kib $pid VmRSS) | +$(($(kib $pid VmRSS) - idle)) | $(metric ssr_unsent_bytes) |"
  wait $clients 2>/dev/null || true
  stop
}

echo "| attack | build | RSS before (MiB) | RSS after (MiB) | growth (MiB) | unsent (MiB) |"
echo "|---|---|---|---|---|---|"
builds=("target/release/ssr:this")
[ -n "${BASE:-}" ] && builds=("$BASE:base" "target/release/ssr:this")
for round in 1 2; do
  for b in "${builds[@]}"; do
    bin=${b%%:*}
    name=${b##*:}
    for engine in wasm v8; do fetch_row "$bin" "$name" "$engine"; done
    stall_row "$bin" "$name" 6 "defaults"
    if [ "$name" = this ]; then
      stall_row "$bin" "$name" 6 "--max-unsent-mib 128" --max-unsent-mib 128
      stall_row "$bin" "$name" 10 "--send-timeout 5000" --send-timeout 5000
    fi
  done
done
