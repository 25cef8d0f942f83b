import { Suspense } from 'react';
import { Await, useLoaderData } from 'react-router';

// The reviews are not awaited: React Router streams the page and sends them
// when the promise settles.
export function loader() {
  return {
    title: 'Streamed reviews',
    reviews: new Promise((resolve) => setTimeout(() => resolve(['Great kettle', 'Pours well']), 300)),
  };
}

export default function Slow() {
  const { title, reviews } = useLoaderData();
  return (
    <main>
      <h1>{title}</h1>
      <Suspense fallback={<p>Loading reviews…</p>}>
        <Await resolve={reviews}>
          {(list) => (
            <ul>
              {list.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          )}
        </Await>
      </Suspense>
    </main>
  );
}
