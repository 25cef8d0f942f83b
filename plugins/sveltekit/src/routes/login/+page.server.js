import { fail, redirect } from '@sveltejs/kit';
import { seal } from '$lib/session.js';

export const actions = {
  default: async ({ request, cookies, platform }) => {
    const form = await request.formData();
    const user = String(form.get('user') ?? '').trim();
    if (!/^[a-z0-9]{1,32}$/i.test(user)) {
      return fail(400, { user, error: 'A user name is 1 to 32 letters or digits.' });
    }
    const secret = platform?.env?.SESSION_SECRET ?? 'development secret';
    cookies.set('session', await seal(secret, user), { path: '/', httpOnly: true, sameSite: 'lax', secure: false });
    redirect(303, '/');
  },
};
