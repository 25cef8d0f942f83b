#!/usr/bin/env bash
# Fair sharing under attack, per engine: a well-behaved tenant's latency
# with and without five hostile tenants spinning at once, on 2 workers.
# Regenerates benches/RESULTS-attack.md.
#
# For each engine: the good tenant is `hello` (every request a cache miss,
# so every request renders); five tenants run tests/plugins/hostile.js and
# each has one `/loop` request spinning at all times (a curl loop; each
# spin ends at the 1 s render deadline with a 504). The good tenant is
# measured with `wrk -t1 -c$CONNS -d${SECS}s --latency` after a 2 s warm-up,
# alone, then with the attack running, $ROUNDS rounds (3) of both on one
# server: one 5 s p99 on 2 shared cores moved by 30% between runs, so the
# table gives the medians, and every round below it. The target (issue 5):
# p99 under attack within 1.5 x p99 alone + one time slice (a Wasm render
# yields at the first 1 ms epoch tick after it has run 1 ms: a slice is at
# most 2 ms).
# Needs: wrk, curl.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-4}
ROUNDS=${ROUNDS:-3}
PORT=18191
TOKEN=bench-token-0123456789
SLICE_MS=2
OUT=benches/RESULTS-attack.md
command -v wrk >/dev/null || { echo "attack.sh needs wrk: apt-get install wrk" >&2; exit 1; }
scripts/setup.sh
cargo build --release
mkdir -p target/plugins
target/release/ssr build tests/plugins/hostile.js -o target/plugins/hostile.wasm >/dev/null
target/release/ssr build plugins/hello/render.js -o target/plugins/hello.wasm >/dev/null
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT


add() { # id, plugin, engine
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary "@$2" \
    "http://127.0.0.1:$PORT/_ssr/admin/tenants/$1?engine=$3" >/dev/null
}
p99_ms() { # -> "rps p50 p99 failed" with latencies in ms; failed: non-2xx + timeouts
  wrk -t1 -c"$CONNS" --latency -s benches/miss.lua -d2s "http://127.0.0.1:$PORT/t/good/" >/dev/null
  wrk -t1 -c"$CONNS" --latency -s benches/miss.lua -d"${SECS}s" "http://127.0.0.1:$PORT/t/good/" |
    awk 'function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
         /Requests\/sec/ {r=$2} $1=="50%" {p50=ms($2)} $1=="99%" {p99=ms($2)}
         /Non-2xx/ {f+=$5} /Socket errors/ {gsub(/,/, ""); f+=$10}
         END {printf "%d %.2f %.2f %d\n", r, p50, p99, f}'
}

# The server's own view of the good tenant during one phase: the p99 of its
# queue wait and of its render time (the upper bound of the histogram bucket
# that holds the 99th percentile, in ms), from two /metrics snapshots.
snapshot() { curl -fs -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/_ssr/metrics" | grep 'tenant="good"' | grep _bucket > "$1"; }
server_p99() { # before, after, metric -> ms
  join <(grep "^$3" "$1" | sed 's/ /\t/' | sort) <(grep "^$3" "$2" | sed 's/ /\t/' | sort) -t $'\t' |
    awk -F'\t' '{ match($1, /le="[^"]+"/); le = substr($1, RSTART + 4, RLENGTH - 5);
                  n = $3 - $2; if (le == "+Inf") total = n; else { les[++k] = le + 0; cnt[k] = n } }
         END { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (les[j] < les[i]) {
                 t = les[i]; les[i] = les[j]; les[j] = t; t = cnt[i]; cnt[i] = cnt[j]; cnt[j] = t }
               for (i = 1; i <= k; i++) if (cnt[i] >= 0.99 * total) { printf "%g", les[i] * 1000; exit }
               printf ">%g", les[k] * 1000 }'
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; } # of lines
bound_of() { awk -v p="$1" -v s=$SLICE_MS 'BEGIN {printf "%.2f", 1.5 * p + s}'; } # p99 alone
met() { # p99 attacked, bound, failed
  awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN {print (a <= b && f == 0) ? "yes" : "no"}'
}

