# Sourced by hits.sh and assets.sh, which measure ssr against bare axum
# serving the same bytes: the knobs both take (SECS, CONNS, ROUNDS, THREADS,
# SERVER_CPUS, WRK_CPUS, PREBUILT), the build, a work directory removed on
# exit, `ssr serve` on $PORT with tenant `page` (visitor.sh), and
# rps URL [HOST] (req/s of one wrk run after a 1 s warm-up), median and
# ratio A B.
SECS=${SECS:-5}
CONNS=${CONNS:-50}
ROUNDS=${ROUNDS:-5}
THREADS=${THREADS:-1}
SERVER_CPUS=${SERVER_CPUS:-}
WRK_CPUS=${WRK_CPUS:-}
TOKEN=bench-token-0123456789
command -v wrk >/dev/null || { echo "$0 needs wrk: apt-get install wrk" >&2; exit 1; }
if [ -z "${PREBUILT:-}" ]; then
  scripts/setup.sh
  cargo build --release && cargo build --release -p ssr --example bare_axum
fi
wrk_pin=()
[ -n "$WRK_CPUS" ] && wrk_pin=(taskset -c "$WRK_CPUS")
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

. benches/visitor.sh

rps() { # url, [host] -> req/s of one run after a warm-up
  local args=(-t"$THREADS" -c"$CONNS")
  [ -n "${2:-}" ] && args+=(-H "Host: $2")
  "${wrk_pin[@]}" wrk "${args[@]}" -d1s "$1" >/dev/null
  "${wrk_pin[@]}" wrk "${args[@]}" -d"${SECS}s" "$1" | awk '/Requests\/sec/ {printf "%d\n", $2}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
