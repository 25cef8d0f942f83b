// Renders one request with Node, the reference the tests compare ssr against.
// Usage: node tests/node/render.mjs <bundle.mjs> '<request as JSON>'
// Prints the body (nothing else) to stdout, exactly as `ssr render` does.
import { pathToFileURL } from 'node:url';

// Console output goes to the log, never into the body, as in ssr.
for (const k of ['log', 'info', 'debug', 'trace']) console[k] = console.error;

const [bundlePath, requestJson] = process.argv.slice(2);
const mod = await import(pathToFileURL(bundlePath).href);
const render =
  typeof mod.render === 'function' ? mod.render
  : typeof mod.default === 'function' ? mod.default
  : mod.default.render.bind(mod.default);
const out = await render(JSON.parse(requestJson));
const body = typeof out === 'string' ? out : out.body;
// React's browser build leaves a MessageChannel port open, which would keep
// Node alive: exit once the body is written.
process.stdout.write(body, () => process.exit(0));