rows=()
runs=()
for engine in wasm v8; do
  # shellcheck disable=SC2086 # SERVE_FLAGS are words (e.g. --render-on pool).
  target/release/ssr serve --listen 127.0.0.1:$PORT --admin-token $TOKEN --demo=false \
    --workers 2 ${SERVE_FLAGS:-} 2>"$work/serve.log" &
  server=$!
  until curl -fs "http://127.0.0.1:$PORT/_ssr/readyz" >/dev/null 2>&1; do sleep 0.2; done
  add good target/plugins/hello.wasm "$engine"
  for i in 1 2 3 4 5; do add "evil$i" target/plugins/hostile.wasm "$engine"; done

  # Alone, then attacked, ROUNDS times over: each bound is judged against the
  # alone phase just before it, and the table gives the medians.
  alone=() attacked=() queue=() render=()
  for round in $(seq 1 "$ROUNDS"); do
    alone+=("$(p99_ms)")
    spinners=()
    for i in 1 2 3 4 5; do
      (while :; do curl -s -o /dev/null "http://127.0.0.1:$PORT/t/evil$i/loop"; done) &
      spinners+=($!)
    done
    sleep 1
    snapshot "$work/before"
    attacked+=("$(p99_ms)")
    snapshot "$work/after"
    queue+=("$(server_p99 "$work/before" "$work/after" ssr_queue_wait_seconds_bucket)")
    render+=("$(server_p99 "$work/before" "$work/after" ssr_render_seconds_bucket)")
    kill "${spinners[@]}" 2>/dev/null || true
    wait "${spinners[@]}" 2>/dev/null || true
    # The spins in flight end at their 1 s deadline.
    sleep 1.5
    read -r _ _ a_p99 _ <<<"${alone[-1]}"
    read -r _ _ t_p99 t_failed <<<"${attacked[-1]}"
    bound=$(bound_of "$a_p99")
    met=$(met "$t_p99" "$bound" "$t_failed")
    runs+=("| $engine | $round | $a_p99 | $t_p99 | $t_failed | $bound | $met | <= ${queue[-1]} | <= ${render[-1]} |")
    echo "$engine round $round: alone p99 $a_p99 ms, under attack p99 $t_p99 ms (bound $bound ms): $met" >&2
  done
  kill "$server"; wait "$server" 2>/dev/null || true

  col() { printf '%s\n' "${@:2}" | awk -v c="$1" '{print $c}' | median; }
  failed() { printf '%s\n' "$@" | awk '{f += $4} END {print f}'; }
  failed_alone=$(failed "${alone[@]}")
  failed_attack=$(failed "${attacked[@]}")
  p99_alone=$(col 3 "${alone[@]}")
  p99_attack=$(col 3 "${attacked[@]}")
  bound=$(bound_of "$p99_alone")
  met=$(met "$p99_attack" "$bound" "$failed_attack")
  rows+=("| $engine | $(col 1 "${alone[@]}") | $(col 2 "${alone[@]}") | $p99_alone | $failed_alone | $(col 1 "${attacked[@]}") | $(col 2 "${attacked[@]}") | $p99_attack | $failed_attack | $bound | $met |")
  echo "$engine: median alone p99 ${p99_alone} ms, under attack p99 ${p99_attack} ms (bound ${bound} ms): $met" >&2
done

{
  echo "# Fair sharing under attack"
  echo
  echo "Generated by \`benches/attack.sh\` on $(date -u +%F), ssr at \`$(git rev-parse --short HEAD)\`, on $(nproc) cores ($(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}'))."
  echo "Server: \`ssr serve --workers 2\` (8 renders per worker in slices of 1-2 ms; a render past \`--demote-after\` (${SSR_DEMOTE_AFTER:-20} ms; 0: never) finishes at low priority while other renders wait (Wasm: in a background lane at nice +10; V8: its thread at nice 19); default per-tenant cap: one render per worker; V8: half the V8 threads)."
  echo "Good tenant: \`hello\`, every request a cache miss (it renders), \`wrk -t1 -c$CONNS -d${SECS}s\` after a 2 s warm-up."
  echo "Attack: five tenants running \`tests/plugins/hostile.js\`, each with one \`/loop\` render spinning at all times (each ends at the 1 s deadline)."
  echo "In the per-round table, the last two columns are the server's own histograms for the good tenant during the attack (bucket bounds, ms): time in the shared queue, and from admission to a worker until the render ended (slices given to spinners included). What wrk sees beyond them is the HTTP path and, on a small machine, the load generator and the server competing for the same cores."
  echo "Target: p99 under attack <= 1.5 x p99 alone + one slice (2 ms), and no failed request. Latencies in ms; failed = non-2xx responses + wrk timeouts (2 s; wrk's latencies leave timed-out requests out, so a p99 with failures understates the wait). These figures are rendering, not cache."
  echo
  echo "Each engine: $ROUNDS rounds of alone then attacked on one server; the first table gives the medians of the rounds (failed: the sum), the second every round, with the bound from the alone phase just before it."
  echo
  echo "| engine | alone req/s | alone p50 | alone p99 | alone failed | attacked req/s | attacked p50 | attacked p99 | attacked failed | bound | met |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "| engine | round | alone p99 | attacked p99 | attacked failed | bound | met | attacked: server queue-wait p99 | attacked: server render p99 |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${runs[@]}"
} > "$OUT"
cat "$OUT"
