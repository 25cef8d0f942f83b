#!/usr/bin/env bash
# Bindings inside a render (issue 57): KV get and put, D1 point query and
# insert, R2 get and put of 1 KiB and 1 MiB, each made N times in a row in
# one render of benches/bindings/bench.js, which answers the mean per call
# in microseconds. On ssr's embedded store (SQLite and files in a data
# dir) on both engines; KV on Redis and R2 on Redis and SeaweedFS's S3
# (--store, --objects) on both engines; and on `wrangler dev` (Miniflare)
# when WRANGLER names its binary (it needs Node 22). Beside them, the
# object store's own time for the same objects (one curl process, PUT and
# GET of 1 MiB over one connection, unsigned: the store's floor). ROUNDS rounds, the
# sides alternated; the median round is reported. Writes
# benches/RESULTS-bindings.md between the `bindings:start`/`bindings:end`
# markers. Needs: redis-server, target/seaweedfs/weed (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
READS=${READS:-2000}
WRITES=${WRITES:-200}
PORT=18291
RPORT=18292
WPORT=18293
SPORT=18300
BLOBS=${BLOBS:-20}
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-bindings.md
. benches/common.sh
cargo build --release
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; kill -9 ${weed:-} 2>/dev/null || true; rm -rf "$work"' EXIT
cp benches/bindings/bench.js benches/bindings/wrangler.jsonc "$work/"
(cd "$work" && PATH="$OLDPWD/plugins/node_modules/.bin:$PATH" "$OLDPWD/target/release/ssr" build -q -o bench.wasm)

serve() { # data-dir setup-query [args...]: a server on $PORT with both engines' tenants
  local data=$1 setup=$2; shift 2
  target/release/ssr serve --listen 127.0.0.1:$PORT --admin-token $TOKEN --demo=false --path-routing \
    --data-dir "$data" "$@" 2>>"$work/serve.log" &
  server=$!
  wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
  for engine in wasm v8; do
    curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/bench.wasm" \
      "http://127.0.0.1:$PORT/_ssr/admin/tenants/b-$engine?engine=$engine" >/dev/null
    curl -fsS --retry 3 --retry-all-errors "http://127.0.0.1:$PORT/t/b-$engine/?op=setup$setup" >/dev/null
    curl -fsS "http://127.0.0.1:$PORT/t/b-$engine/?op=setup-r2" >/dev/null
  done
}
measure() { # base-url op n: the mean per call, in µs
  curl -fs "$1/?op=$2&n=$3" | tr -d '\n'
}
declare -A got
add() { got[$1]="${got[$1]:-} $2"; }
redis-server --port $RPORT --save '' --appendonly no >/dev/null &
mkdir -p "$work/weed"
target/seaweedfs/weed server -dir="$work/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -s3 -iam=false -s3.port.iceberg=0 -s3.port.lance=0 \
  -master.telemetry=false -master.volumeSizeLimitMB=256 -master.port=$((SPORT + 1)) -volume.port=$((SPORT + 2)) \
  -filer.port=$((SPORT + 3)) -s3.port=$SPORT >"$work/weed.log" 2>&1 &
