#!/usr/bin/env bash
# Two builds of `ssr` side by side: is a newer one no worse at rendering?
# Each binary serves its own demo tenants (built by itself, as a user's
# would be), and `wrk -t1 -c16` asks each in turn for the `hello` and
# `react` pages with a new query string per request (benches/miss.lua), so
# every request renders. Alternating rounds keep the machine's drift from
# favouring either side; compare the two columns of one run, never runs.
#
# Usage: benches/builds.sh OLD_SSR NEW_SSR   (ROUNDS=3, SECS=5)
# An older build is made from a worktree, e.g.:
#   git worktree add /tmp/old <commit> && (cd /tmp/old && scripts/setup.sh build &&
#     cargo build --release)
# (Builds since 2026-12-01 find their V8 worker, libssr_v8.so, beside them.)
# Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: benches/builds.sh OLD_SSR NEW_SSR" >&2; exit 2; }
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-5}
. benches/needs.sh
needs wrk=wrk
bins=("$(realpath "$1")" "$(realpath "$2")")
ports=(18401 18402)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

for i in 0 1; do
  # Flags every build has had: the demo tenants are on by default.
  "${bins[$i]}" serve --listen "127.0.0.1:${ports[$i]}" 2>"$work/serve-$i.log" &
done
for i in 0 1; do
  # /_ssr/readyz since 2026-11-22, /readyz before.
  for _ in $(seq 1 600); do
    curl -fs "http://127.0.0.1:${ports[$i]}/_ssr/readyz" >/dev/null 2>&1 && break
    curl -fs "http://127.0.0.1:${ports[$i]}/readyz" >/dev/null 2>&1 && break
    sleep 0.25
  done
  curl -fs "http://127.0.0.1:${ports[$i]}/t/react/" >/dev/null ||
    { echo "${bins[$i]} serves no demo react page:" >&2; cat "$work/serve-$i.log" >&2; exit 1; }
done

rps() { # port secs page -> "req/s non-2xx"
  wrk -t1 -c16 -d"$2" -s benches/miss.lua "http://127.0.0.1:$1/t/$3/" |
    awk '/Requests\/sec/ {r=$2} /Non-2xx/ {e=$5} END {printf "%d %d\n", r, e}'
}
for page in hello react; do for i in 0 1; do rps "${ports[$i]}" 2s "$page" >/dev/null; done; done
echo "| round | page | $1 (req/s) | $2 (req/s) | new / old |"
echo "|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
  for page in hello react; do
    read -r old old_err <<<"$(rps "${ports[0]}" "${SECS}s" "$page")"
    read -r new new_err <<<"$(rps "${ports[1]}" "${SECS}s" "$page")"
    [ "$old_err$new_err" = 00 ] || echo "non-2xx: old $old_err, new $new_err" >&2
    echo "| $r | $page | $old | $new | $(awk -v a="$old" -v b="$new" 'BEGIN {printf "%.2fx", b / a}') |"
  done
done
