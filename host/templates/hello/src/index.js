// A Workers handler: a Request in, a Response out. `env` holds the site's
// vars (ssr.toml's [vars]) and secrets (`ssr tenant secret put`).
const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const name = url.searchParams.get('name') ?? 'world';
    console.log('hello', name);
    return new Response(`<!doctype html><h1>${escape(env.GREETING)}, ${escape(name)}!</h1>`, {
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
  },
};
