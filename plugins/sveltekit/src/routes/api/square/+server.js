import { json } from '@sveltejs/kit';

export function GET({ url }) {
  const n = Number(url.searchParams.get('n') ?? 2);
  return json({ n, square: n * n, method: 'GET' });
}

export async function POST({ request }) {
  const body = await request.json();
  return json({ echo: body, method: 'POST' }, { status: 201 });
}
