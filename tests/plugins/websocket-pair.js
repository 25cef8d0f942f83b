// WebSocketPair and WebSocket as apps use them between the two ends of a
// pair (the server side of a Workers WebSocket): accepting, messages of
// every kind held until the other end accepts, the closing handshake and
// its events, close codes and reasons refused, and the constructor's
// checks. tests/all/workers.rs compares the answer with workerd's.
const t = (f) => { try { const v = f(); return v === undefined ? 'undefined' : JSON.stringify(v); } catch (e) { return `${e.name}: ${e.message}`; } };
export default { async fetch() {
  const out = [];
  out.push(`globals: ${typeof WebSocketPair} ${typeof WebSocket} ${WebSocket.length} ${[WebSocket.CONNECTING, WebSocket.OPEN, WebSocket.CLOSING, WebSocket.CLOSED]}`);
  const pair = new WebSocketPair();
  out.push(`pair: ${Object.keys(pair)} ${Object.prototype.toString.call(pair)} ${pair[0] instanceof WebSocket} ${Object.getOwnPropertyNames(pair)}`);
  const [a, b] = Object.values(pair);
  out.push(`state: ${a.readyState} ${b.readyState} ${a.url} ${a.protocol} ${a.extensions} ${a.binaryType}`);
  out.push(`send before accept: ${t(() => a.send('x'))}`);
  const got = [];
  b.addEventListener('message', (e) => got.push(`b:${typeof e.data}:${e.data instanceof ArrayBuffer ? new Uint8Array(e.data).join(',') : e.data}:${e.constructor.name}`));
  b.addEventListener('close', (e) => got.push(`b close:${e.code}:${e.reason}:${e.wasClean}:${e.constructor.name}`));
  a.addEventListener('close', (e) => got.push(`a close:${e.code}:${e.reason}:${e.wasClean}`));
  a.addEventListener('message', (e) => got.push(`a:${e.data}`));
  out.push(`accept: ${t(() => a.accept())} ${a.readyState}`);
  out.push(`send: ${t(() => a.send('hello'))} ${t(() => a.send(new Uint8Array([1, 2, 3])))} ${t(() => a.send(new ArrayBuffer(2)))} ${t(() => a.send(1))} ${t(() => a.send(new Blob(['z'])))}`);
  await new Promise((r) => setTimeout(r, 10));
  out.push(`before b accept: ${JSON.stringify(got)}`);
  b.accept();
  await new Promise((r) => setTimeout(r, 10));
  out.push(`after b accept: ${JSON.stringify(got)}`);
  b.send('back');
  out.push(`close: ${t(() => a.close(1000, 'done'))} ${a.readyState} ${b.readyState}`);
  await new Promise((r) => setTimeout(r, 10));
  out.push(`after close: ${JSON.stringify(got)} ${a.readyState} ${b.readyState}`);
  out.push(`send after close: ${t(() => a.send('late'))} ${t(() => b.send('late'))}`);
  out.push(`close again: ${t(() => b.close(1000))} ${t(() => b.close())}`);
  const p2 = new WebSocketPair();
  out.push(`bad codes: ${t(() => p2[0].close(999))} ${t(() => p2[0].close(1005))} ${t(() => p2[0].close(3000, 'x'.repeat(124)))} ${t(() => p2[0].close(4999, 'ok'))}`);
  p2[0].accept(); p2[1].accept();
  const got2 = [];
  p2[1].addEventListener('close', (e) => got2.push(`${e.code}:${e.reason}:${e.wasClean}`));
  p2[0].close();
  await new Promise((r) => setTimeout(r, 10));
  out.push(`close no code: ${JSON.stringify(got2)} ${p2[0].readyState} ${p2[1].readyState}`);
  out.push(`new WebSocket(): ${t(() => new WebSocket())} | ${t(() => new WebSocket('ftp://x'))}`);
  out.push(`proto: ${Object.getOwnPropertyNames(WebSocket.prototype).sort()}`);
  return new Response(out.join('\n'));
} };
