import { createCookieSessionStorage } from 'react-router';

// Signed with crypto.subtle HMAC by React Router; the secret is a var.
export function sessions(env) {
  return createCookieSessionStorage({
    cookie: {
      name: 'session',
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secrets: [env.SESSION_SECRET ?? 'development secret'],
    },
  });
}
