// The Worker's entry in production (the adapter's dist/_worker.js imports
// it by this name, for Workers as for Pages).
import { createQwikCity } from '@builder.io/qwik-city/middleware/cloudflare-pages';
import qwikCityPlan from '@qwik-city-plan';
import render from './entry.ssr.jsx';

const fetch = createQwikCity({ render, qwikCityPlan });

export { fetch };
