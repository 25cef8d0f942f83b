// OpenNext's Cloudflare adapter with its defaults (no incremental cache:
// the pages here are dynamic). `npm run build` is OpenNext's build, so the
// Next.js build it runs first is named here rather than found as
// `npm run build`.
import { defineCloudflareConfig } from '@opennextjs/cloudflare';

export default { ...defineCloudflareConfig(), buildCommand: 'next build' };
