import { env } from 'cloudflare:workers';
import { logIn, secretOf } from '../../../shared/session.js';

// The form's action: a valid name sets the signed session cookie.
export const POST = ({ request }) => logIn(request, secretOf(env));

export default function Login() {
  return (
    <form method="post">
      <input name="user" />
      <button>Log in</button>
    </form>
  );
}
