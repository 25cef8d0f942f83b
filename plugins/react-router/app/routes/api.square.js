export function loader({ request }) {
  const n = Number(new URL(request.url).searchParams.get('n') ?? 2);
  return Response.json({ n, square: n * n });
}

export async function action({ request }) {
  return Response.json({ echo: await request.json() }, { status: 201 });
}
