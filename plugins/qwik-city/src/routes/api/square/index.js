export const onGet = ({ url, json }) => {
  const n = Number(url.searchParams.get('n') ?? 2);
  json(200, { n, square: n * n });
};

export const onPost = async ({ request, json }) => json(201, { echo: await request.json() });
