// A Worker as a WebSocket client, to `?to=ws://...` (another tenant
// serving tests/plugins/websocket-server.js): `new WebSocket(url)` with its
// events, or (`/fetch`) `fetch` with `Upgrade: websocket` and the
// response's `webSocket`, accepted. The answer is the transcript, which
// tests/all/websockets.rs checks on both engines.
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const to = url.searchParams.get('to');
    const out = [];
    if (url.pathname === '/fetch') {
      const resp = await fetch(to.replace(/^ws/, 'http'), { headers: { Upgrade: 'websocket' } });
      const ws = resp.webSocket;
      // A server that answers something else than 101: that answer.
      if (ws === null) return new Response(`refused ${resp.status} ${await resp.text()}`);
      out.push(`status ${resp.status} ${ws instanceof WebSocket} ${ws.readyState}`);
      await new Promise((resolve) => {
        ws.addEventListener('message', (e) => {
          out.push(typeof e.data === 'string' ? e.data : `${e.data.constructor.name}`);
          if (e.data === 'count 2') ws.close(1000, 'done');
        });
        ws.addEventListener('close', (e) => {
          out.push(`close ${e.code} ${e.reason} ${e.wasClean}`);
          resolve();
        });
        ws.accept();
        ws.send('hi');
        ws.send('count');
      });
      return new Response(out.join('\n'));
    }
    const ws = new WebSocket(to);
    out.push(`state ${ws.readyState} ${ws.url}`);
    try {
      ws.send('early');
    } catch (e) {
      out.push(e.name);
    }
    await new Promise((resolve) => {
      ws.addEventListener('open', () => {
        out.push(`open ${ws.readyState}`);
        ws.send('hi');
      });
      ws.addEventListener('message', (e) => {
        out.push(String(e.data));
        if (e.data === 'echo hi') ws.send('close');
      });
      ws.addEventListener('error', () => out.push('error'));
      ws.addEventListener('close', (e) => {
        out.push(`close ${e.code} ${e.reason} ${e.wasClean} ${ws.readyState}`);
        resolve();
      });
    });
    return new Response(out.join('\n'));
  },
};
