import { component$ } from '@builder.io/qwik';
import { routeLoader$ } from '@builder.io/qwik-city';
import { secretOf, userOf } from '../../../shared/session.js';

const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

// On the server: the var, the session cookie and the query.
export const useHome = routeLoader$(async ({ platform, cookie, url }) => ({
  greeting: platform.env.GREETING,
  user: await userOf(cookie.get('session')?.value, secretOf(platform.env)),
  max: Number(url.searchParams.get('max') ?? 100),
}));

export default component$(() => {
  const home = useHome();
  return (
    <main>
      <h1>{home.value.greeting}</h1>
      {home.value.user ? <p class="user">Signed in as {home.value.user}</p> : <a href="/login">Log in</a>}
      <ul>
        {products
          .filter((p) => p.price <= home.value.max)
          .map((p) => (
            <li key={p.id}>
              {p.name}: ${p.price}
            </li>
          ))}
      </ul>
    </main>
  );
});
