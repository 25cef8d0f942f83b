import cloudflare from '@astrojs/cloudflare';
import { defineConfig } from 'astro/config';

// Sessions need no configuration: the adapter keeps them in KV.
export default defineConfig({
  output: 'server',
  adapter: cloudflare(),
});
