// A site of two modules, bundled by esbuild: a render error's stack names
// lib.js and index.js and their lines, not the bundle's.
import { explode } from './lib.js';

export default {
  fetch(request) {
    console.log('rendering', new URL(request.url).pathname);
    return new Response(explode(new URL(request.url).searchParams.get('x') ?? 'fine'));
  },
};
