// TanStack Start as its Cloudflare guide sets it up: Cloudflare's Vite
// plugin builds the server environment as a Worker and writes
// dist/server/wrangler.json, which `ssr build` finds through
// .wrangler/deploy/config.json as `wrangler deploy` does.
import { cloudflare } from '@cloudflare/vite-plugin';
import { tanstackStart } from '@tanstack/react-start/plugin/vite';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [cloudflare({ viteEnvironment: { name: 'ssr' } }), tanstackStart(), react()],
});
