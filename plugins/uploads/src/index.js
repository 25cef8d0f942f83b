// Uploads kept in an R2 bucket, as a Hono app on Workers keeps them: a
// page listing the files, a streamed `PUT` of one, a `GET` that honours
// `Range` and the conditional headers (206, 304, 412 as a CDN would
// answer), a JSON listing by prefix and folder, and multipart uploads for
// large files in the shape of Cloudflare's R2 guide (create, upload each
// part, complete or abort).
import { Hono } from 'hono';
import { html } from 'hono/html';

/** @type {Hono<{ Bindings: { BUCKET: R2Bucket } }>} */
const app = new Hono();

const keyOf = (c) => decodeURIComponent(c.req.path.slice(c.req.path.indexOf('/', 1) + 1));

// An object's description as the API answers it: what R2 keeps of it,
// less its version and upload time, which differ from run to run.
const described = (o) => ({
  key: o.key,
  size: o.size,
  etag: o.etag,
  httpEtag: o.httpEtag,
  httpMetadata: o.httpMetadata,
  customMetadata: o.customMetadata,
});

app.get('/', async (c) => {
  const { objects, truncated } = await c.env.BUCKET.list({ include: ['httpMetadata'] });
  return c.html(html`<!doctype html>
<html>
  <head><title>Uploads</title><link rel="stylesheet" href="/site.css" /></head>
  <body>
    <h1>Uploads</h1>
    ${objects.length === 0
      ? html`<p>Nothing uploaded yet.</p>`
      : html`<table>
      ${objects.map(
        (o) =>
          html`<tr><td><a href="/files/${encodeURIComponent(o.key)}">${o.key}</a></td><td>${o.size}</td><td>${o.httpMetadata.contentType ?? ''}</td></tr>`,
      )}
    </table>`}
    ${truncated ? html`<p>More…</p>` : ''}
  </body>
</html>`);
});

app.put('/files/*', async (c) => {
  const body = c.req.raw.body;
  if (!body) return c.json({ error: 'an upload needs a body' }, 400);
  const object = await c.env.BUCKET.put(keyOf(c), body, {
    httpMetadata: c.req.raw.headers,
    customMetadata: { uploadedBy: c.req.header('x-user') ?? 'anonymous' },
    onlyIf: c.req.raw.headers,
  });
  if (object === null) return c.json({ error: 'precondition failed' }, 412);
  return c.json(described(object), 201);
});

const serve = async (c, head) => {
  const key = keyOf(c);
  const options = { onlyIf: c.req.raw.headers, range: c.req.raw.headers };
  const object = head ? await c.env.BUCKET.head(key) : await c.env.BUCKET.get(key, options);
  if (object === null) return c.json({ error: `no file ${key}` }, 404);
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  headers.set('etag', object.httpEtag);
  headers.set('accept-ranges', 'bytes');
  headers.set('x-uploaded-by', object.customMetadata.uploadedBy ?? '');
  if (head) {
    headers.set('content-length', String(object.size));
    return new Response(null, { headers });
  }
  if (!('body' in object)) {
    // A condition failed: a 304 for If-None-Match, else a 412.
    const status = c.req.header('if-none-match') ? 304 : 412;
    return new Response(null, { status, headers });
  }
  const { offset, length } = object.range ?? { offset: 0, length: object.size };
  if (c.req.header('range')) {
    headers.set('content-range', `bytes ${offset}-${offset + length - 1}/${object.size}`);
    return new Response(object.body, { status: 206, headers });
  }
  return new Response(object.body, { headers });
};
app.get('/files/*', (c) => serve(c, false));
app.on('HEAD', '/files/*', (c) => serve(c, true));

app.delete('/files/*', async (c) => {
  await c.env.BUCKET.delete(keyOf(c));
  return c.body(null, 204);
});

app.get('/api/list', async (c) => {
  const limit = Number(c.req.query('limit') ?? 1000);
  const listed = await c.env.BUCKET.list({
    prefix: c.req.query('prefix'),
    delimiter: c.req.query('delimiter'),
    cursor: c.req.query('cursor'),
    limit,
    include: ['httpMetadata', 'customMetadata'],
  });
  return c.json({
    objects: listed.objects.map(described),
    folders: listed.delimitedPrefixes,
    truncated: listed.truncated,
    cursor: listed.truncated ? listed.cursor : null,
  });
});

// Multipart uploads: `POST /mpu/KEY?action=create`, then
// `PUT /mpu/KEY?action=part&uploadId=U&partNumber=N` for each part,
// `POST /mpu/KEY?action=complete&uploadId=U` with `{ parts }`, or
// `DELETE /mpu/KEY?uploadId=U`.
app.post('/mpu/*', async (c) => {
  const key = keyOf(c);
  const action = c.req.query('action');
  if (action === 'create') {
    const upload = await c.env.BUCKET.createMultipartUpload(key, {
      httpMetadata: c.req.raw.headers,
      customMetadata: { uploadedBy: c.req.header('x-user') ?? 'anonymous' },
    });
    return c.json({ key: upload.key, uploadId: upload.uploadId });
  }
  if (action === 'complete') {
    const upload = c.env.BUCKET.resumeMultipartUpload(key, c.req.query('uploadId'));
    const { parts } = await c.req.json();
    try {
      const object = await upload.complete(parts);
      return c.json(described(object));
    } catch (e) {
      return c.json({ error: e.message }, 400);
    }
  }
  return c.json({ error: `unknown action ${action}` }, 400);
});

app.put('/mpu/*', async (c) => {
  const upload = c.env.BUCKET.resumeMultipartUpload(keyOf(c), c.req.query('uploadId'));
  const partNumber = Number(c.req.query('partNumber'));
  try {
    return c.json(await upload.uploadPart(partNumber, c.req.raw.body));
  } catch (e) {
    return c.json({ error: e.message }, 400);
  }
});

app.delete('/mpu/*', async (c) => {
  const upload = c.env.BUCKET.resumeMultipartUpload(keyOf(c), c.req.query('uploadId'));
  try {
    await upload.abort();
  } catch (e) {
    return c.json({ error: e.message }, 400);
  }
  return c.body(null, 204);
});

export default app;
