// A D1 database (`env.DB`) through what apps and ORMs call: `prepare`,
// `bind`, `first`, `all`, `raw`, `run`, `batch`, `exec`, sessions, the
// results' `meta`, and D1's errors; the same answer is expected from
// `wrangler dev` (Miniflare). `/suite` runs on tables it makes again;
// `/note?text=T` inserts a row and `/notes` lists them.
async function attempt(f) {
  try {
    return await f();
  } catch (e) {
    return ['threw', e.name, e.message];
  }
}

// What a result's `meta` says that does not depend on timing, on the
// file's layout, or on how the engine counts rows it reads and writes
// (Cloudflare's billing counters).
function metaOf(m) {
  return {
    keys: Object.keys(m),
    changes: m.changes,
    last_row_id: m.last_row_id,
    changed_db: m.changed_db,
    rows_read: typeof m.rows_read,
    rows_written: typeof m.rows_written,
    duration: typeof m.duration,
    size_after: typeof m.size_after,
    timings: Object.keys(m.timings),
  };
}
const shape = (r) => ({ keys: Object.keys(r), success: r.success, results: r.results, meta: metaOf(r.meta) });

async function suite(db) {
  const out = {};
  await db.exec('DROP TABLE IF EXISTS users;\nDROP TABLE IF EXISTS notes');
  const made = await db.exec(
    'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, age INTEGER, score REAL, avatar BLOB, active INTEGER)',
  );
  out.exec = [Object.keys(made), made.count, typeof made.duration];
  const insert = db.prepare('INSERT INTO users (name, age, score, avatar, active) VALUES (?, ?, ?, ?, ?)');
  out.insert = [
    shape(await insert.bind('ann', 31, 1.5, new Uint8Array([1, 2, 3]), true).run()),
    shape(await insert.bind('bob', null, 2, new Uint8Array([9]).buffer, false).run()),
    shape(await db.prepare('INSERT INTO users (name, age) VALUES (?2, ?1)').bind(40, 'cy').run()),
  ];
  out.all = shape(await db.prepare('SELECT * FROM users ORDER BY id').all());
  const byName = db.prepare('SELECT * FROM users WHERE name = ?');
  out.first = [
    await byName.bind('ann').first(),
    await db.prepare('SELECT name FROM users WHERE id = ?').bind(2).first('name'),
    await db.prepare('SELECT * FROM users WHERE id = 99').first(),
    await db.prepare('SELECT * FROM users WHERE id = 99').first('name'),
    await attempt(() => db.prepare('SELECT name FROM users').first('nope')),
  ];
  out.raw = [
    await db.prepare('SELECT id, name FROM users ORDER BY id').raw(),
    await db.prepare('SELECT id, name FROM users ORDER BY id').raw({ columnNames: true }),
    await db.prepare('SELECT id FROM users WHERE id > 99').raw({ columnNames: true }),
  ];
  out.types = shape(
    await db.prepare("SELECT 1 AS i, 1.5 AS r, 'x' AS t, x'0102' AS b, NULL AS n, 9007199254740993 AS big, -0.0 AS z, 'é' AS u").all(),
  );
  out.bound = await db
    .prepare('SELECT ? AS a, ? AS b, ? AS c, ? AS d, typeof(?) AS e, typeof(?) AS f')
    .bind(true, 2.5, 'text', null, 7, 7.5)
    .first();
  out.update = shape(await db.prepare('UPDATE users SET age = age + 1 WHERE age IS NOT NULL').run());
  out.batch = (
    await db.batch([
      db.prepare('INSERT INTO users (name) VALUES (?)').bind('dee'),
      db.prepare('DELETE FROM users WHERE name = ?').bind('bob'),
      db.prepare('SELECT count(*) AS n FROM users'),
    ])
  ).map(shape);
  out.rolledBack = [
    await attempt(() =>
      db.batch([db.prepare("INSERT INTO users (name) VALUES ('eve')"), db.prepare('INSERT INTO nope VALUES (1)')]),
    ),
    await db.prepare("SELECT count(*) AS n FROM users WHERE name = 'eve'").first('n'),
  ];
  out.errors = [
    await attempt(() => db.prepare('SELEC 1').all()),
    await attempt(() => db.prepare('SELECT * FROM missing').all()),
    await attempt(() => db.prepare('INSERT INTO users (name) VALUES (?)').bind(undefined).run()),
    await attempt(() => db.prepare("INSERT INTO users (name) VALUES ('ann')").run()),
    await attempt(() => db.prepare('INSERT INTO users (name) VALUES (NULL)').run()),
    await attempt(() => db.prepare('SELECT ?').bind({}).all()),
    await attempt(() => db.prepare('SELECT ?').bind(1n).all()),
    await attempt(() => db.exec('')),
    await attempt(() => db.batch([])),
    await attempt(() => db.prepare('SELECT ?1, ?2').bind(1).all()),
    await attempt(() => db.prepare('')),
    await attempt(() => db.exec('SELECT 1; SELEC 2')),
  ];
  const session = db.withSession('first-primary');
  out.session = [
    typeof session.getBookmark,
    await session.prepare('SELECT count(*) AS n FROM users').first('n'),
    typeof session.getBookmark(),
    await attempt(() => db.withSession('not a bookmark').prepare('SELECT 1 AS one').first('one')),
  ];
  out.shape = [
    Object.getOwnPropertyNames(Object.getPrototypeOf(db.prepare('SELECT 1'))).sort(),
    JSON.stringify(db.prepare('SELECT ?').bind(1)),
    Object.keys(await db.prepare('SELECT 1 AS x').run()),
    (await db.prepare('SELECT 1 AS x').run()).results,
    await db.withSession().getBookmark(),
  ];
  return out;
}

// Never kept by a page cache: every answer reads the database as it is.
const fresh = { 'cache-control': 'no-store' };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/suite') return Response.json(await suite(env.DB), { headers: fresh });
    if (url.pathname === '/note') {
      await env.DB.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT)');
      const r = await env.DB.prepare('INSERT INTO notes (text) VALUES (?)').bind(url.searchParams.get('text')).run();
      return new Response(`${r.meta.last_row_id}\n`, { headers: fresh });
    }
    if (url.pathname === '/notes') {
      const { results } = await env.DB.prepare('SELECT text FROM notes ORDER BY id').all();
      return new Response(`${results.map((r) => r.text).join(',')}\n`, { headers: fresh });
    }
    return new Response('not found\n', { status: 404, headers: fresh });
  },
};
