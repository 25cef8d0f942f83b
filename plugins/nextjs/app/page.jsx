import { getCloudflareContext } from '@opennextjs/cloudflare';
import { cookies } from 'next/headers';
import { secretOf, userOf } from 'ssr-example-session';

const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

// A server component: the var, the session cookie and the query.
export default async function Home({ searchParams }) {
  const session = (await cookies()).get('session')?.value;
  const { env } = getCloudflareContext();
  const user = await userOf(session, secretOf(env));
  const max = Number((await searchParams).max ?? 100);
  return (
    <main>
      <h1>{env.GREETING}</h1>
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
