// The server's half: streams <App> (the shell at once, the Suspense boundary
// when its data is ready) and names the browser's half, whose hashed file
// `ssr build` gives as SSR_CLIENT.script.
import { renderToReadableStream } from 'react-dom/server';
import { App } from './App.jsx';

export default {
  async fetch(request) {
    const name = new URL(request.url).searchParams.get('name') ?? 'world';
    // Data that takes a moment, as a fetch would.
    const words = new Promise((resolve) => setTimeout(() => resolve(`Streamed for ${name}.`), 10));
    const stream = await renderToReadableStream(<App name={name} words={words} />, {
      bootstrapModules: [SSR_CLIENT.script],
      bootstrapScriptContent: `window.__PROPS__=${JSON.stringify({ name }).replace(/</g, '\\u003c')}`,
    });
    return new Response(stream, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  },
};
