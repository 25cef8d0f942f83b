export function GET(request) {
  const n = Number(new URL(request.url).searchParams.get('n') ?? 2);
  return Response.json({ n, square: n * n });
}

export async function POST(request) {
  return Response.json({ echo: await request.json() }, { status: 201 });
}
