// `node:dns` over DNS over HTTPS (tests/all/node_modules.rs serves the
// endpoint on loopback, `--dns-over-https`, and grants its origin): each
// query's records as Node shapes them, callbacks and promises, errors.
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';

const outcome = (p) => p.then((v) => ['ok', v], (e) => ['error', e.code, e.message, e.syscall ?? null, e.hostname ?? null, e.cause ? e.cause.message : null]);
const called = (f) => new Promise((resolve) => f((err, ...rest) => resolve(err ? ['error', err.code, err.message] : ['ok', ...rest])));
const thrown = (f) => {
  try {
    f();
    return 'returned';
  } catch (e) {
    return [e.name, e.code, e.message];
  }
};

export default {
  async fetch() {
    const p = dnsPromises;
    const out = {};
    out.resolve4 = await outcome(p.resolve4('example.test'));
    out.resolve4ttl = await outcome(p.resolve4('example.test', { ttl: true }));
    out.throughCname = await outcome(p.resolve4('www.example.test'));
    out.resolve6 = await outcome(p.resolve6('example.test'));
    out.cname = await outcome(p.resolveCname('www.example.test'));
    out.mx = await outcome(p.resolveMx('example.test'));
    out.txt = await outcome(p.resolveTxt('example.test'));
    out.ns = await outcome(p.resolveNs('example.test'));
    out.soa = await outcome(p.resolveSoa('example.test'));
    out.srv = await outcome(p.resolveSrv('_sip._udp.example.test'));
    out.caa = await outcome(p.resolveCaa('example.test'));
    out.naptr = await outcome(p.resolveNaptr('example.test'));
    out.reverse = await outcome(p.reverse('192.0.2.7'));
    out.reverse6 = await outcome(p.reverse('2001:db8::7'));
    out.resolveMx = await outcome(p.resolve('example.test', 'MX'));
    out.missing = await outcome(p.resolve4('nowhere.test'));
    out.noData = await outcome(p.resolve6('v4only.test'));
    out.lookup = await outcome(p.lookup('example.test'));
    out.lookupAll = await outcome(p.lookup('example.test', { all: true }));
    out.lookup6first = await outcome(p.lookup('example.test', { all: true, order: 'ipv6first' }));
    out.lookupV4only = await outcome(p.lookup('v4only.test', 6));
    out.lookupIp = await outcome(p.lookup('192.0.2.1', { all: true }));
    out.callback = await called((cb) => dns.lookup('example.test', cb));
    out.callbackAll = await called((cb) => dns.lookup('example.test', { all: true, family: 6 }, cb));
    out.callbackMx = await called((cb) => dns.resolveMx('example.test', cb));
    out.resolver = await outcome(new dnsPromises.Resolver().resolveTxt('example.test'));
    out.callbackResolver = await called((cb) => new dns.Resolver().resolve4('example.test', cb));
    out.refused = [
      thrown(() => dns.lookup(1, {}, () => {})),
      thrown(() => dns.lookup('example.test', { family: 5 }, () => {})),
      thrown(() => dns.lookup('example.test', { hints: 1 }, () => {})),
      thrown(() => dns.lookup('example.test', 'options', () => {})),
      thrown(() => p.resolve('example.test', 'BOGUS')),
      thrown(() => p.resolve4(12)),
      thrown(() => dns.setServers(['8.8.8.8'])),
      thrown(() => dns.setDefaultResultOrder('random')),
    ];
    out.servers = dns.getServers();
    out.order = dns.getDefaultResultOrder();
    out.same = [dns.promises === dnsPromises, typeof dns.NOTFOUND, dns.NOTFOUND, dnsPromises.BADQUERY];
    return new Response(JSON.stringify(out));
  },
};
