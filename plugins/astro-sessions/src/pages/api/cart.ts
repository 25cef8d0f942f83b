import type { APIRoute } from 'astro';

// The session as JSON, for scripts.
export const GET: APIRoute = async ({ session }) =>
  Response.json({
    user: (await session?.get('user')) ?? null,
    cart: (await session?.get('cart')) ?? [],
    visits: (await session?.get('visits')) ?? 0,
  });
