// The app both halves render: the server streams it as HTML (server.jsx),
// the browser hydrates that HTML (client.jsx).
import { Suspense, use, useEffect, useState } from 'react';

// `words`: a promise on the server (the boundary streams in when it
// settles), the text the server sent in the browser.
function Greeting({ words }) {
  return <p id="greeting">{typeof words === 'string' ? words : use(words)}</p>;
}

export function App({ name, words }) {
  const [count, setCount] = useState(0);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <title>{`Hello, ${name}`}</title>
      </head>
      <body>
        <main data-hydrated={hydrated ? 'yes' : 'no'}>
          <h1>Hello, {name}!</h1>
          <Suspense fallback={<p id="greeting">…</p>}>
            <Greeting words={words} />
          </Suspense>
          <button type="button" onClick={() => setCount((c) => c + 1)}>
            Clicked {count} times
          </button>
        </main>
      </body>
    </html>
  );
}
