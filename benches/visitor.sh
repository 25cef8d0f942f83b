# Sourced by hits.sh and compress.sh: starts `ssr serve` on $PORT (no demo,
# admin token $TOKEN, log in $work/serve.log) and registers
# tests/plugins/visitor.js as tenant `page` on host page.test. With
# SERVER_CPUS set, the server runs on those cores only (taskset), and
# "${server_pin[@]}" puts another server there.
server_pin=()
[ -n "${SERVER_CPUS:-}" ] && server_pin=(taskset -c "$SERVER_CPUS")
"${server_pin[@]}" target/release/ssr serve --demo=false --listen 127.0.0.1:$PORT --admin-token $TOKEN 2>"$work/serve.log" &
for _ in $(seq 1 120); do
  curl -fs "http://127.0.0.1:$PORT/_ssr/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done
target/release/ssr build -q tests/plugins/visitor.js -o "$work/visitor.wasm"
curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/visitor.wasm" \
  "http://127.0.0.1:$PORT/_ssr/admin/tenants/page?host=page.test" >/dev/null
