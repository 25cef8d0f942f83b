#!/usr/bin/env bash
# ECMA-402 conformance (issue 34): test262's `test/intl402/` on ssr's two
# engines and on Node, each test a new global (benches/test262/run.mjs
# says how each runtime runs one). On the Wasm engine every Intl call is
# answered by V8 in a worker process (host/src/web/intl.rs), so the two
# ssr columns should match but where V8 14 has a constructor the Wasm
# prelude's Intl does not carry; Node 20's V8 and ICU are older than the
# worker's (Node 26's).
#
# Usage: benches/test262.sh TEST262_DIR
# TEST262_DIR is a test262 checkout, kept outside this repository (the
# tests are third-party code). Its commit is recorded with the results
# (TEST262_COMMIT names it for files taken without their .git).
#
# Writes benches/RESULTS-test262.md and the table in docs/compatibility.md
# (between the `test262:start`/`test262:end` markers).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$(cd "${1:?usage: benches/test262.sh TEST262_DIR (a test262 checkout)}" && pwd)
[ -f "$DIR/harness/assert.js" ] && [ -d "$DIR/test/intl402" ] || { echo "$DIR is not a test262 checkout (no harness/assert.js, test/intl402)" >&2; exit 1; }
RUNTIMES=${RUNTIMES:-ssr-wasm,ssr-v8,node}
PORT=18320
TOKEN=bench-token-0123456789
scripts/setup.sh
. benches/common.sh
cargo build --release
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
commit=${TEST262_COMMIT:-$(git -C "$DIR" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout: set TEST262_COMMIT)")}

serve_harness benches/test262/ssr-harness.js "$PORT" t262 "" \
  --render-deadline 10000 --request-timeout 20000 --max-request-kib 4096

counts=$(RUNTIMES=$RUNTIMES SSR_URL="http://127.0.0.1:$PORT" node benches/test262/run.mjs "$DIR" "$work/results.json")

python3 - "$work/results.json" "$counts" "$commit" "$RUNTIMES" <<'PY'
import json, subprocess, sys, datetime
results, counts, commit, runtimes = json.load(open(sys.argv[1])), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4].split(',')
names = {'ssr-wasm': 'ssr Wasm', 'ssr-v8': 'ssr V8', 'node': 'Node'}
by_dir = counts['byDir']
def pct(n, total): return f"{n} ({100 * n / total:.1f}%)" if total else "0"
rows = ["| directory | tests | " + " | ".join(names[r] for r in runtimes) + " |", "|---|---|" + "---|" * len(runtimes)]
for d, row in sorted(by_dir.items(), key=lambda kv: (kv[0] == 'all', kv[0])):
    label = "**all**" if d == 'all' else f"`{d}`"
    rows.append(f"| {label} | {row['total']} | " + " | ".join(pct(row.get(r, 0), row['total']) for r in runtimes) + " |")
head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
node = subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()
table = "\n".join(rows)
left = ", ".join(f"{n} ({why})" for why, n in sorted(counts['left_out'].items()))
about = (f"{datetime.date.today()}, ssr at `{head}`, test262 at `{commit}`, Node {node}. "
         f"`benches/test262.sh TEST262_DIR`: {len(results['files'])} tests of `test/intl402/` run once each (strict only where flagged), "
         f"left out: {left or 'none'}. A test passes when it completes without an error (or with the error a negative test expects).")
subprocess.run(['python3', 'benches/section.py', 'docs/compatibility.md', 'test262', about + "\n\n" + table], check=True)
# Where the two engines differ, test by test: the point of the comparison.
differ = []
for f, per in sorted(results['files'].items()):
    a, b = per.get('ssr-wasm', {}), per.get('ssr-v8', {})
    if a and b and a.get('status') != b.get('status'):
        why = ' '.join((a.get('message') or b.get('message') or '').split())[:160]
        differ.append(f"- `{f}`: Wasm {a.get('status')}, V8 {b.get('status')}: {why}")
section = about + "\n\n" + table + "\n\n### Where the two engines differ\n\n" + ("\n".join(differ) or "nowhere")
subprocess.run(['python3', 'benches/section.py', 'benches/RESULTS-test262.md', 'test262', section], check=True)
print(table)
print(f"{len(differ)} tests differ between the engines (benches/RESULTS-test262.md)")
PY
