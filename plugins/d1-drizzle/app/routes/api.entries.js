import { sql } from 'drizzle-orm';

import { guestBook } from '../../database/schema';

// The book as JSON, through Drizzle's query builder and raw SQL both.
export async function loader({ context }) {
  const rows = await context.db.select().from(guestBook).orderBy(guestBook.id);
  const { results } = await context.cloudflare.env.DB.prepare(
    'SELECT name, length(email) AS n FROM guestBook ORDER BY id',
  ).all();
  const [{ names }] = await context.db.all(sql`SELECT group_concat(name, ',') AS names FROM ${guestBook}`);
  return Response.json({ rows, results, names });
}
