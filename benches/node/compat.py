"""workerd's own Node-compatibility tests on ssr and on workerd
(benches/node-compat.sh): each test module of WORKERD_DIR's
src/workerd/api/node/tests/ whose .wd-test config is one worker of one
module, run by benches/node/harness.js on ssr's two engines (`ssr build`,
then `ssr render`) and on workerd (tests/peers), with the config's
compatibility flags. A module whose BUILD.bazel names a sidecar (a Node
TCP or HTTP server its tests talk to) gets it, as workerd's own runner
gives it: started with Node (`NODE`, else `node` on ESBUILD_PATH) for each
runtime afresh, its ports as the config's `fromEnvironment` bindings (on
ssr: vars, each port granted as `tcp://` and `http://`); its text bindings
of fixture files (PEM keys) as JSON in vars NODE_COMPAT_TEXTS_0, _1...,
which the harness spreads into the test's env (their names, like
`rsa_private.pem`, are not names ssr takes for vars, and a var holds at
most 16 KiB). A service binding to the worker itself (`service = "<its
own name>"`, or to one of its entrypoints) is one to the app itself on ssr (`services` of its wrangler
config; `ssr render` renders it on a fresh instance) and to the one
service on workerd: the harness answers its own path, `/__node_compat`,
and hands every other request to the test module's default export. The
rest are left out, each with its reason.

Usage: compat.py WORKERD_DIR SSR ESBUILD_PATH WORKERD OUT_JSON
"""
import json, os, re, shutil, socket, subprocess, sys, tempfile, threading, time

workerd_dir, ssr, path_env, workerd, out_json = sys.argv[1:6]
tests_dir = os.path.join(workerd_dir, 'src/workerd/api/node/tests')
harness = open(os.path.join(os.path.dirname(__file__), 'harness.js')).read()
only = set(filter(None, os.environ.get('ONLY', '').split(',')))


def sidecars():
    """The sidecar of each test that has one, by test: its entry file and
    the port names it reports, from the tests' BUILD.bazel."""
    text = open(os.path.join(tests_dir, 'BUILD.bazel')).read()
    entries = dict(re.findall(r'js_binary\(\s*name = "([^"]+)",\s*entry_point = "([^"]+)"', text))
    out = {}
    for body in re.findall(r'wd_test\((.*?)\n\)', text, re.S):
        src = re.search(r'src = "([^"]+)\.wd-test"', body)
        side = re.search(r'sidecar = "([^"]+)"', body)
        ports = re.search(r'sidecar_port_bindings = \[(.*?)\]', body, re.S)
        if src and side and ports and side.group(1) in entries:
            out[src.group(1)] = {'entry': entries[side.group(1)], 'ports': re.findall(r'"([A-Z0-9_]+)"', ports.group(1))}
    return out


SIDECARS = sidecars()


def config_of(wd_test, base):
    """The test's module, flags and sidecar, or why it is left out."""
    text = open(wd_test).read()
    modules = re.findall(r'esModule\s*=\s*embed\s*"([^"]+)"', text)
    if text.count('worker = (') + text.count('worker=(') != 1:
        return None, 'more than one worker (a sidecar or a second service)'
    # Text bindings of fixture files (PEM keys): the app's vars on ssr.
    texts = dict(re.findall(r'\(\s*name\s*=\s*"([^"]+)",\s*text\s*=\s*embed\s*"([^"]+)"\s*\)', text))
    rest = re.sub(r'\(\s*name\s*=\s*"[^"]+",\s*text\s*=\s*embed\s*"[^"]+"\s*\),?', '', text)
    if len(modules) != 1 or re.search(r'(commonJsModule|text|data|wasm|json|pythonModule)\s*=\s*embed', rest):
        return None, 'more than one module'
    sidecar = None
    # Service bindings to the worker itself: kept apart from the others.
    own = re.search(r'services\s*=\s*\[\s*\(\s*name\s*=\s*"([^"]+)"', text).group(1)
    # `service = "<own>"`, or `service = (name = "<own>", entrypoint = "X")`.
    to_itself = (r'\(\s*name\s*=\s*"([^"]+)",\s*service\s*=\s*(?:"' + re.escape(own) + r'"|\(\s*name\s*=\s*"'
                 + re.escape(own) + r'",\s*entrypoint\s*=\s*"([^"]+)"\s*\))\s*\),?')
    itself = re.findall(to_itself, rest)
    rest = re.sub(to_itself, '', rest)
    if re.search(r'bindings\s*=\s*\[\s*\(', rest):
        if re.search(r'service\s*=', rest):
            return None, 'needs a service binding to a sidecar or to a named entrypoint'
        if 'trustedCertificates' in text:
            return None, "its sidecar's TLS certificate is signed by a private CA that workerd is told to trust; ssr's TLS trusts the Mozilla roots only"
        sidecar = SIDECARS.get(base)
        names = re.findall(r'name\s*=\s*"([^"]+)",\s*fromEnvironment', text)
        if sidecar is None or len(names) != len(re.findall(r'\(\s*name\s*=', rest.split('bindings', 1)[1].split(']', 1)[0])):
            return None, 'needs bindings other than its sidecar\'s ports'
    if 'durableObjectNamespaces' in text or 'external' in text or 'disk' in text:
        return None, "needs workerd's Durable Objects, an external service or disk"
    flags = re.findall(r'"([a-z0-9_]+)"', (re.search(r'compatibilityFlags\s*=\s*\[([^\]]*)\]', text) or [None, ''])[1])
    date = (re.search(r'compatibilityDate\s*=\s*"([^"]+)"', text) or [None, '2026-11-01'])[1]
    texts = {k: open(os.path.join(os.path.dirname(wd_test), v)).read() for k, v in texts.items()}
    return {'module': modules[0], 'flags': flags, 'date': date, 'sidecar': sidecar, 'texts': texts, 'itself': itself}, None


