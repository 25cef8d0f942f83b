import { renderToReadableStream } from 'react-dom/server';
import { ServerRouter } from 'react-router';

// As Cloudflare's template has it, less its bot check: the page streams.
export default async function handleRequest(request, status, headers, routerContext) {
  let failed = false;
  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} />, {
    signal: request.signal,
    onError(error) {
      failed = true;
      console.error(error);
    },
  });
  headers.set('Content-Type', 'text/html');
  return new Response(body, { headers, status: failed ? 500 : status });
}
