// The app both halves render: the server to HTML (server.jsx), the browser
// to hydrate that HTML (client.jsx). `data-hydrated` turns "yes" once React
// runs in the browser, which is what the browser test waits for.
import { useEffect, useState } from 'react';

export function App({ name, start }) {
  const [count, setCount] = useState(start);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <main data-hydrated={hydrated ? 'yes' : 'no'}>
      <h1>Hello, {name}!</h1>
      <p>
        Clicked <output id="count">{count}</output> times.
      </p>
      <button id="add" type="button" onClick={() => setCount((c) => c + 1)}>
        Add one
      </button>
    </main>
  );
}
