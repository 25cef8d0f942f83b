import { useState } from 'react';
import { Link, useLoaderData } from 'react-router';
import { sessions } from '../session.js';

const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

export const meta = () => [{ title: 'React Router on ssr' }];

export async function loader({ request, context }) {
  const { env } = context.cloudflare;
  const session = await sessions(env).getSession(request.headers.get('Cookie'));
  const max = Number(new URL(request.url).searchParams.get('max') ?? 100);
  return { greeting: env.GREETING, user: session.get('user') ?? null, products: products.filter((p) => p.price <= max) };
}

export default function Home() {
  const { greeting, user, products } = useLoaderData();
  const [count, setCount] = useState(0);
  return (
    <main>
      <h1>{greeting}</h1>
      {user ? <p className="user">Signed in as {user}</p> : <Link to="/login">Log in</Link>}
      <ul>
        {products.map((p) => (
          <li key={p.id}>
            {p.name}: ${p.price}
          </li>
        ))}
      </ul>
      <button onClick={() => setCount(count + 1)}>Clicked {count} times</button>
    </main>
  );
}
