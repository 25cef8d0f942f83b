// A Workers WebSocket server as apps write one: a WebSocketPair, the
// server end accepted, the client end returned in a Response of status
// 101. Each message from the client is a command; the answers make a
// transcript that tests/all/websockets.rs compares between ssr's engines
// and workerd, with a real client. The server's `close` event is logged.
// - text: `echo` back; `count`: messages so far; `wait MS`: answers after
//   a real timer; `spin MS`: burns CPU first; `flood N`: sends N messages
//   of 64 KiB; `close`: the server closes (4000); `throw`: the handler
//   throws;
// - binary: its type and bytes, and the bytes back reversed.
// A request without `Upgrade: websocket` gets 426, one with `?refuse` 403;
// `?status101` answers a plain request with 101 and no client to upgrade.
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.searchParams.has('status101')) {
      const pair = new WebSocketPair();
      pair[1].accept();
      return new Response(null, { status: 101, webSocket: pair[0] });
    }
    if (url.searchParams.has('refuse')) return new Response('no sockets here', { status: 403 });
    if (request.headers.get('upgrade') !== 'websocket') {
      return new Response('expected a WebSocket upgrade', { status: 426 });
    }
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    let n = 0;
    server.addEventListener('message', async (e) => {
      n++;
      const d = e.data;
      if (typeof d !== 'string') {
        const bytes = d instanceof Blob ? new Uint8Array(await d.arrayBuffer()) : new Uint8Array(d);
        server.send(`binary ${d.constructor.name} ${bytes.join(',')}`);
        server.send(bytes.slice().reverse());
        return;
      }
      const [cmd, arg] = d.split(' ');
      if (cmd === 'count') server.send(`count ${n}`);
      else if (cmd === 'wait') {
        const t0 = Date.now();
        setTimeout(() => server.send(`waited ${Date.now() - t0 >= Number(arg)}`), Number(arg));
      } else if (cmd === 'spin') {
        const end = Date.now() + Number(arg);
        let x = 0;
        while (Date.now() < end) x++;
        server.send(`spun ${x > 0}`);
      } else if (cmd === 'flood') {
        const chunk = 'x'.repeat(65536);
        try {
          for (let i = 0; i < Number(arg); i++) server.send(chunk);
          server.send('flooded');
        } catch (err) {
          console.log(`flood refused: ${err.message}`);
          try {
            server.send(`refused ${err.name}`);
          } catch {}
        }
      } else if (cmd === 'close') server.close(4000, 'asked to');
      else if (cmd === 'throw') throw new Error('a handler failed');
      else server.send(`echo ${d}`);
    });
    server.addEventListener('close', (e) => {
      console.log(`server heard close ${e.code} ${e.reason} ${e.wasClean} ${server.readyState}`);
    });
    // Sent before the response: the client gets it first.
    server.send(`hello ${url.searchParams.get('room') ?? ''}`);
    return new Response(null, { status: 101, webSocket: client, headers: { 'x-room': url.searchParams.get('room') ?? '' } });
  },
};
