import { component$ } from '@builder.io/qwik';
import { routeLoader$ } from '@builder.io/qwik-city';

// Data that takes 300 ms (a timer): the page is sent when it has come.
export const useReviews = routeLoader$(
  () => new Promise((resolve) => setTimeout(() => resolve(['Great kettle', 'Pours well']), 300)),
);

export default component$(() => {
  const reviews = useReviews();
  return (
    <main>
      <h1>Streamed reviews</h1>
      <ul>
        {reviews.value.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
    </main>
  );
});
