import { createFileRoute } from '@tanstack/react-router';

export const Route = createFileRoute('/api/square')({
  server: {
    handlers: {
      GET: ({ request }) => {
        const n = Number(new URL(request.url).searchParams.get('n') ?? 2);
        return Response.json({ n, square: n * n });
      },
      POST: async ({ request }) => Response.json({ echo: await request.json() }, { status: 201 }),
    },
  },
});
