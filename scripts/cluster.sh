#!/usr/bin/env bash
# A local cluster on loopback, in one command: redis-server, REPLICAS (3)
# `ssr serve` replicas sharing their tenants through it, and nginx in front
# of them. It prints the URLs and stops everything on Ctrl-C.
#
# - nginx balances over the replicas with passive health checks (a replica
#   that fails a request is left out for 2 s) and retries idempotent
#   requests on the next replica on a connection error, a timeout or a
#   502/503/504.
# - Each replica runs under a loop that restarts it when it dies, as
#   systemd's Restart=always would.
# - Redis keeps an append-only file, so a restart of it loses nothing.
#
# Settings (environment): PORT (8080: nginx; replica N on PORT+N, Redis on
# PORT+10), REPLICAS, CLUSTER_DIR (data, logs and pids; a new temporary
# directory by default), SSR (the binary; target/release/ssr, built if
# missing), READY_WAIT (seconds a replica may take to be ready, 60: a
# replica with no compiled code to reuse compiles it first),
# SSR_ADMIN_TOKEN (a random one by default), and any other SSR_*
# setting, which every replica gets. See docs/deploying.md for the same
# layout on real machines.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${PORT:-8080}
replicas=${REPLICAS:-3}
redis_port=$((port + 10))
dir=${CLUSTER_DIR:-$(mktemp -d /tmp/ssr-cluster.XXXXXX)}
dir=$(cd "$(mkdir -p "$dir" && echo "$dir")" && pwd)
ssr=${SSR:-target/release/ssr}
ready_wait=${READY_WAIT:-60}
token=${SSR_ADMIN_TOKEN:-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')}
export SSR_ADMIN_TOKEN=$token

for tool in redis-server nginx curl; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || {
    echo "cluster: $tool is missing; run scripts/setup.sh" >&2
    exit 1
  }
done
nginx=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$ssr" ]; then
  echo "cluster: building ssr" >&2
  cargo build --release -p ssr
fi

stop() {
  trap - INT TERM EXIT
  touch "$dir/stopping"
  [ -e "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
  for n in $(seq 1 "$replicas"); do
    [ -e "$dir/replica-$n.pid" ] && kill "$(cat "$dir/replica-$n.pid")" 2>/dev/null || true
  done
  [ -e "$dir/redis.pid" ] && kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  echo "cluster: stopped (logs in $dir)" >&2
}
trap stop INT TERM EXIT
rm -f "$dir/stopping"

mkdir -p "$dir/redis"
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$dir/redis" \
  --appendonly yes --save "" --pidfile "$dir/redis.pid" >"$dir/redis.log" 2>&1 &
store="redis://127.0.0.1:$redis_port/0"
for _ in $(seq 100); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done

# Runs replica $1, and runs it again whenever it exits, until the cluster
# stops.
supervise() {
  local n=$1
  while [ ! -e "$dir/stopping" ]; do
    "$ssr" serve --listen "127.0.0.1:$((port + n))" --store "$store" \
      --data-dir "$dir/replica-$n" --path-routing >>"$dir/replica-$n.log" 2>&1 &
    echo $! >"$dir/replica-$n.pid"
    wait $! || true
    [ -e "$dir/stopping" ] && return
    echo "cluster: replica $n exited; starting it again" >&2
    sleep 0.5
  done
}
for n in $(seq 1 "$replicas"); do
  supervise "$n" &
done

upstreams=""
for n in $(seq 1 "$replicas"); do
  upstreams+="    server 127.0.0.1:$((port + n)) max_fails=1 fail_timeout=2s;"$'\n'
done
# As root, nginx's workers would run as nobody, who cannot use $dir.
user=""
[ "$(id -u)" -eq 0 ] && user="user root;"
mkdir -p "$dir/nginx"
cat >"$dir/nginx.conf" <<EOF
$user
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/nginx/body;
  proxy_temp_path $dir/nginx/proxy;
  fastcgi_temp_path $dir/nginx/fastcgi;
  uwsgi_temp_path $dir/nginx/uwsgi;
  scgi_temp_path $dir/nginx/scgi;
  # A WebSocket's upgrade goes through; other requests keep their
  # kept-alive upstream connections.
  map \$http_upgrade \$connection_upgrade { default upgrade; '' ''; }
  upstream ssr {
$upstreams    keepalive 64;
  }
  server {
    listen 127.0.0.1:$port;
    # ssr's own bound on a request body (--max-upload-mib).
    client_max_body_size 100m;
    location / {
      proxy_pass http://ssr;
      proxy_http_version 1.1;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      # Past ssr's --websocket-idle (300 s), which closes an idle socket.
      proxy_read_timeout 310s;
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      # Streamed pages go out as they render.
      proxy_buffering off;
      proxy_connect_timeout 1s;
      # Idempotent requests only (nginx never retries POST or PATCH).
      proxy_next_upstream error timeout http_502 http_503 http_504;
      proxy_next_upstream_tries 3;
    }
  }
}
EOF

for n in $(seq 1 "$replicas"); do
  for _ in $(seq $((ready_wait * 10))); do
    curl -fsS "http://127.0.0.1:$((port + n))/_ssr/readyz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fsS "http://127.0.0.1:$((port + n))/_ssr/readyz" >/dev/null || {
    echo "cluster: replica $n was not ready in $ready_wait s; its log:" >&2
    tail -20 "$dir/replica-$n.log" >&2
    exit 1
  }
done
"$nginx" -p "$dir/nginx" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" -g 'daemon off;' &

for _ in $(seq 100); do
  curl -sS -o /dev/null "http://127.0.0.1:$port/_ssr/healthz" 2>/dev/null && break
  sleep 0.1
done
cat <<EOF
cluster up: $replicas replicas sharing $store, behind nginx
  http://127.0.0.1:$port/  nginx (pages: Host header, or /t/<id>/)
$(for n in $(seq 1 "$replicas"); do echo "  http://127.0.0.1:$((port + n))/  replica $n (log: $dir/replica-$n.log)"; done)
  admin token: $token
  register a tenant through any of them, for example:
    $ssr build plugins/hello/render.js -o hello.wasm
    curl -X PUT -H "Authorization: Bearer $token" --data-binary @hello.wasm \\
      "http://127.0.0.1:$port/_ssr/admin/tenants/hello?host=hello.localhost"
    curl http://127.0.0.1:$port/t/hello/
Ctrl-C stops everything.
EOF
wait
