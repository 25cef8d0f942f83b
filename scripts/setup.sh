#!/usr/bin/env bash
# Installs what building and testing ssr needs on a fresh Debian 12 machine,
# and does nothing for the parts already there:
# - Debian's clang-16, lld-16, llvm-16, libclang-16-dev and wasi-libc (the
#   guest runtime's QuickJS is C, compiled to wasm32-wasip1 with them);
# - the Rust target wasm32-wasip1;
# - the example plugins' npm packages (esbuild, React, Preact, Vue, ...).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(clang-16 lld-16 llvm-16 libclang-16-dev wasi-libc)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! rustup target list --installed | grep -qx wasm32-wasip1; then
  echo "setup: adding the wasm32-wasip1 Rust target" >&2
  rustup target add wasm32-wasip1
fi

command -v node >/dev/null || { echo "setup: Node.js 18+ and npm are needed (apt-get install nodejs npm)" >&2; exit 1; }
if [ ! -x plugins/node_modules/.bin/esbuild ] || [ plugins/package-lock.json -nt plugins/node_modules/.package-lock.json ]; then
  echo "setup: installing the example plugins' npm packages" >&2
  (cd plugins && npm ci --no-audit --no-fund --loglevel=error)
fi
