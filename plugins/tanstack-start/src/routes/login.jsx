import { createFileRoute } from '@tanstack/react-router';
import { env } from 'cloudflare:workers';
import { logIn, secretOf } from '../../../shared/session.js';

export const Route = createFileRoute('/login')({
  // The form's action: a valid name sets the signed session cookie.
  server: { handlers: { POST: ({ request }) => logIn(request, secretOf(env)) } },
  component: Login,
});

function Login() {
  return (
    <form method="post">
      <input name="user" />
      <button>Log in</button>
    </form>
  );
}
