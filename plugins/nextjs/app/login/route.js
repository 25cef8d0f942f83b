import { getCloudflareContext } from '@opennextjs/cloudflare';
import { logIn, secretOf } from 'ssr-example-session';

// The form, and its action: a route handler answers both methods, as a
// plain HTML form needs no server action.
export function GET() {
  return new Response('<form method="post"><input name="user" /><button>Log in</button></form>', {
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });
}

export async function POST(request) {
  return logIn(request, secretOf(getCloudflareContext().env));
}
