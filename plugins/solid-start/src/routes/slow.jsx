import { createAsync, query } from '@solidjs/router';
import { For, Suspense } from 'solid-js';

// Data that takes 300 ms (a timer): the page streams, and the reviews
// follow when they come.
const reviews = query(async () => {
  'use server';
  return new Promise((resolve) => setTimeout(() => resolve(['Great kettle', 'Pours well']), 300));
}, 'reviews');

export default function Slow() {
  const list = createAsync(() => reviews());
  return (
    <main>
      <h1>Streamed reviews</h1>
      <Suspense fallback={<p>Loading reviews…</p>}>
        <ul>
          <For each={list()}>{(r) => <li>{r}</li>}</For>
        </ul>
      </Suspense>
    </main>
  );
}
