import { connection } from 'next/server';
import { Suspense } from 'react';

// The reviews come after a 300 ms timer: the page streams, and they follow.
async function Reviews() {
  const reviews = await new Promise((resolve) => setTimeout(() => resolve(['Great kettle', 'Pours well']), 300));
  return (
    <ul>
      {reviews.map((r) => (
        <li key={r}>{r}</li>
      ))}
    </ul>
  );
}

export default async function Slow() {
  await connection();
  return (
    <main>
      <h1>Streamed reviews</h1>
      <Suspense fallback={<p>Loading reviews…</p>}>
        <Reviews />
      </Suspense>
    </main>
  );
}
