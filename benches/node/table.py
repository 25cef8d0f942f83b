"""The table of Node modules in docs/compatibility.md (between the
`node-modules:start`/`node-modules:end` markers): for each module
`workerd` has (host/src/build/node/workerd.json), how many of its export
names `ssr` implements (host/src/build/node/*.js), how many `workerd`
itself leaves unimplemented (ssr throws the same error), how many are
plain data (as `workerd` has them), and how many ssr does not implement
yet (they throw, naming themselves). Run by benches/node-exports.sh and
benches/node-compat.sh, or by hand: python3 benches/node/table.py
"""
import json, os, re, subprocess

NODE = 'host/src/build/node'
facts = json.load(open(f'{NODE}/workerd.json'))
ours_table = open('host/src/build/node.rs').read()
ours_files = dict(re.findall(r'\(\s*"([^"]+)",\s*include_str!\("node/([^"]+)"\),?\s*\)', ours_table))


def exported(source):
    names = set()
    for m in re.finditer(r'(?m)^export (?:async )?(function\*? |const |let |var |class )?(\{[^}]*\}|[A-Za-z0-9_$]+)', source):
        body = m.group(2)
        if body.startswith('{'):
            for item in body[1:-1].split(','):
                item = item.strip()
                if item:
                    names.add(re.split(r'[ :]', item)[-1])
        elif m.group(1):
            names.add(body)
    return names


rows = ['| module | names on workerd | ssr implements | not implemented on workerd either | data, as workerd has it | not yet in ssr |', '|---|---|---|---|---|---|']
totals = [0, 0, 0, 0, 0]
for name, module in facts['modules'].items():
    ours = exported(open(f'{NODE}/{ours_files[name]}').read()) if name in ours_files else set()
    exports = module['exports']
    implemented = [k for k in exports if k in ours]
    unimplemented_there = [k for k in exports if k not in ours and 'throws' in exports[k]]
    data = [k for k in exports if k not in ours and 'throws' not in exports[k] and exports[k]['kind'] not in ('function', 'class')]
    missing = [k for k in exports if k not in ours and 'throws' not in exports[k] and exports[k]['kind'] in ('function', 'class')]
    counts = [len(exports), len(implemented), len(unimplemented_there), len(data), len(missing)]
    totals = [a + b for a, b in zip(totals, counts)]
    label = f'`node:{name}`' + ('' if module.get('prefix_only') else f', `{name}`')
    shown = ', '.join(f'`{k}`' for k in missing[:12]) + (f' and {len(missing) - 12} more' if len(missing) > 12 else '')
    rows.append(f'| {label} | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} | {counts[4]}{": " + shown if missing else ""} |')
rows.append(f'| **all {len(facts["modules"])}** | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} | {totals[4]} |')
about = (f"What each module gives, counted by export name against {facts['workerd']} with compatibility date "
         f"{facts['compatibility_date']} (`host/src/build/node/workerd.json`, written by `benches/node-exports.sh`). "
         "Every name is there, the same on both engines (`tests/all/node_modules.rs`).")
subprocess.run(['python3', 'benches/section.py', 'docs/compatibility.md', 'node-modules', about + '\n\n' + '\n'.join(rows)], check=True)
print(rows[-1])
