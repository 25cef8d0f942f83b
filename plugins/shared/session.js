// A signed cookie session, as an app without a session library writes one:
// the user name and its HMAC-SHA-256 (crypto.subtle), keyed by a secret.
// The example apps whose framework has no deterministic signed session
// (Nuxt, SolidStart, ...) share it, so that ssr's and workerd's cookies
// can be compared byte for byte.
const bytes = new TextEncoder();

const key = (secret) =>
  crypto.subtle.importKey('raw', bytes.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);

const base64url = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');

/** The secret: a secret binding in production, a fixed one in development. */
export const secretOf = (env) => env?.SESSION_SECRET ?? 'development secret';

export async function sign(user, secret) {
  return `${user}.${base64url(await crypto.subtle.sign('HMAC', await key(secret), bytes.encode(user)))}`;
}

/** The user a cookie names, if its signature is right. */
export async function userOf(cookie, secret) {
  const dot = cookie?.lastIndexOf('.') ?? -1;
  if (dot < 1) return null;
  const user = cookie.slice(0, dot);
  return (await sign(user, secret)) === cookie ? user : null;
}

/** The value of cookie `name` in a `Cookie` header. */
export function cookieNamed(header, name) {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The login form's action as a `Response`: a valid name gets the signed
 * session cookie and a redirect home, any other a 400 that says why.
 */
export async function logIn(request, secret) {
  const form = await request.formData();
  const user = String(form.get('user') ?? '').trim();
  if (!/^[a-z0-9]{1,32}$/i.test(user)) {
    return new Response('<p class="error">A user name is 1 to 32 letters or digits.</p>', {
      status: 400,
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
  }
  const cookie = `session=${await sign(user, secret)}; Path=/; HttpOnly; SameSite=Lax`;
  return new Response(null, { status: 303, headers: { location: '/', 'set-cookie': cookie } });
}
