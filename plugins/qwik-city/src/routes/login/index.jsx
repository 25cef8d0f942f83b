import { component$ } from '@builder.io/qwik';
import { logIn, secretOf } from '../../../../shared/session.js';

// The form's action: a valid name sets the signed session cookie.
export const onPost = async ({ request, platform, send }) => send(await logIn(request, secretOf(platform.env)));

export default component$(() => (
  <form method="post">
    <input name="user" />
    <button>Log in</button>
  </form>
));
