const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

export function load({ url, platform }) {
  const max = Number(url.searchParams.get('max') ?? 100);
  return {
    greeting: platform?.env?.GREETING ?? 'Hello',
    products: products.filter((p) => p.price <= max),
  };
}