weed=$!
wait_for "http://127.0.0.1:$SPORT/"
OBJECTS="s3://bench:bench@127.0.0.1:$SPORT/bench"
r2ops() { # base-url label: R2's four measures
  for op in r2-get-kib r2-put-kib; do add "$2 $op" "$(measure "$1" $op "$WRITES")"; done
  for op in r2-get-mib r2-put-mib; do add "$2 $op" "$(measure "$1" $op "$BLOBS")"; done
}
head -c 1048576 /dev/zero | tr '\0' x >"$work/mib"
for round in $(seq 1 "$ROUNDS"); do
  serve "$work/data" ""
  for engine in wasm v8; do
    for op in kv-get d1-get; do add "embedded $engine $op" "$(measure "http://127.0.0.1:$PORT/t/b-$engine" $op "$READS")"; done
    for op in kv-put d1-insert; do add "embedded $engine $op" "$(measure "http://127.0.0.1:$PORT/t/b-$engine" $op "$WRITES")"; done
    r2ops "http://127.0.0.1:$PORT/t/b-$engine" "embedded $engine"
  done
  kill "$server"; wait "$server" 2>/dev/null || true
  serve "$work/replica" "&d1=no" --store "redis://127.0.0.1:$RPORT/0" --objects "$OBJECTS"
  for engine in wasm v8; do
    add "redis $engine kv-get" "$(measure "http://127.0.0.1:$PORT/t/b-$engine" kv-get "$READS")"
    add "redis $engine kv-put" "$(measure "http://127.0.0.1:$PORT/t/b-$engine" kv-put "$WRITES")"
    r2ops "http://127.0.0.1:$PORT/t/b-$engine" "redis $engine"
  done
  kill "$server"; wait "$server" 2>/dev/null || true
  # The object store alone: one curl, BLOBS PUTs then BLOBS GETs of 1 MiB
  # over one connection, unsigned (its floor).
  puts=(); gets=()
  for i in $(seq 1 "$BLOBS"); do
    puts+=(-T "$work/mib" "http://127.0.0.1:$SPORT/bench/raw$((i % 10))")
    gets+=(-o /dev/null "http://127.0.0.1:$SPORT/bench/raw$((i % 10))")
  done
  started=$(date +%s%N)
  curl -fs "${puts[@]}" >/dev/null
  add "s3 put-mib" "$(( ($(date +%s%N) - started) / 1000 / BLOBS ))"
  started=$(date +%s%N)
  curl -fs "${gets[@]}"
  add "s3 get-mib" "$(( ($(date +%s%N) - started) / 1000 / BLOBS ))"
  if [ -n "${WRANGLER:-}" ]; then
    (cd "$work" && "$WRANGLER" dev --port $WPORT --ip 127.0.0.1 >"$work/wrangler.log" 2>&1) &
    wait_for "http://127.0.0.1:$WPORT/?op=setup"
    curl -fs "http://127.0.0.1:$WPORT/?op=setup" >/dev/null
    for op in kv-get d1-get; do add "wrangler dev $op" "$(measure "http://127.0.0.1:$WPORT" $op "$READS")"; done
    for op in kv-put d1-insert; do add "wrangler dev $op" "$(measure "http://127.0.0.1:$WPORT" $op "$WRITES")"; done
    curl -fs "http://127.0.0.1:$WPORT/?op=setup-r2" >/dev/null
    r2ops "http://127.0.0.1:$WPORT" "wrangler dev"
    pkill -f "wrangler.*dev --port $WPORT" 2>/dev/null || true; sleep 2
  fi
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
{
  echo "<!-- bindings:start -->"
  echo "$(date -u +%Y-%m-%d), ssr at \`$(git rev-parse --short HEAD)\`, \`benches/bindings.sh\` (READS=$READS, WRITES=$WRITES, ROUNDS=$ROUNDS, the median round): the mean time of one call made in a render, in µs, each call awaited before the next."
  echo
  echo "| store | engine | KV get | KV put | D1 point query | D1 insert |"
  echo "|---|---|---|---|---|---|"
  for engine in wasm v8; do
    e="embedded $engine"
    echo "| embedded (SQLite) | $engine | $(median <<<"${got[$e kv-get]}") | $(median <<<"${got[$e kv-put]}") | $(median <<<"${got[$e d1-get]}") | $(median <<<"${got[$e d1-insert]}") |"
  done
  for engine in wasm v8; do
    e="redis $engine"
    echo "| Redis (KV) | $engine | $(median <<<"${got[$e kv-get]}") | $(median <<<"${got[$e kv-put]}") | | |"
  done
  if [ -n "${WRANGLER:-}" ]; then
    e="wrangler dev"
    echo "| wrangler dev (Miniflare) | workerd | $(median <<<"${got[$e kv-get]}") | $(median <<<"${got[$e kv-put]}") | $(median <<<"${got[$e d1-get]}") | $(median <<<"${got[$e d1-insert]}") |"
  fi
  echo
  echo "R2 (BLOBS=$BLOBS calls of 1 MiB), µs per call; the object store's own row is one curl's unsigned PUTs and GETs of the same 1 MiB over one connection (the store's floor):"
  echo
  echo "| store | engine | get 1 KiB | put 1 KiB | get 1 MiB | put 1 MiB |"
  echo "|---|---|---|---|---|---|"
  r2row() { echo "| $1 | $2 | $(median <<<"${got[$3 r2-get-kib]}") | $(median <<<"${got[$3 r2-put-kib]}") | $(median <<<"${got[$3 r2-get-mib]}") | $(median <<<"${got[$3 r2-put-mib]}") |"; }
  for engine in wasm v8; do r2row "embedded (SQLite + files)" $engine "embedded $engine"; done
  for engine in wasm v8; do r2row "Redis + SeaweedFS S3" $engine "redis $engine"; done
  [ -z "${WRANGLER:-}" ] || r2row "wrangler dev (Miniflare)" workerd "wrangler dev"
  echo "| SeaweedFS S3 alone (curl) | | | | $(median <<<"${got[s3 get-mib]}") | $(median <<<"${got[s3 put-mib]}") |"
  echo "<!-- bindings:end -->"
} >"$work/table.md"
[ -f "$OUT" ] || printf '# Bindings\n\n<!-- bindings:start -->\n<!-- bindings:end -->\n' >"$OUT"
python3 - "$OUT" "$work/table.md" <<'PY'
import re, sys
out, table = sys.argv[1], open(sys.argv[2]).read().strip()
text = open(out).read()
open(out, 'w').write(re.sub(r'<!-- bindings:start -->.*<!-- bindings:end -->', lambda _: table, text, flags=re.S))
PY
cat "$work/table.md"
