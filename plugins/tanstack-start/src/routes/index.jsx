import { createFileRoute } from '@tanstack/react-router';
import { createServerFn } from '@tanstack/react-start';
import { getRequestHeader } from '@tanstack/react-start/server';
import { env } from 'cloudflare:workers';
import { cookieNamed, secretOf, userOf } from '../../../shared/session.js';

const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

// On the server: the var and the session cookie.
const home = createServerFn({ method: 'GET' }).handler(async () => {
  const cookie = cookieNamed(getRequestHeader('cookie'), 'session');
  return { greeting: env.GREETING, user: await userOf(cookie, secretOf(env)) };
});

export const Route = createFileRoute('/')({
  validateSearch: (search) => ({ max: search.max === undefined ? undefined : Number(search.max) }),
  loader: () => home(),
  component: Home,
});

function Home() {
  const { greeting, user } = Route.useLoaderData();
  const { max = 100 } = Route.useSearch();
  return (
    <main>
      <h1>{greeting}</h1>
      {user ? <p className="user">Signed in as {user}</p> : <a href="/login">Log in</a>}
      <ul>
        {products
          .filter((p) => p.price <= max)
          .map((p) => (
            <li key={p.id}>
              {p.name}: ${p.price}
            </li>
          ))}
      </ul>
    </main>
  );
}
