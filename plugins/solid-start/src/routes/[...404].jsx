import { useLocation } from '@solidjs/router';
import { HttpStatusCode } from '@solidjs/start';

export default function NotFound() {
  return (
    <main>
      <HttpStatusCode code={404} />
      <p>no page at {useLocation().pathname}</p>
    </main>
  );
}
