# Sourced by benches: helpers more than one of them uses.

# Copy $1 of plugin $2 on stdout: a custom section "ssr-density" holding $1
# appended (payload under 128 bytes, so its size is one LEB128 byte), so
# that each copy has its own SHA-256 and is compiled as a new plugin, the
# way distinct sites built by one `ssr` differ in data only.
variant() {
  cat "$2"
  printf '\x00'"\\x$(printf %02x $((12 + ${#1})))"'\x0bssr-density%s' "$1"
}

pct() { # p (0-100) of the numbers on stdin
  sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int((NR*p+99)/100); if (i<1) i=1; print a[i]}'
}

trivial_page() { # file: writes the trivial page, the handler issue 35's
  # figures compare across scripts: `new Response('<p>hi</p>')`
  cat >"$1" <<'JS'
export default { fetch: () => new Response('<p>hi</p>', { headers: { 'content-type': 'text/html' } }) };
JS
}

wait_ready() { # url: waits up to 150 s for it to answer 2xx (/_ssr/readyz: the
  # shared code compiled, which a fresh server does before it is ready)
  for _ in $(seq 1 600); do
    curl -fs "$1" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "not ready at $1" >&2; exit 1
}

wait_for() { # url: waits up to a minute for anything to answer there
  for _ in $(seq 1 240); do
    curl -s "$1" >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  echo "nothing answered at $1" >&2; exit 1
}

# A conformance suite's harness plugin $1 (benches/wpt.sh, test262.sh)
# served on port $2 as tenants $3-wasm and $3-v8, by path, in mode fresh (a
# new global per test), with $4 added to their registration's query and the
# rest as `ssr serve` flags. Needs $work and $TOKEN; ssr logs to
# $work/ssr.log.
serve_harness() {
  local plugin=$1 port=$2 prefix=$3 query=$4
  shift 4
  target/release/ssr build -q "$plugin" -o "$work/$prefix.wasm"
  SSR_ADMIN_TOKEN=$TOKEN target/release/ssr serve --listen "127.0.0.1:$port" --demo=false --path-routing \
    "$@" 2>"$work/ssr.log" &
  wait_for "http://127.0.0.1:$port/_ssr/healthz"
  for engine in wasm v8; do
    curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/$prefix.wasm" \
      "http://127.0.0.1:$port/_ssr/admin/tenants/$prefix-$engine?engine=$engine&mode=fresh$query" >/dev/null
  done
}
