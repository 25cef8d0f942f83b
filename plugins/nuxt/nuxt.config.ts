// Nitro's Cloudflare preset, as Nuxt's deployment guide sets it: it writes
// .output/server/wrangler.json, which `ssr build` finds through
// .wrangler/deploy/config.json as `wrangler deploy` does.
export default defineNuxtConfig({
  compatibilityDate: '2026-11-01',
  telemetry: false,
  devtools: { enabled: false },
  app: { head: { link: [{ rel: 'stylesheet', href: '/site.css' }] } },
  nitro: {
    preset: 'cloudflare_module',
    cloudflare: { deployConfig: true, nodeCompat: true },
  },
});
