// The login form's action: a valid name sets the signed session cookie.
import { readBody, sendRedirect, setCookie, setResponseHeader, setResponseStatus } from 'h3';
import { secretOf, sign } from '../../../shared/session.js';

export default defineEventHandler(async (event) => {
  const form = await readBody(event);
  const user = String(form?.user ?? '').trim();
  if (!/^[a-z0-9]{1,32}$/i.test(user)) {
    setResponseStatus(event, 400);
    setResponseHeader(event, 'content-type', 'text/html; charset=utf-8');
    return '<p class="error">A user name is 1 to 32 letters or digits.</p>';
  }
  const value = await sign(user, secretOf(event.context.cloudflare?.env));
  setCookie(event, 'session', value, { path: '/', httpOnly: true, sameSite: 'lax', encode: (v) => v });
  return sendRedirect(event, '/', 303);
});
