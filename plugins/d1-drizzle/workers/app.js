import { drizzle } from 'drizzle-orm/d1';
import { createRequestHandler } from 'react-router';

import * as schema from '../database/schema';

const requestHandler = createRequestHandler(() => import('virtual:react-router/server-build'), import.meta.env.MODE);

// As the template: a Drizzle client on the D1 binding, in the load context.
export default {
  async fetch(request, env, ctx) {
    const db = drizzle(env.DB, { schema });
    return requestHandler(request, { cloudflare: { env, ctx }, db });
  },
};
