// The last Node exports workerd has and ssr lacked (docs/compatibility.md,
// "Node modules"), as code written for Node uses them:
// `util`'s system errors, signal exit codes, `diff`, `_extend`, call
// sites and transferable aborts; `process`'s identity, no-op and refused
// functions; `path.matchesGlob` and `fs.globSync` with braces, extglobs,
// `..` and dot names; `console.Console` on the app's own stream;
// `stream.compose`; `https.Server`; `net.BoundSocket`; `http2`'s settings
// helpers; `_tls_common.translatePeerCertificate`; `crypto.CryptoKey`.
// tests/all/node_modules.rs compares the answer with workerd's.
import util from 'node:util';
import process from 'node:process';
import path from 'node:path';
import fs from 'node:fs';
import { Console } from 'node:console';
import { Writable, Transform, compose } from 'node:stream';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import http2 from 'node:http2';
import { translatePeerCertificate } from 'node:_tls_common';
import crypto from 'node:crypto';

const shown = (f) => {
  try {
    const v = f();
    return v instanceof Uint8Array ? `${v.constructor.name}[${v.length}]` : JSON.stringify(v);
  } catch (e) {
    return `${e.name} ${e.code ?? ''} ${e.message}`.replace(/ +/g, ' ');
  }
};

export default {
  async fetch() {
    const out = [];
    const map = util.getSystemErrorMap();
    out.push(`errors: ${map.size} ${JSON.stringify(map.get(-2))} ${JSON.stringify(map.get(-3008))} ${JSON.stringify([...map.keys()].slice(0, 6))}`);
    out.push(`error names: ${[-2, -13, -4095, -9999].map((n) => util.getSystemErrorName(n)).join(' ')} ${util.getSystemErrorMessage(-110)}`);
    out.push(`error refused: ${[2, 0, -1.5, '-2'].map((n) => shown(() => util.getSystemErrorName(n))).join(' / ')}`);
    out.push(`signals: ${['SIGINT', 'SIGKILL', 'SIGTERM', 'SIGIOT', 'SIGPOLL', 'SIGSYS'].map((s) => util.convertProcessSignalToExitCode(s)).join(' ')} ${shown(() => util.convertProcessSignalToExitCode(15)).length}`);
    out.push(`diff: ${JSON.stringify(util.diff('kitten', 'sitting'))} ${JSON.stringify(util.diff(['x', 'y', 'z'], ['z', 'y', 'x']))} ${JSON.stringify(util.diff('same', 'same'))} ${shown(() => util.diff(1, 'a'))}`);
    out.push(`extend: ${JSON.stringify(util._extend({ a: 1 }, { b: 2 }))} ${JSON.stringify(util._extend({ a: 1 }, 'xy'))} ${shown(() => util.setTraceSigInt(true))} ${shown(() => util.setTraceSigInt('x'))}`);
    function caller() {
      return util.getCallSites(2);
    }
    const sites = caller();
    out.push(`call sites: ${sites.length} ${sites[0].functionName} ${Object.keys(sites[0]).join(',')} ${typeof sites[0].lineNumber} ${shown(() => util.getCallSites(0))} ${util.getCallSite === util.getCallSites || typeof util.getCallSite}`);
    const signal = new AbortController().signal;
    out.push(`transferable: ${util.transferableAbortController() instanceof AbortController} ${util.transferableAbortSignal(signal) === signal} ${shown(() => util.transferableAbortSignal({}))}`);

    out.push(`ids: ${[process.getuid(), process.geteuid(), process.getgid(), process.getegid()].join(' ')} ${JSON.stringify(process.getgroups())} ${shown(() => process.setuid(0))} ${shown(() => process.setgid(5))} ${shown(() => process.setgroups([]))}`);
    out.push(`quiet: ${[process.ref(), process.unref(), process._tickCallback(), process._debugEnd(), process.setSourceMapsEnabled(true)].join(',')} ${JSON.stringify(process.getSourceMapsSupport())} ${process.send('x')} ${process._fatalException(new Error())} ${JSON.stringify(process._getActiveHandles())} ${process.constrainedMemory()} ${process.availableMemory()}`);
    out.push(`usage: ${JSON.stringify(process.resourceUsage())} ${process.openStdin() === process.stdin}`);
    out.push(`refused: ${['kill', 'binding', 'dlopen', 'cpuUsage', 'threadCpuUsage', 'getActiveResourcesInfo', 'hasUncaughtExceptionCaptureCallback', '_linkedBinding', 'execve'].map((f) => shown(() => process[f](1))).join(' / ')}`);

    const globs = [['/a/b/c.js', '/a/**/*.js'], ['a/.b/c', 'a/*/c'], ['./a/b', 'a/b'], ['a', 'a/**'], ['a/', 'a/**'], ['a/b/c', 'a/{b/**,x}'], ['a/c', 'a/+(c|g)'], ['a/x', 'a/!(c)'], ['a/c', 'a/!(c)'], ['a/b', 'a/b/../b'], ['.x', '*'], ['.x', '.*'], ['a3', 'a{1..4}'], ['ab.js', '!(x).js'], ['a/.b', 'a/**'], ['abc', '@(abc|d)']];
    out.push(`matchesGlob: ${globs.map(([p, g]) => `${path.matchesGlob(p, g) ? 1 : 0}${path.win32.matchesGlob(p.replaceAll('/', '\\'), g) ? 1 : 0}`).join(' ')} ${shown(() => path.matchesGlob(1, 'a'))}`);
    fs.mkdirSync('/tmp/g/a/b/c', { recursive: true });
    fs.mkdirSync('/tmp/g/a/.h', { recursive: true });
    for (const f of ['x.js', 'a/y.js', 'a/b/z.js', 'a/b/c/w.js', 'a/.h/v.js', '.q.js', 'a/c', 'a/b/c/d']) fs.writeFileSync(`/tmp/g/${f}`, '');
    for (const g of ['**/*.js', 'a/**', 'a/*/../*', 'a/{b/**,c}', './a/*', '**', 'a/+(b|c)/*', 'a/!(b)/*', 'a/**/[cz]*', 'a/b/c/../../y.js']) {
      out.push(`glob ${g}: ${fs.globSync(g, { cwd: '/tmp/g' }).join(' ')}`);
    }
    out.push(`glob excluded: ${fs.globSync('**/*.js', { cwd: '/tmp/g', exclude: ['a/b/**'] }).join(' ')}`);

    const lines = [];
    const sink = new Writable({ write(chunk, encoding, cb) { lines.push(String(chunk)); cb(); } });
    const c = new Console({ stdout: sink, stderr: sink });
    c.log('hello %s', 'world', 42);
    c.group('group');
    c.warn({ a: [1, 2] });
    c.groupEnd();
    c.count();
    c.count();
    c.assert(false, 'bad %d', 7);
    c.assert(true, 'fine');
    c.dir({ deep: { deeper: { deepest: {} } } }, { depth: 0 });
    out.push(`console: ${JSON.stringify(lines)} ${Object.keys(c).length} ${shown(() => new Console())} ${shown(() => new Console({ stdout: 1 }))}`);

    const upper = new Transform({ transform(chunk, encoding, cb) { cb(null, String(chunk).toUpperCase()); } });
    const bang = new Transform({ transform(chunk, encoding, cb) { cb(null, `${chunk}!`); } });
    const both = compose(upper, bang);
    const got = [];
    both.on('data', (d) => got.push(String(d)));
    both.write('a');
    both.end('b');
    await new Promise((resolve) => both.on('end', resolve));
    out.push(`compose: ${JSON.stringify(got)} ${shown(() => compose())} ${shown(() => compose(1)).slice(0, 60)}`);

    const server = https.createServer({}, () => {});
    out.push(`https: ${server instanceof https.Server} ${server instanceof http.Server} ${typeof server.listen} ${https.Server.name}`);
    const bound = new net.BoundSocket();
    out.push(`bound: ${JSON.stringify(bound.address())} ${bound.fd()} ${bound.close()} ${typeof net.BoundSocket}`);
    out.push(`http2: ${shown(() => http2.getDefaultSettings())} ${shown(() => http2.getPackedSettings({ enablePush: false }))} ${shown(() => http2.getUnpackedSettings(new Uint8Array(6)))}`);
    out.push(`peer: ${shown(() => translatePeerCertificate(null))} ${shown(() => translatePeerCertificate({ issuerCertificate: { infoAccess: 'OCSP - URI:http://i\n' }, infoAccess: 'OCSP - URI:http://x\nCA Issuers - URI:http://y\nOCSP - URI:"http://z"\n' }))}`);
    out.push(`http events: ${http.CloseEvent === globalThis.CloseEvent} ${http.MessageEvent === globalThis.MessageEvent} ${crypto.CryptoKey === globalThis.CryptoKey}`);
    return new Response(out.join('\n'));
  },
};
