// What `qwik add cloudflare-workers` writes: the server build, through the
// Cloudflare adapter, into dist/_worker.js.
import { cloudflarePagesAdapter } from '@builder.io/qwik-city/adapters/cloudflare-pages/vite';
import { extendConfig } from '@builder.io/qwik-city/vite';
import baseConfig from '../../vite.config.js';

export default extendConfig(baseConfig, () => ({
  build: {
    ssr: true,
    rollupOptions: { input: ['src/entry.cloudflare-pages.jsx', '@qwik-city-plan'] },
  },
  plugins: [cloudflarePagesAdapter()],
}));
