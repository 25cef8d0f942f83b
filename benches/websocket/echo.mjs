// One client process for benches/websocket.sh: CONNS WebSockets to URL
// (tests/plugins/websocket-server.js behind it), each sending a text
// message and awaiting its echo, again and again, for SECS seconds after
// WARM seconds of the same; prints "round-trips/s p50_ms p99_ms".
const [url, conns = '8', secs = '5', warm = '1'] = process.argv.slice(2);

async function client(until, lat) {
  const ws = new WebSocket(url);
  const queue = [];
  let waiting = null;
  ws.onmessage = (e) => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w(e.data);
    } else queue.push(e.data);
  };
  const next = () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => (waiting = r)));
  await new Promise((ok, no) => {
    ws.onopen = ok;
    ws.onerror = () => no(new Error(`cannot open ${url}`));
  });
  await next(); // the server's hello
  let n = 0;
  while (performance.now() < until.end) {
    const t = performance.now();
    ws.send('x');
    const got = await next();
    if (got !== 'echo x') throw new Error(`unexpected ${got}`);
    if (t >= until.start) {
      lat.push(performance.now() - t);
      n++;
    }
  }
  ws.close();
  return n;
}

const start = performance.now() + Number(warm) * 1000;
const until = { start, end: start + Number(secs) * 1000 };
const lat = [];
const counts = await Promise.all(Array.from({ length: Number(conns) }, () => client(until, lat)));
lat.sort((a, b) => a - b);
const at = (p) => lat[Math.min(lat.length - 1, Math.floor((lat.length * p) / 100))];
const total = counts.reduce((a, b) => a + b, 0);
console.log(`${Math.round(total / Number(secs))} ${at(50).toFixed(2)} ${at(99).toFixed(2)}`);
