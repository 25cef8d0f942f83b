#!/usr/bin/env python3
"""Conformance as data: a WPT run checked against tests/wpt/<dir>.json.

Usage: expect.py RESULTS_JSON DIRS [--bless]

Each tests/wpt/<dir>.json (one per directory benches/wpt.sh runs, the
WPT path as its file path) lists, per test file, the subtests expected to
fail on each of ssr's engines, each with a one-line reason:

    {"url/historical.any.js": {
        "both": {"searchParams on location object": "a worker has no location here"},
        "wasm": {"...": "..."},
        "v8": {"...": "..."}}}

"harness" as a subtest's name stands for a file that does not run at all.
A failure not listed is unexpected, and so is a listed subtest that passed
(or no longer exists): either exits 1, so a list only shrinks. --bless
writes the lists anew from the run: what still fails keeps its reason, a
new failure gets its message as its reason (to be replaced by a real one).
"""
import json
import os
import sys

ENGINES = {'ssr-wasm': 'wasm', 'ssr-v8': 'v8'}
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'wpt')


def in_dir(test, d):
    return test == d or test.startswith(d.rstrip('/') + '/')


def failures(res):
    """The subtests of one run that did not pass, with their messages."""
    if res.get('harness') not in ('OK', None) and not res.get('tests'):
        return {'harness': ' '.join(f"{res.get('harness')}: {res.get('message') or ''}".split())}
    return {t['name']: ' '.join((t.get('message') or t['status']).split()) for t in res.get('tests', []) if t['status'] != 'PASS'}


def expected(listed, engine):
    """A file's listed subtests for one engine: its own and both's."""
    return {**listed.get('both', {}), **listed.get(engine, {})}


def main():
    results = json.load(open(sys.argv[1]))['files']
    dirs = sys.argv[2].split()
    bless = '--bless' in sys.argv
    bad = []
    for d in dirs:
        path = os.path.join(HERE, d + '.json')
        lists = json.load(open(path)) if os.path.exists(path) else {}
        out = {}
        for test in sorted(t for t in results if in_dir(t, d)):
            per = results[test]
            listed = lists.get(test, {})
            failed = {ENGINES[rt]: failures(res) for rt, res in per.items() if rt in ENGINES}
            for engine, fails in failed.items():
                want = expected(listed, engine)
                for name in fails.keys() - want.keys():
                    bad.append(f"{test} on {engine}: unexpected failure: {name}: {fails[name][:200]}")
                for name in want.keys() - fails.keys():
                    bad.append(f"{test} on {engine}: expected to fail, but passed (take it off {os.path.relpath(path)}): {name}")
            if len(failed) < 2:
                # One engine run: the other keeps its list.
                for engine in ENGINES.values():
                    if engine not in failed:
                        failed[engine] = expected(listed, engine)
            reason = lambda name: next((listed[k][name] for k in ('both', 'wasm', 'v8') if name in listed.get(k, {})), None)
            both = failed['wasm'].keys() & failed['v8'].keys()
            entry = {}
            for key, names in (('both', both), ('wasm', failed['wasm'].keys() - both), ('v8', failed['v8'].keys() - both)):
                if names:
                    entry[key] = {n: reason(n) or failed['wasm' if key == 'both' else key][n][:160] for n in sorted(names)}
            if entry:
                out[test] = entry
        for test in lists.keys() - {t for t in results if in_dir(t, d)}:
            # A file this run did not run (left out, or gone): kept as it was.
            out[test] = lists[test]
        if bless:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                json.dump(dict(sorted(out.items())), f, indent=1, ensure_ascii=False)
                f.write('\n')
    if bless:
        print(f"wpt: {len(dirs)} expectation lists written under tests/wpt/")
        return 0
    for line in bad:
        print(line, file=sys.stderr)
    if bad:
        print(f"wpt: {len(bad)} results differ from tests/wpt/ (a fix: take the subtest off its list; a regression: fix it)", file=sys.stderr)
        return 1
    print(f"wpt: every result as tests/wpt/ expects ({len(dirs)} directories)")
    return 0


if __name__ == '__main__':
    sys.exit(main())
