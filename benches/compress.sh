#!/usr/bin/env bash
# What compressing uncacheable pages costs the rest of the server: /healthz
# latency and throughput alone, then while CLIENTS clients keep fetching a
# no-store page of KIB KiB with `Accept-Encoding: gzip` (each response is
# compressed anew, on the blocking pool). Prints both `wrk --latency` lines.
# Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-10}
CLIENTS=${CLIENTS:-4}
KIB=${KIB:-2000}
PORT=18195
TOKEN=bench-token-0123456789
command -v wrk >/dev/null || { echo "compress.sh needs wrk: apt-get install wrk" >&2; exit 1; }
cargo build --release
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
. benches/visitor.sh
big="http://127.0.0.1:$PORT/t/page/big?kib=$KIB&nostore=1"
size=$(curl -fs -H 'accept-encoding: gzip' "$big" | wc -c)
echo "page: $KIB KiB, $size bytes gzipped" >&2
healthz() {
  wrk -t1 -c10 -d"${SECS}s" --latency "http://127.0.0.1:$PORT/_ssr/healthz" |
    awk '/Requests\/sec/ {r=$2} $1=="50%" {p50=$2} $1=="99%" {p99=$2} END {printf "%s req/s, p50 %s, p99 %s\n", r, p50, p99}'
}
echo "healthz alone: $(healthz)"
for _ in $(seq 1 "$CLIENTS"); do
  (while :; do curl -fs -H 'accept-encoding: gzip' "$big" -o /dev/null || true; done) &
done
sleep 1
echo "healthz with $CLIENTS clients fetching it gzipped: $(healthz)"
