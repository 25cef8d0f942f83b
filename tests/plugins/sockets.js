// Outbound TCP sockets (`connect()` from `cloudflare:sockets`, and
// `node:net` / `node:tls` over it): each route talks to the address in
// `?addr=` (`host:port`) and says what came back, or the error.
import { connect } from 'cloudflare:sockets';
import net from 'node:net';
import tls from 'node:tls';

const text = new TextDecoder();

async function readAll(readable) {
  const chunks = [];
  let size = 0;
  for await (const c of readable) {
    chunks.push(c);
    size += c.byteLength;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return [all, chunks.length];
}

const failed = (e) => `${e.name}: ${e.message}`;

const routes = {
  // Writes `msg`, ends its side, and reads until the peer closes.
  async '/echo'(addr, q) {
    const socket = connect(addr);
    const writer = socket.writable.getWriter();
    await writer.write(new TextEncoder().encode(q.get('msg')));
    await writer.close();
    const [bytes] = await readAll(socket.readable);
    const info = await socket.opened;
    await socket.closed;
    return `${info.remoteAddress === addr ? 'remote ok' : `remote ${info.remoteAddress}`} ${text.decode(bytes)}`;
  },
  // The peer sends `n` bytes: read them all, a chunk at a time.
  async '/big'(addr, q) {
    const socket = connect(addr);
    const writer = socket.writable.getWriter();
    await writer.write(`BIG ${q.get('n')}\n`);
    const [bytes, chunks] = await readAll(socket.readable);
    let sum = 0;
    for (const b of bytes) sum = (sum + b) % 65521;
    return `${bytes.length} bytes, sum ${sum}, ${chunks > 1 ? 'in chunks' : 'in one chunk'}`;
  },
  // Writes `n` bytes while the peer echoes them: reading goes on during
  // the write, or both sides would wait on full buffers.
  async '/pump'(addr, q) {
    const n = Number(q.get('n'));
    const socket = connect(addr);
    const writer = socket.writable.getWriter();
    const reading = readAll(socket.readable);
    await writer.write(new Uint8Array(n).fill(97));
    await writer.close();
    const [bytes] = await reading;
    return `${bytes.length} bytes back, ${bytes[0] === 65 && bytes[n - 1] === 65 ? 'in upper case' : 'not as sent'}`;
  },
  async '/refused'(addr) {
    const socket = connect(addr);
    try {
      await socket.opened;
      return 'opened';
    } catch (e) {
      return failed(e);
    }
  },
  // Waits for a reply that never comes: the render's deadline ends it.
  async '/hold'(addr) {
    const socket = connect(addr);
    const writer = socket.writable.getWriter();
    await writer.write('HOLD\n');
    await socket.readable.getReader().read();
    return 'read';
  },
  // `startTls()` on a socket made without "starttls", then a handshake
  // with a peer that speaks no TLS.
  async '/tls'(addr) {
    const out = [];
    try {
      connect(addr).startTls();
    } catch (e) {
      out.push(failed(e));
    }
    const plain = connect(addr, { secureTransport: 'starttls' });
    await plain.opened;
    const secure = plain.startTls();
    out.push(`upgraded ${secure.upgraded} ${secure.secureTransport}`);
    try {
      await secure.opened;
      out.push('handshake done');
    } catch (e) {
      out.push(e.message.startsWith('TLS handshake with 127.0.0.1 failed') ? 'handshake refused' : failed(e));
    }
    return out.join('; ');
  },
  // node:net: connect, write, end, and hear everything back.
  '/net'(addr, q) {
    const [host, port] = addr.split(':');
    return new Promise((resolve) => {
      let connected;
      let got = '';
      const socket = net.createConnection({ host, port: Number(port) }, () => {
        connected = socket.remotePort === Number(port);
        socket.end(q.get('msg'));
      });
      // The bytes as they come, in however many chunks.
      socket.on('data', (d) => (got += d.toString()));
      socket.on('error', (e) => resolve(failed(e)));
      socket.on('close', (hadError) => resolve(`connect ${connected} ${got} read ${socket.bytesRead} wrote ${socket.bytesWritten} error ${hadError}`));
    });
  },
  // node:tls over node:net, as Postgres clients upgrade: the peer is no
  // TLS server, so the socket errs, and says so.
  '/net-tls'(addr) {
    const [host, port] = addr.split(':');
    return new Promise((resolve) => {
      const plain = net.connect(Number(port), host, () => {
        const secure = tls.connect({ socket: plain, servername: 'db.example' });
        secure.on('secureConnect', () => resolve('secure'));
        secure.on('error', (e) => resolve(`tls error: ${e.message.split(':')[0]}`));
      });
      plain.on('error', (e) => resolve(failed(e)));
    });
  },
};

export default {
  async fetch(request) {
    const url = new URL(request.url);
    const route = routes[url.pathname];
    if (!route) return new Response('no such route', { status: 404 });
    try {
      return new Response(await route(url.searchParams.get('addr'), url.searchParams));
    } catch (e) {
      return new Response(failed(e));
    }
  },
};
