import node from '@astrojs/node';
import { defineConfig } from 'astro/config';

// Astro's default output is static: the API route opts out of prerendering itself (prerender = false).
export default defineConfig({
  adapter: node({ mode: 'standalone' }),
  // The suite sends text/plain deliveries, which Astro's origin check refuses without an Origin
  // header (docs/frameworks/astro.md); the app trusts the signature instead.
  security: { checkOrigin: false },
  telemetry: false,
  logLevel: 'error',
  devToolbar: { enabled: false },
});
