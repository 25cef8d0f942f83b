import { createFileRoute } from '@tanstack/react-router';
import { env } from 'cloudflare:workers';
import { secretOf, sign } from '../../../shared/session.js';

export const Route = createFileRoute('/login')({
  server: {
    handlers: {
      // The form's action: a valid name sets the signed session cookie.
      POST: async ({ request }) => {
        const form = await request.formData();
        const user = String(form.get('user') ?? '').trim();
        if (!/^[a-z0-9]{1,32}$/i.test(user)) {
          return new Response('<p class="error">A user name is 1 to 32 letters or digits.</p>', {
            status: 400,
            headers: { 'content-type': 'text/html; charset=utf-8' },
          });
        }
        const cookie = `session=${await sign(user, secretOf(env))}; Path=/; HttpOnly; SameSite=Lax`;
        return new Response(null, { status: 303, headers: { location: '/', 'set-cookie': cookie } });
      },
    },
  },
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
