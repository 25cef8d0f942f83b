import { Await, createFileRoute } from '@tanstack/react-router';

// The reviews are not awaited: the page streams, and they follow when the
// 300 ms timer has fired.
export const Route = createFileRoute('/slow')({
  loader: () => ({
    reviews: new Promise((resolve) => setTimeout(() => resolve(['Great kettle', 'Pours well']), 300)),
  }),
  component: Slow,
});

function Slow() {
  const { reviews } = Route.useLoaderData();
  return (
    <main>
      <h1>Streamed reviews</h1>
      <Await promise={reviews} fallback={<p>Loading reviews…</p>}>
        {(list) => (
          <ul>
            {list.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        )}
      </Await>
    </main>
  );
}
