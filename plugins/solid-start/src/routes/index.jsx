import { createAsync, query, useSearchParams } from '@solidjs/router';
import { env } from 'cloudflare:workers';
import { For, Show } from 'solid-js';
import { getRequestEvent } from 'solid-js/web';
import { cookieNamed, secretOf, userOf } from '../../../shared/session.js';

const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

// On the server: the var and the session cookie.
const home = query(async () => {
  'use server';
  const cookie = cookieNamed(getRequestEvent().request.headers.get('cookie'), 'session');
  return { greeting: env.GREETING, user: await userOf(cookie, secretOf(env)) };
}, 'home');

export default function Home() {
  const data = createAsync(() => home());
  const [params] = useSearchParams();
  const max = () => Number(params.max ?? 100);
  return (
    <main>
      <h1>{data()?.greeting}</h1>
      <Show when={data()?.user} fallback={<a href="/login">Log in</a>}>
        <p class="user">Signed in as {data().user}</p>
      </Show>
      <ul>
        <For each={products.filter((p) => p.price <= max())}>
          {(p) => (
            <li>
              {p.name}: ${p.price}
            </li>
          )}
        </For>
      </ul>
    </main>
  );
}
