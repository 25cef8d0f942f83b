#!/usr/bin/env bash
# Serving a static asset against bare axum: one command rewrites the
# "Static assets" section of benches/RESULTS-http.md.
#
# A 100 KiB JavaScript file (ASSET_KIB) is packed into tests/plugins/visitor.js
# with `ssr build --assets` and registered on host page.test; bare axum
# (host/examples/bare_axum.rs) answers every request with the same bytes.
# ROUNDS rounds, each `wrk -t$THREADS -c$CONNS -d${SECS}s` after a 1 s warm-up
# against, in turn, bare axum, the asset by Host, and the asset by /t/ path.
# wrk sends no Accept-Encoding, so every side sends the identity bytes. The
# table gives each side's median req/s and the ratio of medians.
# SERVER_CPUS, WRK_CPUS, THREADS and PREBUILT work as in benches/hits.sh.
# Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
ASSET_KIB=${ASSET_KIB:-100}
PORT=18291
OUT=benches/RESULTS-http.md
. benches/bare.sh

# The asset: ASSET_KIB KiB of script, named as esbuild names its output.
mkdir -p "$work/public"
asset=lib-3F2A1B4C.js
awk -v n=$((ASSET_KIB * 1024)) 'BEGIN { s = ""; i = 0;
  while (length(s) < n) { s = s sprintf("export const v%d = %d;\n", i, i * 7919); i++ }
  printf "%s", substr(s, 1, n) }' > "$work/public/$asset"
target/release/ssr build -q tests/plugins/visitor.js --assets "$work/public" -o "$work/site.wasm"
curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/site.wasm" \
  "http://127.0.0.1:$PORT/_ssr/admin/tenants/page?host=page.test" >/dev/null
curl -fs -H "Host: page.test" "http://127.0.0.1:$PORT/$asset" | cmp -s - "$work/public/$asset" ||
  { echo "ssr does not serve the asset" >&2; exit 1; }
bytes=$(stat -c %s "$work/public/$asset")

"${server_pin[@]}" target/release/examples/bare_axum "$work/public/$asset" 127.0.0.1:$((PORT + 1)) 2>/dev/null &
sleep 0.5
curl -fs "http://127.0.0.1:$((PORT + 1))/" | cmp -s - "$work/public/$asset" ||
  { echo "bare axum on port $((PORT + 1)) does not serve the asset: is the port taken?" >&2; exit 1; }

b=() h=() p=()
for r in $(seq 1 "$ROUNDS"); do
  b+=("$(rps "http://127.0.0.1:$((PORT + 1))/")")
  h+=("$(rps "http://127.0.0.1:$PORT/$asset" page.test)")
  p+=("$(rps "http://127.0.0.1:$PORT/t/page/$asset")")
  echo "round $r: bare ${b[-1]}, host ${h[-1]}, path ${p[-1]} req/s" >&2
done
mb=$(printf '%s\n' "${b[@]}" | median)
mh=$(printf '%s\n' "${h[@]}" | median)
mp=$(printf '%s\n' "${p[@]}" | median)

section=$(
  echo "## Static assets, $(nproc) cores"
  echo
  echo "Measures serving a static asset packed with \`ssr build --assets\` (no rendering, no page cache), against bare axum serving the same bytes."
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo "Command: \`${SERVER_CPUS:+SERVER_CPUS=$SERVER_CPUS }${WRK_CPUS:+WRK_CPUS=$WRK_CPUS }THREADS=$THREADS CONNS=$CONNS ROUNDS=$ROUNDS SECS=$SECS ASSET_KIB=$ASSET_KIB benches/assets.sh\` (\`wrk -t$THREADS -c$CONNS -d${SECS}s\` after a 1 s warm-up, the three in turn each round); medians of req/s."
  echo
  echo "| asset | bare axum | ssr asset, by Host | ratio | ssr asset, by /t/ path | ratio |"
  echo "|---|---|---|---|---|---|"
  echo "| $ASSET_KIB KiB script ($bytes B) | $mb | $mh | $(ratio "$mh" "$mb") | $mp | $(ratio "$mp" "$mb") |"
  echo
  echo "Every round (req/s): bare ${b[*]}; by host ${h[*]}; by path ${p[*]}"
)
python3 benches/section.py "$OUT" "assets-$(nproc)" "$section"
echo "wrote the static-assets section of $OUT" >&2
