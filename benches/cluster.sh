#!/usr/bin/env bash
# Replicas sharing tenants through Redis behind nginx, as scripts/cluster.sh
# runs them on this machine. One command rewrites benches/RESULTS-cluster.md:
# 1. Propagation: ROUNDS registrations of new tenants on replica 1, each a
#    distinct plugin (plugins/hello with a custom section of its own, so each
#    replica compiles its state module). For each, the delay until replicas
#    2 and 3 have it current, from the replicas' own log timestamps (one
#    clock): replica 1 logs "tenant registered" once it serves it, the
#    others "tenant updated from the shared store". p50 and p99 over the
#    2 x ROUNDS adoptions.
# 2. Kill: wrk through nginx for KILL_SECS on cached pages; replica 2 is
#    killed with SIGKILL a third of the way in (scripts/cluster.sh starts it
#    again). Failed share: non-2xx responses and socket errors over requests.
# 3. Cache hits through nginx with 1 and 3 replicas, RUNS times each,
#    alternating (1, 3, 1, 3, ...), wrk -t2 -c64 for SECS; and one replica
#    without nginx, for what the proxy costs.
# PREBUILT=1 runs target/release/ssr as it is; SSR=PATH runs another build
# (an older one, say) and prints the results instead of rewriting the file,
# whose header names this checkout's commit; ONLY=propagation stops after
# part 1 and prints it (two builds' propagation alternating: run it for each).
# Needs wrk (installed here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-100}
RUNS=${RUNS:-3}
SECS=${SECS:-10}
KILL_SECS=${KILL_SECS:-15}
PORT=18600
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-cluster.md
. benches/needs.sh
. benches/common.sh
needs wrk=wrk
if [ -z "${PREBUILT:-}${SSR:-}" ]; then
  scripts/setup.sh
  cargo build --release
fi
[ -n "${SSR:-}" ] && OUT=/dev/stdout
SSR=$(realpath "${SSR:-target/release/ssr}")
work=$(mktemp -d)
cluster=""
stop_cluster() {
  [ -n "$cluster" ] && kill "$cluster" 2>/dev/null && wait "$cluster" 2>/dev/null || true
  cluster=""
}
trap 'stop_cluster; rm -rf "$work"' EXIT
"$SSR" build -q plugins/hello/render.js -o "$work/hello.wasm"

# Starts scripts/cluster.sh with $1 replicas in $work/c-$2 and waits for it.
start_cluster() {
  PORT=$PORT REPLICAS=$1 CLUSTER_DIR="$work/c-$2" SSR_ADMIN_TOKEN=$TOKEN SSR=$SSR \
    scripts/cluster.sh >"$work/cluster-$2.out" 2>&1 &
  cluster=$!
  for _ in $(seq 600); do
    grep -q '^Ctrl-C stops' "$work/cluster-$2.out" && return 0
    sleep 0.1
  done
  cat "$work/cluster-$2.out" >&2
  exit 1
}
put() { # id, file, port
  curl -fsS -o /dev/null -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$2" \
    "http://127.0.0.1:$3/_ssr/admin/tenants/$1"
}
served_by() { # port, path: waits until it is a 200
  for _ in $(seq 600); do
    curl -fs -o /dev/null "http://127.0.0.1:$1$2" && return 0
    sleep 0.1
  done
  echo "nothing at $1$2" >&2
  exit 1
}

# 1. Propagation.
start_cluster 3 prop
put warm "$work/hello.wasm" $((PORT + 1))
for n in 2 3; do served_by $((PORT + n)) /t/warm/; done
for i in $(seq "$ROUNDS"); do
  variant "$i" "$work/hello.wasm" >"$work/v.wasm"
  put "p-$i" "$work/v.wasm" $((PORT + 1))
  sleep 0.05
done
for n in 2 3; do served_by $((PORT + n)) "/t/p-$ROUNDS/"; done
python3 - "$work/c-prop" >"$work/prop" <<'PY'
import re, sys, datetime
d = sys.argv[1]
def times(n, what):
    out = {}
    for line in open(f"{d}/replica-{n}.log"):
        m = re.match(r'(\S+Z)\s+INFO .*' + what + r'.*tenant="(p-\d+)"', line)
        if m:
            t = datetime.datetime.fromisoformat(m.group(1).replace('Z', '+00:00'))
            out[m.group(2)] = t
    return out
registered = times(1, "tenant registered")
for n in (2, 3):
    for tenant, t in times(n, "updated from the shared store").items():
        print(f"{(t - registered[tenant]).total_seconds() * 1000:.2f}")
PY
prop_n=$(wc -l <"$work/prop")
prop_p50=$(pct 50 <"$work/prop") prop_p99=$(pct 99 <"$work/prop") prop_max=$(pct 100 <"$work/prop")
echo "propagation: $prop_n adoptions, p50 $prop_p50 ms, p99 $prop_p99 ms, max $prop_max ms" >&2
[ "${ONLY:-}" = propagation ] && exit 0

