// A Hono app as its Cloudflare template writes one: pages in JSX, a form
// with a signed cookie session, a JSON API, a streamed page, a WebSocket
// (Hono's helper for Workers) and static assets from `public/` (served
// before the app, as on Workers).
import { Hono } from 'hono';
import { upgradeWebSocket } from 'hono/cloudflare-workers';
import { getSignedCookie, setSignedCookie } from 'hono/cookie';
import { Suspense } from 'hono/jsx';
import { jsxRenderer } from 'hono/jsx-renderer';

/** @type {Hono<{ Bindings: import('@ssr/types').Env }>} */
const app = new Hono();

const products = [
  { id: 1, name: 'Kettle', price: 25 },
  { id: 2, name: 'Teapot', price: 40 },
  { id: 3, name: 'Mug', price: 8 },
];

const secret = (c) => c.env.SESSION_SECRET ?? 'development secret';

app.use(
  '*',
  jsxRenderer(
    ({ children }) => (
      <html>
        <head>
          <link rel="stylesheet" href="/site.css" />
        </head>
        <body>{children}</body>
      </html>
    ),
    { stream: true },
  ),
);

app.get('/', async (c) => {
  const user = await getSignedCookie(c, secret(c), 'session');
  const max = Number(c.req.query('max') ?? 100);
  return c.render(
    <main>
      <h1>{c.env.GREETING}</h1>
      {user ? <p class="user">Signed in as {user}</p> : <a href="/login">Log in</a>}
      <ul>
        {products
          .filter((p) => p.price <= max)
          .map((p) => (
            <li>
              {p.name}: ${p.price}
            </li>
          ))}
      </ul>
    </main>,
  );
});

app.get('/login', (c) =>
  c.render(
    <form method="post">
      <input name="user" />
      <button>Log in</button>
    </form>,
  ),
);

app.post('/login', async (c) => {
  const form = await c.req.parseBody();
  const user = String(form.user ?? '').trim();
  if (!/^[a-z0-9]{1,32}$/i.test(user)) {
    c.status(400);
    return c.render(<p class="error">A user name is 1 to 32 letters or digits.</p>);
  }
  await setSignedCookie(c, 'session', user, secret(c), { path: '/', httpOnly: true, sameSite: 'Lax' });
  return c.redirect('/', 303);
});

// Dates and prices as a reader's locale writes them (Intl on both engines).
const reviewDate = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });
const euros = new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' });
const stars = new Intl.PluralRules('en-GB');

async function Reviews() {
  const reviews = await new Promise((resolve) =>
    setTimeout(
      () =>
        resolve([
          { text: 'Great kettle', on: Date.UTC(2026, 10, 2), stars: 5, paid: 25 },
          { text: 'Pours well', on: Date.UTC(2026, 10, 19), stars: 1, paid: 24.5 },
        ]),
      300,
    ),
  );
  return (
    <ul>
      {reviews.map((r) => (
        <li>
          {r.text}: {r.stars} {stars.select(r.stars) === 'one' ? 'star' : 'stars'}, paid {euros.format(r.paid)} on{' '}
          {reviewDate.format(r.on)}
        </li>
      ))}
    </ul>
  );
}

app.get('/slow', (c) =>
  c.render(
    <main>
      <h1>Streamed reviews</h1>
      <Suspense fallback={<p>Loading reviews…</p>}>
        <Reviews />
      </Suspense>
    </main>,
  ),
);

// Each message said back with who said it, until `bye`.
app.get(
  '/chat',
  upgradeWebSocket((c) => ({
    onMessage(event, ws) {
      const text = String(event.data);
      if (text === 'bye') ws.close(1000, 'bye');
      else ws.send(`${c.req.query('name') ?? 'someone'} said ${text}`);
    },
  })),
);

app.get('/api/square', (c) => {
  const n = Number(c.req.query('n') ?? 2);
  return c.json({ n, square: n * n });
});

app.post('/api/square', async (c) => c.json({ echo: await c.req.json() }, 201));

app.notFound((c) => c.text(`no page at ${new URL(c.req.url).pathname}`, 404));

export default app;
