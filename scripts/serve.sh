#!/usr/bin/env bash
# The main job (README "Quick start"): a server on 127.0.0.1:8080 serving the
# example plugins as demo tenants (`/t/hello/`, `/t/react/`, or Host
# `react.localhost`...). Arguments go to `ssr serve` (see `ssr serve --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release
exec target/release/ssr serve --demo "$@"
