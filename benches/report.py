"""Writes benches/RESULTS.md and the gnuplot script for the chart, from what
benches/run.sh measured (criterion's estimates, node's timings, and the HTTP
rows in <work>/http.tsv). Standard library only.

Usage: report.py <work> <RESULTS.md> <chart.png> <machine> <node> <conns> <secs> <workers>
"""
import datetime
import json
import os
import sys

work, out, chart, machine, node, conns, secs, workers = sys.argv[1:9]
PLUGINS = ["hello", "react", "preact", "vue", "handlebars", "liquid"]
CRITERION = "target/criterion/render_warm"


def criterion_ns(engine, plugin):
    path = os.path.join(CRITERION, engine, plugin, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def node_ns(plugin, which="node"):
    """Mean ns per render of `which` (node, or node18 when it was set up): the
    measure criterion's estimate is (each sample's time over its iterations),
    GC pauses included."""
    path = os.path.join(work, f"{which}-{plugin}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)["mean_ns"]


def ceiling_rps():
    """From `ssr render --repeat` on every core at once: (renders a second
    in all, each core's mean us a render), or None."""
    means = []
    for name in sorted(os.listdir(work)):
        if name.startswith("ceiling-"):
            with open(os.path.join(work, name)) as f:
                text = f.read()
            mean = text.split("mean ", 1)[1].split(",", 1)[0] if "mean " in text else None
            if mean is None:
                return None
            if mean.endswith("ms"):
                us = float(mean[:-2]) * 1e3
            elif mean.endswith("µs"):
                us = float(mean[:-2])
            else:
                return None
            means.append(us)
    return (sum(1e6 / m for m in means), means) if means else None


def fmt_time(ns):
    if ns is None:
        return "n/a"
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.0f} us"


render = {
    p: {
        "wasm": criterion_ns("wasm", p),
        "v8": criterion_ns("v8", p),
        "quickjs": criterion_ns("native-quickjs", p),
        "node": node_ns(p),
        "node18": node_ns(p, "node18"),
    }
    for p in PLUGINS
}

http = []
with open(os.path.join(work, "http.tsv")) as f:
    for line in f:
        name, engine, cache, rps, p50, p99, errs, rss = line.rstrip("\n").split("\t")
        http.append(dict(plugin=name, engine=engine, cache=cache, rps=int(rps), p50=p50,
                         p99=p99, errs=int(errs), rss=rss))


def row(plugin, engine, cache):
    return next(r for r in http if (r["plugin"], r["engine"], r["cache"]) == (plugin, engine, cache))


lines = []
w = lines.append
w("# Benchmark results: Wasm vs V8")
w("")
w("Regenerate everything here, and `benches/results.png`, with `benches/run.sh`.")
w("")
w("## Methodology")
w("")
w(f"- Machine: {machine}; {datetime.date.today().isoformat()}. The load generator, the server and")
w("  the baseline share these cores, so absolute figures are lower than on a dedicated")
w("  machine; the ratios within one run are what to read.")
w("- **Rendering** (no HTTP, no cache): criterion (`cargo bench -p ssr --features bench --bench engine --")
w("  render_warm`, 30 samples, 3 s warm-up, 3 s measurement), the median time of one render on")
w("  a warm instance. `native QuickJS` is the same guest runtime compiled for the host (what")
w("  Wasm itself costs). `node` is Node " + node + " rendering the same bundle with the same")
w("  request (`benches/node-render.mjs`: 3 s warm-up, then the mean over 3 s, the body")
w("  converted to UTF-8 bytes as the engines hand it over). `node 26` is the V8 engine's own")
w("  Node 26 run the same way: its V8 (14) is the very one the worker processes run, so")
w("  `V8 / node 26` is what the engine adds to V8, and `V8 / node` adds what V8s differ in.")
w("  Node's figure is the mean, not the median, of its renders: criterion's estimate is a time")
w("  per render averaged over many renders, so both include the garbage collector's pauses.")
w(f"- **Serving** (real server over loopback): `wrk -t1 -c{conns} -d{secs}s --latency` after a 2 s")
w(f"  warm-up, one fresh `ssr serve --workers {workers} --tenant-concurrency {workers}` per row")
w("  (the row's one tenant may use every worker, as Piscina's site uses every thread; the")
w("  default cap for V8 tenants is half the workers), the tenant registered with")
w("  `engine=wasm|v8` (reuse mode). V8 renders run on the pool's V8 threads (`--v8-threads`,")
w("  4 per worker), Wasm renders on the pinned workers. *Cache on*: the same URL every time, served from the")
w("  cache after the first render (this measures serving from cache). *Cache off*:")
w("  `--cache-ttl 0`, every request renders (this measures rendering through the server).")
w("  Peak RSS is the server's `VmHWM` at the end of the row.")
w(f"- **Baseline**: Piscina's pooled React SSR server (`benches/piscina/`: fastify 4 +")
w(f"  fastify-piscina 4 + piscina 3, {workers} worker threads, as many as ssr's render workers), the")
w("  same React bundle and request, one render per request, under the same wrk settings.")
w("- Every engine's output is checked byte for byte against the others before timing.")
w("")
w("## Rendering: one warm render")
w("")
def ratio(a, b):
    return "n/a" if b is None else f"{a / b:.2f}x"


w("| plugin | Wasm | V8 | native QuickJS | node | node 26 | Wasm / V8 | V8 / node | V8 / node 26 "
  "| Wasm / native QuickJS |")
w("|---|---|---|---|---|---|---|---|---|---|")
for p in PLUGINS:
    r = render[p]
    w(f"| {p} | {fmt_time(r['wasm'])} | {fmt_time(r['v8'])} | {fmt_time(r['quickjs'])} | "
      f"{fmt_time(r['node'])} | {fmt_time(r['node18'])} | {r['wasm'] / r['v8']:.1f}x | "
      f"{ratio(r['v8'], r['node'])} | {ratio(r['v8'], r['node18'])} | {ratio(r['wasm'], r['quickjs'])} |")
w("")
w("Read `V8 / node` with care: node here is Node " + node + " (another V8 than the 14 of")
w("the V8 engine's Node 26; `V8 / node 26` compares the same V8), and the vue")
w("example waits on `setTimeout`, which is real time in node and virtual time in ssr, so")
w("its node figures include sleeping and are not comparable.")
w("")
w("## Serving: HTTP load")
w("")
w("| plugin | engine | cache | req/s | p50 | p99 | non-2xx | peak RSS (MiB) |")
w("|---|---|---|---|---|---|---|---|")
for r in http:
    w(f"| {r['plugin']} | {r['engine']} | {r['cache']} | {r['rps']} | {r['p50']} | {r['p99']} | "
      f"{r['errs']} | {r['rss']} |")
w("")
w("`v8` runs the tenant's isolates in V8 worker processes (Node 26's V8; there is no V8 in "
  "the server's process); the peak RSS is the server's peak and the workers' resident memory "
  "after the run, summed.")
w("")
pisc = row("react", "piscina", "off")
v8_off = row("react", "v8", "off")
v8_on = row("react", "v8", "on")
wasm_off = row("react", "wasm", "off")
w("## Against Piscina (React page)")
w("")
w(f"- Rendering every request: ssr on V8 {v8_off['rps']} req/s vs Piscina {pisc['rps']} req/s: "
      f"**{v8_off['rps'] / max(pisc['rps'], 1):.2f}x** (p99 {v8_off['p99']} vs {pisc['p99']}; "
      f"peak RSS {v8_off['rss']} vs {pisc['rss']} MiB).")
w(f"- ssr on Wasm, rendering every request: {wasm_off['rps']} req/s "
      f"({wasm_off['rps'] / max(pisc['rps'], 1):.2f}x Piscina).")
w(f"- ssr on V8 with its cache on (the same page served from cache): {v8_on['rps']} req/s "
      f"({v8_on['rps'] / max(pisc['rps'], 1):.0f}x Piscina, which has no cache).")
ceiling = ceiling_rps()
if ceiling:
    rps, means = ceiling
    w(f"- The machine's ceiling for this page: React rendered on V8 on all {len(means)} cores at once,")
    w(f"  no HTTP and no load generator, took {', '.join(f'{m:.0f}' for m in means)} us a render")
    w(f"  (the mean of each core's 5,000; {fmt_time(render['react']['v8'])} with one core busy, criterion):")
    w(f"  at most **{rps:.0f} req/s** for any server of this bundle here. Piscina reached")
    w(f"  {pisc['rps'] / rps:.0%} of it and ssr on V8 {v8_off['rps'] / rps:.0%}; 1.5x Piscina would be")
    w(f"  {1.5 * pisc['rps']:.0f} req/s, {1.5 * pisc['rps'] / rps:.0%} of the ceiling, with wrk and the HTTP")
    w("  work on the same cores. Both servers are bound by the same V8 rendering, so the gap")
    w("  between them can only show where rendering is not the bound: on more cores, where")
    w("  Piscina's one main thread carries all of its HTTP and message passing.")
w("")
w("![warm render time and HTTP throughput per plugin and engine](results.png)")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")

# The chart: render time (log scale) and req/s with the cache off.
with open(os.path.join(work, "render.dat"), "w") as f:
    f.write("plugin wasm v8 quickjs node\n")
    for p in PLUGINS:
        r = render[p]
        f.write(f"{p} {r['wasm'] / 1e3:.1f} {r['v8'] / 1e3:.1f} {r['quickjs'] / 1e3:.1f} {r['node'] / 1e3:.1f}\n")
with open(os.path.join(work, "http.dat"), "w") as f:
    f.write("plugin wasm v8 piscina\n")
    for p in PLUGINS:
        pis = pisc["rps"] if p == "react" else 0
        f.write(f"{p} {row(p, 'wasm', 'off')['rps']} {row(p, 'v8', 'off')['rps']} {pis}\n")
with open(os.path.join(work, "chart.gp"), "w") as f:
    f.write(f"""set terminal pngcairo size 1200,520 font 'DejaVu Sans,10'
set output '{chart}'
set multiplot layout 1,2 title 'ssr: Wasm vs V8 ({machine})'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key top left
set grid ytics
set xtics nomirror
set title 'one warm render (lower is better)'
set ylabel 'microseconds (log scale)'
set logscale y
plot '{work}/render.dat' using 2:xtic(1) title 'Wasm', '' using 3 title 'V8', '' using 4 title 'native QuickJS', '' using 5 title 'node'
unset logscale y
set title 'HTTP, cache off: every request renders (higher is better)'
set ylabel 'requests per second'
plot '{work}/http.dat' using 2:xtic(1) title 'ssr Wasm', '' using 3 title 'ssr V8', '' using 4 title 'Piscina (react only)'
unset multiplot
""")
