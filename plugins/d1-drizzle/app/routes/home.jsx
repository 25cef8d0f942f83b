import { asc, count, desc, eq } from 'drizzle-orm';
import { Form, useActionData, useLoaderData } from 'react-router';

import { guestBook } from '../../database/schema';

// The template's guest book: sign with a name and an email (once per
// email), the newest signatures first; `?q=` finds by name.
export async function action({ request, context }) {
  const form = await request.formData();
  const intent = form.get('intent');
  if (intent === 'delete') {
    await context.db.delete(guestBook).where(eq(guestBook.id, Number(form.get('id'))));
    return { ok: 'Deleted' };
  }
  const name = String(form.get('name') ?? '').trim();
  const email = String(form.get('email') ?? '').trim();
  if (!name || !email) return { error: 'Name and email are required' };
  try {
    await context.db.insert(guestBook).values({ name, email, signedAt: Number(form.get('at') ?? 0) });
  } catch (error) {
    return { error: `Error adding to guest book: ${error.cause?.message ?? error.message}` };
  }
  return { ok: `Thanks, ${name}` };
}

export async function loader({ request, context }) {
  const q = new URL(request.url).searchParams.get('q');
  const query = context.db.query.guestBook.findMany({
    columns: { id: true, name: true, signedAt: true },
    where: q ? (g, { like }) => like(g.name, `%${q}%`) : undefined,
    orderBy: [desc(guestBook.id)],
  });
  const [entries, [{ total }], [first]] = await context.db.batch([
    query,
    context.db.select({ total: count() }).from(guestBook),
    context.db.select({ name: guestBook.name }).from(guestBook).orderBy(asc(guestBook.id)).limit(1),
  ]);
  return { entries, total, first: first?.name ?? null };
}

export default function Home() {
  const { entries, total, first } = useLoaderData();
  const said = useActionData();
  return (
    <main>
      <h1>Guest book</h1>
      {said?.error && <p className="error">{said.error}</p>}
      {said?.ok && <p className="ok">{said.ok}</p>}
      <Form method="post">
        <input name="name" placeholder="Name" />
        <input name="email" type="email" placeholder="Email" />
        <button name="intent" value="sign">Sign</button>
      </Form>
      <p>
        {total} signatures{first ? `, the first by ${first}` : ''}
      </p>
      <ul>
        {entries.map((e) => (
          <li key={e.id}>
            {e.name} ({e.signedAt})
            <Form method="post">
              <input type="hidden" name="id" value={e.id} />
              <button name="intent" value="delete">Delete</button>
            </Form>
          </li>
        ))}
      </ul>
    </main>
  );
}
