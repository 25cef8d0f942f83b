// The server's half: renders <App> to HTML and names the browser's half,
// whose hashed file names `ssr build --client` gives as SSR_CLIENT.
//
//   ssr build plugins/hydrate/server.jsx --client plugins/hydrate/client.jsx \
//     --assets plugins/hydrate/public -o hydrate.wasm
import { renderToString } from 'react-dom/server';
import { App } from './App.jsx';

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** @type {import('@ssr/types').Render} */
export function render(req) {
  const props = {
    name: req.query.name ?? 'world',
    start: Number.parseInt(req.query.start ?? '0', 10) || 0,
  };
  const html = renderToString(<App {...props} />);
  // The props the client hydrates with, as JSON that cannot end the script.
  const data = JSON.stringify(props).replace(/</g, '\\u003c');
  const base = req.base;
  const css = SSR_CLIENT.css
    .map((href) => `<link rel="stylesheet" href="${base}${href}">`)
    .join('');
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body:
      `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
      `<title>Hello, ${escape(props.name)}</title>` +
      `<link rel="icon" href="${base}/favicon.svg">` +
      `<link rel="stylesheet" href="${base}/style.css">${css}` +
      `<script type="module" src="${base}${SSR_CLIENT.script}"></script>` +
      `</head><body><div id="root">${html}</div>` +
      `<script id="props" type="application/json">${data}</script></body></html>`,
    cache: 60,
  };
}
