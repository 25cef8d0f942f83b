import { Form, data, redirect, useActionData } from 'react-router';
import { sessions } from '../session.js';

export async function action({ request, context }) {
  const form = await request.formData();
  const user = String(form.get('user') ?? '').trim();
  if (!/^[a-z0-9]{1,32}$/i.test(user)) {
    return data({ error: 'A user name is 1 to 32 letters or digits.' }, { status: 400 });
  }
  const storage = sessions(context.cloudflare.env);
  const session = await storage.getSession(request.headers.get('Cookie'));
  session.set('user', user);
  return redirect('/', { headers: { 'Set-Cookie': await storage.commitSession(session) } });
}

export default function Login() {
  const result = useActionData();
  return (
    <main>
      <h1>Log in</h1>
      {result?.error ? <p className="error">{result.error}</p> : null}
      <Form method="post">
        <input name="user" />
        <button>Log in</button>
      </Form>
    </main>
  );
}
