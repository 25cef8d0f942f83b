#!/usr/bin/env bash
# Cranelift settings against each other (issue 19: once the engine is
# compiled once per host, compile time matters less than render time): one
# command rewrites the codegen section of benches/RESULTS-density.md.
#
# For ROUNDS rounds, each variant of `Codegen::VARIANTS` in turn runs
# `cargo bench -p ssr --features bench --bench engine` with SSR_BENCH_CODEGEN=<variant> for hello and
# react: `render_warm` (one render on a warm instance) and `compile` (a
# plugin compiled and prepared, what a registration costs). The table gives
# criterion's median per variant, the median over rounds, and the ratio to
# `default`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-2}
VARIANTS=${VARIANTS:-"default inline eager-tables size unoptimized"}
# The section written: `TAG=split TITLE="Shared code against whole plugins"
# VARIANTS="default whole"` compares a split plugin with one compiled whole.
TAG=${TAG:-codegen}
TITLE=${TITLE:-"Cranelift settings"}
PLUGINS=${PLUGINS:-"hello react"}
OUT=benches/RESULTS-density.md
[ -n "${PREBUILT:-}" ] || scripts/setup.sh
est() { # group variant plugin -> median in us
  python3 -c "import json,sys; print('%.1f' % (json.load(open(sys.argv[1]))['median']['point_estimate'] / 1000))" \
    "target/criterion/$1/wasm-$2/$3/new/estimates.json"
}
declare -A got
for r in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    SSR_BENCH_CODEGEN=$v SSR_BENCH_PLUGINS=$(echo "$PLUGINS" | tr ' ' ,) \
      cargo bench -q -p ssr --features bench --bench engine -- '(render_warm|compile)/wasm-' \
      --warm-up-time 1 --measurement-time 3 >/dev/null 2>&1
    for p in $PLUGINS; do
      for g in render_warm compile; do
        got[$g.$v.$p]="${got[$g.$v.$p]:-} $(est "$g" "$v" "$p")"
      done
    done
    echo "round $r, $v done" >&2
  done
done
median() { # of an even count, the mean of the middle two
  tr ' ' '\n' | sed '/^$/d' | sort -n |
    awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2] + a[NR/2+1]) / 2}'
}
rows=()
for v in $VARIANTS; do
  row="| $v |"
  for p in $PLUGINS; do
    for g in render_warm compile; do
      m=$(echo "${got[$g.$v.$p]}" | median)
      base=$(echo "${got[$g.default.$p]}" | median)
      row+=" $m ($(awk -v a="$m" -v b="$base" 'BEGIN {printf "%.2fx", a / b}')) |"
    done
  done
  rows+=("$row")
done
runs=()
for k in "${!got[@]}"; do runs+=("- $k:${got[$k]}"); done
header="| variant |"
sep="|---|"
for p in $PLUGINS; do header+=" $p warm render (us) | $p compile (us) |"; sep+="---|---|"; done
section=$(
  echo "## $TITLE, $(nproc) cores"
  echo
  echo "Measures a warm Wasm render and loading a plugin (what a registration compiles), per setting: \`default\` (split: the shared code compiled once, then each plugin's state module; opt level speed, no inlining, lazy tables), \`whole\` (each plugin compiled whole, no code shared), \`inline\` (Cranelift inlining), \`eager-tables\` (\`table_lazy_init(false)\`), \`size\` (speed and size), \`unoptimized\` (opt level none)."
  echo "Machine: $(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo "Command: \`ROUNDS=$ROUNDS VARIANTS=\"$VARIANTS\" TAG=$TAG TITLE=\"$TITLE\" benches/codegen.sh\` (each round runs every variant in turn: \`SSR_BENCH_CODEGEN=<variant> cargo bench -p ssr --features bench --bench engine -- '(render_warm|compile)/wasm-' --warm-up-time 1 --measurement-time 3\`); criterion's medians, their median over rounds (of two, the mean), and the ratio to \`default\`."
  echo
  echo "$header"
  echo "$sep"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Every round (us):"
  echo
  printf '%s\n' "${runs[@]}" | sort
)
python3 benches/section.py "$OUT" "$TAG-$(nproc)" "$section"
echo "wrote the $TAG section of $OUT" >&2