# 2. Kill a replica under load.
for i in 1 2 3 4; do put "k-$i" "$work/hello.wasm" $((PORT + 1)); done
for n in 1 2 3; do for i in 1 2 3 4; do served_by $((PORT + n)) "/t/k-$i/"; done; done
cat >"$work/kill.lua" <<'LUA'
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/t/k-" .. (n % 4 + 1) .. "/")
end
LUA
wrk -t2 -c32 -d"${KILL_SECS}s" -s "$work/kill.lua" "http://127.0.0.1:$PORT" >"$work/kill.txt" &
wrk_pid=$!
sleep $((KILL_SECS / 3))
kill -9 "$(cat "$work/c-prop/replica-2.pid")"
wait $wrk_pid
served_by $((PORT + 2)) /t/k-1/
kill_requests=$(awk '/requests in/ {print $1}' "$work/kill.txt")
kill_non2xx=$(awk '/Non-2xx/ {print $NF}' "$work/kill.txt")
kill_socket=$(awk -F'[ ,]+' '/Socket errors/ {print $4 + $6 + $8 + $10}' "$work/kill.txt")
kill_failed=$((${kill_non2xx:-0} + ${kill_socket:-0}))
kill_share=$(awk -v f="$kill_failed" -v n="$kill_requests" 'BEGIN {printf "%.4f", 100 * f / n}')
echo "kill: $kill_failed of $kill_requests failed ($kill_share%)" >&2
stop_cluster

# 3. Cache-hit throughput, 1 vs 3 replicas behind nginx.
hits() { # port: requests/s of a cached page
  wrk -t2 -c64 -d"${SECS}s" "http://127.0.0.1:$1/t/hit/" | awk '/Requests\/sec/ {printf "%.0f", $2}'
}
declare -A rps=()
for run in $(seq "$RUNS"); do
  for replicas in 1 3; do
    start_cluster "$replicas" "hits-$replicas-$run"
    put hit "$work/hello.wasm" $((PORT + 1))
    for n in $(seq "$replicas"); do served_by $((PORT + n)) /t/hit/; done
    rps[$replicas]+=" $(hits $PORT)"
    if [ "$replicas" = 1 ]; then rps[direct]+=" $(hits $((PORT + 1)))"; fi
    stop_cluster
  done
  echo "run $run: 1 replica${rps[1]}; 3 replicas${rps[3]}; direct${rps[direct]}" >&2
done
median() { tr ' ' '\n' | grep . | pct 50; }
r1=$(echo "${rps[1]}" | median) r3=$(echo "${rps[3]}" | median) rd=$(echo "${rps[direct]}" | median)

cores=$(nproc)
cat >"$OUT" <<EOF
# Replicas behind nginx, sharing tenants through Redis

Command: \`ROUNDS=$ROUNDS RUNS=$RUNS SECS=$SECS KILL_SECS=$KILL_SECS benches/cluster.sh\` on $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $cores cores. Every process (Redis, the replicas, nginx, wrk) shares those cores; the cluster is \`scripts/cluster.sh\` on loopback.

## Propagation of a registration

$ROUNDS new tenants registered on replica 1, each a distinct plugin (\`plugins/hello\` with a custom section of its own, so every replica compiles its state module); the delay from replica 1 serving it to replicas 2 and 3 having it current, from the replicas' log timestamps ($prop_n adoptions).

| p50 | p99 | max |
|---|---|---|
| $prop_p50 ms | $prop_p99 ms | $prop_max ms |

It measures Redis pub/sub, reading the record and plugin from Redis, compiling the tenant's state module, and publishing the tenant; it does not measure a client's request.

## A replica killed under load

wrk (\`-t2 -c32\`, ${KILL_SECS} s) through nginx on four tenants' cached pages; replica 2 killed with SIGKILL after $((KILL_SECS / 3)) s (\`scripts/cluster.sh\` starts it again, and it serves every tenant from the store).

| requests | failed (non-2xx and socket errors) | failed share |
|---|---|---|
| $kill_requests | $kill_failed | $kill_share% |

## Cache hits through nginx, 1 vs 3 replicas

wrk \`-t2 -c64\`, ${SECS} s, one cached page (\`plugins/hello\`, 5.6 KB), the median of $RUNS runs (of an even number, the lower middle one), alternating.

| path | requests/s | runs |
|---|---|---|
| nginx, 1 replica | $r1 |${rps[1]} |
| nginx, 3 replicas | $r3 |${rps[3]} |
| 1 replica, no nginx | $rd |${rps[direct]} |

3 replicas serve $(awk -v a="$r3" -v b="$r1" 'BEGIN {printf "%.2f", a / b}')x the hits of 1 through nginx, and nginx serves $(awk -v a="$r1" -v b="$rd" 'BEGIN {printf "%.2f", a / b}')x of what one replica serves alone.

What this can show on $cores cores: that three replicas behind nginx serve cache hits without losing throughput to the sharing itself (a hit touches neither Redis nor another replica), and what the proxy hop costs (the third row). What it cannot show is scaling: wrk, nginx's workers and every replica's workers take turns on the same $cores cores, so adding replicas adds no CPU, only more threads contending for it. A real deployment runs each replica on its own machine (or its own cores) and the load generator elsewhere, and would measure requests/s per replica as replicas are added, and p99 latency at a fixed rate, through the same nginx.
EOF
echo "wrote $OUT" >&2
