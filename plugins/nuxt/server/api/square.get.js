import { getQuery } from 'h3';

export default defineEventHandler((event) => {
  const n = Number(getQuery(event).n ?? 2);
  return { n, square: n * n };
});
