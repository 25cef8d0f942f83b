// A Hono app: pages in JSX and a JSON API.
import { Hono } from 'hono';

const app = new Hono();

app.get('/', (c) => {
  const name = c.req.query('name') ?? 'world';
  console.log('page for', name);
  return c.html(
    <html>
      <body>
        <h1>
          {c.env.GREETING}, {name}!
        </h1>
        <a href="/api/time">the time, as JSON</a>
      </body>
    </html>,
  );
});

app.get('/api/time', (c) => c.json({ now: new Date().toISOString() }));

export default app;
