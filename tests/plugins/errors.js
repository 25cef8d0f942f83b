// A test renderer with one failure per path.
export async function render(request) {
  console.log('rendering', request.path, { n: 1 });
  console.error('something to stderr');
  switch (request.path) {
    case '/throw': throw new TypeError('bad thing');
    case '/reject': return Promise.reject(new Error('rejected on purpose'));
    case '/throw-string': throw 'a plain string';
    case '/number': return 42;
    case '/no-body': return { status: 200 };
    case '/bad-status': return { status: 1000, body: 'x' };
    case '/never': return new Promise(() => {});
    case '/timers': {
      const order = [];
      await new Promise((resolve) => {
        setTimeout(() => order.push('t18'), 18);
        setTimeout(() => { order.push('t10'); queueMicrotask(() => order.push('micro')); }, 10);
        const id = setInterval(() => { order.push('iv'); if (order.filter((x) => x === 'iv').length === 3) { clearInterval(id); resolve(); } }, 7);
        const ch = new MessageChannel();
        ch.port1.onmessage = (e) => order.push(`msg:${e.data.n}`);
        ch.port2.postMessage({ n: 1 });
      });
      return order.join(',');
    }
    default: return { status: 201, headers: { 'X-Mixed-Case': 'v', 'cache-control': 'no-store' }, body: 'created', cache: 'no-store' };
  }
}
