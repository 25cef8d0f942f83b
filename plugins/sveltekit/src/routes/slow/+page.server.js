// The review list is not awaited: SvelteKit sends the page at once and
// streams the data when the promise settles.
export function load() {
  return {
    title: 'Streamed reviews',
    reviews: new Promise((resolve) => setTimeout(() => resolve(['Great kettle', 'Pours well']), 300)),
  };
}
