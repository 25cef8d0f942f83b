// Workers' `cf` on requests and responses (tests/all/workers.rs compares
// the answer with workerd's; the incoming request's own `cf` differs:
// workerd serve gives `clientIp`, ssr an empty object).
export default {
  async fetch(request) {
    const out = [];
    out.push(`incoming: ${typeof request.cf} ${request.cf.country}`);
    const r = new Request('http://x/', { cf: { cacheTtl: 5, country: 'NZ' } });
    out.push(`made: ${JSON.stringify(r.cf)} ${'cf' in r} ${Object.getOwnPropertyDescriptor(Request.prototype, 'cf') ? 'proto' : 'own'}`);
    const copied = new Request(r);
    out.push(`copied: ${JSON.stringify(copied.cf)} ${copied.cf === r.cf}`);
    out.push(`plain: ${JSON.stringify(new Request('http://y/').cf)} ${JSON.stringify(new Response('x').cf)}`);
    try {
      new Request('http://y/', { cf: 5 });
    } catch (e) {
      out.push(`refused: ${e.name} ${e.message}`);
    }
    out.push(`response: ${JSON.stringify(new Response('x', { cf: { a: 1 } }).cf)}`);
    r.cf.country = 'AU';
    out.push(`mutable: ${r.cf.country}`);
    return new Response(out.join('\n'));
  },
};
