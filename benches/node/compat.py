"""workerd's own Node-compatibility tests on ssr and on workerd
(benches/node-compat.sh): each test module of WORKERD_DIR's
src/workerd/api/node/tests/ whose .wd-test config is one worker of one
module, run by benches/node/harness.js on ssr's two engines (`ssr build`,
then `ssr render`) and on workerd (tests/peers), with the config's
compatibility flags. The rest are left out, each with its reason.

Usage: compat.py WORKERD_DIR SSR ESBUILD_PATH WORKERD OUT_JSON
"""
import json, os, re, shutil, socket, subprocess, sys, tempfile, time

workerd_dir, ssr, path_env, workerd, out_json = sys.argv[1:6]
tests_dir = os.path.join(workerd_dir, 'src/workerd/api/node/tests')
harness = open(os.path.join(os.path.dirname(__file__), 'harness.js')).read()
only = set(filter(None, os.environ.get('ONLY', '').split(',')))


def config_of(wd_test):
    """The test's module and flags, or why it is left out."""
    text = open(wd_test).read()
    modules = re.findall(r'esModule\s*=\s*embed\s*"([^"]+)"', text)
    if text.count('worker = (') + text.count('worker=(') != 1:
        return None, 'more than one worker (a sidecar or a second service)'
    if len(modules) != 1 or re.search(r'(commonJsModule|text|data|wasm|json|pythonModule)\s*=\s*embed', text):
        return None, 'more than one module'
    if re.search(r'bindings\s*=\s*\[\s*\(', text):
        if re.search(r'service\s*=', text):
            return None, 'needs a service binding (to itself or a sidecar)'
        return None, "needs text bindings named as files (`rsa_private.pem`), which ssr's env names refuse"
    if 'durableObjectNamespaces' in text or 'external' in text or 'disk' in text:
        return None, "needs workerd's Durable Objects, an external service or disk"
    flags = re.findall(r'"([a-z0-9_]+)"', (re.search(r'compatibilityFlags\s*=\s*\[([^\]]*)\]', text) or [None, ''])[1])
    date = (re.search(r'compatibilityDate\s*=\s*"([^"]+)"', text) or [None, '2026-11-01'])[1]
    return {'module': modules[0], 'flags': flags, 'date': date}, None


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run_workerd(work, cfg):
    port = free_port()
    flags = ', '.join(f'"{f}"' for f in cfg['flags'] if f != 'experimental')
    with open(os.path.join(work, 'config.capnp'), 'w') as f:
        f.write(f'''using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (
    modules = [(name = "harness.js", esModule = embed "harness.js"), (name = "test.js", esModule = embed "test.js")],
    compatibilityDate = "{cfg['date']}",
    compatibilityFlags = [{flags}{', ' if flags else ''}"experimental"],
  ))],
  sockets = [(name = "http", address = "127.0.0.1:{port}", http = (), service = "main")],
);
''')
    proc = subprocess.Popen([workerd, 'serve', '--experimental', 'config.capnp'], cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            try:
                socket.create_connection(('127.0.0.1', port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None:
                    return None, proc.stderr.read().decode(errors='replace')[-300:]
                time.sleep(0.1)
        r = subprocess.run(['curl', '-s', '-m', '660', f'http://127.0.0.1:{port}/'], capture_output=True)
        try:
            return json.loads(r.stdout), None
        except ValueError:
            return None, (r.stdout.decode(errors='replace') or 'no answer')[-300:]
    finally:
        proc.kill()
        proc.wait()


def render(plugin, engine, path):
    # workerd sets no memory limit of its own (its 128 MB is the production
    # isolate's): ssr is given 1 GiB, so that a test that allocates 128 MiB
    # (buffer-nodejs-test's transcode) is measured, not cut.
    r = subprocess.run([ssr, 'render', plugin, path, '--engine', engine, '--timeout-ms', '600000', '--memory-limit-mib', '1024'],
                       capture_output=True, timeout=660)
    try:
        return json.loads(r.stdout), None
    except ValueError:
        return None, ' '.join(r.stderr.decode(errors='replace').split())[-300:]


def run_ssr(plugin, engine, names):
    """The module's tests in one render; where that render dies as a whole
    (a test ran the instance out of memory), each test in one of its own,
    so that the test that died fails alone."""
    tests, error = render(plugin, engine, '/')
    if tests is not None or not names:
        return tests, error
    tests = {}
    for name in names:
        one, why = render(plugin, engine, f'/?only={name}')
        tests[name] = (one or {}).get(name) or f'fail: {why}'
    return tests, None


results = {'files': {}, 'left_out': {}}
for name in sorted(os.listdir(tests_dir)):
    if not name.endswith('.wd-test'):
        continue
    base = name[:-len('.wd-test')]
    if only and base not in only:
        continue
    cfg, why = config_of(os.path.join(tests_dir, name))
    if cfg is None:
        results['left_out'][base] = why
        continue
    work = tempfile.mkdtemp(prefix='node-compat-')
    try:
        shutil.copy(os.path.join(tests_dir, cfg['module']), os.path.join(work, 'test.js'))
        with open(os.path.join(work, 'harness.js'), 'w') as f:
            f.write(harness)
        with open(os.path.join(work, 'wrangler.json'), 'w') as f:
            json.dump({'name': base, 'main': 'harness.js', 'compatibility_date': cfg['date'],
                       'compatibility_flags': [x for x in cfg['flags'] if x != 'experimental']}, f)
        row = {}
        row['workerd'] = dict(zip(('tests', 'error'), run_workerd(work, cfg)))
        plugin = os.path.join(work, 'test.wasm')
        built = subprocess.run([ssr, 'build', '-q', '-o', plugin], cwd=work, capture_output=True,
                               env={**os.environ, 'PATH': path_env})
        for engine in ('wasm', 'v8'):
            if built.returncode != 0:
                row[f'ssr-{engine}'] = {'tests': None, 'error': 'build: ' + ' '.join(built.stderr.decode(errors='replace').split())[:300]}
            else:
                names = sorted((row['workerd']['tests'] or {}).keys())
                row[f'ssr-{engine}'] = dict(zip(('tests', 'error'), run_ssr(plugin, engine, names)))
        results['files'][base] = row
        counts = {k: sum(v == 'pass' for v in (r['tests'] or {}).values()) for k, r in row.items()}
        print(f"{base}: {counts}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
json.dump(results, open(out_json, 'w'), indent=1, sort_keys=True)
