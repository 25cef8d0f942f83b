import type { APIRoute } from 'astro';

// Adds the form's item to the session's cart.
export const POST: APIRoute = async ({ request, session, redirect }) => {
  const item = String((await request.formData()).get('item') ?? '');
  if (!['Kettle', 'Teapot', 'Mug'].includes(item)) {
    return new Response(`No such product: ${item}\n`, { status: 400 });
  }
  const cart: string[] = (await session?.get('cart')) ?? [];
  session?.set('cart', [...cart, item]);
  return redirect('/', 303);
};
