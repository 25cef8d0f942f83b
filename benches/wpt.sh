#!/usr/bin/env bash
# Web-platform conformance (issue 34): the Web Platform Tests' `.any.js`
# files of the directories below, on ssr's two engines, on Node and on
# Cloudflare's workerd (tests/peers), each test a new global
# (benches/wpt/run.mjs says how each runtime runs one).
#
# Usage: benches/wpt.sh WPT_DIR
# WPT_DIR is a WPT checkout, kept outside this repository (the tests are
# third-party code): the upstream repository, or its mirror felipeerias/wpt.
# Its commit is recorded with the results (WPT_COMMIT names it for files
# taken without their .git). RUNTIMES picks runtimes
# (default: ssr-wasm,ssr-v8,node,workerd); DIRS the directories;
# RESULTS_JSON, if set, is where every subtest's result is kept.
#
# A test has 25 s of wall-clock time on every runtime (20 s of CPU on
# ssr): a subtest that has not finished by then counts as failed, and
# the ones that have keep their results.
#
# Writes benches/RESULTS-wpt.md (the pass counts per directory, the
# commit, what was left out and why) and the table in
# docs/compatibility.md (between the `wpt:start`/`wpt:end` markers);
# WRITE_RESULTS=0 leaves both as they are.
#
# Then checks ssr's results against tests/wpt/<dir>.json, the subtests
# expected to fail on each engine (benches/wpt/expect.py): an unexpected
# failure, or a listed subtest that passed, exits 1, so the lists only
# shrink. BLESS=1 writes the lists anew from this run instead.
set -euo pipefail
cd "$(dirname "$0")/.."
WPT_DIR=$(cd "${1:?usage: benches/wpt.sh WPT_DIR (a Web Platform Tests checkout)}" && pwd)
[ -f "$WPT_DIR/resources/testharness.js" ] || { echo "$WPT_DIR is not a WPT checkout (no resources/testharness.js)" >&2; exit 1; }
RUNTIMES=${RUNTIMES:-ssr-wasm,ssr-v8,node,workerd}
DIRS=${DIRS:-"url encoding fetch/api/headers fetch/api/request fetch/api/response fetch/api/body streams dom/abort dom/events FileAPI/blob html/webappapis/atob html/webappapis/structured-clone html/webappapis/timers html/webappapis/microtask-queuing webidl WebCryptoAPI compression"}
PORT=18310
TOKEN=bench-token-0123456789
scripts/setup.sh
. benches/common.sh
cargo build --release
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
commit=${WPT_COMMIT:-$(git -C "$WPT_DIR" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout: set WPT_COMMIT)")}

serve_harness benches/wpt/ssr-harness.js "$PORT" wpt "&allow_fetch=http://127.0.0.1:18311" \
  --render-deadline 20000 --request-timeout 30000 --max-request-kib 16384 \
  --max-subrequests 1000 --max-response-kib 65536

# shellcheck disable=SC2086
counts=$(RUNTIMES=$RUNTIMES SSR_URL="http://127.0.0.1:$PORT" WPT_PORT=18311 \
  WORKERD="$PWD/tests/peers/node_modules/.bin/workerd" \
  node benches/wpt/run.mjs "$WPT_DIR" "$work/results.json" $DIRS)
[ -z "${RESULTS_JSON:-}" ] || cp "$work/results.json" "$RESULTS_JSON"

check=0
if [[ ",$RUNTIMES," == *,ssr-* ]]; then
  if [ "${BLESS:-0}" = 1 ]; then
    python3 benches/wpt/expect.py "$work/results.json" "$DIRS" --bless
  fi
  python3 benches/wpt/expect.py "$work/results.json" "$DIRS" || check=$?
fi
[ "${WRITE_RESULTS:-1}" = 1 ] || exit "$check"

python3 - "$work/results.json" "$counts" "$commit" "$RUNTIMES" "${MERGE:-0}" "$DIRS" <<'PY'
import json, re, subprocess, sys, datetime
results, counts, commit, runtimes = json.load(open(sys.argv[1])), json.loads(sys.argv[2]), sys.argv[3], sys.argv[4].split(',')
run_dirs = sys.argv[6].split()
def in_run(f): return any(f == d or f.startswith(d.rstrip('/') + '/') for d in run_dirs)
left_out = dict(results['left_out'])
names = {'ssr-wasm': 'ssr Wasm', 'ssr-v8': 'ssr V8', 'node': 'Node', 'workerd': 'workerd'}
carried = ""
this_run = runtimes
carried_failing = []
if sys.argv[5] == '1':
    # MERGE=1: the runtimes and directories this run left out keep the
    # counts of the table already in benches/RESULTS-wpt.md.
    text = open('benches/RESULTS-wpt.md').read()
    section = text.split('<!-- wpt:start -->')[1].split('<!-- wpt:end -->')[0]
    lines = [l for l in section.splitlines() if l.startswith('| ')]
    columns = [c.strip() for c in lines[0].strip('|').split('|')][2:]
    by_name = {v: k for k, v in names.items()}
    # What this run did not run again stays listed: the files the carried
    # runtimes, or the carried directories, could not run or left out.
    listed = lambda name: [l for l in text.split(name)[1].split('###')[0].split('<!-- wpt:end -->')[0].splitlines() if l.startswith('- `')]
    file_of = lambda l: re.match(r'- `([^`]*)`', l).group(1)
    carried_failing = [l for l in listed('### Files a runtime could not run at all')
                       if not in_run(file_of(l)) or not any(f" on {names[r]}:" in l for r in this_run)]
    for l in listed('### Left out, and why'):
        if not in_run(file_of(l)):
            left_out[file_of(l)] = l.split('`: ', 1)[1]
    merged = {}
    for line in lines[1:]:
        cells = [c.strip() for c in line.strip('|').split('|')]
        d = cells[0].replace('`', '').replace('/ (tentative)', ' (tentative)').strip('*').rstrip('/')
        if d not in ('all', 'all but tentative'):
            merged[d] = {'total': int(cells[1]), **{by_name[c]: int(v.split()[0]) for c, v in zip(columns, cells[2:])}}
    for d, row in counts.items():
        if d not in ('all', 'all but tentative'):
            # A directory's subtests are the most any runtime ran.
            total = max(merged.get(d, {}).get('total', 0), row['total'])
            merged.setdefault(d, {}).update(row, total=total)
    runtimes = [r for r in names if r in runtimes or r in {by_name[c] for c in columns}]
    counts = dict(merged)
    counts['all'] = {k: sum(row.get(k, 0) for row in merged.values()) for k in ['total'] + runtimes}
    carried = (" Merged (`MERGE=1`) into the table before it: this run's runtimes and directories are new, the rest are carried from that run, "
               "whose line was: " + section.strip().splitlines()[0].split('`benches/wpt.sh WPT_DIR`')[0].strip())
standard = {d: row for d, row in counts.items() if d != 'all' and not d.endswith(' (tentative)')}
if len(standard) < len(counts) - 1:
    counts['all but tentative'] = {k: sum(row.get(k, 0) for row in standard.values()) for k in ['total'] + runtimes}
def pct(n, total): return f"{n} ({100 * n / total:.1f}%)" if total else "0"
rows = ["| directory | subtests | " + " | ".join(names[r] for r in runtimes) + " |", "|---|---|" + "---|" * len(runtimes)]
for d, row in sorted(counts.items(), key=lambda kv: (kv[0].startswith('all'), kv[0])):
    if d.startswith('all'):
        label = f"**{d}**"
    elif d.endswith(' (tentative)'):
        label = f"`{d[:-len(' (tentative)')]}/` (tentative)"
    else:
        label = f"`{d}/`"
    rows.append(f"| {label} | {row['total']} | " + " | ".join(pct(row.get(r, 0), row['total']) for r in runtimes) + " |")
head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
if subprocess.run(['git', 'status', '--porcelain', 'host', 'wit', 'guest-sdk'], capture_output=True, text=True).stdout.strip():
    head += "` with uncommitted changes to `host/`, `wit/` or `guest-sdk/"
node = subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()
table = "\n".join(rows)
about = (f"{datetime.date.today()}, ssr at `{head}`, WPT at `{commit}`, Node {node}, workerd from `tests/peers`. "
         f"`benches/wpt.sh WPT_DIR`: {len(results['files'])} files run, {len(left_out)} left out (listed in benches/RESULTS-wpt.md). "
         "A subtest passes when its harness status is PASS; a file a runtime could not start counts all its subtests as failed, and one that did not complete in 25 s keeps the subtests that finished. "
         "A file with variants (`// META: variant=`) runs once per variant, each counted as a file; tentative tests (`.tentative.`: proposals, not yet the standard) are counted in rows of their own." + carried)
subprocess.run(['python3', 'benches/section.py', 'docs/compatibility.md', 'wpt', about + "\n\n" + table], check=True)
left = "\n".join(f"- `{f}`: {why}" for f, why in sorted(left_out.items()))
failing = []
for f, per in sorted(results['files'].items()):
    for r in runtimes:
        res = per.get(r, {})
        if res.get('harness') not in ('OK', None) and not res.get('tests'):
            why = ' '.join((res.get('message') or '').split())[:160]
            failing.append(f"- `{f}` on {names[r]}: {res.get('harness')}: {why}")
failing = sorted(failing + carried_failing)
section = about + "\n\n" + table + "\n\n### Left out, and why\n\n" + (left or "none") + "\n\n### Files a runtime could not run at all\n\n" + ("\n".join(failing) or "none")
subprocess.run(['python3', 'benches/section.py', 'benches/RESULTS-wpt.md', 'wpt', section], check=True)
print(table)
PY
exit "$check"
