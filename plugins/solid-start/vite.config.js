// SolidStart 2 with Nitro 3's Cloudflare preset, as Solid's deployment guide
// sets it: Nitro writes .output/server/wrangler.json, which `ssr build`
// finds through .wrangler/deploy/config.json as `wrangler deploy` does.
import { solidStart } from '@solidjs/start/config';
import { nitro } from 'nitro/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [solidStart(), nitro()],
  // The Workers runtime's own module, as Cloudflare apps import it.
  build: { rolldownOptions: { external: ['cloudflare:workers'] } },
  nitro: {
    preset: 'cloudflare-module',
    compatibilityDate: '2026-11-01',
    cloudflare: { deployConfig: true, nodeCompat: true },
  },
});
