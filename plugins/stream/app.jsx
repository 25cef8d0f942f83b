// A React 19 page streamed with renderToReadableStream: the shell goes out at
// once, and a Suspense boundary follows when its data arrives. The data come
// from the var API (`${API}/items`, fetched through the host) when the tenant
// has one, else from a 20 ms timer. `?whole` waits for everything before the
// first byte, as a page rendered into one string would (benches/stream.sh
// compares the two).
//
//   ssr build plugins/stream/app.jsx -o stream.wasm
//   ssr tenant add stream stream.wasm --var API=http://127.0.0.1:9000 \
//     --allow-fetch http://127.0.0.1:9000
/** @jsxRuntime automatic */
/** @jsxImportSource react */
import { Suspense, use } from 'react';
import { renderToReadableStream } from 'react-dom/server';

function Items({ data }) {
  const items = use(data);
  return (
    <ul id="items">
      {items.map((i) => (
        <li key={i}>item {i}</li>
      ))}
    </ul>
  );
}

function Page({ data }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <title>Streamed</title>
        <link rel="icon" href="data:," />
      </head>
      <body>
        <h1>Streamed</h1>
        <Suspense fallback={<p id="fallback">loading…</p>}>
          <Items data={data} />
        </Suspense>
      </body>
    </html>
  );
}

function items(env) {
  if (env && env.API) return fetch(`${env.API}/items`).then((r) => r.json());
  return new Promise((resolve) => setTimeout(() => resolve([1, 2, 3]), 20));
}

const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

/** @satisfies {import('@ssr/types').Handler} */
export default {
  async fetch(request, env) {
    const stream = await renderToReadableStream(<Page data={items(env)} />);
    if (new URL(request.url).searchParams.has('whole')) {
      await stream.allReady;
      return new Response(await new Response(stream).text(), { headers });
    }
    return new Response(stream, { headers });
  },
};

// The same page read whole, for Node to render (tests/all/streams.rs
// compares the bytes).
export async function render() {
  const html = await new Response(await renderToReadableStream(<Page data={items()} />)).text();
  return { status: 200, headers, body: html };
}
