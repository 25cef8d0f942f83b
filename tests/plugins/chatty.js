// A tenant that abuses console output (tests/all/hostile.rs): forges log
// lines, floods the log, and throws an error whose message forges one too.
export function render(request) {
  switch (request.path) {
    case '/forge':
      console.log('innocent\n2026-01-01T00:00:00.000000Z ERROR ssr: FORGED by a tenant\r\u001b[31m\u2028');
      return 'forged';
    case '/flood': {
      const line = 'y'.repeat((Number(request.query.kib) || 1024) << 10);
      for (let i = 0; i < (Number(request.query.times) || 1000); i++) console.log(line);
      return 'flooded';
    }
    case '/many':
      for (let i = 0; i < 10000; i++) console.log(`line ${i}`);
      return 'many';
    case '/throw':
      throw new Error('boom\n2026-01-01T00:00:00.000000Z  INFO ssr: FORGED by a thrown error');
    default:
      console.log('one line');
      return 'ok';
  }
}
