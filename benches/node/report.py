"""Writes benches/node-compat.sh's results: per test module, the tests
passing on workerd and on ssr's two engines, into
benches/RESULTS-node-compat.md (with each test ssr fails where workerd
passes, and what was left out) and docs/compatibility.md (the table).

Usage: report.py RESULTS_JSON WORKERD_COMMIT WORKERD_VERSION
"""
import datetime, json, subprocess, sys

results, commit, version = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
runtimes = ['workerd', 'ssr-wasm', 'ssr-v8']
names = {'workerd': 'workerd', 'ssr-wasm': 'ssr Wasm', 'ssr-v8': 'ssr V8'}


def passed(row, r):
    return sum(v == 'pass' for v in (row[r]['tests'] or {}).values())


rows = ['| test module | tests | ' + ' | '.join(names[r] for r in runtimes) + ' |', '|---|---|' + '---|' * len(runtimes)]
total = {r: 0 for r in runtimes}
total_tests = 0
level = 0
failing = []
for f, row in sorted(results['files'].items()):
    tests = max(len(row[r]['tests'] or {}) for r in runtimes)
    total_tests += tests
    counts = {r: passed(row, r) for r in runtimes}
    for r in runtimes:
        total[r] += counts[r]
    if all(counts[r] >= counts['workerd'] for r in runtimes[1:]):
        level += 1
    rows.append(f'| `{f}` | {tests} | ' + ' | '.join(str(counts[r]) for r in runtimes) + ' |')
    theirs = row['workerd']['tests'] or {}
    for r in runtimes[1:]:
        ours = row[r]['tests']
        if ours is None:
            failing.append(f'- `{f}` on {names[r]}: {row[r]["error"]}')
            continue
        for t, outcome in sorted(ours.items()):
            if outcome != 'pass' and theirs.get(t) == 'pass':
                first = outcome[len("fail: "):].split('\n')[0][:160]
                failing.append(f'- `{f}` `{t}` on {names[r]}: {first}')
rows.append(f'| **all** | {total_tests} | ' + ' | '.join(f'**{total[r]}**' for r in runtimes) + ' |')
head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
if subprocess.run(['git', 'status', '--porcelain', 'host', 'wit', 'guest-sdk'], capture_output=True, text=True).stdout.strip():
    head += '` with uncommitted changes to `host/`, `wit/` or `guest-sdk/'
about = (f"{datetime.date.today()}, ssr at `{head}`, workerd's tests at `{commit}`, {version} from `tests/peers`. "
         f"`benches/node-compat.sh WORKERD_DIR`: {len(results['files'])} test modules of `src/workerd/api/node/tests/` run, "
         f"{len(results['left_out'])} left out (listed in benches/RESULTS-node-compat.md). Each module's exported tests run one after another "
         "in one request (benches/node/harness.js), on each runtime alike (on ssr with a memory cap of 1 GiB, and where that request "
         "dies as a whole, each test in a request of its own); a test passes when it returns without an error. "
         f"Modules at workerd's count on both engines: {level} of {len(results['files'])}.")
table = '\n'.join(rows)
subprocess.run(['python3', 'benches/section.py', 'docs/compatibility.md', 'node-compat', about + '\n\n' + table], check=True)
left = '\n'.join(f'- `{f}`: {why}' for f, why in sorted(results['left_out'].items()))
section = (about + '\n\n' + table + '\n\n### Tests ssr fails where workerd passes\n\n' + ('\n'.join(failing) or 'none')
           + '\n\n### Left out, and why\n\n' + (left or 'none'))
subprocess.run(['python3', 'benches/section.py', 'benches/RESULTS-node-compat.md', 'node-compat', section], check=True)
print(table)
