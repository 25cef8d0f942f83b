import { open } from '$lib/session.js';

export async function handle({ event, resolve }) {
  const secret = event.platform?.env?.SESSION_SECRET ?? 'development secret';
  event.locals.user = await open(secret, event.cookies.get('session'));
  return resolve(event);
}
