// A signed cookie session: the cookie holds the user name and an HMAC-SHA-256
// signature made with crypto.subtle, keyed by the SESSION_SECRET var.
const encoder = new TextEncoder();

async function key(secret) {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export async function seal(secret, user) {
  const signature = await crypto.subtle.sign('HMAC', await key(secret), encoder.encode(user));
  return `${user}.${hex(signature)}`;
}

export async function open(secret, cookie) {
  if (!cookie) return null;
  const dot = cookie.lastIndexOf('.');
  if (dot < 1) return null;
  const user = cookie.slice(0, dot);
  const expected = await seal(secret, user);
  return expected === cookie ? user : null;
}
