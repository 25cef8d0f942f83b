#!/usr/bin/env bash
# ECMAScript and ECMA-402 conformance (issues 34 and 58): one of test262's
# suites on ssr's two engines and on Node, each test a new global
# (benches/test262/run.mjs says how each runtime runs one). On the Wasm
# engine every Intl call is answered by V8 in a worker process
# (host/src/web/intl.rs), so in `intl402` the two ssr columns match but
# where V8 14 has a constructor the Wasm prelude's Intl does not carry; in
# `built-ins`, `language` and `annexB` they are QuickJS-ng's and V8 14's
# language conformance side by side. Node (the `node` on PATH) is the
# reference column.
#
# Usage: benches/test262.sh TEST262_DIR [SUITE]
# SUITE is `intl402` (the default), `built-ins`, `language` or `annexB`.
# TEST262_DIR is a test262 checkout, kept outside this repository (the
# tests are third-party code). Its commit is recorded with the results
# (TEST262_COMMIT names it for files taken without their .git).
#
# Writes the suite's section of benches/RESULTS-test262.md and its table in
# docs/compatibility.md (between the `test262[-SUITE]:start`/`:end`
# markers; `intl402`'s tag is plain `test262`).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$(cd "${1:?usage: benches/test262.sh TEST262_DIR (a test262 checkout)}" && pwd)
SUITE=${2:-intl402}
case $SUITE in intl402|built-ins|language|annexB) ;; *) echo "unknown suite $SUITE: give intl402, built-ins, language or annexB" >&2; exit 1;; esac
[ -f "$DIR/harness/assert.js" ] && [ -d "$DIR/test/$SUITE" ] || { echo "$DIR is not a test262 checkout (no harness/assert.js, test/$SUITE)" >&2; exit 1; }
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

counts=$(RUNTIMES=$RUNTIMES SSR_URL="http://127.0.0.1:$PORT" node benches/test262/run.mjs "$DIR" "$SUITE" "$work/results.json")

python3 - "$work/results.json" "$counts" "$commit" "$RUNTIMES" "$SUITE" <<'PY'
import json, subprocess, sys, datetime, collections
results, counts, commit, runtimes, suite = json.load(open(sys.argv[1])), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4].split(','), sys.argv[5]
tag = 'test262' if suite == 'intl402' else f'test262-{suite}'
names = {'ssr-wasm': 'ssr Wasm', 'ssr-v8': 'ssr V8', 'node': 'Node'}
by_dir = counts['byDir']
def pct(n, total): return f"{n} ({100 * n / total:.1f}%)" if total else "0"
def table_of(dirs):
    rows = ["| directory | tests | " + " | ".join(names[r] for r in runtimes) + " |", "|---|---|" + "---|" * len(runtimes)]
    for d in dirs:
        row = by_dir[d]
        label = "**all**" if d == 'all' else f"`{d}`"
        rows.append(f"| {label} | {row['total']} | " + " | ".join(pct(row.get(r, 0), row['total']) for r in runtimes) + " |")
    return "\n".join(rows)
every = sorted(by_dir, key=lambda d: (d == 'all', d))
# docs/compatibility.md: every directory of intl402; of the larger suites,
# the fifteen where the two engines differ most, and the total.
gap = lambda d: -abs(by_dir[d].get('ssr-wasm', 0) - by_dir[d].get('ssr-v8', 0))
widest = sorted((d for d in by_dir if d != 'all' and gap(d)), key=lambda d: (gap(d), d))[:15]
short = every if suite == 'intl402' else sorted(widest) + ['all']
head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
node = subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()
left = ", ".join(f"{n} ({why})" for why, n in sorted(counts['left_out'].items()))
args = '' if suite == 'intl402' else f' {suite}'
about = (f"{datetime.date.today()}, ssr at `{head}`, test262 at `{commit}`, Node {node}. "
         f"`benches/test262.sh TEST262_DIR{args}`: {len(results['files'])} tests of `test/{suite}/` run once each (strict only where flagged), "
         f"left out: {left or 'none'}. A test passes when it completes without an error (or with the error a negative test expects).")
shown = '' if short == every else " The directories where the engines differ most; every directory is in benches/RESULTS-test262.md."
subprocess.run(['python3', 'benches/section.py', 'docs/compatibility.md', tag, about + shown + "\n\n" + table_of(short)], check=True)
# Where the two engines differ: the point of the comparison. Test by test
# for intl402; for the larger suites, by the test's `features` (or its
# directory where it names none).
differ, by_feature = [], collections.Counter()
for f, per in sorted(results['files'].items()):
    a, b = per.get('ssr-wasm', {}), per.get('ssr-v8', {})
    if a and b and a.get('status') != b.get('status'):
        why = ' '.join((a.get('message') or b.get('message') or '').split())[:160]
        differ.append(f"- `{f}`: Wasm {a.get('status')}, V8 {b.get('status')}: {why}")
        side = 'only V8 passes' if b.get('status') == 'PASS' else 'only Wasm passes'
        for feature in per.get('features') or [f"({f.split('/')[0]})"]:
            by_feature[(feature, side)] += 1
if suite == 'intl402' or not differ:
    listing = "\n".join(differ) or "nowhere"
else:
    features = sorted({k for k, _ in by_feature}, key=lambda k: (-by_feature[(k, 'only V8 passes')] - by_feature[(k, 'only Wasm passes')], k))
    listing = (f"{len(differ)} tests, counted by the features each names (a test may name several; a directory in parentheses where it names none):\n\n"
               "| feature | only V8 passes | only Wasm passes |\n|---|---|---|\n"
               + "\n".join(f"| `{k}` | {by_feature[(k, 'only V8 passes')]} | {by_feature[(k, 'only Wasm passes')]} |" for k in features))
section = about + "\n\n" + table_of(every) + "\n\n### Where the two engines differ\n\n" + listing
subprocess.run(['python3', 'benches/section.py', 'benches/RESULTS-test262.md', tag, section], check=True)
print(table_of(short))
print(f"{len(differ)} tests differ between the engines (benches/RESULTS-test262.md)")
PY
