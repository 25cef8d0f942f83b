import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// The template's table, and a column a second migration added: one row per
// signature, an email signs once.
export const guestBook = sqliteTable('guestBook', {
  id: integer().primaryKey({ autoIncrement: true }),
  name: text().notNull(),
  email: text().notNull().unique(),
  signedAt: integer().notNull().default(0),
});
