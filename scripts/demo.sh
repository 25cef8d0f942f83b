#!/usr/bin/env bash
# The main job for now: build every example plugin with `ssr build`, then
# render a page from each with `ssr render` (README "Quick start").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release
mkdir -p target/plugins
for entry in plugins/hello/render.js plugins/react/app.jsx plugins/preact/app.jsx plugins/vue/app.js \
             plugins/handlebars/render.js plugins/liquid/render.js; do
  name=$(basename "$(dirname "$entry")")
  echo "== ssr build $entry -o target/plugins/$name.wasm"
  target/release/ssr build "$entry" -o "target/plugins/$name.wasm"
  echo "== ssr render -i target/plugins/$name.wasm /"
  target/release/ssr render -i "target/plugins/$name.wasm" / | head -c 600
  echo; echo
done