NODE = os.environ.get('NODE') or shutil.which('node', path=path_env)


def start_sidecar(sidecar):
    """Starts the sidecar: its process, and its bindings (the host name and
    each port it reported), or (None, why); (None, {}) for a module without
    one."""
    if sidecar is None:
        return None, {}
    env = {**os.environ, 'SIDECAR_HOSTNAME': '127.0.0.1'}
    proc = subprocess.Popen([NODE, os.path.join(tests_dir, sidecar['entry'])], cwd=tests_dir, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bound = {'SIDECAR_HOSTNAME': '127.0.0.1'}
    until = time.time() + 20
    while any(p not in bound for p in sidecar['ports']) and time.time() < until:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.match(r'([A-Z0-9_]+)=(\d+)$', line.strip())
        if m:
            bound[m.group(1)] = m.group(2)
    # Drained from here on, so that its logging never blocks it.
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    if any(p not in bound for p in sidecar['ports']):
        proc.kill()
        return None, 'the sidecar did not report its ports'
    # workerd's runner connects to each port once to see it is up (a
    # sidecar counts on that first connection).
    for p in sidecar['ports']:
        try:
            socket.create_connection(('127.0.0.1', int(bound[p])), timeout=2).close()
        except OSError:
            pass
    return proc, bound


def stop(proc):
    if proc is not None:
        proc.kill()
        proc.wait()


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def texts_vars(texts):
    """The text bindings as ssr vars (see the header)."""
    text = json.dumps(texts) if texts else ''
    return {f'NODE_COMPAT_TEXTS_{i // 12000}': text[i:i + 12000] for i in range(0, len(text), 12000)}


def run_workerd(work, cfg, bound):
    port = free_port()
    flags = ', '.join(f'"{f}"' for f in cfg['flags'] if f != 'experimental')
    bindings = [f'(name = "{k}", text = "{v}")' for k, v in bound.items()]
    bindings += [f'(name = "{k}", service = "main")' if not entry else f'(name = "{k}", service = (name = "main", entrypoint = "{entry}"))'
                 for k, entry in cfg['itself']]
    for i, (k, v) in enumerate(cfg['texts'].items()):
        with open(os.path.join(work, f'text{i}'), 'w') as f:
            f.write(v)
        bindings.append(f'(name = "{k}", text = embed "text{i}")')
    bindings = ', '.join(bindings)
    with open(os.path.join(work, 'config.capnp'), 'w') as f:
        f.write(f'''using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (
    modules = [(name = "harness.js", esModule = embed "harness.js"), (name = "test.js", esModule = embed "test.js")],
    compatibilityDate = "{cfg['date']}",
    compatibilityFlags = [{flags}{', ' if flags else ''}"experimental"],
    bindings = [{bindings}],
  )), (name = "internet", network = (allow = ["public", "private"]))],
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
        r = subprocess.run(['curl', '-s', '-m', '660', f'http://127.0.0.1:{port}/__node_compat'], capture_output=True)
        try:
            return json.loads(r.stdout), None
        except ValueError:
            return None, (r.stdout.decode(errors='replace') or 'no answer')[-300:]
    finally:
        proc.kill()
        proc.wait()


def render(plugin, engine, path, grants):
    # workerd sets no memory limit of its own (its 128 MB is the production
    # isolate's): ssr is given 1 GiB, so that a test that allocates 128 MiB
    # (buffer-nodejs-test's transcode) is measured, not cut.
    r = subprocess.run([ssr, 'render', plugin, path, '--engine', engine, '--timeout-ms', '600000', '--memory-limit-mib', '1024',
                        *grants], capture_output=True, timeout=660)
    try:
        return json.loads(r.stdout), None
    except ValueError:
        return None, ' '.join(r.stderr.decode(errors='replace').split())[-300:]


def run_ssr(plugin, engine, names, sidecar):
    """The module's tests in one render; where that render dies as a whole
    (a test ran the instance out of memory), each test in one of its own,
    so that the test that died fails alone. A module with a sidecar runs
    each test in a render of its own, with the sidecar started afresh and
    its ports granted: a test that fails leaves its connections open, and
    a render connects at most 6 sockets at once (Workers' bound; standalone
    workerd has none), so the next would wait on it; and a request the
    sidecar does not expect can stop it (its handlers assert), which would
    fail every test after. workerd's own limit of subrequests is 1,000 a
    request."""
    def grants(bound):
        out = [g for k, v in bound.items() if k.endswith('_PORT')
               for g in ('--allow-fetch', f'tcp://127.0.0.1:{v}', '--allow-fetch', f'http://127.0.0.1:{v}')]
        out += [g for k, v in bound.items() for g in ('--var', f'{k}={v}')]
        return out + ['--max-subrequests', '1000']
    if sidecar is None:
        tests, error = render(plugin, engine, '/__node_compat', grants({}))
        if tests is not None or not names:
            return tests, error
    tests = {}
    for name in names:
        proc, bound = start_sidecar(sidecar)
        if sidecar and proc is None:
            tests[name] = f'fail: {bound}'
            continue
        try:
            one, why = render(plugin, engine, f'/__node_compat?only={name}', grants(bound))
        finally:
            stop(proc)
        tests[name] = (one or {}).get(name) or f'fail: {why}'
    return tests, None


results = {'files': {}, 'left_out': {}}
for name in sorted(os.listdir(tests_dir)):
    if not name.endswith('.wd-test'):
        continue
    base = name[:-len('.wd-test')]
    if only and base not in only:
        continue
    cfg, why = config_of(os.path.join(tests_dir, name), base)
    if cfg is None:
        results['left_out'][base] = why
        continue
    work = tempfile.mkdtemp(prefix='node-compat-')
    try:
        shutil.copy(os.path.join(tests_dir, cfg['module']), os.path.join(work, 'test.js'))
        with open(os.path.join(work, 'harness.js'), 'w') as f:
            f.write(harness)
        # workerd gets a sidecar of its own (its servers keep state); ssr
        # one for each test (run_ssr).
        proc, bound = start_sidecar(cfg['sidecar'])
        row = {}
        if proc is None and cfg['sidecar']:
            row['workerd'] = {'tests': None, 'error': bound}
        else:
            row['workerd'] = dict(zip(('tests', 'error'), run_workerd(work, cfg, bound)))
        stop(proc)
        with open(os.path.join(work, 'wrangler.json'), 'w') as f:
            json.dump({'name': base, 'main': 'harness.js', 'compatibility_date': cfg['date'],
                       'compatibility_flags': [x for x in cfg['flags'] if x != 'experimental'],
                       'vars': texts_vars(cfg['texts']),
                       'services': [{'binding': k, 'service': base, **({'entrypoint': entry} if entry else {})}
                                    for k, entry in cfg['itself']]}, f)
        plugin = os.path.join(work, 'test.wasm')
        built = subprocess.run([ssr, 'build', '-q', '-o', plugin], cwd=work, capture_output=True,
                               env={**os.environ, 'PATH': path_env})
        for engine in ('wasm', 'v8'):
            if built.returncode != 0:
                row[f'ssr-{engine}'] = {'tests': None, 'error': 'build: ' + ' '.join(built.stderr.decode(errors='replace').split())[:300]}
                continue
            names = sorted((row['workerd']['tests'] or {}).keys())
            row[f'ssr-{engine}'] = dict(zip(('tests', 'error'), run_ssr(plugin, engine, names, cfg['sidecar'])))
        results['files'][base] = row
        counts = {k: sum(v == 'pass' for v in (r['tests'] or {}).values()) for k, r in row.items()}
        print(f"{base}: {counts}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
json.dump(results, open(out_json, 'w'), indent=1, sort_keys=True)
