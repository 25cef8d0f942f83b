// A React 19 page rendered with renderToReadableStream: a shell, and a
// Suspense boundary whose data arrives after a timer. The fetch handler
// returns the stream as its Response's body; the render function reads it
// whole (tests/all/streams.rs compares those bytes with Node's).
//
//   ssr build plugins/stream/app.jsx -o stream.wasm
/** @jsxRuntime automatic */
/** @jsxImportSource react */
import { Suspense, use } from 'react';
import { renderToReadableStream } from 'react-dom/server';

function Slow({ data }) {
  const items = use(data);
  return (
    <ul>
      {items.map((i) => (
        <li key={i}>item {i}</li>
      ))}
    </ul>
  );
}

function Page({ data }) {
  return (
    <html lang="en">
      <body>
        <h1>Streamed</h1>
        <Suspense fallback={<p id="fallback">loading…</p>}>
          <Slow data={data} />
        </Suspense>
      </body>
    </html>
  );
}

function stream() {
  const data = new Promise((resolve) => setTimeout(() => resolve([1, 2, 3]), 20));
  return renderToReadableStream(<Page data={data} />);
}

export async function render() {
  const html = await new Response(await stream()).text();
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html };
}

export default {
  async fetch() {
    return new Response(await stream(), { headers: { 'content-type': 'text/html; charset=utf-8' } });
  },
};
